/* driver/users/user_level.c: one level as a user runs it: its jobs set up, the gate, the loop, the tear-down, parking. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/users/test_fault.h"
#include "driver/users/user_level.h"
#include "driver/users/user_loop.h"
#include "driver/base/util.h"
#include "jobs/job.h"

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
/* The arena's header, where a failed thread is counted. */
static __thread struct arena_header *thread_hdr;

void user_thread_enter(struct arena_header *hdr, struct user_entry *entries,
		       size_t n_entries)
{
	user_is_thread = true;
	thread_hdr = hdr;
	thread_entries = entries;
	thread_n_entries = n_entries;
}

void user_thread_failed(struct arena_header *hdr)
{
	__atomic_add_fetch(&hdr->threads_failed, 1, __ATOMIC_RELEASE);
}

void user_fail(struct user_slot *slot, int code, const char *fmt, ...)
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
		user_thread_failed(thread_hdr);
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
	const struct user_ctx *ctx;
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
	const struct user_ctx *ctx = ul->ctx;
	unsigned int user = ul->user;
	const char *run_dir = ctx->run_dirs[user % ctx->n_dirs];
	const char *cwd = ul->dir;

	if (ctx->shared_dirs) {
		snprintf(ul->dir, sizeof(ul->dir), "%s",
			 ctx->shared_dirs[user % ctx->n_dirs]);
	} else if (snprintf(ul->dir, sizeof(ul->dir), "%s/u%u", run_dir,
			    user) >= (int)sizeof(ul->dir)) {
		user_fail(ul->slot, USER_EXIT_SETUP, "scratch path too long");
	} else if (!mix_uses_dir(ctx->mix)) {
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
static void user_job_ctx(const struct user_level *ul, struct job_ctx *jc,
			 char *reason, size_t reason_len)
{
	const struct user_ctx *ctx = ul->ctx;
	unsigned int user = ul->user;

	memset(jc, 0, sizeof(*jc));
	jc->user = user;
	jc->users = __atomic_load_n(&ul->hdr->active_users, __ATOMIC_RELAXED);
	jc->dir = ul->dir;
	jc->run_dir = ctx->run_dirs[user % ctx->n_dirs];
	jc->libexec_dir = ctx->libexec_dir;
	jc->threaded = user_is_thread;
	jc->seed = ctx->seed ^ ((uint64_t)user * 0x9e3779b97f4a7c15ULL) ^
		   ((uint64_t)ul->gen << 32);
	jc->reason = reason;
	jc->reason_len = reason_len;
	jc->sysv_ids = ul->slot->sysv_ids;
	jc->sysv_kinds = ul->slot->sysv_kinds;
	jc->sysv_pending_key = &ul->slot->sysv_pending_key;
	jc->sysv_pending_kind = &ul->slot->sysv_pending_kind;
	jc->file_size = mix_file_size(ctx->mix, jc->users);
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
	const struct user_ctx *ctx = ul->ctx;
	const struct mix *mix = ctx->mix;
	struct user_slot *slot = ul->slot;
	struct user_entry *entries = ul->entries;
	char reason[256];
	struct job_ctx jc;

	user_dir(ul);
	user_job_ctx(ul, &jc, reason, sizeof(reason));
	for (size_t e = 0; e < mix->n_entries; e++) {
		const struct job *job = mix->entries[e].job;
		int rc;

		entries[e].streak = 0;
		if (ctx->latency) {
			entries[e].hist = arena_hist(ctx->arena, slot, e);
			memset(entries[e].hist, 0, sizeof(struct hist));
		}
		reason[0] = '\0';
		jc.progress = &slot->counters[e].inner;
		rc = job->init(&jc, &entries[e].state);
		if (rc == JOB_SKIPPED) {
			job_skipped(ctx->arena, slot, e, reason);
			continue;
		}
		if (rc)
			user_fail(slot, USER_EXIT_JOB_INIT, "job %s: %s%s%s",
				  job->name, strerror(rc),
				  reason[0] ? ": " : "", reason);
		entries[e].ready = true;
	}
	ul->len = user_schedule(mix, entries, jc.seed, ul->order);
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
	struct user_entry *bad;

	if (!ul->len) {
		/* Every job was skipped: nothing to run, but leaving early
		 * would look like a user that died. */
		while (__atomic_load_n(&ul->hdr->stop, __ATOMIC_RELAXED) !=
		       ul->gen)
			usleep(10000);
		return;
	}
	bad = user_loop_run(ul->hdr, ul->gen, ul->entries, ul->order, ul->len,
			    ul->ctx->timer_ns);
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

	entries_fini(ul->entries, ul->ctx->mix->n_entries);
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

void user_run_level(const struct user_ctx *ctx, unsigned int user,
		    uint32_t gen, struct user_entry *entries)
{
	struct user_level ul = {
		.ctx = ctx,
		.hdr = ctx->arena->hdr,
		.slot = arena_slot(ctx->arena, user),
		.user = user,
		.gen = gen,
		.entries = entries,
		.order = (uint16_t *)(entries + ctx->mix->n_entries),
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
	entries_reset(ctx->mix, ul.slot, entries);
	if (__atomic_load_n(&ul.hdr->stop, __ATOMIC_RELAXED) == gen) {
		rusage_now(&start);
	} else {
		user_jobs_init(&ul);
		rusage_now(&start);
		user_through_gate(&ul);
		test_fault_inject(ctx->test_fault, user);
		user_run_jobs(&ul);
	}
	user_park(&ul, &start);
}
