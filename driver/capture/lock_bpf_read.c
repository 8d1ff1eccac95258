/* driver/capture/lock_bpf_read.c: the in-kernel lock collector's window arithmetic: its maps' sums folded over CPUs, waits still in progress at t1 clipped to the window, stacks named and merged into a level's report. No libbpf here, so that the unit tests run it on any machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture/lock_bpf.h"

void lock_bpf_fold_cpus(const struct lock_bpf_sum *percpu, size_t n_cpus,
			struct lock_bpf_sum *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t c = 0; c < n_cpus; c++) {
		const struct lock_bpf_sum *s = &percpu[c];

		if (!s->count && !s->lock)
			continue;
		out->count += s->count;
		out->total_ns += s->total_ns;
		if (s->max_ns > out->max_ns)
			out->max_ns = s->max_ns;
		out->other_locks += s->other_locks;
		if (!out->lock)
			out->lock = s->lock;
		else if (s->lock != out->lock)
			out->other_locks++;
	}
}

void lock_bpf_lost_add(struct lock_bpf_lost *lost,
		       enum lock_bpf_counter which, const uint64_t *percpu,
		       size_t n_cpus)
{
	uint64_t *field[LOCK_BPF_N_COUNTERS] = {
		[LOCK_BPF_LOST_NO_BEGIN] = &lost->no_begin,
		[LOCK_BPF_LOST_TASKS_FULL] = &lost->tasks_full,
		[LOCK_BPF_LOST_CALLERS_FULL] = &lost->callers_full,
		[LOCK_BPF_STACKS_UNKNOWN] = &lost->stacks_unknown,
	};

	if (which >= LOCK_BPF_N_COUNTERS)
		return;
	for (size_t c = 0; c < n_cpus; c++)
		*field[which] += percpu[c];
}

uint64_t lock_bpf_lost_events(const struct lock_bpf_lost *lost)
{
	return lost->no_begin + lost->callers_full;
}

uint64_t lock_bpf_open_wait_ns(const struct lock_bpf_wait *w, uint64_t t0_ns,
			       uint64_t t1_ns)
{
	uint64_t from = w->begin_ns > t0_ns ? w->begin_ns : t0_ns;

	return from < t1_ns ? t1_ns - from : 0;
}

/* The tracepoint's LCB_F_* flags (include/trace/events/lock.h), and the
 * names perf lock contention gives their combinations. */
enum {
	LCB_F_SPIN = 1U << 0,
	LCB_F_READ = 1U << 1,
	LCB_F_WRITE = 1U << 2,
	LCB_F_RT = 1U << 3,
	LCB_F_PERCPU = 1U << 4,
	LCB_F_MUTEX = 1U << 5,
};

const char *lock_bpf_type_name(uint32_t flags)
{
	static const struct {
		uint32_t flags;
		const char *name;
	} types[] = {
		{ LCB_F_SPIN, "spinlock" },
		{ LCB_F_SPIN | LCB_F_READ, "rwlock:R" },
		{ LCB_F_SPIN | LCB_F_WRITE, "rwlock:W" },
		{ LCB_F_READ, "rwsem:R" },
		{ LCB_F_WRITE, "rwsem:W" },
		{ LCB_F_RT, "rt-mutex" },
		{ LCB_F_RT | LCB_F_READ, "rwlock-rt:R" },
		{ LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W" },
		{ LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R" },
		{ LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W" },
		{ LCB_F_MUTEX, "mutex" },
		{ LCB_F_MUTEX | LCB_F_SPIN, "mutex" },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].flags == flags)
			return types[i].name;
	return "unknown";
}

/* Fills row's frames from the stack, the tracing frames left out, and
 * caller with its first frame outside the lock and scheduler code. */
static void name_stack(const struct ksyms *ks, const uint64_t *ips,
		       size_t n, struct lock_row *row, char *caller,
		       size_t caller_len)
{
	size_t first, at = ksyms_lock_caller(ks, ips, n, &first);

	for (size_t i = first; i < n && row->n_frames < LOCK_FRAMES_MAX; i++)
		ksyms_frame(ks, ips[i], row->frame[row->n_frames++],
			    sizeof(row->frame[0]));
	if (at < n)
		ksyms_frame(ks, ips[at], caller, caller_len);
	else
		snprintf(caller, caller_len, "[unknown]");
}

static int add_total(struct lock_report_builder *b, const struct ksyms *ks,
		     lock_bpf_stack_fn stack, void *ctx,
		     const struct lock_bpf_total *t)
{
	const struct lock_bpf_key *key = &t->key;
	const struct lock_bpf_sum *sum = &t->sum;
	uint64_t ips[LOCK_BPF_DEPTH] = { 0 };
	struct lock_row row = { 0 };
	char caller[sizeof(b->entries->caller)];
	char lock[sizeof(b->entries->lock)] = "";
	size_t n = stack(ctx, key->stack_id, ips);

	name_stack(ks, ips, n, &row, caller, sizeof(caller));
	if (!sum->other_locks)
		ksyms_lock_name(ks, sum->lock, lock, sizeof(lock));
	row.contended = sum->count;
	row.total_wait_ns = sum->total_ns;
	row.max_wait_ns = sum->max_ns;
	row.open_wait_ns = t->open_ns;
	row.avg_wait_ns = sum->count ? (sum->total_ns - t->open_ns) /
				       sum->count : 0;
	return lock_report_add(b, caller, lock_bpf_type_name(key->flags),
			       lock, &row);
}

/* Adds a wait in progress at t1 to the total of its key, made when new:
 * its time in the window counts, not its number, as it has not ended. */
static void add_open_wait(struct lock_bpf_total *v, size_t *n,
			  const struct lock_bpf_wait *w, uint64_t t0_ns,
			  uint64_t t1_ns)
{
	uint64_t ns = lock_bpf_open_wait_ns(w, t0_ns, t1_ns);
	struct lock_bpf_total *t = NULL;

	if (!ns)
		return;
	for (size_t i = 0; i < *n && !t; i++)
		if (v[i].key.stack_id == w->stack_id &&
		    v[i].key.flags == w->flags)
			t = &v[i];
	if (!t) {
		t = &v[(*n)++];
		memset(t, 0, sizeof(*t));
		t->key.stack_id = w->stack_id;
		t->key.flags = w->flags;
		t->sum.lock = w->lock;
	} else if (t->sum.lock != w->lock) {
		t->sum.other_locks++;
	}
	t->sum.total_ns += ns;
	t->open_ns += ns;
	if (ns > t->sum.max_ns)
		t->sum.max_ns = ns;
}

int lock_bpf_report(const struct lock_bpf_total *totals, size_t n_totals,
		    const struct lock_bpf_wait *open, size_t n_open,
		    uint64_t t0_ns, uint64_t t1_ns, const struct ksyms *ks,
		    lock_bpf_stack_fn stack, void *ctx, size_t top,
		    struct lock_report *out)
{
	struct lock_report_builder b = { 0 };
	struct lock_bpf_total *v;
	size_t n = n_totals;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	v = malloc((n_totals + n_open + 1) * sizeof(*v));
	if (!v)
		return -1;
	if (n_totals)
		memcpy(v, totals, n_totals * sizeof(*v));
	for (size_t i = 0; i < n_open; i++)
		add_open_wait(v, &n, &open[i], t0_ns, t1_ns);
	for (size_t i = 0; !rc && i < n; i++)
		rc = add_total(&b, ks, stack, ctx, &v[i]);
	free(v);
	if (rc) {
		lock_report_discard(&b);
		errno = ENOMEM;
		return -1;
	}
	lock_report_finish(&b, top, out);
	return 0;
}
