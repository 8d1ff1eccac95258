/* tests/unit_spawn_state.c: unit tests of the run state the driver hands aimsweep-users, and of the arena mapped anew from its file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "driver/measure/arena.h"
#include "driver/users/spawn_state.h"
#include "driver/users/user_level.h"
#include "driver/base/workfile.h"
#include "jobs/job.h"
#include "tests/test.h"

/* A driver's side of a run: the users' context as the pool fills it. */
struct driver_side {
	struct user_ctx ctx;
	struct arena arena;
	struct mix mix;
	int cpus[3];
	char *libexec_dir;
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
	d->cpus[0] = 1;
	d->cpus[1] = 0;
	d->cpus[2] = 3;
	d->libexec_dir = strdup("/opt/aimsweep/libexec");
	d->run_dirs[0] = "/tmp/a/aimsweep.1";
	d->run_dirs[1] = "rel/b";
	d->shared_dirs[0] = "/tmp/a/aimsweep.1/shared";
	d->shared_dirs[1] = "rel/b/shared";
	d->ctx = (struct user_ctx){
		.arena = &d->arena,
		.mix = &d->mix,
		.run_dirs = d->run_dirs,
		.shared_dirs = shared ? d->shared_dirs : NULL,
		.n_dirs = 2,
		.parent = 4242,
		.seed = 0x123456789abcdefULL,
		.timer_ns = 42,
		.latency = true,
		.cpus = d->cpus,
		.n_cpus = 3,
		.libexec_dir = d->libexec_dir,
		.test_fault = test_fault,
	};
	return true;
}

static void driver_side_free(struct driver_side *d)
{
	arena_destroy(&d->arena);
	mix_free(&d->mix);
	free(d->libexec_dir);
}

/* The state written, in a buffer of its own size. */
static char *state_of(const struct user_ctx *ctx, size_t *len)
{
	char *buf;

	*len = spawn_state_size(ctx);
	buf = malloc(*len);
	if (buf)
		spawn_state_write(ctx, buf);
	return buf;
}

/* Everything a user reads of the run is what the driver had. */
static void check_same_run(const struct driver_side *d,
			   const struct spawn_image *img)
{
	const struct user_ctx *c = &img->ctx;

	CHECK(c->arena == &img->arena && c->mix == &img->mix &&
	      c->cpus == img->cpus);
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
	CHECK_EQ_U64(c->seed, d->ctx.seed);
	CHECK_EQ_U64(c->timer_ns, 42);
	CHECK(c->latency);
	CHECK_EQ_U64(c->n_cpus, 3);
	CHECK(c->cpus[0] == 1 && c->cpus[1] == 0 && c->cpus[2] == 3);
	CHECK_STR_EQ(c->libexec_dir, "/opt/aimsweep/libexec");
	CHECK_EQ_INT(c->parent, 4242);
	CHECK_EQ_U64(c->n_dirs, 2);
	CHECK_STR_EQ(c->run_dirs[0], "/tmp/a/aimsweep.1");
	CHECK_STR_EQ(c->run_dirs[1], "rel/b");
}

static void test_round_trip(void)
{
	struct driver_side d;
	struct spawn_image img;
	char err[256] = "", *buf;
	size_t len;

	if (!driver_side_init(&d, true, "lag:1:2"))
		return;
	buf = state_of(&d.ctx, &len);
	if (CHECK(buf) &&
	    CHECK(spawn_state_read(buf, len, &img, err, sizeof(err)) == 0)) {
		check_same_run(&d, &img);
		CHECK_STR_EQ(img.ctx.test_fault, "lag:1:2");
		CHECK(img.ctx.shared_dirs ==
		      (const char *const *)img.shared_dirs);
		CHECK_STR_EQ(img.ctx.shared_dirs[0],
			     "/tmp/a/aimsweep.1/shared");
		CHECK_STR_EQ(img.ctx.shared_dirs[1], "rel/b/shared");
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
	buf = state_of(&d.ctx, &len);
	if (CHECK(buf) &&
	    CHECK(spawn_state_read(buf, len, &img, err, sizeof(err)) == 0)) {
		check_same_run(&d, &img);
		CHECK(img.ctx.test_fault == NULL);
		CHECK(img.ctx.shared_dirs == NULL);
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
	buf = state_of(&d.ctx, &len);
	longer = buf ? calloc(1, len + 1) : NULL;
	if (!CHECK(buf && longer))
		goto out;
	for (size_t cut = 0; cut < len; cut++) {
		err[0] = '\0';
		if (spawn_state_read(buf, cut, &img, err, sizeof(err)) == -1 &&
		    err[0] && !img.mix.entries && !img.libexec_dir)
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
