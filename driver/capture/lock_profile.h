/* driver/capture/lock_profile.h: --lock-profile: how every level's kernel lock contention is counted, chosen once: the in-kernel collector (lock_bpf.c) or perf lock record (perf_lock.c). */
#ifndef AIMSWEEP_LOCK_PROFILE_H
#define AIMSWEEP_LOCK_PROFILE_H

#include "driver/capture/capture.h"

/*
 * check chooses the method once, before the first level, and says which
 * on standard error:
 *
 *   --lock-method auto   the in-kernel collector where it loads, else
 *                        perf lock record, with why in each level
 *   --lock-method bpf    the in-kernel collector, or the run is refused
 *   --lock-method perf   perf lock record
 *
 * Without the privilege to load the collector (root, or CAP_BPF with
 * CAP_PERFMON), the run is refused whatever the method: perf lock
 * record needs as much.
 *
 * The collector covers the whole window of every level unless
 * --lock-profile-seconds asks for less, from t0; perf lock record covers
 * --lock-profile-seconds (1 s when not given) after the CPU profile's
 * slice.
 */
extern const struct capture_ops lock_profile_capture;

/* Test hook: AIMSWEEP_TEST_LOCK_BPF=unavailable makes the collector fail
 * to load as on a kernel without the tracepoints, so that the fallback
 * can be tested; =keys:N gives its sums room for N keys only, so that
 * lost events can be. Not for benchmarking. */
#define LOCK_BPF_TEST_ENV "AIMSWEEP_TEST_LOCK_BPF"

#endif
