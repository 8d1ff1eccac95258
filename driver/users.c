/* driver/users.c: the user processes: the pool, the op loop, and reaping. */
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
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/gate.h"
#include "driver/users.h"
#include "driver/util.h"

volatile int run_interrupted;

/* How long users get to reach the gate: generous, it is not measured. */
#define READY_TIMEOUT_S 60.0

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


static uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

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

	t0 = clock_ns();
	rc = ue->run(ue->state);
	t1 = clock_ns();
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

/* Set in a user that is a thread: it must end itself, not its process. */
static __thread bool user_is_thread;
/* A user thread's mix entries, whose jobs it tears down when it fails:
 * what they hold (descriptors, memory, files) is its process's, which
 * lives on and hosts the next levels. */
static __thread struct user_entry *thread_entries;
static __thread size_t thread_n_entries;
/* The host process's record of which user threads run (thread mode). */
static bool *host_thread_alive;

static void user_fail(struct user_slot *slot, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot->reason, sizeof(slot->reason), fmt, ap);
	va_end(ap);
	if (user_is_thread) {
		for (size_t e = 0; e < thread_n_entries; e++) {
			struct user_entry *ue = &thread_entries[e];

			if (ue->ready && ue->job->fini)
				ue->job->fini(ue->state);
			ue->ready = false;
		}
		/* The driver sees the code in the slot and fails the level;
		 * the host starts a new thread for the next one. */
		__atomic_store_n(&slot->exit_code, code, __ATOMIC_RELEASE);
		pthread_exit(NULL);
	}
	slot->exit_code = code;
	_exit(code);
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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
		size_t j = (size_t)(splitmix64(&seed) % i);

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
 * returns to is walked again: one page fewer gave getppid 1.8% more ops
 * here.
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
	t0 = clock_ns();
	rc = ue->run(ue->state);
	t1 = clock_ns();
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
	ue->sample_every = *timed ? sample_period(took[*timed / 2], timer_ns) : 1;
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
 * the arena page cost a walk on every op, 1% of getppid's ops here. The
 * rule keeps N ops under 1000 timer_ns (about 50 us here; one op, when an
 * op takes longer), so the count the parent reads at t0, at t1 and at
 * each interval is behind by less than that. A failed op ends its period
 * early and stores the count at once; the countdown to the next timed op
 * carries on across it, as in user_loop(), so that failures cannot starve
 * the histogram.
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
					rc = user_timed_op(hdr, gen, ue, timer_ns);
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

/*
 * AIMSWEEP_TEST_FAULT="KIND:USER[:SECONDS]" makes one user misbehave after
 * the gate opens, so that tests can check how the driver copes. KIND is
 * crash (SIGSEGV), kill (SIGKILL), exit (status 6) or hang (ignores the
 * stop flag). Not for benchmarking: it replaces the user's loop. KIND lag
 * (see user_test_lag()) acts before the level instead.
 */
static void user_test_fault(const struct user_pool *pool, unsigned int user)
{
	const char *spec = pool->params->test_fault;
	char kind[16];
	unsigned int who;
	double delay_s = 0.5;
	uint64_t when;

	if (!spec || sscanf(spec, "%15[a-z]:%u:%lf", kind, &who, &delay_s) < 2 ||
	    who != user || !strcmp(kind, "lag"))
		return;
	when = now_ns() + (uint64_t)(delay_s * NSEC_PER_SEC);
	sleep_until_ns(when, NULL);
	if (!strcmp(kind, "crash")) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	} else if (!strcmp(kind, "kill")) {
		raise(SIGKILL);
	} else if (!strcmp(kind, "exit")) {
		_exit(USER_EXIT_TEST_FAULT);
	} else if (!strcmp(kind, "hang")) {
		for (;;)
			pause();
	}
}

/* AIMSWEEP_TEST_FAULT="lag:USER:SECONDS": the user sleeps SECONDS each
 * time it is woken for a level, before it reads which users the level
 * calls, as a user the scheduler left off its CPU would. */
static void user_test_lag(const struct user_pool *pool, unsigned int user)
{
	const char *spec = pool->params->test_fault;
	unsigned int who;
	double delay_s;

	if (spec && sscanf(spec, "lag:%u:%lf", &who, &delay_s) == 2 &&
	    who == user)
		sleep_until_ns(now_ns() + (uint64_t)(delay_s * NSEC_PER_SEC),
			       NULL);
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

/* One level in a user: wait at the gate, set the jobs up, yield until
 * every user is set up, run until the stop word names this level, tear
 * the jobs down, park. */
static void user_run_level(struct user_pool *pool, unsigned int user,
			   uint32_t gen, struct user_entry *entries)
{
	struct arena_header *hdr = pool->arena->hdr;
	struct user_slot *slot = arena_slot(pool->arena, user);
	const struct mix *mix = pool->mix;
	struct slot_rusage start, end;
	char dir[PATH_MAX], reason[256];
	struct job_ctx ctx;
	uint16_t *order = (uint16_t *)(entries + mix->n_entries);
	size_t len = 0;

	/* Only the last one wakes the driver, which looks at the count every
	 * 10 ms anyway: a thousand wakes of a real-time driver would each
	 * preempt a user, and cost the level's start two context switches a
	 * user. */
	if (__atomic_add_fetch(&hdr->ready, 1, __ATOMIC_RELEASE) ==
	    __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED))
		gate_wake_one(&hdr->ready);
	for (uint32_t g; (g = __atomic_load_n(&hdr->gate, __ATOMIC_ACQUIRE)) != gen;)
		gate_wait_change(&hdr->gate, g, 0);
	/*
	 * Set up after the gate, inside the warm-up: the driver opens the
	 * gate as soon as every user exists and waits there, instead of
	 * after the slowest of a thousand set-ups, and the set-up takes the
	 * warm-up's time rather than time of its own. No window is open: it
	 * starts only when every user has set up and counted itself through
	 * below. A level stopped before it ran (a failed fork) skips it.
	 */
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
	if (__atomic_load_n(&hdr->stop, __ATOMIC_RELAXED) == gen) {
		rusage_now(&start);
		goto park;
	}

	if (pool->shared_dirs) {
		snprintf(dir, sizeof(dir), "%s",
			 pool->shared_dirs[user % pool->n_dirs]);
	} else {
		if (snprintf(dir, sizeof(dir), "%s/u%u",
			     pool->run_dirs[user % pool->n_dirs], user) >=
		    (int)sizeof(dir))
			user_fail(slot, USER_EXIT_SETUP, "scratch path too long");
		/* Only for a mix with a job that writes files there: a
		 * thousand mkdirs in one directory are a good part of the
		 * time it takes to start a thousand users. */
		if (mix_uses_dir(mix) && mkdir(dir, 0700) && errno != EEXIST)
			user_fail(slot, USER_EXIT_SETUP, "cannot create %s: %s",
				  dir, strerror(errno));
	}

	memset(&ctx, 0, sizeof(ctx));
	ctx.user = user;
	ctx.users = __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED);
	ctx.dir = dir;
	ctx.run_dir = pool->run_dirs[user % pool->n_dirs];
	ctx.libexec_dir = pool->params->libexec_dir;
	ctx.threaded = user_is_thread;
	ctx.seed = pool->params->seed ^ ((uint64_t)user * 0x9e3779b97f4a7c15ULL) ^
		   ((uint64_t)gen << 32);
	ctx.reason = reason;
	ctx.reason_len = sizeof(reason);
	ctx.sysv_ids = slot->sysv_ids;
	ctx.sysv_kinds = slot->sysv_kinds;
	ctx.file_size = mix_file_size(mix, ctx.users);
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
			struct entry_skip *skip = &pool->arena->skips[e];

			slot->counters[e].skipped = 1;
			if (!__atomic_exchange_n(&skip->claimed, 1,
						 __ATOMIC_ACQ_REL))
				snprintf(skip->reason, sizeof(skip->reason),
					 "%s", reason[0] ? reason :
					 "the job cannot run here");
			continue;
		}
		if (rc)
			user_fail(slot, USER_EXIT_JOB_INIT, "job %s: %s%s%s",
				  job->name, strerror(rc),
				  reason[0] ? ": " : "", reason);
		entries[e].ready = true;
	}
	len = user_schedule(mix, entries, ctx.seed, order);

	rusage_now(&start);
	/* For release_s, and for the driver, which starts the window only
	 * when everyone is through and set up. */
	__atomic_store_n(&slot->gate_passed_ns, now_ns(), __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&hdr->passed, 1, __ATOMIC_RELEASE) ==
	    __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED))
		gate_wake_one(&hdr->passed);
	/*
	 * Hand the CPU on until every user is through: a user that went
	 * straight into its loop would hold its CPU for a whole time slice,
	 * and with N users on C CPUs the last one would come through only a
	 * full scheduler round (N slices / C) after the gate opened, seconds
	 * at a thousand users. Yielding, the round is N context switches.
	 * Still inside the warm-up: the window never starts before all are
	 * through. The stop word ends the wait for a level that failed.
	 */
	while (__atomic_load_n(&hdr->passed, __ATOMIC_ACQUIRE) <
		       __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&hdr->stop, __ATOMIC_RELAXED) != gen)
		sched_yield();

	user_test_fault(pool, user);
	if (len) {
		uint64_t timer_ns = pool->params->timer_ns;
		/* An AIM7 job is long: the mix loop's cost is noise to it,
		 * and it takes back a failed op's inner operations. */
		struct user_entry *bad =
			len == 1 && !entries[order[0]].progress ?
			user_loop_single(hdr, gen, &entries[order[0]],
					 timer_ns) :
			user_loop(hdr, gen, entries, order, len, timer_ns);

		if (bad)
			user_fail(slot, USER_EXIT_JOB_ERRORS,
				  "job %s failed %d times in a row, the last with %s (%s)",
				  bad->job->name, ERROR_STREAK_MAX,
				  errno_name(bad->counters->last_errno),
				  strerror(bad->counters->last_errno));
	} else {
		/* Every job was skipped: nothing to run, but leaving early
		 * would look like a user that died. */
		while (__atomic_load_n(&hdr->stop, __ATOMIC_RELAXED) != gen)
			usleep(10000);
	}
park:
	for (size_t e = 0; e < mix->n_entries; e++) {
		if (entries[e].ready && entries[e].job->fini)
			entries[e].job->fini(entries[e].state);
		entries[e].ready = false;
	}

	rusage_now(&end);
	slot->rusage = (struct slot_rusage){
		.utime_us = end.utime_us - start.utime_us,
		.stime_us = end.stime_us - start.stime_us,
		.nvcsw = end.nvcsw - start.nvcsw,
		.nivcsw = end.nivcsw - start.nivcsw,
		.minflt = end.minflt - start.minflt,
		.majflt = end.majflt - start.majflt,
		.maxrss_kb = end.maxrss_kb,
	};
	__atomic_store_n(&slot->parked_gen, gen, __ATOMIC_RELEASE);
	/* As for ready: the last one wakes the driver. */
	if (__atomic_add_fetch(&hdr->parked, 1, __ATOMIC_RELEASE) ==
	    __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED))
		gate_wake_one(&hdr->parked);
}

/* Becomes a child the driver owns: dies with it, joins the users'
 * process group, and leaves terminal signals to the driver. */
static void user_process_setup(struct user_pool *pool)
{
	/* Die with the driver, even if it is killed with SIGKILL. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != pool->parent)
		_exit(USER_EXIT_ORPHAN);
	if (!pool->pgid || setpgid(0, pool->pgid))
		setpgid(0, 0);
	/* The driver alone decides what a terminal signal means, and stops
	 * the users itself. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
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
	}
	for (;;) {
		uint64_t called;

		gen = wait_change(&hdr->level_gen, gen_seen);
		gen_seen = gen;
		if (__atomic_load_n(&hdr->quit, __ATOMIC_ACQUIRE))
			_exit(USER_EXIT_OK);
		user_test_lag(pool, user);
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

static void user_main(struct user_pool *pool, unsigned int user,
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

static void *user_thread(void *arg)
{
	struct thread_start ts = *(struct thread_start *)arg;

	free(arg);
	user_is_thread = true;
	user_life(ts.pool, ts.user, ts.gen_seen);
	return NULL;
}

/* Marks a user thread gone so that the host starts a new one. */
static void user_thread_gone(void *arg)
{
	host_thread_alive[(uintptr_t)arg] = false;
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

/*
 * Thread mode: one process hosts every user as a thread, so that users
 * share one address space (brk and mmap contend on its lock). The host
 * starts the threads a level needs, as the driver forks processes in
 * process mode; a thread that fails ends itself and is started anew.
 */
static void user_host(struct user_pool *pool, uint32_t gen_seen)
{
	struct arena_header *hdr = pool->arena->hdr;
	pthread_attr_t attr;
	uint32_t gen;

	user_process_setup(pool);
	/*
	 * An arena for every user thread, so that no user's malloc takes
	 * memory with sbrk(): glibc gives threads past its arena limit (8 per
	 * CPU) the main arena, which grows with sbrk(), and the brk job of
	 * another user moves that same break with raw brk() calls; a break
	 * moved under malloc corrupts its heap. Set before any thread starts.
	 */
	mallopt(M_ARENA_MAX, (int)(pool->max_users + 1));
	host_thread_alive = calloc(pool->max_users, sizeof(*host_thread_alive));
	if (!host_thread_alive || pthread_attr_init(&attr))
		_exit(USER_EXIT_SETUP);
	/* Jobs keep their buffers in their state, not on the stack. */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		gen = wait_change(&hdr->level_gen, gen_seen);
		if (__atomic_load_n(&hdr->quit, __ATOMIC_ACQUIRE))
			_exit(USER_EXIT_OK);
		for (unsigned int u = 0;
		     u < __atomic_load_n(&hdr->active_users, __ATOMIC_ACQUIRE);
		     u++) {
			struct thread_start *ts;
			pthread_t t;
			int err;

			if (host_thread_alive[u])
				continue;
			ts = malloc(sizeof(*ts));
			if (!ts)
				_exit(USER_EXIT_SETUP);
			/* It has not seen this generation: it joins it. */
			*ts = (struct thread_start){ pool, u, gen_seen };
			host_thread_alive[u] = true;
			err = pthread_create(&t, &attr, user_thread_guarded, ts);
			if (err) {
				struct user_slot *slot = arena_slot(pool->arena, u);

				snprintf(slot->reason, sizeof(slot->reason),
					 "cannot create its thread: %s (threads-max, RLIMIT_NPROC or memory)",
					 strerror(err));
				__atomic_store_n(&slot->exit_code,
						 USER_EXIT_SETUP,
						 __ATOMIC_RELEASE);
				host_thread_alive[u] = false;
				free(ts);
			}
		}
		gen_seen = gen;
	}
}

int users_pool_init(struct user_pool *pool, unsigned int max_users)
{
	pool->pids = calloc(max_users ? max_users : 1, sizeof(*pool->pids));
	if (!pool->pids)
		return ENOMEM;
	pool->max_users = max_users;
	pool->alive = 0;
	pool->parent = getpid();
	return 0;
}

static void level_fail(struct level_run *lr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void level_fail(struct level_run *lr, const char *fmt, ...)
{
	va_list ap;

	lr->failures++;
	if (lr->failed)
		return;
	lr->failed = true;
	va_start(ap, fmt);
	vsnprintf(lr->reason, sizeof(lr->reason), fmt, ap);
	va_end(ap);
}

static void describe_nproc(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) || rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "RLIMIT_NPROC unlimited");
	else
		snprintf(buf, len, "RLIMIT_NPROC is %llu",
			 (unsigned long long)rl.rlim_cur);
}

static int user_index(const struct user_pool *pool, pid_t pid)
{
	for (unsigned int u = 0; u < pool->max_users; u++)
		if (pool->pids[u] == pid)
			return (int)u;
	return -1;
}

/* Removes the SysV IPC objects a user's jobs registered; those of a user
 * that ran its fini() are gone already (EINVAL, EIDRM). */
static void remove_sysv(const struct user_slot *slot)
{
	for (int i = 0; i < JOB_SYSV_MAX; i++) {
		int id = __atomic_load_n(&slot->sysv_ids[i], __ATOMIC_ACQUIRE) - 1;

		if (id < 0)
			continue;
		switch (slot->sysv_kinds[i]) {
		case JOB_SYSV_SHM:
			shmctl(id, IPC_RMID, NULL);
			break;
		case JOB_SYSV_SEM:
			semctl(id, 0, IPC_RMID);
			break;
		case JOB_SYSV_MSG:
			msgctl(id, IPC_RMID, NULL);
			break;
		}
	}
}

/*
 * Records how a user ended. During a level (lr != NULL) any end of one of
 * its users fails the level: users only exit when told to quit.
 */
/* Describes how a process ended, for a failure reason. */
static void describe_end(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (SIG%s)",
			 WTERMSIG(status), sigabbrev_np(WTERMSIG(status)) ?
			 sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, len, "exited with status %d",
			 WEXITSTATUS(status));
}

/* Thread mode: the process of every user thread ended, and with it every
 * user; `stuck`, when >= 0, is the user it was killed for. */
static void host_ended(struct user_pool *pool, struct level_run *lr,
		       int status, int stuck)
{
	char how[64];
	pid_t pid = pool->host;

	pool->host = 0;
	pool->alive--;
	for (unsigned int u = 0; u < pool->max_users; u++) {
		if (!pool->pids[u])
			continue;
		pool->pids[u] = 0;
		remove_sysv(arena_slot(pool->arena, u));
	}
	if (!lr)
		return;
	if (stuck >= 0) {
		level_fail(lr, "user %d (a thread of pid %d) was stuck: still running %.1f s after the window or the last user that parked; its process was killed with every user thread",
			   stuck, (int)pid, pool->params->grace_s);
		return;
	}
	describe_end(status, how, sizeof(how));
	level_fail(lr, "the process of the user threads (pid %d) %s", (int)pid,
		   how);
}

/* Thread mode: a user thread that failed has ended itself; its reason is
 * in its slot. */
static void check_threads(struct user_pool *pool, struct level_run *lr)
{
	for (unsigned int u = 0; pool->host && u < lr->users; u++) {
		struct user_slot *slot = arena_slot(pool->arena, u);

		if (!pool->pids[u] ||
		    !__atomic_load_n(&slot->exit_code, __ATOMIC_ACQUIRE))
			continue;
		pool->pids[u] = 0;
		/* Its jobs were torn down; what System V objects of theirs
		 * are left would outlive the run. */
		remove_sysv(slot);
		level_fail(lr, "user %u (a thread of pid %d) failed: %s", u,
			   (int)pool->host, slot->reason);
	}
}

static void user_ended(struct user_pool *pool, struct level_run *lr,
		       pid_t pid, int status, bool killed_by_us)
{
	int u;
	const struct user_slot *slot;

	if (pool->host && pid == pool->host) {
		host_ended(pool, lr, status, -1);
		return;
	}
	u = user_index(pool, pid);
	if (u < 0)
		return;
	pool->pids[u] = 0;
	pool->alive--;
	slot = arena_slot(pool->arena, (unsigned int)u);
	remove_sysv(slot);
	if (!lr || (unsigned int)u >= lr->users)
		return;
	if (killed_by_us) {
		level_fail(lr, "user %d (pid %d) was stuck: still running %.1f s after the window or the last user that parked, killed",
			   u, (int)pid, pool->params->grace_s);
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		level_fail(lr, "user %d (pid %d) killed by signal %d (SIG%s)",
			   u, (int)pid, sig, sigabbrev_np(sig) ?
			   sigabbrev_np(sig) : "?");
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != USER_EXIT_OK) {
		level_fail(lr, "user %d (pid %d) exited with status %d%s%s",
			   u, (int)pid, WEXITSTATUS(status),
			   slot->reason[0] ? ": " : "", slot->reason);
	} else {
		level_fail(lr, "user %d (pid %d) exited during the level", u,
			   (int)pid);
	}
}

/* Reaps every user that has exited; returns how many. */
static unsigned int reap_exited(struct user_pool *pool, struct level_run *lr)
{
	unsigned int n = 0;
	int status;
	pid_t pid;

	while (pool->alive && pool->pgid) {
		pid = waitpid(-pool->pgid, &status, WNOHANG);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		user_ended(pool, lr, pid, status, false);
		n++;
	}
	return n;
}

int users_level_begin(struct user_pool *pool, struct level_run *lr,
		      unsigned int users)
{
	struct arena_header *hdr = pool->arena->hdr;
	uint32_t gen_now = __atomic_load_n(&hdr->level_gen, __ATOMIC_RELAXED);
	char limit[64];
	pid_t pid;
	int rc = 0;

	/* Users that died between levels are replaced, not blamed. */
	reap_exited(pool, NULL);
	arena_reset_level(pool->arena, users);
	lr->users = users;
	__atomic_store_n(&hdr->ready, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->parked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->passed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->active_users, users, __ATOMIC_RELAXED);
	/*
	 * The new generation is announced before the missing users are
	 * forked, with release order: a user that sees it sees the counts
	 * above. Parked users and each new child (born seeing it) then come
	 * to the gate on the other CPUs while the driver is still forking,
	 * instead of all of them after the last fork.
	 */
	lr->gen = gen_now + 1;
	__atomic_store_n(&hdr->called, (uint64_t)lr->gen << 32 | users,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->level_gen, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->level_gen);
	fflush(NULL);
	if (pool->params->mode == MODE_THREAD && !pool->host) {
		pid = fork();
		if (pid == 0)
			user_host(pool, gen_now);
		if (pid < 0) {
			level_fail(lr, "cannot fork the process of the user threads: %s",
				   strerror(errno));
			lr->end_ramp = true;
			rc = -1;
		} else {
			if (!pool->pgid || setpgid(pid, pool->pgid)) {
				setpgid(pid, pid);
				pool->pgid = pid;
			}
			pool->host = pid;
			pool->alive++;
		}
	}
	for (unsigned int u = 0; pool->host && u < users; u++)
		if (!pool->pids[u])
			pool->pids[u] = pool->host;
	for (unsigned int u = 0; !rc && !pool->host && u < users; u++) {
		if (pool->pids[u])
			continue;
		if (run_interrupted) {
			rc = -1;
			break;
		}
		pid = fork();
		if (pid == 0)
			user_main(pool, u, gen_now);
		if (pid < 0) {
			int err = errno;

			describe_nproc(limit, sizeof(limit));
			level_fail(lr, "cannot fork user %u of %u: %s (%s)",
				   u, users, strerror(err), limit);
			lr->end_ramp = true;
			rc = -1;
			break;
		}
		/* Both sides set the group, so that neither depends on who
		 * runs first; a group whose members all died is gone, and
		 * the new user starts a new one. */
		if (!pool->pgid || setpgid(pid, pool->pgid)) {
			setpgid(pid, pid);
			pool->pgid = pid;
		}
		pool->pids[u] = pid;
		pool->alive++;
	}
	/* When not every user could be started, the level is not run: the
	 * caller stops it at once, and the users that did start park (those
	 * never forked have no pid and are not waited for). */
	return rc;
}

int users_check(struct user_pool *pool, struct level_run *lr)
{
	reap_exited(pool, lr);
	check_threads(pool, lr);
	return lr->failed ? -1 : 0;
}

/*
 * Waits until `count` reaches the level's users. The time limit runs from
 * the last user that came, not from the start: ten thousand users on two
 * CPUs take seconds just to be scheduled one after another, and that is
 * not a stuck user.
 */
static int wait_all(struct user_pool *pool, struct level_run *lr,
		    uint32_t *count, const char *what)
{
	uint64_t limit = (uint64_t)(READY_TIMEOUT_S * NSEC_PER_SEC);
	uint64_t deadline = now_ns() + limit;
	uint32_t seen, last = 0;

	for (;;) {
		seen = __atomic_load_n(count, __ATOMIC_ACQUIRE);
		if (seen >= lr->users)
			return 0;
		if (seen != last) {
			last = seen;
			deadline = now_ns() + limit;
		}
		/* A user that exits here failed to set up, or crashed. */
		if (users_check(pool, lr) || run_interrupted)
			return -1;
		if (now_ns() > deadline) {
			level_fail(lr, "only %u of %u users %s, and none more for %.0f s",
				   seen, lr->users, what, READY_TIMEOUT_S);
			return -1;
		}
		gate_wait_change(count, seen, 10 * 1000 * 1000);
	}
}

int users_wait_ready(struct user_pool *pool, struct level_run *lr)
{
	return wait_all(pool, lr, &pool->arena->hdr->ready,
			"reached the start gate");
}

int users_wait_through(struct user_pool *pool, struct level_run *lr)
{
	return wait_all(pool, lr, &pool->arena->hdr->passed,
			"came through the start gate");
}

void users_release(struct user_pool *pool, struct level_run *lr)
{
	__atomic_store_n(&pool->arena->hdr->gate, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&pool->arena->hdr->gate);
}

void users_stop(struct user_pool *pool, struct level_run *lr)
{
	__atomic_store_n(&pool->arena->hdr->stop, lr->gen, __ATOMIC_RELEASE);
	/* Users still at the gate (a level that never started) must come
	 * through it to see the stop word and park. */
	users_release(pool, lr);
}

static void rusage_add(struct rusage_sum *sum, const struct slot_rusage *r)
{
	sum->utime_s += (double)r->utime_us / 1e6;
	sum->stime_s += (double)r->stime_us / 1e6;
	sum->nvcsw += (uint64_t)r->nvcsw;
	sum->nivcsw += (uint64_t)r->nivcsw;
	sum->minflt += (uint64_t)r->minflt;
	sum->majflt += (uint64_t)r->majflt;
	if (r->maxrss_kb > sum->maxrss_kb)
		sum->maxrss_kb = r->maxrss_kb;
}

/* When an interrupted run kills what still runs: fixed the first time it
 * is asked for, so that every wait after the signal shares one budget. */
static uint64_t interrupt_deadline(void)
{
	static uint64_t deadline;

	if (!deadline)
		deadline = now_ns() + INTERRUPT_GRACE_NS;
	return deadline;
}

/* Whether user u has parked after the level of generation gen. */
static bool user_parked(const struct user_pool *pool, unsigned int u,
			uint32_t gen)
{
	const struct user_slot *slot = arena_slot(pool->arena, u);

	return __atomic_load_n(&slot->parked_gen, __ATOMIC_ACQUIRE) == gen;
}

/* How long a process sent SIGKILL gets to die before the driver goes on
 * without it. */
#define KILLED_WAIT_S 10

/*
 * Reaps pid, sent SIGKILL, into *status. A task in uninterruptible sleep
 * (a hung disk or NFS server) dies only when it wakes: at `deadline`, or
 * sooner once the run is interrupted, the driver warns and goes on, so
 * that it can still end the run and write what it has. The status is
 * then that of a kill by SIGKILL.
 */
static void reap_killed(pid_t pid, int *status, uint64_t deadline)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	pid_t got;

	for (;;) {
		got = waitpid(pid, status, WNOHANG);
		if (got == pid || (got < 0 && errno != EINTR))
			break;
		if (run_interrupted && interrupt_deadline() < deadline)
			deadline = interrupt_deadline();
		if (now_ns() >= deadline) {
			msg_warn("process %d did not end after SIGKILL; left behind (in uninterruptible sleep?)",
				 (int)pid);
			got = -1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	if (got != pid)
		*status = SIGKILL;	/* as waitpid() reports a kill */
}

/* Every user's ops and AIM7 progress ticks, added up: while it grows,
 * some user is still getting somewhere. */
static uint64_t users_progress(const struct user_pool *pool,
			       unsigned int users)
{
	const struct arena *a = pool->arena;
	uint64_t sum = 0;

	for (unsigned int u = 0; u < users; u++) {
		const struct user_slot *s = arena_slot(a, u);

		for (size_t e = 0; e < a->n_entries; e++)
			sum += __atomic_load_n(&s->counters[e].ops,
					       __ATOMIC_RELAXED) +
			       __atomic_load_n(&s->counters[e].inner,
					       __ATOMIC_RELAXED);
	}
	return sum;
}

void users_level_end(struct user_pool *pool, struct level_run *lr,
		     double grace_s)
{
	uint32_t *parked = &pool->arena->hdr->parked;
	uint64_t grace = (uint64_t)(grace_s * NSEC_PER_SEC);
	uint64_t deadline = now_ns() + grace;
	unsigned int gone, last = 0;
	uint64_t moved, last_moved = users_progress(pool, lr->users);
	uint32_t seen;
	bool cut = false;
	uint64_t killed_by;
	int status;

	for (;;) {
		reap_exited(pool, lr);
		check_threads(pool, lr);
		seen = __atomic_load_n(parked, __ATOMIC_ACQUIRE);
		gone = 0;
		for (unsigned int u = 0; u < lr->users; u++)
			gone += !pool->pids[u];
		if (seen + gone >= lr->users)
			break;
		/* The grace runs from the last user that parked or moved on:
		 * thousands of busy users on a few CPUs see the stop flag one
		 * after another, over seconds, and an AIM7 op in hand can
		 * last longer than the grace; neither is stuck. */
		moved = users_progress(pool, lr->users);
		if ((seen + gone != last || moved != last_moved) && !cut) {
			last = seen + gone;
			last_moved = moved;
			deadline = now_ns() + grace;
		}
		if (now_ns() >= deadline)
			break;
		/* A signal cuts the grace short: the level is dropped anyway,
		 * and the driver must exit promptly. */
		if (run_interrupted && !cut) {
			uint64_t soon = interrupt_deadline();

			if (soon < deadline)
				deadline = soon;
			cut = true;
		}
		gate_wait_change(parked, seen, 10 * 1000 * 1000);
	}
	/* Whoever has neither parked nor exited by now is stuck: all of
	 * them are sent SIGKILL, then reaped within one time limit. */
	for (unsigned int u = 0; u < lr->users; u++)
		if (pool->pids[u] && !user_parked(pool, u, lr->gen))
			kill(pool->pids[u], SIGKILL);
	killed_by = now_ns() + KILLED_WAIT_S * NSEC_PER_SEC;
	for (unsigned int u = 0; u < lr->users; u++) {
		pid_t pid = pool->pids[u];

		if (!pid || user_parked(pool, u, lr->gen))
			continue;
		reap_killed(pid, &status, killed_by);
		/* An interrupted run kills its users on purpose: that is
		 * not the level's fault, and the level is dropped anyway. */
		if (pid == pool->host)
			host_ended(pool, run_interrupted ? NULL : lr, status,
				   (int)u);
		else
			user_ended(pool, lr, pid, status, !run_interrupted);
	}
	for (unsigned int u = 0; u < lr->users; u++)
		if (pool->pids[u])
			rusage_add(&lr->rusage, &arena_slot(pool->arena, u)->rusage);
}

void users_pool_shutdown(struct user_pool *pool, double grace_s)
{
	struct arena_header *hdr;
	uint64_t deadline = now_ns() + (uint64_t)(grace_s * NSEC_PER_SEC);
	struct timespec tick = { 0, 1000 * 1000 };
	int status;

	if (!pool->pids)
		return;
	if (!pool->alive)
		goto out;
	hdr = pool->arena->hdr;
	__atomic_store_n(&hdr->quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&hdr->level_gen, 1, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->level_gen);
	/* A user still in a level (an interrupted one) leaves through it. */
	__atomic_store_n(&hdr->stop, hdr->level_gen - 1, __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->gate, hdr->level_gen - 1, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->gate);
	while (pool->alive) {
		if (run_interrupted && interrupt_deadline() < deadline)
			deadline = interrupt_deadline();
		if (now_ns() >= deadline)
			break;
		if (!reap_exited(pool, NULL))
			nanosleep(&tick, NULL);
	}
	for (unsigned int u = 0; u < pool->max_users; u++)
		if (pool->pids[u])
			kill(pool->pids[u], SIGKILL);
	deadline = now_ns() + KILLED_WAIT_S * NSEC_PER_SEC;
	for (unsigned int u = 0; u < pool->max_users; u++) {
		if (!pool->pids[u])
			continue;
		reap_killed(pool->pids[u], &status, deadline);
		user_ended(pool, NULL, pool->pids[u], status, true);
	}
out:
	free(pool->pids);
	pool->pids = NULL;
}
