/* driver/capture.h: per-level capture in the steady state: perf lock profiles and the user's hook. */
#ifndef AIMSWEEP_CAPTURE_H
#define AIMSWEEP_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "driver/cpu_profile.h"
#include "driver/params.h"
#include "driver/result.h"

/*
 * A level's capture, from before its gate opens to its end:
 *
 *   capture_prepare()  users wait at the gate: `perf lock record` starts
 *                      with its events off, so that perf's own start-up
 *                      (0.5 s of CPU here, 8 s of wall time when 200 users
 *                      compete with it) is outside the measured window
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
	char perf_data[PATH_MAX];
	pid_t perf_pid;		/* leads its own process group */
	int perf_ctl_fd;	/* commands to perf; open while perf_pid */
	int perf_ack_fd;	/* perf's acknowledgements */
	bool perf_fds_open;
	double profile_s;	/* how long perf's events are on */
	/* From t0 to the lock profile's start: with --cpu-profile, the CPU
	 * profile's slice comes first. */
	double profile_offset_s;
	pid_t timer_pid;	/* turns perf's events off at t0 + profile_s */
	pid_t hook_pid;		/* /bin/sh -c CMD, leads its own group */
	bool started;		/* capture_start() ran */
	struct cpu_capture cpu;	/* --cpu-profile */
	char error[REASON_LEN];	/* the first failure; it fails the level */
};

/*
 * Process helpers of capture.c that cpu_profile.c uses too; each is
 * described where it is defined.
 */
uint64_t deadline_in(double seconds);
const char *status_text(int status, char *buf, size_t len);
void child_setup(pid_t parent, int pdeath_sig);
void close_other_fds(const int *keep, size_t n_keep);
pid_t spawn(char *const argv[], int out_fd, const int *keep,
	    size_t n_keep);
bool has_exited(pid_t pid);
bool wait_exit_until(pid_t pid, uint64_t deadline_ns, bool interruptible);
int end_group(pid_t *pid, int sig, double grace_s);
int write_nosigpipe(int fd, const char *buf, size_t len);
int read_paranoid(void);
bool in_path(const char *name);

/* True when the run asked for any per-level capture. */
bool capture_wanted(const struct run_params *p);

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

/* A level's lock report as aimsweep keeps it. */
struct lock_report {
	struct lock_entry *entries;	/* malloc()ed, NULL when none */
	size_t n_entries;
	size_t dropped;		/* lines perf could not have measured */
};

/*
 * Reads the text of `perf lock contention -v -F
 * contended,wait_total,wait_max,avg_wait` (perf 6.1: a header line, then
 * a line per call stack: contended, total, max and average wait as
 * "420.65 ms", type, caller; with -v the stack's frames under it),
 * skipping every other line. Lines with no contention or with one wait
 * of 95% or more of capture_ns (the time perf's events were on) are
 * unpaired events, not waits: they are dropped and counted. The rest are
 * merged by caller and type (contended and total wait summed, max wait
 * the largest, avg recomputed, each line kept as a row), and the `top`
 * entries with the most total wait kept, most first. Returns 0, EBADMSG
 * when the header never came (that is not the report we know), or
 * ENOMEM.
 */
int capture_parse_contention(FILE *f, uint64_t capture_ns, size_t top,
			     struct lock_report *out);

#endif
