/* driver/users.c: the user processes: fork, the op loop, and reaping. */
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

/*
 * The measured loop. Each op bumps its entry's counter with a relaxed
 * store: one writer per counter, and the parent only needs to see the
 * value eventually. The stop flag is read once per op.
 */
static void user_loop(const struct arena_header *hdr, struct user_entry *entries,
		      const uint16_t *order, size_t len)
{
	size_t i = 0;

	while (!__atomic_load_n(&hdr->stop, __ATOMIC_RELAXED)) {
		struct user_entry *ue = &entries[order[i]];
		struct entry_counters *c = ue->counters;
		int rc = 0;

		if (ue->job->prepare)
			rc = ue->job->prepare(ue->state);
		if (!rc)
			rc = ue->job->run(ue->state);
		if (!rc) {
			__atomic_store_n(&c->ops, c->ops + 1, __ATOMIC_RELAXED);
		} else {
			c->last_errno = rc;
			__atomic_store_n(&c->errors, c->errors + 1,
					 __ATOMIC_RELAXED);
		}
		if (++i == len)
			i = 0;
	}
}

/*
 * AIMSWEEP_TEST_FAULT="KIND:USER[:SECONDS]" makes one user misbehave after
 * the gate opens, so that tests can check how the driver copes. KIND is
 * crash (SIGSEGV), kill (SIGKILL), exit (status 6) or hang (ignores the
 * stop flag). Not for benchmarking: it replaces the user's loop.
 */
static void user_test_fault(const struct level_users *lu, unsigned int user)
{
	const char *spec = lu->params->test_fault;
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

static void user_main(struct level_users *lu, unsigned int user)
{
	struct user_slot *slot = arena_slot(lu->arena, user);
	const struct mix *mix = lu->mix;
	struct user_entry *entries;
	char dir[PATH_MAX], reason[256];
	struct job_ctx ctx;
	uint16_t *order;
	size_t len = 0;
	uint64_t seed;

	/* Die with the driver, even if it is killed with SIGKILL. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != lu->parent)
		_exit(USER_EXIT_ORPHAN);
	/* Terminal signals go to the whole process group; the driver alone
	 * decides what they mean and stops the users itself. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	slot->pid = getpid();

	if (lu->job_dir) {
		snprintf(dir, sizeof(dir), "%s", lu->job_dir);
	} else {
		if (snprintf(dir, sizeof(dir), "%s/u%u", lu->run_dir, user) >=
		    (int)sizeof(dir))
			user_fail(slot, USER_EXIT_SETUP, "scratch path too long");
		if (mkdir(dir, 0700))
			user_fail(slot, USER_EXIT_SETUP, "cannot create %s: %s",
				  dir, strerror(errno));
	}

	entries = calloc(mix->n_entries, sizeof(*entries));
	if (!entries)
		user_fail(slot, USER_EXIT_SETUP, "out of memory");
	seed = lu->params->seed ^ ((uint64_t)user * 0x9e3779b97f4a7c15ULL);
	memset(&ctx, 0, sizeof(ctx));
	ctx.user = user;
	ctx.users = lu->users;
	ctx.dir = dir;
	ctx.run_dir = lu->run_dir;
	ctx.libexec_dir = lu->params->libexec_dir;
	ctx.threaded = false;
	ctx.sysv_ids = slot->sysv_ids;
	ctx.sysv_kinds = slot->sysv_kinds;
	ctx.seed = seed;
	ctx.reason = reason;
	ctx.reason_len = sizeof(reason);
	ctx.file_size = mix->file_size + mix->pool_size / lu->users;
	for (size_t e = 0; e < mix->n_entries; e++) {
		const struct job *job = mix->entries[e].job;
		int rc;

		entries[e].job = job;
		entries[e].counters = &slot->counters[e];
		entries[e].ready = false;
		reason[0] = '\0';
		rc = job->init(&ctx, &entries[e].state);
		if (rc == JOB_SKIPPED) {
			struct entry_skip *skip = &lu->arena->skips[e];

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
	order = user_schedule(mix, entries, seed, &len);
	if (!order && len)
		user_fail(slot, USER_EXIT_SETUP, "out of memory for the job order");

	__atomic_add_fetch(&lu->arena->hdr->ready, 1, __ATOMIC_RELEASE);
	gate_wake_one(&lu->arena->hdr->ready);
	gate_wait(&lu->arena->hdr->gate);

	user_test_fault(lu, user);
	if (order) {
		user_loop(lu->arena->hdr, entries, order, len);
	} else {
		/* Every job was skipped: nothing to run, but leaving early
		 * would look like a user that died. */
		while (!__atomic_load_n(&lu->arena->hdr->stop, __ATOMIC_RELAXED))
			usleep(10000);
	}
	for (size_t e = 0; e < mix->n_entries; e++)
		if (entries[e].ready && entries[e].job->fini)
			entries[e].job->fini(entries[e].state);
	_exit(USER_EXIT_OK);
}

int users_init(struct level_users *lu)
{
	lu->pids = calloc(lu->users, sizeof(*lu->pids));
	if (!lu->pids)
		return ENOMEM;
	lu->parent = getpid();
	return 0;
}

void users_free(struct level_users *lu)
{
	free(lu->pids);
	lu->pids = NULL;
}

static void level_fail(struct level_users *lu, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void level_fail(struct level_users *lu, const char *fmt, ...)
{
	va_list ap;

	lu->failures++;
	if (lu->failed)
		return;
	lu->failed = true;
	va_start(ap, fmt);
	vsnprintf(lu->reason, sizeof(lu->reason), fmt, ap);
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

int users_start(struct level_users *lu)
{
	char limit[64];
	pid_t pid;

	fflush(NULL);
	for (unsigned int u = 0; u < lu->users; u++) {
		if (run_interrupted)
			return -1;
		pid = fork();
		if (pid == 0)
			user_main(lu, u);
		if (pid < 0) {
			int err = errno;

			describe_nproc(limit, sizeof(limit));
			level_fail(lu, "cannot fork user %u: %s after %u of %u users (%s)",
				   u, strerror(err), u, lu->users, limit);
			return -1;
		}
		lu->pids[u] = pid;
		lu->started++;
	}
	return 0;
}

static int user_index(const struct level_users *lu, pid_t pid)
{
	for (unsigned int u = 0; u < lu->started; u++)
		if (lu->pids[u] == pid)
			return (int)u;
	return -1;
}

static void rusage_add(struct rusage_sum *sum, const struct rusage *ru)
{
	sum->utime_s += (double)ru->ru_utime.tv_sec +
			(double)ru->ru_utime.tv_usec / 1e6;
	sum->stime_s += (double)ru->ru_stime.tv_sec +
			(double)ru->ru_stime.tv_usec / 1e6;
	sum->nvcsw += (uint64_t)ru->ru_nvcsw;
	sum->nivcsw += (uint64_t)ru->ru_nivcsw;
	sum->minflt += (uint64_t)ru->ru_minflt;
	sum->majflt += (uint64_t)ru->ru_majflt;
	if (ru->ru_maxrss > sum->maxrss_kb)
		sum->maxrss_kb = ru->ru_maxrss;
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

/* Records how a user ended; anything but a clean exit fails the level. */
static void user_ended(struct level_users *lu, pid_t pid, int status,
		       const struct rusage *ru, bool killed_by_us)
{
	int u = user_index(lu, pid);
	const struct user_slot *slot;

	if (u < 0)
		return;
	lu->pids[u] = 0;
	lu->reaped++;
	rusage_add(&lu->rusage, ru);
	slot = arena_slot(lu->arena, (unsigned int)u);
	remove_sysv(slot);
	if (killed_by_us) {
		level_fail(lu, "user %d (pid %d) was stuck: still running past the %.1f s grace period, killed",
			   u, (int)pid, lu->params->grace_s);
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		level_fail(lu, "user %d (pid %d) killed by signal %d (SIG%s)",
			   u, (int)pid, sig, sigabbrev_np(sig) ?
			   sigabbrev_np(sig) : "?");
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != USER_EXIT_OK) {
		level_fail(lu, "user %d (pid %d) exited with status %d%s%s",
			   u, (int)pid, WEXITSTATUS(status),
			   slot->reason[0] ? ": " : "", slot->reason);
	}
}

/* Reaps what has exited; returns the number reaped. */
static unsigned int reap_exited(struct level_users *lu)
{
	unsigned int n = 0;
	struct rusage ru;
	int status;
	pid_t pid;

	while (lu->reaped < lu->started) {
		pid = wait4(-1, &status, WNOHANG, &ru);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		user_ended(lu, pid, status, &ru, false);
		n++;
	}
	return n;
}

int users_wait_ready(struct level_users *lu)
{
	uint32_t *ready = &lu->arena->hdr->ready;
	uint64_t deadline = now_ns() +
			    (uint64_t)(READY_TIMEOUT_S * NSEC_PER_SEC);
	uint32_t seen;

	for (;;) {
		seen = __atomic_load_n(ready, __ATOMIC_ACQUIRE);
		if (seen >= lu->users)
			return 0;
		/* A user that exits before the gate failed to set up. */
		reap_exited(lu);
		if (lu->failed || run_interrupted)
			return -1;
		if (now_ns() > deadline) {
			level_fail(lu, "only %u of %u users reached the start gate within %.0f s",
				   seen, lu->users, READY_TIMEOUT_S);
			return -1;
		}
		gate_wait_change(ready, seen, 10 * 1000 * 1000);
	}
}

void users_release(struct level_users *lu)
{
	gate_open(&lu->arena->hdr->gate);
}

void users_stop(struct level_users *lu)
{
	__atomic_store_n(&lu->arena->hdr->stop, 1, __ATOMIC_RELEASE);
	/* Users still at the gate (a level that never started) must leave
	 * too: they see the stop flag before their first op. */
	gate_open(&lu->arena->hdr->gate);
}

void users_reap(struct level_users *lu, double grace_s)
{
	uint64_t deadline = now_ns() + (uint64_t)(grace_s * NSEC_PER_SEC);
	struct timespec tick = { 0, 1000 * 1000 };
	struct rusage ru;
	int status;
	pid_t pid;

	while (lu->reaped < lu->started && now_ns() < deadline) {
		if (!reap_exited(lu))
			nanosleep(&tick, NULL);
	}
	if (lu->reaped == lu->started)
		return;
	for (unsigned int u = 0; u < lu->started; u++)
		if (lu->pids[u])
			kill(lu->pids[u], SIGKILL);
	for (unsigned int u = 0; u < lu->started; u++) {
		if (!lu->pids[u])
			continue;
		pid = lu->pids[u];
		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
		/* An interrupted run kills its users on purpose: that is
		 * not the level's fault, and the level is dropped anyway. */
		user_ended(lu, pid, status, &ru, !run_interrupted);
	}
}
