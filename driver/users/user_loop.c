/* driver/users/user_loop.c: the measured loop of a user, and how it times one op in N. */
#include <stdint.h>
#include <time.h>

#include "driver/users/user_loop.h"
#include "driver/base/util.h"

/*
 * The sampling rule: time one op in N, N the smallest power of two for
 * which the two clock reads (timer_ns) cost at most SAMPLE_BUDGET_PERMILLE
 * of the N ops they stand for, 1 to SAMPLE_EVERY_MAX. It follows each
 * sample, so a job settles on its period within a few samples.
 */
static uint32_t sample_period(uint64_t op_ns, uint64_t timer_ns)
{
	uint64_t budget = timer_ns * 1000 / SAMPLE_BUDGET_PERMILLE;
	uint64_t op = op_ns ? op_ns : 1;
	/* Rounded up: 4.6 ops' worth must give 8, not 4 (0.23%). */
	uint64_t need = (budget + op - 1) / op;
	uint32_t n = 1;

	while (n < need && n < SAMPLE_EVERY_MAX)
		n <<= 1;
	return n;
}

/* One op timed: its latency goes into the histogram only while the window
 * is open, so the histogram holds the window and nothing else. */
static int user_timed_op(const struct arena_header *hdr, uint32_t gen,
			 struct user_entry *ue, uint64_t timer_ns)
{
	uint64_t t0, t1;
	int rc;

	t0 = now_ns();
	rc = ue->run(ue->state);
	t1 = now_ns();
	if (!rc && __atomic_load_n(&hdr->measuring, __ATOMIC_RELAXED) == gen)
		hist_record(ue->hist, t1 - t0);
	ue->sample_every = sample_period(t1 - t0, timer_ns);
	ue->countdown = ue->sample_every;
	__atomic_store_n(&ue->counters->sample_every, ue->sample_every,
			 __ATOMIC_RELAXED);
	return rc;
}

/* Counts a failed op of this entry; true when it ends a streak of
 * ERROR_STREAK_MAX failures in a row, and with it the user's loop. */
static inline bool user_op_failed(struct user_entry *ue, int rc)
{
	struct entry_counters *c = ue->counters;

	c->last_errno = rc;
	__atomic_store_n(&c->errors, c->errors + 1, __ATOMIC_RELAXED);
	return ++ue->streak == ERROR_STREAK_MAX;
}

/*
 * The measured loop of a mix. Each op bumps its entry's counter with a
 * relaxed store: one writer per counter, and the parent only needs to see
 * the value eventually. The stop word is read once per op. An AIM7 op
 * that fails takes back the inner operations it reported, so that only
 * the work of ops that succeed, or are still going, counts. Returns NULL,
 * or the entry whose failures ended the loop.
 *
 * Hot, as the null job's run function is: GCC places hot functions side
 * by side, and the alignment keeps this loop from straddling a page, so
 * the two share one. After a system call on a machine with page-table
 * isolation and no PCID the TLB is empty, and each code page an op
 * returns to is walked again: a page fewer is a walk fewer per op, which
 * the cheapest jobs measure.
 */
__attribute__((hot, noinline, aligned(1024)))
static struct user_entry *user_loop(const struct arena_header *hdr,
				    uint32_t gen, struct user_entry *entries,
				    const uint16_t *order, size_t len,
				    uint64_t timer_ns)
{
	size_t i = 0;

	while (__atomic_load_n(&hdr->stop, __ATOMIC_RELAXED) != gen) {
		struct user_entry *ue = &entries[order[i]];
		struct entry_counters *c = ue->counters;
		uint64_t inner = ue->progress ? *ue->progress : 0;
		int rc = 0;

		if (ue->prepare)
			rc = ue->prepare(ue->state);
		if (!rc) {
			/* Without latency the countdown never reaches 0. */
			if (ue->hist && !--ue->countdown)
				rc = user_timed_op(hdr, gen, ue, timer_ns);
			else
				rc = ue->run(ue->state);
		}
		if (!rc) {
			__atomic_store_n(&c->ops, c->ops + 1, __ATOMIC_RELAXED);
			ue->streak = 0;
		} else {
			if (ue->progress)
				__atomic_store_n(ue->progress, inner,
						 __ATOMIC_RELAXED);
			if (user_op_failed(ue, rc))
				return ue;
		}
		if (++i == len)
			i = 0;
	}
	return NULL;
}

/* Ops timed one by one, with latency off, to set a lone job's period. */
#define CALIBRATION_OPS 7

/*
 * With latency off, a lone job's period is set when its loop starts, from
 * the median of its first CALIBRATION_OPS ops, each timed alone: the
 * sampling rule's N for that op time. This runs one of them; took[0] to
 * took[*timed - 1] hold the times so far, sorted. A failure ends the
 * calibration too, with the median of the ops timed before it, or with a
 * period of one op when there were none: no op after those is timed.
 * Returns the op's failure code, 0 for none.
 */
__attribute__((noinline, cold))
static int user_calibration_op(struct user_entry *ue, uint64_t timer_ns,
			       uint64_t *took, unsigned int *timed)
{
	uint64_t t0, t1;
	int rc;

	if (ue->prepare && (rc = ue->prepare(ue->state)))
		goto done;
	t0 = now_ns();
	rc = ue->run(ue->state);
	t1 = now_ns();
	if (rc)
		goto done;
	/* Insertion sort: seven numbers. */
	took[*timed] = t1 - t0;
	for (unsigned int j = (*timed)++; j > 0 && took[j - 1] > took[j]; j--) {
		uint64_t t = took[j];

		took[j] = took[j - 1];
		took[j - 1] = t;
	}
	if (*timed < CALIBRATION_OPS)
		return 0;
done:
	ue->sample_every = *timed ? sample_period(took[*timed / 2], timer_ns) :
				    1;
	ue->countdown = ue->sample_every;
	*timed = CALIBRATION_OPS;
	return rc;
}

/*
 * The measured loop of a user with one micro job: a one-line workfile, the
 * way one system call's scaling is measured, or a mix whose other jobs
 * were skipped. An op then touches no shared page: the count stays in a
 * register, and is stored into the counter, and the stop word read, once
 * per period of N ops, N being the latency sampling period (with latency,
 * the period's last op is the timed one). That keeps each op to the pages
 * a bare loop of the job touches: with page-table isolation and no PCID,
 * the arena page would cost a walk on every op. The rule keeps N ops under
 * 1000 timer_ns (one op, when an op takes longer), so the count the parent
 * reads at t0, at t1 and at each interval is behind by less than that.
 * A failed op ends its period early and stores the count at once; the
 * countdown to the next timed op carries on across it, as in user_loop(),
 * so that failures cannot starve the histogram.
 */
__attribute__((hot, noinline, aligned(1024)))
static struct user_entry *user_loop_single(const struct arena_header *hdr,
					   uint32_t gen, struct user_entry *ue,
					   uint64_t timer_ns)
{
	int (*run)(void *state) = ue->run;
	int (*prepare)(void *state) = ue->prepare;
	void *state = ue->state;
	struct entry_counters *c = ue->counters;
	uint64_t ops = c->ops;
	uint64_t took[CALIBRATION_OPS];
	unsigned int timed = ue->hist ? CALIBRATION_OPS : 0;

	while (__atomic_load_n(&hdr->stop, __ATOMIC_RELAXED) != gen) {
		uint64_t before = ops;
		uint32_t left;
		int rc = 0;

		if (timed < CALIBRATION_OPS) {
			rc = user_calibration_op(ue, timer_ns, took, &timed);
			if (!rc)
				ops++;
			goto publish;
		}
		/* Ops until the timed one, or the period's end; at least 1.
		 * A failed prepare() does not count, as in user_loop(). */
		left = ue->countdown;
		for (;;) {
			if (prepare && (rc = prepare(state)))
				break;
			if (!--left) {
				if (ue->hist) {
					rc = user_timed_op(hdr, gen, ue,
							   timer_ns);
				} else {
					rc = run(state);
					ue->countdown = ue->sample_every;
				}
				if (!rc)
					ops++;
				break;
			}
			if ((rc = run(state)))
				break;
			ops++;
		}
		if (left)
			ue->countdown = left;
publish:
		__atomic_store_n(&c->ops, ops, __ATOMIC_RELAXED);
		if (!rc) {
			ue->streak = 0;
			continue;
		}
		/* A run of failures is broken by any op that succeeded. */
		if (ops != before)
			ue->streak = 0;
		if (user_op_failed(ue, rc))
			return ue;
	}
	return NULL;
}

struct user_entry *user_loop_run(const struct arena_header *hdr, uint32_t gen,
				 struct user_entry *entries,
				 const uint16_t *order, size_t len,
				 uint64_t timer_ns)
{
	/* An AIM7 job is long: the mix loop's cost is noise to it, and it
	 * takes back a failed op's inner operations. */
	if (len == 1 && !entries[order[0]].progress)
		return user_loop_single(hdr, gen, &entries[order[0]], timer_ns);
	return user_loop(hdr, gen, entries, order, len, timer_ns);
}
