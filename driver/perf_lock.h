/* driver/perf_lock.h: a level's lock profile: `perf lock record` over a slice of the window, and its report read into the level. */
#ifndef AIMSWEEP_PERF_LOCK_H
#define AIMSWEEP_PERF_LOCK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "driver/params.h"
#include "driver/result.h"

struct level_capture;

/*
 * Once before the first level, with --lock-profile: proves that perf can
 * record lock events here, the way levels will (a 0.1 s profile in a
 * temporary directory). -1 with what failed and how to fix it in err.
 */
int perf_lock_check(const struct run_params *p, char *err, size_t errlen);

/* While the users wait at the gate: starts `perf lock record` on the whole
 * system, its events off, writing c->dir/perf.data, and waits until it is
 * ready. -1 with the reason in err. */
int perf_lock_prepare(struct level_capture *c, char *err, size_t errlen);

/* t0: perf's events go on, and off again c->profile_s later (a timer
 * process turns them off while the driver sleeps). */
void perf_lock_start(struct level_capture *c);

/* After the level: stops perf and, when the level is ok and the capture
 * has not failed, reads the top of `perf lock contention`'s report into
 * level's locks. The profile is deleted unless --keep-profiles. */
void perf_lock_finish(struct level_capture *c, struct level_result *level);

/* Kills and reaps perf and its timer, and deletes the profile. */
void perf_lock_abort(struct level_capture *c);

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
