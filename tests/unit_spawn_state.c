/* tests/unit_spawn_state.c: unit tests of the run state the driver hands aimsweep-users, and of the arena mapped anew from its file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "driver/measure/arena.h"
#include "driver/users/spawn_state.h"
#include "driver/users/user_loop.h"
#include "driver/base/workfile.h"
#include "jobs/job.h"
#include "tests/test.h"

/* A driver's side of a run: the pool as sweep.c fills it in. */
struct driver_side {
	struct user_pool pool;
	struct arena arena;
	struct mix mix;
	struct run_params params;
	const char *run_dirs[2];
	const char *shared_dirs[2];
};

static const char mix_text[] =
	"FILESIZE 20K\nPOOLSIZE 3M\n3 getppid\n2 creat\n1 getppid\n";

/* Sets d up; false (and a failed check) when it cannot be. */
static bool driver_side_init(struct driver_side *d, bool shared,
			     const char *test_fault)
{
	char err[256];

	memset(d, 0, sizeof(*d));
	if (!CHECK(workfile_parse("t.wf", mix_text, sizeof(mix_text) - 1,
				  &d->mix, err, sizeof(err)) == 0))
		return false;
	if (!CHECK(arena_create(&d->arena, 7, d->mix.n_entries,
				users_loop_bytes(&d->mix), true) == 0))
		return false;
	d->params.seed = 0x123456789abcdefULL;
	d->params.timer_ns = 42;
	d->params.latency = true;
	d->params.cpus[0] = 1;
	d->params.cpus[1] = 0;
	d->params.cpus[2] = 3;
	d->params.n_cpus = 3;
	d->params.libexec_dir = strdup("/opt/aimsweep/libexec");
	d->params.test_fault = test_fault;
	d->run_dirs[0] = "/tmp/a/aimsweep.1";
	d->run_dirs[1] = "rel/b";
	d->shared_dirs[0] = "/tmp/a/aimsweep.1/shared";
	d->shared_dirs[1] = "rel/b/shared";
	d->pool.arena = &d->arena;
	d->pool.mix = &d->mix;
	d->pool.params = &d->params;
	d->pool.run_dirs = d->run_dirs;
	d->pool.shared_dirs = shared ? d->shared_dirs : NULL;
	d->pool.n_dirs = 2;
	d->pool.max_users = 7;
	d->pool.parent = 4242;
	return true;
}

static void driver_side_free(struct driver_side *d)
{
	arena_destroy(&d->arena);
	mix_free(&d->mix);
	free(d->params.libexec_dir);
}

/* The state written, in a buffer of its own size. */
static char *state_of(const struct user_pool *pool, size_t *len)
{
	char *buf;

	*len = spawn_state_size(pool);
	buf = malloc(*len);
	if (buf)
		spawn_state_write(pool, buf);
	return buf;
}

/* Everything a user reads of the pool is what the driver had. */
static void check_same_run(const struct driver_side *d,
			   const struct spawn_image *img)
{
	const struct user_pool *p = &img->pool;

	CHECK(p->arena == &img->arena && p->mix == &img->mix &&
	      p->params == &img->params);
	CHECK_EQ_U64(img->arena.size, d->arena.size);
	CHECK_EQ_U64(img->arena.slot_stride, d->arena.slot_stride);
	CHECK_EQ_U64(img->arena.loop_offset, d->arena.loop_offset);
	CHECK_EQ_U64(img->arena.hist_offset, d->arena.hist_offset);
	CHECK_EQ_U64(img->arena.max_users, 7);
	CHECK_EQ_U64(img->arena.n_entries, d->mix.n_entries);
	CHECK(img->arena.base == NULL && img->arena.fd == -1);
	CHECK_EQ_U64(img->mix.n_entries, 2);
	for (size_t e = 0; e < d->mix.n_entries && e < img->mix.n_entries;
	     e++) {
		CHECK(img->mix.entries[e].job == d->mix.entries[e].job);
		CHECK_EQ_U64(img->mix.entries[e].weight,
			     d->mix.entries[e].weight);
		CHECK_EQ_U64(img->mix.entries[e].line, d->mix.entries[e].line);
	}
	CHECK_EQ_U64(img->mix.total_weight, 6);
	CHECK_EQ_U64(img->mix.file_size, 20 * 1024);
	CHECK_EQ_U64(img->mix.pool_size, 3 * 1024 * 1024);
	CHECK(img->mix.file_size_set && img->mix.pool_size_set);
	CHECK(img->mix.layout == d->mix.layout);
	for (unsigned int users = 1; users < 2000; users *= 3)
		CHECK_EQ_U64(mix_file_size(&img->mix, users),
			     mix_file_size(&d->mix, users));
	CHECK(mix_uses_dir(&img->mix) == mix_uses_dir(&d->mix));
	CHECK(users_loop_bytes(&img->mix) == users_loop_bytes(&d->mix));
	CHECK_EQ_U64(img->params.seed, d->params.seed);
	CHECK_EQ_U64(img->params.timer_ns, 42);
	CHECK(img->params.latency);
	CHECK_EQ_U64(img->params.n_cpus, 3);
	CHECK(img->params.cpus[0] == 1 && img->params.cpus[1] == 0 &&
	      img->params.cpus[2] == 3);
	CHECK_STR_EQ(img->params.libexec_dir, "/opt/aimsweep/libexec");
	CHECK_EQ_INT(p->parent, 4242);
	CHECK_EQ_U64(p->max_users, 7);
	CHECK_EQ_U64(p->n_dirs, 2);
	CHECK_STR_EQ(p->run_dirs[0], "/tmp/a/aimsweep.1");
	CHECK_STR_EQ(p->run_dirs[1], "rel/b");
}

static void test_round_trip(void)
{
	struct driver_side d;
	struct spawn_image img;
	char err[256] = "", *buf;
	size_t len;

	if (!driver_side_init(&d, true, "lag:1:2"))
		return;
	buf = state_of(&d.pool, &len);
	if (CHECK(buf) &&
	    CHECK(spawn_state_read(buf, len, &img, err, sizeof(err)) == 0)) {
		check_same_run(&d, &img);
		CHECK_STR_EQ(img.params.test_fault, "lag:1:2");
		CHECK(img.pool.shared_dirs == img.shared_dirs);
		CHECK_STR_EQ(img.pool.shared_dirs[0],
			     "/tmp/a/aimsweep.1/shared");
		CHECK_STR_EQ(img.pool.shared_dirs[1], "rel/b/shared");
		spawn_image_free(&img);
	}
	free(buf);
	driver_side_free(&d);
}

/* No fault and no shared directories stay none. */
static void test_round_trip_absent(void)
{
	struct driver_side d;
	struct spawn_image img;
	char err[256] = "", *buf;
	size_t len;

	if (!driver_side_init(&d, false, NULL))
		return;
	buf = state_of(&d.pool, &len);
	if (CHECK(buf) &&
	    CHECK(spawn_state_read(buf, len, &img, err, sizeof(err)) == 0)) {
		check_same_run(&d, &img);
		CHECK(img.params.test_fault == NULL);
		CHECK(img.pool.shared_dirs == NULL);
		spawn_image_free(&img);
	}
	free(buf);
	driver_side_free(&d);
}

/* A state cut anywhere, or with bytes after it, or of another build, is
 * refused with a reason, and the image holds nothing. */
static void test_refused(void)
{
	struct driver_side d;
	struct spawn_image img;
	char err[256], *buf, *longer;
	size_t len;
	unsigned int refused = 0;

	if (!driver_side_init(&d, true, "lag:1:2"))
		return;
	buf = state_of(&d.pool, &len);
	longer = buf ? calloc(1, len + 1) : NULL;
	if (!CHECK(buf && longer))
		goto out;
	for (size_t cut = 0; cut < len; cut++) {
		err[0] = '\0';
		if (spawn_state_read(buf, cut, &img, err, sizeof(err)) == -1 &&
		    err[0] && !img.mix.entries && !img.params.libexec_dir)
			refused++;
	}
	CHECK_EQ_U64(refused, len);
	memcpy(longer, buf, len);
	CHECK(spawn_state_read(longer, len + 1, &img, err, sizeof(err)) == -1);
	CHECK_STR_CONTAINS(err, "cut or overlong");
	buf[0] ^= 1;
	CHECK(spawn_state_read(buf, len, &img, err, sizeof(err)) == -1);
	CHECK_STR_EQ(err, "not this build's run state");
out:
	free(longer);
	free(buf);
	driver_side_free(&d);
}

/* The arena mapped anew from its file: the header is the driver's, and a
 * slot attached into the reserve is the driver's slot, at the same
 * offset. */
static void test_arena_map_header(void)
{
	struct driver_side d;
	struct arena a;
	struct user_slot *mine, *theirs;

	if (!driver_side_init(&d, false, NULL))
		return;
	a = (struct arena){
		.size = d.arena.size,
		.slot_stride = d.arena.slot_stride,
		.loop_offset = d.arena.loop_offset,
		.hist_offset = d.arena.hist_offset,
		.max_users = d.arena.max_users,
		.n_entries = d.arena.n_entries,
		.fd = -1,
	};
	if (!CHECK(arena_map_header(&a, d.arena.fd) == 0))
		goto out;
	CHECK(a.base != d.arena.base && a.fd == d.arena.fd);
	d.arena.hdr->level_gen = 77;
	CHECK_EQ_U64(a.hdr->level_gen, 77);
	CHECK(arena_attach_slot(&a, 6) == 0);
	mine = arena_slot(&a, 6);
	theirs = arena_slot(&d.arena, 6);
	theirs->counters[1].ops = 123456;
	CHECK_EQ_U64(mine->counters[1].ops, 123456);
	mine->pid = 99;
	CHECK_EQ_INT(theirs->pid, 99);
	munmap(a.base, a.size);
out:
	driver_side_free(&d);
}

int main(void)
{
	RUN_TEST(test_round_trip);
	RUN_TEST(test_round_trip_absent);
	RUN_TEST(test_refused);
	RUN_TEST(test_arena_map_header);
	return test_done();
}
