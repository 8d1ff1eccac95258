/* driver/capture/perf_lock.h: a level's lock profile by `perf lock record` over a slice of the window, and its report read into the level: lock_profile.c's fallback to the in-kernel collector. */
#ifndef AIMSWEEP_PERF_LOCK_H
#define AIMSWEEP_PERF_LOCK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "driver/capture/capture.h"
#include "driver/capture/ksyms.h"
#include "driver/capture/lock_report.h"
#include "driver/measure/result.h"

/*
 * --lock-profile with perf lock record, as lock_profile.c runs it (this
 * is no row of capture.c's table of its own). check proves, once before the first level, that perf
 * can record lock events here, the way levels will (a 0.1 s profile in a
 * temporary directory). At the gate `perf lock record` starts on the
 * whole system with its events off, so that perf's own start-up (a
 * fraction of a second of CPU, seconds of wall time when hundreds of
 * users compete with it) is outside the window. From t0, or after the
 * slices of the profiles before it, its events are on for
 * --lock-profile-seconds (a timer process turns them off while the
 * driver sleeps). After the level, when it is ok and no capture has failed
 * so far, the top of `perf lock contention`'s report is read into the level's
 * locks. The profile is deleted unless --keep-profiles.
 */
extern const struct capture_ops perf_lock_capture;

/*
 * Reads the text of `perf lock contention -v -F
 * contended,wait_total,wait_max,avg_wait` (perf 6.1: a header line, then
 * a line per call stack: contended, total, max and average wait as
 * "420.65 ms", type, caller; with -v the stack's frames under it),
 * skipping every other line. Lines with no contention or with one wait
 * of 95% or more of capture_ns (the time perf's events were on) are
 * unpaired events, not waits: they are dropped and counted. With ks, a
 * line's caller is its stack's first frame outside the kernel's lock and
 * scheduler code, as the in-kernel collector names it (perf's own with
 * -v can be a frame further out); without, perf's. The rest are
 * merged by caller and type (contended and total wait summed, max wait
 * the largest, avg recomputed, each line kept as a row), and the `top`
 * entries with the most total wait kept, most first. Returns 0, or -1
 * with why in err (naming the report as path) when the header never came
 * (that is not the report we know) or memory ran out.
 */
int capture_parse_contention(FILE *f, const char *path, uint64_t capture_ns,
			     size_t top, const struct ksyms *ks,
			     struct lock_report *out, char *err,
			     size_t errlen);

#endif
