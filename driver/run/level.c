/* driver/run/level.c: one level: start its users, warm up, measure the window, stop, collect. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/base/process.h"
#include "driver/base/util.h"
#include "driver/run/level.h"
#include "driver/run/window.h"

/* When the last user was through the gate and set up, t_gate at the
 * earliest; users that never came through (a failed level) are left out. */
static uint64_t last_through_ns(const struct arena *a, unsigned int users,
				uint64_t t_gate)
{
	uint64_t last = t_gate;

	for (unsigned int u = 0; u < users; u++) {
		uint64_t t = __atomic_load_n(&arena_slot(a, u)->gate_passed_ns,
					     __ATOMIC_RELAXED);

		if (t > last)
			last = t;
	}
	return last;
}

/* The warm-up until `deadline`, looking at the users every 100 ms: one
 * whose set-up failed ends the level then, not after the whole warm-up
 * (up to an hour). false on a failure or a signal. */
static bool warm_up(struct sweep *s, struct level_run *lr, uint64_t deadline)
{
	const uint64_t step = NSEC_PER_SEC / 10;

	for (uint64_t t = now_ns(); t < deadline; t = now_ns()) {
		if (!sleep_until_ns(deadline - t > step ? t + step : deadline,
				    &run_interrupted) ||
		    pool_check(&s->pool, lr))
			return false;
	}
	return true;
}

/* --layout shared: the directory every user of the level works in. A
 * level that cannot have it fails, and so would every higher one. */
static int make_shared_dirs(struct sweep *s, struct level_result *level)
{
	for (size_t i = 0; s->pool.ctx.shared_dirs && i < s->n_scratch; i++) {
		if (mkdir(s->shared_dirs[i], 0700) && errno != EEXIST) {
			level->status = LEVEL_FAILED;
			snprintf(level->reason, sizeof(level->reason),
				 "cannot create %s: %s", s->shared_dirs[i],
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* "8 users", with -r ", repeat 2 of 3": the level in progress lines. */
static void level_tag(char *tag, size_t len, const struct run_params *p,
		      unsigned int users, unsigned int repeat)
{
	snprintf(tag, len, "%u user%s", users, users == 1 ? "" : "s");
	if (p->repeat > 1)
		snprintf(tag + strlen(tag), len - strlen(tag),
			 ", repeat %u of %u", repeat + 1, p->repeat);
}

/*
 * From the gate's opening to t0. The window starts with every user set up
 * and in its loop, and each of them in it for at least half the warm-up:
 * at thousands of users, or with jobs that write files to set up, coming
 * through the gate (release_s) can take longer than the warm-up itself.
 * false on a failure or a signal.
 */
static bool settle(struct sweep *s, struct level_run *lr, unsigned int users,
		   uint64_t t_gate)
{
	uint64_t warmup = (uint64_t)(s->params->warmup_s * NSEC_PER_SEC);

	return warm_up(s, lr, t_gate + warmup) &&
	       !pool_wait_through(&s->pool, lr) &&
	       warm_up(s, lr, last_through_ns(&s->arena, users, t_gate) +
				      warmup / 2);
}

/* With the users parked: the level failed (why, and how many users), or
 * its window's counters become its numbers. */
static void level_outcome(struct sweep *s, const struct level_run *lr,
			  unsigned int users, struct level_result *level,
			  bool measured, uint64_t t_gate, uint64_t t_stop)
{
	level->rusage = lr->rusage;
	if (measured) {
		level->release_s = (double)(last_through_ns(&s->arena, users,
							     t_gate) -
					    t_gate) / NSEC_PER_SEC;
		level->stop_s = (double)(now_ns() - t_stop) / NSEC_PER_SEC;
	}
	if (lr->failed) {
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "%s", lr->reason);
		if (lr->failures > 1) {
			size_t n = strlen(level->reason);

			snprintf(level->reason + n, sizeof(level->reason) - n,
				 " (and %u more user%s failed)",
				 lr->failures - 1, lr->failures == 2 ? "" : "s");
		}
	} else if (measured) {
		if (collector_level(&s->t0, &s->t1, &s->arena, s->mix, users,
				    level)) {
			level->status = LEVEL_FAILED;
			snprintf(level->reason, sizeof(level->reason),
				 "out of memory while collecting results");
		}
	}
}

/* The captures' end, and the scratch directories emptied when users died:
 * parked users have removed their files (and keep their own directories
 * for the next level); only a level in which users died can have left
 * something. */
static void level_tidy(struct sweep *s, struct level_capture *cap,
		       struct level_result *level)
{
	if (run_interrupted)
		capture_abort(cap);
	else
		capture_finish(cap, level);
	for (size_t i = 0; level->status != LEVEL_OK && i < s->n_scratch; i++)
		if (scratch_clear(&s->scratch[i]))
			msg_warn("could not empty %s after the level",
				 s->scratch[i].dir);
}

bool level_measure(struct sweep *s, unsigned int users, size_t index,
		   unsigned int repeat, struct level_result *level)
{
	const struct run_params *p = s->params;
	struct level_capture cap = { 0 };
	char level_dir[PATH_MAX + 32], err[REASON_LEN], tag[64];
	struct level_run lr = { 0 };
	struct window_start w;
	uint64_t t_start, t_gate = 0, t_stop;
	bool measured = false;

	memset(level, 0, sizeof(*level));
	level->users = users;
	if (make_shared_dirs(s, level))
		return false;
	level_tag(tag, sizeof(tag), p, users, repeat);
	progress_show("%s: starting", tag);
	t_start = now_ns();
	if (pool_level_begin(&s->pool, &lr, users) ||
	    pool_wait_ready(&s->pool, &lr))
		goto stop;
	level->start_s = (double)(now_ns() - t_start) / NSEC_PER_SEC;
	result_dir_level(&s->dir, p, users, index, repeat, level_dir,
			 sizeof(level_dir));
	if (capture_prepare(&cap, s->captures, users, index, level_dir, err,
			    sizeof(err))) {
		lr.failed = true;
		snprintf(lr.reason, sizeof(lr.reason), "%s", err);
		goto stop;
	}

	t_gate = now_ns();
	pool_release(&s->pool, &lr);
	progress_show("%s: warm-up", tag);
	if (!settle(s, &lr, users, t_gate))
		goto stop;
	window_open(s, &lr, users, &w);
	capture_start(&cap, s->t0.t_ns);
	measured = window_close(s, level, &w,
				window_sample(s, &lr, users, level, tag));
	/* After the machine's and the driver's counters at t1 are read, so
	 * that what a capture does to end is outside the window. */
	if (measured)
		capture_stop(&cap, s->t1.t_ns);
stop:
	t_stop = now_ns();
	progress_show("%s: stopping", tag);
	pool_stop(&s->pool, &lr);
	pool_level_end(&s->pool, &lr, p->grace_s);
	level_outcome(s, &lr, users, level, measured, t_gate, t_stop);
	level_tidy(s, &cap, level);
	return !lr.end_ramp;
}
