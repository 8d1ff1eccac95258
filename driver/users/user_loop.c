/* driver/users/user_loop.c: what runs in a user: its life between levels, a level's set-up, the measured loop. */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/base/process.h"
#include "driver/users/test_fault.h"
#include "driver/users/user_loop.h"
#include "driver/users/users.h"
#include "driver/base/util.h"
#include "jobs/job.h"

/* One mix entry as a user runs it. The job's functions are copied in,
 * so that an op reads no job table. */
struct user_entry {
	int (*run)(void *state);
	int (*prepare)(void *state);	/* NULL: none */
	const struct job *job;
	void *state;
	struct entry_counters *counters;
	/* An AIM7 job's count of inner operations (counters->inner), NULL
	 * for a micro job. */
	uint64_t *progress;
	struct hist *hist;	/* NULL without latency */
	uint32_t sample_every;	/* time one op in this many */
	uint32_t countdown;	/* ops until the next timed one */
	unsigned int streak;	/* failed ops in a row */
	bool ready;		/* init() succeeded */
};

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

static void user_fail(struct user_slot *slot, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* Tears down the entries' jobs that were set up. */
static void entries_fini(struct user_entry *entries, size_t n)
{
	for (size_t e = 0; e < n; e++) {
		struct user_entry *ue = &entries[e];

		if (ue->ready && ue->job->fini)
			ue->job->fini(ue->state);
		ue->ready = false;
	}
}

/* Set in a user that is a thread: it must end itself, not its process. */
static __thread bool user_is_thread;
/* A user thread's mix entries, whose jobs it tears down when it fails:
 * what they hold (descriptors, memory, files) is its process's, which
 * lives on and holds the users of the next levels. */
static __thread struct user_entry *thread_entries;
static __thread size_t thread_n_entries;
/* The thread process's record of which user threads run (thread mode). */
static bool *thread_alive;
/* The arena's header, for thread_failed(); set before any thread runs. */
static struct arena_header *thread_hdr;

/* Tells the driver that a user thread failed: its slot says how. */
static void thread_failed(void)
{
	__atomic_add_fetch(&thread_hdr->threads_failed, 1, __ATOMIC_RELEASE);
}

static void user_fail(struct user_slot *slot, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot->reason, sizeof(slot->reason), fmt, ap);
	va_end(ap);
	if (user_is_thread) {
		entries_fini(thread_entries, thread_n_entries);
		/* The driver sees the code in the slot and fails the level;
		 * the thread process starts a new thread for the next one. */
		__atomic_store_n(&slot->exit_code, code, __ATOMIC_RELEASE);
		thread_failed();
		pthread_exit(NULL);
	}
	slot->exit_code = code;
	_exit(code);
}

static unsigned int gcd(unsigned int a, unsigned int b)
{
	while (b) {
		unsigned int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The weights' common divisor, over the entries a user runs (all of them
 * when `entries` is NULL); 0 for none. */
static unsigned int weight_divisor(const struct mix *mix,
				   const struct user_entry *entries)
{
	unsigned int div = 0;

	for (size_t e = 0; e < mix->n_entries; e++)
		if (!entries || entries[e].ready)
			div = gcd(mix->entries[e].weight, div);
	return div;
}

/* The longest job order a user of this mix can have: the one with every
 * entry in it (fewer entries can only share a larger divisor). */
static size_t order_len_max(const struct mix *mix)
{
	unsigned int div = weight_divisor(mix, NULL);
	size_t n = 0;

	for (size_t e = 0; div && e < mix->n_entries; e++)
		n += mix->entries[e].weight / div;
	return n;
}

size_t users_loop_bytes(const struct mix *mix)
{
	return mix->n_entries * sizeof(struct user_entry) +
	       order_len_max(mix) * sizeof(uint16_t);
}

/*
 * The order this user runs its jobs in, written to `order` (room for
 * order_len_max()): each entry as often as its weight (reduced by the
 * weights' common divisor), shuffled with the user's own seed, as AIM7
 * gives each user a shuffled job list. Skipped entries are left out.
 * Returns its length, 0 when every entry was skipped.
 */
static size_t user_schedule(const struct mix *mix,
			    const struct user_entry *entries, uint64_t seed,
			    uint16_t *order)
{
	unsigned int div = weight_divisor(mix, entries);
	size_t n = 0;
	uint16_t tmp;

	for (size_t e = 0; div && e < mix->n_entries; e++)
		for (unsigned int w = 0; entries[e].ready &&
					 w < mix->entries[e].weight / div; w++)
			order[n++] = (uint16_t)e;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(job_random(&seed) % i);

		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
	return n;
}

/* Failed ops of one job in a row after which its user gives up: a job
 * that can only fail (a full disk, no descriptors left) must not turn the
 * level into a silent busy loop of failures, even while other jobs of
 * the mix still succeed. */
#define ERROR_STREAK_MAX 1000

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

/* Waits until *word differs from `seen`, and returns the new value. */
static uint32_t wait_change(uint32_t *word, uint32_t seen)
{
	uint32_t v;

	while ((v = __atomic_load_n(word, __ATOMIC_ACQUIRE)) == seen)
		gate_wait_change(word, seen, 0);
	return v;
}

static int64_t tv_us(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* Self plus reaped children (fork_test, exec_test and the shell jobs).
 * A thread has only its own: children are the whole process's. */
static void rusage_now(struct slot_rusage *r)
{
	struct rusage self, kids;

	memset(&kids, 0, sizeof(kids));
	if (user_is_thread) {
		getrusage(RUSAGE_THREAD, &self);
	} else {
		getrusage(RUSAGE_SELF, &self);
		getrusage(RUSAGE_CHILDREN, &kids);
	}
	r->utime_us = tv_us(&self.ru_utime) + tv_us(&kids.ru_utime);
	r->stime_us = tv_us(&self.ru_stime) + tv_us(&kids.ru_stime);
	r->nvcsw = self.ru_nvcsw + kids.ru_nvcsw;
	r->nivcsw = self.ru_nivcsw + kids.ru_nivcsw;
	r->minflt = self.ru_minflt + kids.ru_minflt;
	r->majflt = self.ru_majflt + kids.ru_majflt;
	r->maxrss_kb = self.ru_maxrss;
}

/* One level as a user runs it. */
struct user_level {
	struct user_pool *pool;
	struct arena_header *hdr;
	struct user_slot *slot;
	unsigned int user;
	uint32_t gen;
	struct user_entry *entries;
	uint16_t *order;	/* the job order, see user_schedule() */
	size_t len;
	/* The user's file directory: jobs keep a pointer to it for the
	 * level. */
	char dir[PATH_MAX];
};

/*
 * Counts the user in at one of the level's meeting points (ready,
 * passed, parked). Only the last one wakes the driver, which looks at the
 * count every 10 ms anyway: a thousand wakes of a real-time driver would
 * each preempt a user, and cost the level's start two context switches a
 * user.
 */
static void count_in(struct arena_header *hdr, uint32_t *count)
{
	if (__atomic_add_fetch(count, 1, __ATOMIC_RELEASE) ==
	    __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED))
		gate_wake_one(count);
}

/* The level's entries before their jobs are set up. */
static void entries_reset(const struct mix *mix, struct user_slot *slot,
			  struct user_entry *entries)
{
	for (size_t e = 0; e < mix->n_entries; e++) {
		entries[e].job = mix->entries[e].job;
		entries[e].run = entries[e].job->run;
		entries[e].prepare = entries[e].job->prepare;
		entries[e].counters = &slot->counters[e];
		entries[e].progress =
			entries[e].job->units == JOB_UNITS_AIM7 ?
			&slot->counters[e].inner : NULL;
		entries[e].ready = false;
		entries[e].hist = NULL;
		/* Time the first op: sample_period() sets the period from
		 * there, or without latency the one-job loop's calibration. */
		entries[e].sample_every = 1;
		entries[e].countdown = 1;
	}
}

/*
 * Where the user's jobs put their files, and the user's working directory:
 * the run's shared directory, or the user's own, made when a job of the
 * mix writes files there; a user whose jobs write no files works in the
 * run's directory. No job then depends on where the driver was started,
 * which the user may not even be allowed to enter (a private home, as uid
 * 65534). Entered at every level: the driver empties the run's directory
 * between levels, the user's own with it.
 */
static void user_dir(struct user_level *ul)
{
	const struct user_pool *pool = ul->pool;
	unsigned int user = ul->user;
	const char *run_dir = pool->run_dirs[user % pool->n_dirs];
	const char *cwd = ul->dir;

	if (pool->shared_dirs) {
		snprintf(ul->dir, sizeof(ul->dir), "%s",
			 pool->shared_dirs[user % pool->n_dirs]);
	} else if (snprintf(ul->dir, sizeof(ul->dir), "%s/u%u", run_dir,
			    user) >= (int)sizeof(ul->dir)) {
		user_fail(ul->slot, USER_EXIT_SETUP, "scratch path too long");
	} else if (!mix_uses_dir(pool->mix)) {
		/* Made only for a mix with a job that writes files there: a
		 * thousand mkdirs in one directory are a good part of the
		 * time it takes to start a thousand users. */
		cwd = run_dir;
	} else if (mkdir(ul->dir, 0700) && errno != EEXIST) {
		user_fail(ul->slot, USER_EXIT_SETUP, "cannot create %s: %s",
			  ul->dir, strerror(errno));
	}
	if (chdir(cwd))
		user_fail(ul->slot, USER_EXIT_SETUP,
			  "cannot change into its scratch directory %s: %s",
			  cwd, strerror(errno));
}

/* What the user's jobs are told about it and the level. */
static void user_job_ctx(const struct user_level *ul, struct job_ctx *ctx,
			 char *reason, size_t reason_len)
{
	const struct user_pool *pool = ul->pool;
	unsigned int user = ul->user;

	memset(ctx, 0, sizeof(*ctx));
	ctx->user = user;
	ctx->users = __atomic_load_n(&ul->hdr->active_users, __ATOMIC_RELAXED);
	ctx->dir = ul->dir;
	ctx->run_dir = pool->run_dirs[user % pool->n_dirs];
	ctx->libexec_dir = pool->params->libexec_dir;
	ctx->threaded = user_is_thread;
	ctx->seed = pool->params->seed ^
		    ((uint64_t)user * 0x9e3779b97f4a7c15ULL) ^
		    ((uint64_t)ul->gen << 32);
	ctx->reason = reason;
	ctx->reason_len = reason_len;
	ctx->sysv_ids = ul->slot->sysv_ids;
	ctx->sysv_kinds = ul->slot->sysv_kinds;
	ctx->sysv_pending_key = &ul->slot->sysv_pending_key;
	ctx->sysv_pending_kind = &ul->slot->sysv_pending_kind;
	ctx->file_size = mix_file_size(pool->mix, ctx->users);
}

/* Notes that job e cannot run here; the first user to say so gives the
 * reason. */
static void job_skipped(struct arena *arena, struct user_slot *slot,
			size_t e, const char *reason)
{
	struct entry_skip *skip = &arena->skips[e];

	slot->counters[e].skipped = 1;
	if (!__atomic_exchange_n(&skip->claimed, 1, __ATOMIC_ACQ_REL))
		snprintf(skip->reason, sizeof(skip->reason), "%s",
			 reason[0] ? reason : "the job cannot run here");
}

/* Sets the level's jobs up, leaving out those that cannot run here, and
 * shuffles the order the user runs them in. */
static void user_jobs_init(struct user_level *ul)
{
	struct user_pool *pool = ul->pool;
	const struct mix *mix = pool->mix;
	struct user_slot *slot = ul->slot;
	struct user_entry *entries = ul->entries;
	char reason[256];
	struct job_ctx ctx;

	user_dir(ul);
	user_job_ctx(ul, &ctx, reason, sizeof(reason));
	for (size_t e = 0; e < mix->n_entries; e++) {
		const struct job *job = mix->entries[e].job;
		int rc;

		entries[e].streak = 0;
		if (pool->params->latency) {
			entries[e].hist = arena_hist(pool->arena, slot, e);
			memset(entries[e].hist, 0, sizeof(struct hist));
		}
		reason[0] = '\0';
		ctx.progress = &slot->counters[e].inner;
		rc = job->init(&ctx, &entries[e].state);
		if (rc == JOB_SKIPPED) {
			job_skipped(pool->arena, slot, e, reason);
			continue;
		}
		if (rc)
			user_fail(slot, USER_EXIT_JOB_INIT, "job %s: %s%s%s",
				  job->name, strerror(rc),
				  reason[0] ? ": " : "", reason);
		entries[e].ready = true;
	}
	ul->len = user_schedule(mix, entries, ctx.seed, ul->order);
}

/*
 * Counts the user through the open gate, then sleeps until every user is
 * through: a user that went straight into its loop would hold its CPU for
 * a whole time slice, and with N users on C CPUs the last one would come
 * through only a full scheduler round (N slices / C) after the gate
 * opened. Yielding instead keeps every user that is through runnable, and
 * those still setting up wait behind all of them, a round of N context
 * switches for each step they make; asleep, users that are through take
 * no CPU at all. The last one through, or the driver stopping a level that
 * failed, sets all_through to the level's generation and wakes them all.
 * Still inside the warm-up: the window never starts before all are
 * through.
 */
static void user_through_gate(struct user_level *ul)
{
	struct arena_header *hdr = ul->hdr;
	uint32_t seen;

	/* For release_s, and for the driver, which starts the window only
	 * when everyone is through and set up. */
	__atomic_store_n(&ul->slot->gate_passed_ns, now_ns(), __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&hdr->passed, 1, __ATOMIC_RELEASE) ==
	    __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED)) {
		__atomic_store_n(&hdr->all_through, ul->gen, __ATOMIC_RELEASE);
		gate_wake_all(&hdr->all_through);
		gate_wake_one(&hdr->passed);
		return;
	}
	while ((seen = __atomic_load_n(&hdr->all_through, __ATOMIC_ACQUIRE)) !=
	       ul->gen)
		gate_wait_change(&hdr->all_through, seen, 0);
}

/* Runs the user's jobs until the stop word names the level. */
static void user_run_jobs(struct user_level *ul)
{
	struct user_entry *entries = ul->entries, *bad;
	uint64_t timer_ns = ul->pool->params->timer_ns;

	if (!ul->len) {
		/* Every job was skipped: nothing to run, but leaving early
		 * would look like a user that died. */
		while (__atomic_load_n(&ul->hdr->stop, __ATOMIC_RELAXED) !=
		       ul->gen)
			usleep(10000);
		return;
	}
	/* An AIM7 job is long: the mix loop's cost is noise to it, and it
	 * takes back a failed op's inner operations. */
	if (ul->len == 1 && !entries[ul->order[0]].progress)
		bad = user_loop_single(ul->hdr, ul->gen, &entries[ul->order[0]],
				       timer_ns);
	else
		bad = user_loop(ul->hdr, ul->gen, entries, ul->order, ul->len,
				timer_ns);
	if (bad)
		user_fail(ul->slot, USER_EXIT_JOB_ERRORS,
			  "job %s failed %d times in a row, the last with %s (%s)",
			  bad->job->name, ERROR_STREAK_MAX,
			  errno_name(bad->counters->last_errno),
			  strerror(bad->counters->last_errno));
}

/* Tears the level's jobs down, leaves what they cost in the slot, and
 * parks. */
static void user_park(struct user_level *ul, const struct slot_rusage *start)
{
	struct user_slot *slot = ul->slot;
	struct slot_rusage end;

	entries_fini(ul->entries, ul->pool->mix->n_entries);
	rusage_now(&end);
	slot->rusage = (struct slot_rusage){
		.utime_us = end.utime_us - start->utime_us,
		.stime_us = end.stime_us - start->stime_us,
		.nvcsw = end.nvcsw - start->nvcsw,
		.nivcsw = end.nivcsw - start->nivcsw,
		.minflt = end.minflt - start->minflt,
		.majflt = end.majflt - start->majflt,
		.maxrss_kb = end.maxrss_kb,
	};
	__atomic_store_n(&slot->parked_gen, ul->gen, __ATOMIC_RELEASE);
	count_in(ul->hdr, &ul->hdr->parked);
}

/* One level in a user: wait at the gate, set the jobs up, yield until
 * every user is set up, run until the stop word names this level, tear
 * the jobs down, park. */
static void user_run_level(struct user_pool *pool, unsigned int user,
			   uint32_t gen, struct user_entry *entries)
{
	struct user_level ul = {
		.pool = pool,
		.hdr = pool->arena->hdr,
		.slot = arena_slot(pool->arena, user),
		.user = user,
		.gen = gen,
		.entries = entries,
		.order = (uint16_t *)(entries + pool->mix->n_entries),
	};
	struct slot_rusage start;
	uint32_t g;

	count_in(ul.hdr, &ul.hdr->ready);
	while ((g = __atomic_load_n(&ul.hdr->gate, __ATOMIC_ACQUIRE)) != gen)
		gate_wait_change(&ul.hdr->gate, g, 0);
	/*
	 * Set up after the gate, inside the warm-up: the driver opens the
	 * gate as soon as every user exists and waits there, instead of
	 * after the slowest of a thousand set-ups, and the set-up takes the
	 * warm-up's time rather than time of its own. No window is open: it
	 * starts only when every user has set up and counted itself through
	 * the gate. A level stopped before it ran (a failed fork) skips it.
	 */
	entries_reset(pool->mix, ul.slot, entries);
	if (__atomic_load_n(&ul.hdr->stop, __ATOMIC_RELAXED) == gen) {
		rusage_now(&start);
	} else {
		user_jobs_init(&ul);
		rusage_now(&start);
		user_through_gate(&ul);
		test_fault_inject(pool->params->test_fault, user);
		user_run_jobs(&ul);
	}
	user_park(&ul, &start);
}

void users_inherited_setup(struct user_pool *pool)
{
	if (!pool->pgid || setpgid(0, pool->pgid))
		setpgid(0, 0);
	/* The driver alone decides what a terminal signal means, and stops
	 * the users itself. */
	process_set_stop_signals(SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* The driver's SIGCHLD counter is not the user's: its jobs wait
	 * for their own children. */
	signal(SIGCHLD, SIG_DFL);
}

/* Becomes a child the driver owns, in a process that has made
 * users_inherited_setup() its own: dies with the driver, and holds no
 * descriptor of the arena's. */
static void user_process_setup(struct user_pool *pool)
{
	/* Die with the driver, even if it is killed with SIGKILL. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != pool->parent)
		_exit(USER_EXIT_ORPHAN);
	/* Its slot is mapped: the file behind the arena would only be one
	 * more descriptor for its jobs to count. */
	arena_close_fd(pool->arena);
}

/* --cpus: user u runs on cpus[u mod n], set before any job, and read back
 * into the slot so that the driver can tell it really applies. */
static void user_pin(struct user_pool *pool, unsigned int user,
		     struct user_slot *slot)
{
	const struct run_params *p = pool->params;
	cpu_set_t set;
	int cpu;

	slot->cpu = -1;
	if (!p->n_cpus)
		return;
	cpu = p->cpus[user % p->n_cpus];
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pid 0 is the calling thread, in either mode. */
	if (sched_setaffinity(0, sizeof(set), &set))
		user_fail(slot, USER_EXIT_SETUP, "cannot pin to CPU %d: %s",
			  cpu, strerror(errno));
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) == 1 &&
	    CPU_ISSET(cpu, &set))
		slot->cpu = cpu;
	else
		slot->cpu = -2;
}

/* A user's life: park until called to a level it takes part in, run it,
 * park again; leave when the driver says quit. */
__attribute__((noreturn))
static void user_life(struct user_pool *pool, unsigned int user,
		      uint32_t gen_seen)
{
	struct arena_header *hdr = pool->arena->hdr;
	struct user_slot *slot = arena_slot(pool->arena, user);
	struct user_entry *entries;
	uint32_t gen;

	slot->pid = (int32_t)syscall(SYS_gettid);
	user_pin(pool, user, slot);
	/* Its entries, then its job order: see arena_loop_state(). */
	entries = arena_loop_state(pool->arena, slot);
	memset(entries, 0, pool->mix->n_entries * sizeof(*entries));
	if (user_is_thread) {
		thread_entries = entries;
		thread_n_entries = pool->mix->n_entries;
		/* Threads share one working directory: a user thread takes
		 * its own before its first chdir() (user_dir()), so that its
		 * scratch directory is its own, and a job's chdir() (disk_src
		 * changes into its tree and back) moves no other user. */
		if (unshare(CLONE_FS))
			user_fail(slot, USER_EXIT_SETUP,
				  "cannot take a working directory of its own (unshare CLONE_FS): %s",
				  strerror(errno));
	}
	for (;;) {
		uint64_t called;

		gen = wait_change(&hdr->level_gen, gen_seen);
		gen_seen = gen;
		if (__atomic_load_n(&hdr->quit, __ATOMIC_ACQUIRE))
			_exit(USER_EXIT_OK);
		test_fault_lag(pool->params->test_fault, user);
		/*
		 * The user count read with its own generation: a user woken
		 * for a level it had no part in, that slept until the driver
		 * had called the next, would otherwise take that level's
		 * count for this one's, join it under the old generation,
		 * and be counted at its gate and among its parked users
		 * twice. A newer level than gen: the next wait returns it.
		 */
		called = __atomic_load_n(&hdr->called, __ATOMIC_ACQUIRE);
		if ((uint32_t)(called >> 32) == gen && user < (uint32_t)called)
			user_run_level(pool, user, gen, entries);
	}
}

void user_process_main(struct user_pool *pool, unsigned int user,
		       uint32_t gen_seen)
{
	user_process_setup(pool);
	user_life(pool, user, gen_seen);
}

struct thread_start {
	struct user_pool *pool;
	unsigned int user;
	uint32_t gen_seen;
};

/*
 * What each user thread starts from, one per user, made once by the
 * thread process. Not malloc()ed per thread: the thread's free() of it
 * would be its first call into malloc, which gives each thread an arena
 * of its own (M_ARENA_MAX, below), a mapping of 64 MiB reserved under the
 * process's mmap lock, while the thread process is making the next
 * thread under the same lock. The user's first malloc() comes with its
 * jobs' set-up instead, after the gate.
 */
static struct thread_start *thread_starts;

static void *user_thread(void *arg)
{
	struct thread_start ts = *(struct thread_start *)arg;

	user_is_thread = true;
	user_life(ts.pool, ts.user, ts.gen_seen);
}

/* Marks a user thread gone so that the thread process starts a new one. */
static void user_thread_gone(void *arg)
{
	thread_alive[(uintptr_t)arg] = false;
}

static void *user_thread_guarded(void *arg)
{
	uintptr_t user = ((struct thread_start *)arg)->user;
	void *ret;

	pthread_cleanup_push(user_thread_gone, (void *)user);
	ret = user_thread(arg);
	pthread_cleanup_pop(1);
	return ret;
}

/* Starts user u's thread, to join the level after gen_seen. A failure is
 * the user's: its slot says why, and the driver fails the level. */
static void thread_start_user(struct user_pool *pool, pthread_attr_t *attr,
			      unsigned int u, uint32_t gen_seen)
{
	struct thread_start *ts = &thread_starts[u];
	struct user_slot *slot;
	pthread_t t;
	int err;

	/* A thread of user u that ran before is gone: it took its copy. */
	*ts = (struct thread_start){ pool, u, gen_seen };
	thread_alive[u] = true;
	err = pthread_create(&t, attr, user_thread_guarded, ts);
	if (!err)
		return;
	slot = arena_slot(pool->arena, u);
	snprintf(slot->reason, sizeof(slot->reason),
		 "cannot create its thread: %s (threads-max, RLIMIT_NPROC or memory)",
		 strerror(err));
	__atomic_store_n(&slot->exit_code, USER_EXIT_SETUP, __ATOMIC_RELEASE);
	thread_failed();
	thread_alive[u] = false;
}

void thread_proc_main(struct user_pool *pool, uint32_t gen_seen)
{
	struct arena_header *hdr = pool->arena->hdr;
	pthread_attr_t attr;
	uint32_t gen;

	users_inherited_setup(pool);
	user_process_setup(pool);
	/*
	 * An arena for every user thread, so that no user's malloc takes
	 * memory with sbrk(): glibc gives threads past its arena limit (8 per
	 * CPU) the main arena, which grows with sbrk(), and the brk job of
	 * another user moves that same break with raw brk() calls; a break
	 * moved under malloc corrupts its heap. Set before any thread starts.
	 */
	mallopt(M_ARENA_MAX, (int)(pool->max_users + 1));
	thread_hdr = hdr;
	thread_alive = calloc(pool->max_users, sizeof(*thread_alive));
	thread_starts = calloc(pool->max_users, sizeof(*thread_starts));
	if (!thread_alive || !thread_starts || pthread_attr_init(&attr))
		_exit(USER_EXIT_SETUP);
	/* Jobs keep their buffers in their state, not on the stack. */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		gen = wait_change(&hdr->level_gen, gen_seen);
		if (__atomic_load_n(&hdr->quit, __ATOMIC_ACQUIRE))
			_exit(USER_EXIT_OK);
		/* A thread started now has not seen this generation: it
		 * joins it. */
		for (unsigned int u = 0;
		     u < __atomic_load_n(&hdr->active_users, __ATOMIC_ACQUIRE);
		     u++)
			if (!thread_alive[u])
				thread_start_user(pool, &attr, u, gen_seen);
		gen_seen = gen;
	}
}
