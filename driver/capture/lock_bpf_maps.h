/* driver/capture/lock_bpf_maps.h: what the in-kernel lock collector (lock_bpf.bpf.c) and the driver (lock_bpf.c) share: its maps' keys and values and its lost-event counters. */
#ifndef AIMSWEEP_LOCK_BPF_MAPS_H
#define AIMSWEEP_LOCK_BPF_MAPS_H

#include <linux/types.h>

/* Frames kept of a waiter's kernel stack: as many as a lock_row holds. */
#define LOCK_BPF_DEPTH 16

/* The stack id of a wait whose stack could not be taken. */
#define LOCK_BPF_NO_STACK (-1)

/* A task's wait in progress: from contention_begin to its end. A task
 * waits on one lock at a time; a lock taken inside that wait (the
 * wait_lock of a sleeping lock) is not a second wait, so the outer one
 * is kept and the inner one's begin and end are ignored. */
struct lock_bpf_wait {
	__u64 begin_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 end_ns;		/* set only when it ends after the window */
	__u64 lock;		/* the lock's address */
	__s32 stack_id;		/* in the stacks map, or LOCK_BPF_NO_STACK */
	__u32 flags;		/* the tracepoint's LCB_F_* flags */
};

/* Waits are summed per call stack and lock type. */
struct lock_bpf_key {
	__s32 stack_id;
	__u32 flags;
};

/* A key's waits that ended in the window, on one CPU (the map is
 * per-CPU: the driver adds the CPUs up). */
struct lock_bpf_sum {
	__u64 count;
	__u64 total_ns;		/* of the waits' time inside the window */
	__u64 max_ns;
	__u64 lock;		/* the first lock's address */
	__u64 other_locks;	/* nonzero: waits were on other locks too */
};

/* Events the collector could not record, each counted per CPU. */
enum lock_bpf_counter {
	/* An end in the window with no begin: it began before the
	 * collector was attached, or its begin found the tasks map full. */
	LOCK_BPF_LOST_NO_BEGIN,
	/* A begin not stored: the tasks map was full. Its end, when in
	 * the window, is also counted as NO_BEGIN. */
	LOCK_BPF_LOST_TASKS_FULL,
	/* A wait not summed: the sums map was full. */
	LOCK_BPF_LOST_CALLERS_FULL,
	/* A wait summed under no stack: its stack could not be taken. */
	LOCK_BPF_STACKS_UNKNOWN,
	LOCK_BPF_N_COUNTERS
};

#endif
