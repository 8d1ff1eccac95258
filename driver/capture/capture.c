/* driver/capture/capture.c: a level's captures in its steady state, run in the order of one table, which capture_list.h lists. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "driver/capture/capture.h"
#include "driver/base/process.h"
#include "driver/base/util.h"

/* Each capture's row, defined in its own file. */
#define CAPTURE(name) extern const struct capture_ops name##_capture;
#include "driver/capture/capture_list.h"
#undef CAPTURE

/* Every capture, in capture_list.h's order (which says why it matters). */
static const struct capture_ops *const captures[] = {
#define CAPTURE(name) &name##_capture,
#include "driver/capture/capture_list.h"
#undef CAPTURE
};

#define N_CAPTURES (sizeof(captures) / sizeof(captures[0]))

/* What each capture's check kept for the run. */
struct capture_run {
	const struct run_params *params;
	void *kept[N_CAPTURES];
};

bool capture_wanted(const struct run_params *p)
{
	for (size_t i = 0; i < N_CAPTURES; i++)
		if (captures[i]->wanted(p))
			return true;
	return false;
}

void capture_error(struct level_capture *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_keepv(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
}

int capture_output_file(struct level_capture *c, const char *what,
			const char *name, bool append, char *path, size_t len)
{
	int fd = process_output_file(c->dir, name, append, path, len);

	if (fd < 0)
		capture_error(c, "%s: cannot create %s: %s", what, path,
			      strerror(errno));
	return fd;
}

cJSON *capture_result_object(struct level_capture *c,
			     struct level_result *level, const char *key)
{
	cJSON *o;

	if (!level->capture_keys)
		level->capture_keys = cJSON_CreateObject();
	if (!level->capture_keys) {
		capture_error(c, "%s: out of memory", key);
		return NULL;
	}
	if (cJSON_HasObjectItem(level->capture_keys, key)) {
		capture_error(c, "%s: written twice in one level", key);
		return NULL;
	}
	o = cJSON_AddObjectToObject(level->capture_keys, key);
	if (!o)
		capture_error(c, "%s: out of memory", key);
	return o;
}

int capture_check(const struct run_params *p, struct capture_run **run,
		  char *err, size_t errlen)
{
	struct capture_run *r = calloc(1, sizeof(*r));

	*run = NULL;
	if (!r) {
		snprintf(err, errlen, "cannot check the captures: %s",
			 strerror(errno));
		return -1;
	}
	r->params = p;
	for (size_t i = 0; i < N_CAPTURES; i++) {
		const struct capture_ops *ops = captures[i];

		if (!ops->wanted(p) || !ops->check)
			continue;
		if (ops->check(p, &r->kept[i], err, errlen)) {
			capture_run_free(r);
			return -1;
		}
	}
	*run = r;
	return 0;
}

void capture_run_free(struct capture_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < N_CAPTURES; i++)
		if (run->kept[i] && captures[i]->release)
			captures[i]->release(run->kept[i]);
	free(run);
}

/* Makes the level's directory, absolute in c->dir; -1 with err. */
static int make_level_dir(struct level_capture *c, const char *level_dir,
			  char *err, size_t errlen)
{
	if (mkdir(level_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", level_dir,
			 strerror(errno));
		return -1;
	}
	/* The hook may change directory: it gets an absolute path. */
	if (!realpath(level_dir, c->dir)) {
		snprintf(err, errlen, "cannot resolve %s: %s", level_dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* Gives capture i its zeroed state and prepares it; -1 with err. */
static int prepare_one(struct level_capture *c, size_t i, char *err,
		       size_t errlen)
{
	const struct capture_ops *ops = captures[i];
	void *st = calloc(1, ops->level_size ? ops->level_size : 1);

	if (!st) {
		snprintf(err, errlen, "%s: cannot start: %s", ops->name,
			 strerror(errno));
		return -1;
	}
	c->states[i] = st;
	if (!ops->prepare || !ops->prepare(c, c->run->kept[i], st))
		return 0;
	snprintf(err, errlen, "%s", c->error[0] ? c->error : ops->name);
	return -1;
}

int capture_prepare(struct level_capture *c, struct capture_run *run,
		    unsigned int users, size_t level_index,
		    const char *level_dir, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (!run)
		return 0;
	c->states = calloc(N_CAPTURES, sizeof(*c->states));
	if (!c->states) {
		snprintf(err, errlen, "cannot start the captures: %s",
			 strerror(errno));
		return -1;
	}
	/* With its states, the level has captures to finish or abort. */
	c->params = run->params;
	c->users = users;
	c->level_index = level_index;
	c->run = run;
	if (make_level_dir(c, level_dir, err, errlen))
		return -1;
	for (size_t i = 0; i < N_CAPTURES; i++)
		if (captures[i]->wanted(c->params) &&
		    prepare_one(c, i, err, errlen))
			return -1;
	return 0;
}

void capture_start(struct level_capture *c, uint64_t t0_ns)
{
	if (!c->params || c->started)
		return;
	c->started = true;
	c->t0_ns = t0_ns;
	for (size_t i = 0; i < N_CAPTURES; i++)
		if (c->states[i] && captures[i]->start)
			captures[i]->start(c, c->states[i]);
}

void capture_stop(struct level_capture *c, uint64_t t1_ns)
{
	if (!c->params || !c->started || c->t1_ns)
		return;
	c->t1_ns = t1_ns;
	for (size_t i = 0; i < N_CAPTURES; i++)
		if (c->states[i] && captures[i]->stop)
			captures[i]->stop(c, c->states[i]);
}

/* Frees every capture's state of the level; nothing is left started. */
static void capture_end(struct level_capture *c)
{
	for (size_t i = 0; i < N_CAPTURES; i++)
		free(c->states[i]);
	free(c->states);
	c->states = NULL;
	c->params = NULL;
}

void capture_finish(struct level_capture *c, struct level_result *level)
{
	if (!c->params)
		return;
	if (run_interrupted) {
		capture_abort(c);
		return;
	}
	/* From the bottom of the table up: the hook first, its level is
	 * over. */
	for (size_t i = N_CAPTURES; i-- > 0;)
		if (c->states[i] && captures[i]->write)
			captures[i]->write(c, c->states[i], level);
	if (run_interrupted) {
		capture_abort(c);
		return;
	}
	if (c->error[0] && level->status == LEVEL_OK) {
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "%s", c->error);
	}
	capture_end(c);
}

void capture_abort(struct level_capture *c)
{
	if (!c->params)
		return;
	for (size_t i = 0; i < N_CAPTURES; i++)
		if (c->states[i] && captures[i]->abort)
			captures[i]->abort(c, c->states[i]);
	capture_end(c);
}
