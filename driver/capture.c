/* driver/capture.c: a level's captures in its steady state, in order: the CPU profile (cpu_profile.c), the lock profile (perf_lock.c) and the user's hook (hook.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/capture.h"
#include "driver/cpu_profile.h"
#include "driver/hook.h"
#include "driver/perf_lock.h"
#include "driver/process.h"

bool capture_wanted(const struct run_params *p)
{
	return p->lock_profile || p->cpu_profile || p->hook_cmd;
}

void capture_error(struct level_capture *c, const char *fmt, ...)
{
	va_list ap;

	if (c->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
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

int capture_check(const struct run_params *p, char *err, size_t errlen)
{
	if (cpu_profile_check(p, err, errlen))
		return -1;
	if (!p->lock_profile)
		return 0;
	return perf_lock_check(p, err, errlen);
}

int capture_prepare(struct level_capture *c, const struct run_params *p,
		    unsigned int users, size_t level_index,
		    const char *level_dir, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->params = p;
	c->users = users;
	c->level_index = level_index;
	if (!capture_wanted(p))
		return 0;
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
	if (p->cpu_profile &&
	    cpu_profile_prepare(&c->cpu, p, c->dir, err, errlen))
		return -1;
	if (!p->lock_profile)
		return 0;
	return perf_lock_prepare(c, err, errlen);
}

void capture_start(struct level_capture *c)
{
	if (!c->params || c->started)
		return;
	c->started = true;
	/* The CPU profile first, from t0; the lock profile after it. */
	cpu_profile_start(&c->cpu);
	perf_lock_start(c);
	if (c->params->hook_cmd)
		hook_start(c);
}

void capture_finish(struct level_capture *c, struct level_result *level)
{
	char err[REASON_LEN];

	if (!c->params)
		return;
	if (run_interrupted) {
		capture_abort(c);
		return;
	}
	/* The hook first: its level is over. */
	hook_finish(c, level);
	perf_lock_finish(c, level);
	if (cpu_profile_finish(&c->cpu, level,
			       level->status == LEVEL_OK && !c->error[0], err,
			       sizeof(err)))
		capture_error(c, "%s", err);
	if (run_interrupted) {
		capture_abort(c);
		return;
	}
	if (c->error[0] && level->status == LEVEL_OK) {
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "%s", c->error);
	}
	c->params = NULL;
}

void capture_abort(struct level_capture *c)
{
	if (!c->params)
		return;
	cpu_profile_abort(&c->cpu);
	perf_lock_abort(c);
	hook_abort(c);
	c->params = NULL;
}
