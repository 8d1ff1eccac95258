/* driver/users/spawn_state.c: what a process-mode user needs of the driver's run, written by the driver and read back by the users' program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/params.h"
#include "driver/users/spawn_state.h"
#include "jobs/job.h"

/*
 * The layout: a fixed part of numbers, then cpus[n_cpus], then each mix
 * entry (weight, line, the job's name), then the strings. A string is its
 * length as a uint32_t, UINT32_MAX for none, and its bytes. Both sides
 * are the same build, so numbers are in the machine's own order; the
 * magic number tells a stale or foreign image from ours.
 */
#define SPAWN_STATE_MAGIC 0x61696d37u	/* "aim7" */
#define NO_STRING UINT32_MAX

struct spawn_fixed {
	uint32_t magic;
	uint32_t fixed_bytes;	/* sizeof(struct spawn_fixed) */
	uint64_t arena_size, slot_stride, loop_offset, hist_offset;
	uint64_t seed, timer_ns;
	uint64_t total_weight, file_size, pool_size;
	uint32_t max_users, n_entries, n_dirs, n_cpus;
	uint32_t layout;
	int32_t parent;
	uint8_t latency, shared_dirs, file_size_set, pool_size_set;
};

struct spawn_entry {
	uint32_t weight;
	uint32_t line;
};

/* Writes to buf, or only counts the bytes when buf is NULL. */
struct writer {
	char *buf;
	size_t used;
};

static void put(struct writer *w, const void *src, size_t n)
{
	if (w->buf)
		memcpy(w->buf + w->used, src, n);
	w->used += n;
}

static void put_string(struct writer *w, const char *s)
{
	uint32_t len = s ? (uint32_t)strlen(s) : NO_STRING;

	put(w, &len, sizeof(len));
	if (s)
		put(w, s, len);
}

static void encode(const struct user_ctx *ctx, struct writer *w)
{
	const struct arena *a = ctx->arena;
	const struct mix *mix = ctx->mix;
	struct spawn_fixed f = {
		.magic = SPAWN_STATE_MAGIC,
		.fixed_bytes = sizeof(f),
		.arena_size = a->size,
		.slot_stride = a->slot_stride,
		.loop_offset = a->loop_offset,
		.hist_offset = a->hist_offset,
		.seed = ctx->seed,
		.timer_ns = ctx->timer_ns,
		.total_weight = mix->total_weight,
		.file_size = mix->file_size,
		.pool_size = mix->pool_size,
		.max_users = a->max_users,
		.n_entries = (uint32_t)mix->n_entries,
		.n_dirs = (uint32_t)ctx->n_dirs,
		.n_cpus = (uint32_t)ctx->n_cpus,
		.layout = (uint32_t)mix->layout,
		.parent = ctx->parent,
		.latency = ctx->latency,
		.shared_dirs = ctx->shared_dirs != NULL,
		.file_size_set = mix->file_size_set,
		.pool_size_set = mix->pool_size_set,
	};

	put(w, &f, sizeof(f));
	put(w, ctx->cpus, ctx->n_cpus * sizeof(ctx->cpus[0]));
	for (size_t e = 0; e < mix->n_entries; e++) {
		struct spawn_entry se = { mix->entries[e].weight,
					  mix->entries[e].line };

		put(w, &se, sizeof(se));
		put_string(w, mix->entries[e].job->name);
	}
	put_string(w, ctx->libexec_dir);
	put_string(w, ctx->test_fault);
	for (size_t d = 0; d < ctx->n_dirs; d++) {
		put_string(w, ctx->run_dirs[d]);
		if (ctx->shared_dirs)
			put_string(w, ctx->shared_dirs[d]);
	}
}

size_t spawn_state_size(const struct user_ctx *ctx)
{
	struct writer w = { NULL, 0 };

	encode(ctx, &w);
	return w.used;
}

void spawn_state_write(const struct user_ctx *ctx, void *buf)
{
	struct writer w = { buf, 0 };

	encode(ctx, &w);
}

/* Reads from buf; a read past the end sets bad and reads zeros. */
struct reader {
	const char *buf;
	size_t len, at;
	bool bad;
};

static void get(struct reader *r, void *dst, size_t n)
{
	if (r->bad || n > r->len - r->at) {
		r->bad = true;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->buf + r->at, n);
	r->at += n;
}

/* A copy of the next string: NULL for none, which is a bad read where
 * the string is required, as a read past the end is. */
static char *get_string(struct reader *r, bool required)
{
	uint32_t len;
	char *s;

	get(r, &len, sizeof(len));
	if (!r->bad && len == NO_STRING && required)
		r->bad = true;
	if (r->bad || len == NO_STRING)
		return NULL;
	if (len > r->len - r->at || !(s = malloc((size_t)len + 1))) {
		r->bad = true;
		return NULL;
	}
	memcpy(s, r->buf + r->at, len);
	s[len] = '\0';
	r->at += len;
	return s;
}

static int read_fixed(struct reader *r, struct spawn_image *img, char *err,
		      size_t errlen)
{
	struct spawn_fixed f;
	struct arena *a = &img->arena;

	get(r, &f, sizeof(f));
	if (r->bad || f.magic != SPAWN_STATE_MAGIC ||
	    f.fixed_bytes != sizeof(f)) {
		snprintf(err, errlen, "not this build's run state");
		return -1;
	}
	if (f.n_cpus > MAX_CPUS_LISTED || f.n_dirs == 0 ||
	    f.n_dirs > MAX_SCRATCH_DIRS || f.n_entries == 0 ||
	    f.max_users == 0) {
		snprintf(err, errlen, "run state out of range");
		return -1;
	}
	*a = (struct arena){
		.size = f.arena_size,
		.slot_stride = f.slot_stride,
		.loop_offset = f.loop_offset,
		.hist_offset = f.hist_offset,
		.max_users = f.max_users,
		.n_entries = f.n_entries,
		.fd = -1,
	};
	img->mix.n_entries = f.n_entries;
	img->mix.total_weight = f.total_weight;
	img->mix.file_size = f.file_size;
	img->mix.pool_size = f.pool_size;
	img->mix.file_size_set = f.file_size_set;
	img->mix.pool_size_set = f.pool_size_set;
	img->mix.layout = (enum scratch_layout)f.layout;
	img->ctx.seed = f.seed;
	img->ctx.timer_ns = f.timer_ns;
	img->ctx.latency = f.latency;
	img->ctx.n_cpus = f.n_cpus;
	img->ctx.n_dirs = f.n_dirs;
	img->ctx.parent = f.parent;
	img->cpus = calloc(f.n_cpus ? f.n_cpus : 1, sizeof(*img->cpus));
	img->run_dirs = calloc(f.n_dirs, sizeof(*img->run_dirs));
	if (f.shared_dirs)
		img->shared_dirs = calloc(f.n_dirs, sizeof(*img->shared_dirs));
	if (!img->cpus || !img->run_dirs ||
	    (f.shared_dirs && !img->shared_dirs)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int read_entries(struct reader *r, struct spawn_image *img, char *err,
			size_t errlen)
{
	struct mix *mix = &img->mix;

	mix->entries = calloc(mix->n_entries, sizeof(*mix->entries));
	if (!mix->entries) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t e = 0; e < mix->n_entries && !r->bad; e++) {
		struct spawn_entry se;
		char *name;

		get(r, &se, sizeof(se));
		name = get_string(r, true);
		if (!name)
			break;
		mix->entries[e] = (struct mix_entry){ job_find(name), se.weight,
						      se.line };
		if (!mix->entries[e].job) {
			snprintf(err, errlen, "no job %s in this build", name);
			free(name);
			return -1;
		}
		free(name);
	}
	return 0;
}

/* The strings after the entries: the user's paths and fault. */
static void read_strings(struct reader *r, struct spawn_image *img)
{
	img->libexec_dir = get_string(r, true);
	img->test_fault = get_string(r, false);
	for (size_t d = 0; d < img->ctx.n_dirs; d++) {
		img->run_dirs[d] = get_string(r, true);
		if (img->shared_dirs)
			img->shared_dirs[d] = get_string(r, true);
	}
}

/* Points the image's context at what the image holds. */
static void point_ctx(struct spawn_image *img)
{
	struct user_ctx *c = &img->ctx;

	c->arena = &img->arena;
	c->mix = &img->mix;
	c->cpus = img->cpus;
	c->run_dirs = (const char *const *)img->run_dirs;
	c->shared_dirs = (const char *const *)img->shared_dirs;
	c->libexec_dir = img->libexec_dir;
	c->test_fault = img->test_fault;
}

int spawn_state_read(const void *buf, size_t len, struct spawn_image *img,
		     char *err, size_t errlen)
{
	struct reader r = { buf, len, 0, false };

	memset(img, 0, sizeof(*img));
	img->arena.fd = -1;
	if (read_fixed(&r, img, err, errlen))
		goto fail;
	get(&r, img->cpus, img->ctx.n_cpus * sizeof(img->cpus[0]));
	if (read_entries(&r, img, err, errlen))
		goto fail;
	read_strings(&r, img);
	if (r.bad || r.at != len) {
		snprintf(err, errlen, "run state of %zu bytes cut or overlong",
			 len);
		goto fail;
	}
	point_ctx(img);
	return 0;
fail:
	spawn_image_free(img);
	return -1;
}

void spawn_image_free(struct spawn_image *img)
{
	free(img->mix.entries);
	free(img->cpus);
	free(img->libexec_dir);
	free(img->test_fault);
	for (size_t d = 0; d < img->ctx.n_dirs; d++) {
		if (img->run_dirs)
			free(img->run_dirs[d]);
		if (img->shared_dirs)
			free(img->shared_dirs[d]);
	}
	free(img->run_dirs);
	free(img->shared_dirs);
	memset(img, 0, sizeof(*img));
	img->arena.fd = -1;
}
