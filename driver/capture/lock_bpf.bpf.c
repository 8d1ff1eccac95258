/* driver/capture/lock_bpf.bpf.c: the in-kernel lock collector: every wait between lock:contention_begin and lock:contention_end, summed per call stack and lock type over the measured window. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "driver/capture/lock_bpf_maps.h"

/* bpf_get_stackid() is for GPL-compatible programs only. */
char LICENSE[] SEC("license") = "GPL";

/* Sizes are set by the driver before the program is loaded. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_bpf_wait);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, LOCK_BPF_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct lock_bpf_key);
	__type(value, struct lock_bpf_sum);
} sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LOCK_BPF_N_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* The measured window on CLOCK_MONOTONIC, written by the driver at t0 and
 * t1. Until then no wait is summed. */
__u64 window_start_ns = ~0ULL;
__u64 window_end_ns = ~0ULL;

/* Frames of the tracepoint's own machinery on top of every stack. */
const volatile __u32 stack_skip = 0;

static void count(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&counters, &what);

	if (n)
		(*n)++;
}

SEC("tp_btf/contention_begin")
int BPF_PROG(contention_begin, void *lock, unsigned int flags)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();
	struct lock_bpf_wait *w, wait = { 0 };

	/* After the window nothing new begins, so that the waits in
	 * progress at t1 stay as they were for the driver to read. */
	if (now > window_end_ns)
		return 0;
	w = bpf_map_lookup_elem(&tasks, &tid);
	if (w && !w->end_ns)
		return 0;
	wait.begin_ns = now;
	wait.lock = (__u64)lock;
	wait.flags = flags;
	wait.stack_id = bpf_get_stackid(ctx, &stacks,
					BPF_F_FAST_STACK_CMP | stack_skip);
	if (wait.stack_id < 0)
		wait.stack_id = LOCK_BPF_NO_STACK;
	if (bpf_map_update_elem(&tasks, &tid, &wait, BPF_ANY))
		count(LOCK_BPF_LOST_TASKS_FULL);
	return 0;
}

static void add_wait(const struct lock_bpf_wait *w, __u64 now)
{
	struct lock_bpf_key key = { .stack_id = w->stack_id,
				    .flags = w->flags };
	struct lock_bpf_sum *s, zero = { 0 };
	__u64 from = w->begin_ns > window_start_ns ? w->begin_ns :
						     window_start_ns;
	__u64 ns = now - from;

	s = bpf_map_lookup_elem(&sums, &key);
	if (!s) {
		bpf_map_update_elem(&sums, &key, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&sums, &key);
		if (!s) {
			count(LOCK_BPF_LOST_CALLERS_FULL);
			return;
		}
	}
	if (w->stack_id == LOCK_BPF_NO_STACK)
		count(LOCK_BPF_STACKS_UNKNOWN);
	s->count++;
	s->total_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	if (!s->lock)
		s->lock = w->lock;
	else if (s->lock != w->lock)
		s->other_locks++;
}

SEC("tp_btf/contention_end")
int BPF_PROG(contention_end, void *lock, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();
	struct lock_bpf_wait *w;

	w = bpf_map_lookup_elem(&tasks, &tid);
	if (!w) {
		if (now >= window_start_ns && now <= window_end_ns)
			count(LOCK_BPF_LOST_NO_BEGIN);
		return 0;
	}
	/* The end of a lock taken inside the wait, or of a wait that
	 * ended after the window and is kept for the driver. */
	if (w->lock != (__u64)lock || w->end_ns)
		return 0;
	if (now > window_end_ns) {
		w->end_ns = now;
		return 0;
	}
	if (now >= window_start_ns)
		add_wait(w, now);
	bpf_map_delete_elem(&tasks, &tid);
	return 0;
}
