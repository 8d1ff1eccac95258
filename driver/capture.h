/* driver/capture.h: a level's captures in its steady state, in order: the lock profile (perf_lock.c) and the user's hook (hook.c). */
#ifndef AIMSWEEP_CAPTURE_H
#define AIMSWEEP_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "driver/cpu_profile.h"
#include "driver/params.h"
#include "driver/perf_record.h"
#include "driver/result.h"

/*
 * A level's capture, from before its gate opens to its end:
 *
 *   capture_prepare()  users wait at the gate: `perf lock record` starts
 *                      with its events off, so that perf's own start-up
 *                      (a fraction of a second of CPU, seconds of wall
 *                      time when hundreds of users compete with it) is
 *                      outside the measured window
 *   capture_start()    t0: perf's events go on, and off again profile_s
 *                      later; the hook starts
 *   capture_finish()   after the users have parked: perf is stopped and
 *                      its profile read into the level; the hook is ended
 *                      if it is still running
 *   capture_abort()    instead of finish, for an interrupted level
 *
 * Zeroed, it means "nothing started", so finish and abort are always safe.
 */
struct level_capture {
	const struct run_params *params;
	unsigned int users;
	size_t level_index;	/* 0-based */
	char dir[PATH_MAX];	/* the level's directory, absolute */
	/* The lock profile (perf_lock.c). */
	char perf_data[PATH_MAX];
	struct perf_record perf;	/* perf lock record and its timer */
	double profile_s;	/* how long perf's events are on */
	/* From t0 to the lock profile's start: with --cpu-profile, the CPU
	 * profile's slice comes first. */
	double profile_offset_s;
	/* How the lock profile is taken; the level's, once prepared. */
	struct lock_capture_info lock_info;
	/* The hook (hook.c): /bin/sh -c CMD under a supervisor that leads
	 * the hook's process group. */
	pid_t hook_pid;
	bool started;		/* capture_start() ran */
	struct cpu_capture cpu;	/* --cpu-profile */
	char error[REASON_LEN];	/* the first failure; it fails the level */
};

/* True when the run asked for any per-level capture. */
bool capture_wanted(const struct run_params *p);

/* Records a failure of c's capture; the first one is kept, as later ones
 * are usually its consequences. It fails the level at capture_finish(). */
void capture_error(struct level_capture *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Opens c->dir/name for the output of one of the capture's children,
 * appended to or truncated, with its path in path[len]; when it cannot,
 * records "WHAT: cannot create PATH: ERROR" and returns -1. */
int capture_output_file(struct level_capture *c, const char *what,
			const char *name, bool append, char *path, size_t len);

/*
 * Once before the first level: with --lock-profile, proves that perf can
 * record lock events here, the way levels will (a 0.1 s profile in a
 * temporary directory). -1 with what failed and how to fix it in err.
 */
int capture_check(const struct run_params *p, char *err, size_t errlen);

/*
 * Called while the level's users wait at the gate (after
 * users_wait_ready(), before users_release()). Makes level_dir (0755) and
 * starts perf with its events off, waiting until it is ready. Does
 * nothing when no capture was asked for. -1 with the reason in err: the
 * level fails with it; call capture_abort() or capture_finish() anyway.
 */
int capture_prepare(struct level_capture *c, const struct run_params *p,
		    unsigned int users, size_t level_index,
		    const char *level_dir, char *err, size_t errlen);

/* Right after the t0 snapshot. Failures are kept for capture_finish(). */
void capture_start(struct level_capture *c);

/*
 * After users_level_end() and after the level's status is settled (the
 * collector has run): ends everything the capture started and fills the
 * level's lock_contention and hook fields. A capture that failed turns an
 * ok level into a failed one, with the reason.
 */
void capture_finish(struct level_capture *c, struct level_result *level);

/* Instead of capture_finish(), for an interrupted level: kills and reaps
 * every process the capture started and removes the profile. */
void capture_abort(struct level_capture *c);

#endif
