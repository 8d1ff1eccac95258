/* driver/capture/lock_bpf.h: the in-kernel lock collector: a BPF program on lock:contention_begin/end (lock_bpf.bpf.c), loaded for a level and read after it. */
#ifndef AIMSWEEP_LOCK_BPF_H
#define AIMSWEEP_LOCK_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/capture/ksyms.h"
#include "driver/capture/lock_bpf_maps.h"
#include "driver/capture/lock_report.h"

/* Distinct call stacks, and (stack, lock type) keys, a window can hold.
 * A level of a few workloads waits in tens to hundreds of places; what
 * does not fit is counted as lost, never dropped silently. */
#define LOCK_BPF_STACKS 16384
#define LOCK_BPF_KEYS 16384

/* Events of a window the collector could not record (lock_bpf_maps.h
 * says when each happens). */
struct lock_bpf_lost {
	uint64_t no_begin, tasks_full, callers_full;
	uint64_t stacks_unknown;	/* summed, under "[unknown]" */
};

/*
 * ---- Loading (lock_bpf.c) ----
 *
 * Order: lock_bpf_open() once, before the first level (the program is
 * loaded and attached, and sums nothing until a window opens); for each
 * level, lock_bpf_reset() while its users wait at the gate,
 * lock_bpf_start() at t0, lock_bpf_stop() at t1 and lock_bpf_read() once
 * the users have parked; lock_bpf_close() at the end of the run.
 */
struct lock_bpf;

/* NULL when the collector was built in; else what configure did not
 * find of libbpf, clang and bpftool ("libbpf (Debian: libbpf-dev)"). */
const char *lock_bpf_missing(void);

/*
 * Loads the program with room for `tasks` tasks waiting at once and for
 * `keys` (call stack, lock type) sums (0: the default, LOCK_BPF_KEYS),
 * and attaches it. NULL with the reason in err; *denied is true when it
 * failed for want of privilege (root, or CAP_BPF with CAP_PERFMON),
 * false when this kernel or build cannot run it at all.
 */
struct lock_bpf *lock_bpf_open(unsigned int tasks, unsigned int keys,
			       bool *denied, char *err, size_t errlen);

/* Empties the sums and the counters of the last window, and the waits
 * kept for its reading. 0, or -1 with the reason in err. */
int lock_bpf_reset(struct lock_bpf *b, char *err, size_t errlen);

/* t0 and t1 on CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns(). */
void lock_bpf_start(struct lock_bpf *b, uint64_t t0_ns);
void lock_bpf_stop(struct lock_bpf *b, uint64_t t1_ns);

/* Reads the window into out (the top entries by wait) and lost, then
 * lets waits begin again (from t1 to here none is recorded, so that the
 * waits in progress at t1 stay as they were). 0, or -1 with the reason
 * in err. */
int lock_bpf_read(struct lock_bpf *b, const struct ksyms *ks, size_t top,
		  struct lock_report *out, struct lock_bpf_lost *lost,
		  char *err, size_t errlen);

/* Detaches and unloads. NULL is allowed. */
void lock_bpf_close(struct lock_bpf *b);

/*
 * ---- The window's arithmetic (lock_bpf_read.c, no libbpf) ----
 */

/* One call stack and lock type's waits, its CPUs' sums added up. */
struct lock_bpf_total {
	struct lock_bpf_key key;
	struct lock_bpf_sum sum;
	/* Of sum.total_ns, the time of waits still going on at t1, which
	 * count in the total and not in the number, nor in the mean. */
	uint64_t open_ns;
};

/* Adds up one key's per-CPU sums: counts and times summed, the largest
 * wait kept, the first lock kept and other locks counted. */
void lock_bpf_fold_cpus(const struct lock_bpf_sum *percpu, size_t n_cpus,
			struct lock_bpf_sum *out);

/* Adds one counter's per-CPU values to lost. */
void lock_bpf_lost_add(struct lock_bpf_lost *lost,
		       enum lock_bpf_counter which, const uint64_t *percpu,
		       size_t n_cpus);

/* The events lost from the window's sums: ends without a begin, and waits
 * with no room in the sums (a begin the tasks map had no room for is
 * among the first, when its end came in the window). */
uint64_t lock_bpf_lost_events(const struct lock_bpf_lost *lost);

/* How much of a wait still in progress at t1 lies in [t0, t1]: from its
 * begin or t0, whichever is later, to t1. */
uint64_t lock_bpf_open_wait_ns(const struct lock_bpf_wait *w, uint64_t t0_ns,
			       uint64_t t1_ns);

/* perf's name of a lock type from the tracepoint's flags: "rwsem:W",
 * "spinlock", "mutex", ...; "unknown" for a combination perf has no name
 * for. */
const char *lock_bpf_type_name(uint32_t flags);

/* Fills ips with a stack's frames, innermost first, and returns how many;
 * 0 when the stack is not known. */
typedef size_t (*lock_bpf_stack_fn)(void *ctx, int32_t stack_id,
				    uint64_t ips[LOCK_BPF_DEPTH]);

/*
 * The window's report: every total, plus the part inside [t0, t1] of the
 * waits still in progress at t1 (their time counts, not their number, as
 * they did not end in the window), merged by caller and type. A stack's
 * caller is its first frame outside the kernel's lock and scheduler code,
 * after the tracepoint's own frames; "[unknown]" when it has none. 0, or
 * -1 with errno ENOMEM (as lock_report_add()).
 */
int lock_bpf_report(const struct lock_bpf_total *totals, size_t n_totals,
		    const struct lock_bpf_wait *open, size_t n_open,
		    uint64_t t0_ns, uint64_t t1_ns, const struct ksyms *ks,
		    lock_bpf_stack_fn stack, void *ctx, size_t top,
		    struct lock_report *out);

#endif
