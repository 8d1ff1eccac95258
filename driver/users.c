/* driver/users.c: the user processes: the pool, the op loop, and reaping. */
#include <errno.h>
#include <limits.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/gate.h"
#include "driver/users.h"
#include "driver/util.h"

volatile int run_interrupted;

/* How long users get to reach the gate: generous, it is not measured. */
#define READY_TIMEOUT_S 60.0

/* One mix entry as a user runs it. */
struct user_entry {
	const struct job *job;
	void *state;
	struct entry_counters *counters;
	bool ready;		/* init() succeeded */
};

static void user_fail(struct user_slot *slot, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void user_fail(struct user_slot *slot, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot->reason, sizeof(slot->reason), fmt, ap);
	va_end(ap);
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

/*
 * The order this user runs its jobs in: each entry as often as its weight
 * (reduced by the weights' common divisor), shuffled with the user's own
 * seed, as AIM7 gives each user a shuffled job list. Skipped entries are
 * left out.
 */
static uint16_t *user_schedule(const struct mix *mix,
			       const struct user_entry *entries, uint64_t seed,
			       size_t *len)
{
	unsigned int div = 0;
	size_t n = 0, k = 0;
	uint16_t *order, tmp;

	*len = 0;
	for (size_t e = 0; e < mix->n_entries; e++)
		if (entries[e].ready)
			div = gcd(mix->entries[e].weight, div);
	if (!div)
		return NULL;
	for (size_t e = 0; e < mix->n_entries; e++)
		if (entries[e].ready)
			n += mix->entries[e].weight / div;
	*len = n;
	order = malloc(n * sizeof(*order));
	if (!order)
		return NULL;
	for (size_t e = 0; e < mix->n_entries; e++)
		for (unsigned int w = 0; entries[e].ready &&
					 w < mix->entries[e].weight / div; w++)
			order[k++] = (uint16_t)e;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(splitmix64(&seed) % (i + 1));

		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	*len = n;
	return order;
}

/* Errors in a row, with no op succeeding in between, after which a user
 * gives up: a job that can only fail (a full disk, no descriptors left)
 * must not turn the level into a silent busy loop of failures. */
#define ERROR_STREAK_MAX 1000

/*
 * The measured loop. Each op bumps its entry's counter with a relaxed
 * store: one writer per counter, and the parent only needs to see the
 * value eventually. The stop word is read once per op. Returns NULL, or
 * the entry whose failures ended the loop.
 */
static struct user_entry *user_loop(const struct arena_header *hdr,
				    uint32_t gen, struct user_entry *entries,
				    const uint16_t *order, size_t len)
{
	unsigned int streak = 0;
	size_t i = 0;

	while (__atomic_load_n(&hdr->stop, __ATOMIC_RELAXED) != gen) {
		struct user_entry *ue = &entries[order[i]];
		struct entry_counters *c = ue->counters;
		int rc = 0;

		if (ue->job->prepare)
			rc = ue->job->prepare(ue->state);
		if (!rc)
			rc = ue->job->run(ue->state);
		if (!rc) {
			__atomic_store_n(&c->ops, c->ops + 1, __ATOMIC_RELAXED);
			streak = 0;
		} else {
			c->last_errno = rc;
			__atomic_store_n(&c->errors, c->errors + 1,
					 __ATOMIC_RELAXED);
			if (++streak == ERROR_STREAK_MAX)
				return ue;
		}
		if (++i == len)
			i = 0;
	}
	return NULL;
}

/*
 * AIMSWEEP_TEST_FAULT="KIND:USER[:SECONDS]" makes one user misbehave after
 * the gate opens, so that tests can check how the driver copes. KIND is
 * crash (SIGSEGV), kill (SIGKILL), exit (status 6) or hang (ignores the
 * stop flag). Not for benchmarking: it replaces the user's loop.
 */
static void user_test_fault(const struct user_pool *pool, unsigned int user)
{
	const char *spec = pool->params->test_fault;
	char kind[16];
	unsigned int who;
	double delay_s = 0.5;
	uint64_t when;

	if (!spec || sscanf(spec, "%15[a-z]:%u:%lf", kind, &who, &delay_s) < 2 ||
	    who != user)
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

/* Self plus reaped children (fork_test, exec_test and the shell jobs). */
static void rusage_now(struct slot_rusage *r)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	r->utime_us = tv_us(&self.ru_utime) + tv_us(&kids.ru_utime);
	r->stime_us = tv_us(&self.ru_stime) + tv_us(&kids.ru_stime);
	r->nvcsw = self.ru_nvcsw + kids.ru_nvcsw;
	r->nivcsw = self.ru_nivcsw + kids.ru_nivcsw;
	r->minflt = self.ru_minflt + kids.ru_minflt;
	r->majflt = self.ru_majflt + kids.ru_majflt;
	r->maxrss_kb = self.ru_maxrss;
}

/* One level in a user: set the jobs up, wait at the gate, run until the
 * stop word names this level, tear the jobs down, park. */
static void user_run_level(struct user_pool *pool, unsigned int user,
			   uint32_t gen, struct user_entry *entries)
{
	struct arena_header *hdr = pool->arena->hdr;
	struct user_slot *slot = arena_slot(pool->arena, user);
	const struct mix *mix = pool->mix;
	struct slot_rusage start, end;
	char dir[PATH_MAX], reason[256];
	struct job_ctx ctx;
	uint16_t *order;
	size_t len = 0;

	if (pool->job_dir) {
		snprintf(dir, sizeof(dir), "%s", pool->job_dir);
	} else {
		if (snprintf(dir, sizeof(dir), "%s/u%u", pool->run_dir, user) >=
		    (int)sizeof(dir))
			user_fail(slot, USER_EXIT_SETUP, "scratch path too long");
		if (mkdir(dir, 0700) && errno != EEXIST)
			user_fail(slot, USER_EXIT_SETUP, "cannot create %s: %s",
				  dir, strerror(errno));
	}

	memset(&ctx, 0, sizeof(ctx));
	ctx.user = user;
	ctx.users = __atomic_load_n(&hdr->active_users, __ATOMIC_RELAXED);
	ctx.dir = dir;
	ctx.run_dir = pool->run_dir;
	ctx.libexec_dir = pool->params->libexec_dir;
	ctx.threaded = false;
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

		entries[e].job = job;
		entries[e].counters = &slot->counters[e];
		entries[e].ready = false;
		reason[0] = '\0';
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
	order = user_schedule(mix, entries, ctx.seed, &len);
	if (!order && len)
		user_fail(slot, USER_EXIT_SETUP, "out of memory for the job order");

	rusage_now(&start);
	__atomic_add_fetch(&hdr->ready, 1, __ATOMIC_RELEASE);
	gate_wake_one(&hdr->ready);
	for (uint32_t g; (g = __atomic_load_n(&hdr->gate, __ATOMIC_ACQUIRE)) != gen;)
		gate_wait_change(&hdr->gate, g, 0);

	user_test_fault(pool, user);
	if (order) {
		struct user_entry *bad = user_loop(hdr, gen, entries, order, len);

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
	for (size_t e = 0; e < mix->n_entries; e++)
		if (entries[e].ready && entries[e].job->fini)
			entries[e].job->fini(entries[e].state);
	free(order);

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
	__atomic_add_fetch(&hdr->parked, 1, __ATOMIC_RELEASE);
	gate_wake_one(&hdr->parked);
}

/* A user's life: park until called to a level it takes part in, run it,
 * park again; leave when the driver says quit. */
static void user_main(struct user_pool *pool, unsigned int user,
		      uint32_t gen_seen)
{
	struct arena_header *hdr = pool->arena->hdr;
	struct user_slot *slot = arena_slot(pool->arena, user);
	struct user_entry *entries;
	uint32_t gen;

	/* Die with the driver, even if it is killed with SIGKILL. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != pool->parent)
		_exit(USER_EXIT_ORPHAN);
	/* Terminal signals go to the whole process group; the driver alone
	 * decides what they mean and stops the users itself. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	slot->pid = getpid();

	entries = calloc(pool->mix->n_entries, sizeof(*entries));
	if (!entries)
		user_fail(slot, USER_EXIT_SETUP, "out of memory");
	for (;;) {
		gen = wait_change(&hdr->level_gen, gen_seen);
		gen_seen = gen;
		if (__atomic_load_n(&hdr->quit, __ATOMIC_ACQUIRE))
			_exit(USER_EXIT_OK);
		if (user < __atomic_load_n(&hdr->active_users, __ATOMIC_ACQUIRE))
			user_run_level(pool, user, gen, entries);
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
static void user_ended(struct user_pool *pool, struct level_run *lr,
		       pid_t pid, int status, bool killed_by_us)
{
	int u = user_index(pool, pid);
	const struct user_slot *slot;

	if (u < 0)
		return;
	pool->pids[u] = 0;
	pool->alive--;
	slot = arena_slot(pool->arena, (unsigned int)u);
	remove_sysv(slot);
	if (!lr || (unsigned int)u >= lr->users)
		return;
	if (killed_by_us) {
		level_fail(lr, "user %d (pid %d) was stuck: still running %.1f s after the window, killed",
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

	while (pool->alive) {
		pid = waitpid(-1, &status, WNOHANG);
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
	fflush(NULL);
	for (unsigned int u = 0; u < users; u++) {
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
		pool->pids[u] = pid;
		pool->alive++;
	}
	lr->users = users;
	__atomic_store_n(&hdr->ready, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->parked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->active_users, rc ? 0 : users, __ATOMIC_RELAXED);
	/* The new generation last, with release order: a user that sees it
	 * sees the counts and the active set above. */
	lr->gen = gen_now + 1;
	__atomic_store_n(&hdr->level_gen, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->level_gen);
	return rc;
}

int users_wait_ready(struct user_pool *pool, struct level_run *lr)
{
	uint32_t *ready = &pool->arena->hdr->ready;
	uint64_t deadline = now_ns() +
			    (uint64_t)(READY_TIMEOUT_S * NSEC_PER_SEC);
	uint32_t seen;

	for (;;) {
		seen = __atomic_load_n(ready, __ATOMIC_ACQUIRE);
		if (seen >= lr->users)
			return 0;
		/* A user that exits before the gate failed to set up. */
		reap_exited(pool, lr);
		if (lr->failed || run_interrupted)
			return -1;
		if (now_ns() > deadline) {
			level_fail(lr, "only %u of %u users reached the start gate within %.0f s",
				   seen, lr->users, READY_TIMEOUT_S);
			return -1;
		}
		gate_wait_change(ready, seen, 10 * 1000 * 1000);
	}
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

void users_level_end(struct user_pool *pool, struct level_run *lr,
		     double grace_s)
{
	uint32_t *parked = &pool->arena->hdr->parked;
	uint64_t deadline = now_ns() + (uint64_t)(grace_s * NSEC_PER_SEC);
	unsigned int gone;
	uint32_t seen;
	int status;

	for (;;) {
		reap_exited(pool, lr);
		seen = __atomic_load_n(parked, __ATOMIC_ACQUIRE);
		gone = 0;
		for (unsigned int u = 0; u < lr->users; u++)
			gone += !pool->pids[u];
		if (seen + gone >= lr->users || now_ns() >= deadline)
			break;
		gate_wait_change(parked, seen, 10 * 1000 * 1000);
	}
	/* Whoever has neither parked nor exited by now is stuck. */
	for (unsigned int u = 0; u < lr->users; u++) {
		const struct user_slot *slot = arena_slot(pool->arena, u);
		pid_t pid = pool->pids[u];

		if (!pid ||
		    __atomic_load_n(&slot->parked_gen, __ATOMIC_ACQUIRE) == lr->gen)
			continue;
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		/* An interrupted run kills its users on purpose: that is
		 * not the level's fault, and the level is dropped anyway. */
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
	while (pool->alive && now_ns() < deadline) {
		if (!reap_exited(pool, NULL))
			nanosleep(&tick, NULL);
	}
	for (unsigned int u = 0; u < pool->max_users; u++) {
		if (!pool->pids[u])
			continue;
		kill(pool->pids[u], SIGKILL);
		while (waitpid(pool->pids[u], &status, 0) < 0 && errno == EINTR)
			;
		user_ended(pool, NULL, pool->pids[u], status, true);
	}
out:
	free(pool->pids);
	pool->pids = NULL;
}
