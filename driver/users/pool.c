/* driver/users/pool.c: the driver's side of the users: having them forked, calling them to a level, reaping and killing them. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/base/process.h"
#include "driver/users/spawner.h"
#include "driver/users/user_loop.h"
#include "driver/users/users.h"
#include "driver/base/util.h"

/* How long users get to reach the gate: generous, it is not measured. */
#define READY_TIMEOUT_S 60.0
/* How often the waits below look at the users while a count is moving,
 * and at the latest when it is not (the last user to come wakes them). */
#define WAIT_MOVING_NS (1000 * 1000)
#define WAIT_STILL_NS (10 * 1000 * 1000)
/* How often wait_parked() reads every user's progress. */
#define PROGRESS_EVERY_NS (100 * 1000 * 1000)

/*
 * Children that ended, counted by SIGCHLD. waitpid(-pgid) makes the
 * kernel walk every child the driver has, so with thousands of users a
 * reap that finds nothing is costly, and holds up the forks and exits
 * of the users themselves; the driver reaps only after a child ended.
 */
static volatile sig_atomic_t children_ended;

static void on_child_end(int signo)
{
	(void)signo;
	children_ended++;
}

int users_pool_init(struct user_pool *pool, unsigned int max_users)
{
	struct sigaction sa;

	pool->pids = calloc(max_users ? max_users : 1, sizeof(*pool->pids));
	if (!pool->pids)
		return ENOMEM;
	pool->max_users = max_users;
	pool->alive = 0;
	pool->parent = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child_end;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	/* Reap at the first look: a child may have ended already. */
	pool->ended_seen = children_ended - 1;
	return 0;
}

int users_pool_start(struct user_pool *pool)
{
	if (pool->params->mode == MODE_THREAD)
		return 0;
	return spawner_start(pool);
}

static void level_fail(struct level_run *lr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Counts a failure of the level; the first one is its reason. */
static void level_fail(struct level_run *lr, const char *fmt, ...)
{
	va_list ap;

	lr->failures++;
	lr->failed = true;
	va_start(ap, fmt);
	err_keepv(lr->reason, sizeof(lr->reason), fmt, ap);
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

/* glibc leaves this union to the caller, as POSIX says. */
union sem_arg {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

/*
 * Whether the semaphore set under a user's pending key is the one the user
 * made. Linux keeps no creator pid for a set, so this is the best it
 * tells: the user's was made during the level under the driver's euid,
 * and, as the user died before it registered the set, nothing has set or
 * operated on it since (no semop time, GETPID 0). sem_ctime counts whole
 * seconds, so "during the level" takes in the second it began: another
 * program's set made under the user's key from then on, and left
 * untouched, cannot be told apart from the user's.
 */
static bool sem_is_users(const struct user_pool *pool, int id)
{
	struct semid_ds ds;
	union sem_arg arg = { .buf = &ds };

	if (semctl(id, 0, IPC_STAT, arg))
		return false;
	if (ds.sem_perm.cuid != geteuid() || ds.sem_ctime < pool->level_begun_s)
		return false;
	return ds.sem_otime == 0 && semctl(id, 0, GETPID) == 0;
}

/*
 * Removes the object a user was creating under a key when it died, which
 * it may have made without registering its id (job_pending_sysv()). What
 * the key names may be another program's; only the user's own is removed.
 * owner is the user's process: for a user thread, the threads' process.
 */
static void remove_pending_sysv(const struct user_pool *pool,
				const struct user_slot *slot, pid_t owner)
{
	int32_t key = __atomic_load_n(&slot->sysv_pending_key,
				      __ATOMIC_ACQUIRE);
	struct shmid_ds shm;
	int id;

	if (!key)
		return;
	switch (slot->sysv_pending_kind) {
	case JOB_SYSV_SHM:
		id = shmget(key, 0, 0);
		if (id >= 0 && !shmctl(id, IPC_STAT, &shm) &&
		    shm.shm_cpid == owner)
			shmctl(id, IPC_RMID, NULL);
		break;
	case JOB_SYSV_SEM:
		id = semget(key, 0, 0);
		if (id >= 0 && sem_is_users(pool, id))
			semctl(id, 0, IPC_RMID);
		break;
	}
}

/*
 * Removes the SysV IPC objects a user's jobs were creating or registered;
 * those of a user that ran its fini() are gone already (EINVAL, EIDRM).
 * The pending record first: a job drops it only after it registers the
 * id, so that whichever of the two the driver misses, it sees the other.
 */
static void remove_sysv(const struct user_pool *pool,
			const struct user_slot *slot, pid_t owner)
{
	remove_pending_sysv(pool, slot, owner);
	for (int i = 0; i < JOB_SYSV_MAX; i++) {
		int id = __atomic_load_n(&slot->sysv_ids[i],
					 __ATOMIC_ACQUIRE) - 1;

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
 * The ends below record how users ended. During a level (lr != NULL) any
 * end of one of its users fails the level: users only exit when told to
 * quit.
 */

/* Thread mode: the process of every user thread ended, and with it every
 * user; `stuck`, when >= 0, is the user it was killed for. */
static void thread_proc_ended(struct user_pool *pool, struct level_run *lr,
			      int status, int stuck)
{
	char how[64];
	pid_t pid = pool->thread_proc;

	pool->thread_proc = 0;
	pool->alive--;
	for (unsigned int u = 0; u < pool->max_users; u++) {
		if (!pool->pids[u])
			continue;
		pool->pids[u] = 0;
		remove_sysv(pool, arena_slot(pool->arena, u), pid);
	}
	if (!lr)
		return;
	if (stuck >= 0) {
		level_fail(lr, "user %d (a thread of pid %d) was stuck: still running %.1f s after the window or the last user that parked; its process was killed with every user thread",
			   stuck, (int)pid, pool->params->grace_s);
		return;
	}
	process_status_text(status, how, sizeof(how));
	level_fail(lr, "the process of the user threads (pid %d) %s", (int)pid,
		   how);
}

/* Thread mode: a user thread that failed has ended itself; its reason is
 * in its slot. */
static void check_threads(struct user_pool *pool, struct level_run *lr)
{
	uint32_t failed = __atomic_load_n(&pool->arena->hdr->threads_failed,
					  __ATOMIC_ACQUIRE);

	if (failed == pool->threads_failed_seen)
		return;
	pool->threads_failed_seen = failed;
	for (unsigned int u = 0; pool->thread_proc && u < lr->users; u++) {
		struct user_slot *slot = arena_slot(pool->arena, u);

		if (!pool->pids[u] ||
		    !__atomic_load_n(&slot->exit_code, __ATOMIC_ACQUIRE))
			continue;
		pool->pids[u] = 0;
		/* Its jobs were torn down; what System V objects of theirs
		 * are left would outlive the run. */
		remove_sysv(pool, slot, pool->thread_proc);
		level_fail(lr, "user %u (a thread of pid %d) failed: %s", u,
			   (int)pool->thread_proc, slot->reason);
	}
}

/* The end of the process pid, user u's when u >= 0 (-1: look it up). */
static void user_ended(struct user_pool *pool, struct level_run *lr, int u,
		       pid_t pid, int status, bool killed_by_us)
{
	const struct user_slot *slot;
	char how[64];

	if (pool->thread_proc && pid == pool->thread_proc) {
		thread_proc_ended(pool, lr, status, -1);
		return;
	}
	if (pool->spawner.pid && pid == pool->spawner.pid) {
		spawner_forget(&pool->spawner);
		if (!lr)
			return;
		process_status_text(status, how, sizeof(how));
		level_fail(lr, "the process that forks the users (pid %d) %s",
			   (int)pid, how);
		lr->end_ramp = true;
		return;
	}
	if (u < 0)
		u = user_index(pool, pid);
	if (u < 0)
		return;
	pool->pids[u] = 0;
	pool->alive--;
	slot = arena_slot(pool->arena, (unsigned int)u);
	remove_sysv(pool, slot, pid);
	if (!lr || (unsigned int)u >= lr->users)
		return;
	process_status_text(status, how, sizeof(how));
	if (killed_by_us)
		level_fail(lr, "user %d (pid %d) was stuck: still running %.1f s after the window or the last user that parked, killed",
			   u, (int)pid, pool->params->grace_s);
	else if (WIFSIGNALED(status))
		level_fail(lr, "user %d (pid %d) %s", u, (int)pid, how);
	else if (WIFEXITED(status) && WEXITSTATUS(status) != USER_EXIT_OK)
		level_fail(lr, "user %d (pid %d) %s%s%s", u, (int)pid, how,
			   slot->reason[0] ? ": " : "", slot->reason);
	else
		level_fail(lr, "user %d (pid %d) exited during the level", u,
			   (int)pid);
}

/* Reaps every user that has exited since the last SIGCHLD seen; returns
 * how many. */
static unsigned int reap_exited(struct user_pool *pool, struct level_run *lr)
{
	sig_atomic_t ended = children_ended;
	unsigned int n = 0;
	int status;
	pid_t pid;

	if (ended == pool->ended_seen)
		return 0;
	/* Read before the reaping: a child that ends during it is reaped
	 * now or at the next call. */
	pool->ended_seen = ended;
	while ((pool->alive || pool->spawner.pid) && pool->pgid) {
		pid = waitpid(-pool->pgid, &status, WNOHANG);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		user_ended(pool, lr, -1, pid, status, false);
		n++;
	}
	return n;
}

/* Counts a child the pool just forked, in the users' process group. Both
 * sides set the group, so that neither depends on who runs first; a group
 * whose members all died is gone, and the new user starts a new one. */
static void pool_adopt(struct user_pool *pool, pid_t pid)
{
	if (!pool->pgid || setpgid(pid, pool->pgid)) {
		setpgid(pid, pid);
		pool->pgid = pid;
	}
	pool->alive++;
}

/* Thread mode: forks the process of the user threads unless it runs;
 * every user of the level is one of its threads. */
static int fork_thread_proc(struct user_pool *pool, struct level_run *lr,
			    uint32_t gen_now)
{
	pid_t pid;

	if (!pool->thread_proc) {
		pid = fork();
		if (pid == 0)
			thread_proc_main(pool, gen_now);
		if (pid < 0) {
			level_fail(lr, "cannot fork the process of the user threads: %s",
				   strerror(errno));
			lr->end_ramp = true;
			return -1;
		}
		pool_adopt(pool, pid);
		pool->thread_proc = pid;
	}
	for (unsigned int u = 0; u < lr->users; u++)
		if (!pool->pids[u])
			pool->pids[u] = pool->thread_proc;
	return 0;
}

/* Process mode: has the spawner fork the users of the level that have no
 * process, a run of consecutive ones at a time. */
static int fork_users(struct user_pool *pool, struct level_run *lr,
		      uint32_t gen_now)
{
	char why[REASON_LEN / 2], limit[64];
	unsigned int u = 0, first, forked;
	int err;

	while (u < lr->users) {
		if (pool->pids[u]) {
			u++;
			continue;
		}
		for (first = u; u < lr->users && !pool->pids[u]; u++)
			;
		err = spawner_fork(pool, first, u - first, gen_now, &forked,
				   why, sizeof(why));
		if (!err)
			continue;
		if (run_interrupted)
			return -1;
		if (err > 0) {
			describe_nproc(limit, sizeof(limit));
			level_fail(lr, "cannot fork user %u of %u: %s (%s)",
				   first + forked, lr->users, strerror(err),
				   limit);
		} else {
			level_fail(lr, "%s", why);
		}
		lr->end_ramp = true;
		return -1;
	}
	return 0;
}

int users_level_begin(struct user_pool *pool, struct level_run *lr,
		      unsigned int users)
{
	struct arena_header *hdr = pool->arena->hdr;
	uint32_t gen_now = __atomic_load_n(&hdr->level_gen, __ATOMIC_RELAXED);

	/* Users that died between levels are replaced, not blamed. */
	reap_exited(pool, NULL);
	pool->level_begun_s = time(NULL);
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
	 * to the gate on the other CPUs while the rest are being forked,
	 * instead of all of them after the last fork.
	 */
	lr->gen = gen_now + 1;
	__atomic_store_n(&hdr->called, (uint64_t)lr->gen << 32 | users,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->level_gen, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->level_gen);
	fflush(NULL);
	/* When not every user could be started, the level is not run: the
	 * caller stops it at once, and the users that did start park (those
	 * never forked have no pid and are not waited for). */
	if (pool->params->mode == MODE_THREAD)
		return fork_thread_proc(pool, lr, gen_now);
	return fork_users(pool, lr, gen_now);
}

int users_check(struct user_pool *pool, struct level_run *lr)
{
	reap_exited(pool, lr);
	check_threads(pool, lr);
	return lr->failed ? -1 : 0;
}

/*
 * Sleeps until *count may have moved on from `seen`. Users count in
 * without waking the driver, except the last one; while the count moves
 * the driver looks again after a short step, instead of spinning on a
 * word that changes thousands of times, and when it stands still it
 * sleeps until the last user's wake or WAIT_STILL_NS.
 */
static void wait_count(uint32_t *count, uint32_t seen, bool moving)
{
	struct timespec step = { 0, WAIT_MOVING_NS };

	if (moving)
		nanosleep(&step, NULL);
	else
		gate_wait_change(count, seen, WAIT_STILL_NS);
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
		bool moving;

		seen = __atomic_load_n(count, __ATOMIC_ACQUIRE);
		if (seen >= lr->users)
			return 0;
		moving = seen != last;
		if (moving) {
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
		wait_count(count, seen, moving);
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
	struct arena_header *hdr = pool->arena->hdr;

	__atomic_store_n(&hdr->stop, lr->gen, __ATOMIC_RELEASE);
	/* Users still at the gate (a level that never started) must come
	 * through it to see the stop word and park, and those through it
	 * waiting for the others must stop waiting. */
	users_release(pool, lr);
	__atomic_store_n(&hdr->all_through, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->all_through);
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

/* Whether user u has parked after the level of generation gen. */
static bool user_parked(const struct user_pool *pool, unsigned int u,
			uint32_t gen)
{
	const struct user_slot *slot = arena_slot(pool->arena, u);

	return __atomic_load_n(&slot->parked_gen, __ATOMIC_ACQUIRE) == gen;
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

/* Waits grace_s for every user of the level to park or exit, the grace
 * running from the last one that parked or got somewhere. */
static void wait_parked(struct user_pool *pool, struct level_run *lr,
			double grace_s)
{
	uint32_t *parked = &pool->arena->hdr->parked;
	uint64_t grace = (uint64_t)(grace_s * NSEC_PER_SEC);
	uint64_t deadline = now_ns() + grace;
	unsigned int gone, last = 0;
	uint64_t moved, last_moved = users_progress(pool, lr->users);
	uint64_t next_progress = now_ns() + PROGRESS_EVERY_NS;
	uint32_t seen;
	bool cut = false, counted, moving;

	for (;;) {
		reap_exited(pool, lr);
		check_threads(pool, lr);
		seen = __atomic_load_n(parked, __ATOMIC_ACQUIRE);
		gone = 0;
		for (unsigned int u = 0; u < lr->users; u++)
			gone += !pool->pids[u];
		if (seen + gone >= lr->users)
			return;
		/* The grace runs from the last user that parked or moved on:
		 * thousands of busy users on a few CPUs see the stop flag one
		 * after another, over seconds, and an AIM7 op in hand can
		 * last longer than the grace; neither is stuck. Progress, a
		 * read of every user's counters, is looked at every
		 * PROGRESS_EVERY_NS and when the grace runs out. */
		counted = seen + gone != last;
		moving = counted;
		if (now_ns() >= next_progress || now_ns() >= deadline) {
			moved = users_progress(pool, lr->users);
			moving = moving || moved != last_moved;
			last_moved = moved;
			next_progress = now_ns() + PROGRESS_EVERY_NS;
		}
		if (moving && !cut) {
			last = seen + gone;
			deadline = now_ns() + grace;
		}
		if (now_ns() >= deadline)
			return;
		/* A signal cuts the grace short: the level is dropped anyway,
		 * and the driver must exit promptly. */
		if (run_interrupted && !cut) {
			deadline = process_deadline(deadline);
			cut = true;
		}
		wait_count(parked, seen, counted);
	}
}

/*
 * Sends SIGKILL to every user of the level that has neither parked nor
 * exited (lr NULL: to every user of the pool), then reaps them all
 * within one time limit. Each is a failure of the level, unless the run
 * was interrupted: it kills its users on purpose, and the level is
 * dropped anyway.
 */
static void kill_stuck(struct user_pool *pool, struct level_run *lr)
{
	unsigned int users = lr ? lr->users : pool->max_users;
	uint64_t deadline;
	int status;

	for (unsigned int u = 0; u < users; u++)
		if (pool->pids[u] && !(lr && user_parked(pool, u, lr->gen)))
			kill(pool->pids[u], SIGKILL);
	deadline = process_deadline_in(PROCESS_KILLED_WAIT_S);
	for (unsigned int u = 0; u < users; u++) {
		pid_t pid = pool->pids[u];

		if (!pid || (lr && user_parked(pool, u, lr->gen)))
			continue;
		process_reap_killed(pid, &status, deadline);
		if (pid == pool->thread_proc)
			thread_proc_ended(pool, run_interrupted ? NULL : lr,
					  status, (int)u);
		else
			user_ended(pool, lr, (int)u, pid, status,
				   !run_interrupted);
	}
}

void users_level_end(struct user_pool *pool, struct level_run *lr,
		     double grace_s)
{
	wait_parked(pool, lr, grace_s);
	kill_stuck(pool, lr);
	for (unsigned int u = 0; u < lr->users; u++)
		if (pool->pids[u])
			rusage_add(&lr->rusage,
				   &arena_slot(pool->arena, u)->rusage);
}

/*
 * Reaps every user as it exits, each by its own pid: a waitpid() for any
 * child makes the kernel walk the driver's children up to the first that
 * ended, and users exiting in no order would make that a walk over half
 * of them per user. Those not gone by the deadline are left to the caller.
 */
static void reap_in_order(struct user_pool *pool, uint64_t deadline)
{
	int status;

	for (unsigned int u = 0; u < pool->max_users && pool->alive; u++) {
		pid_t pid = pool->pids[u];

		if (!pid || pid == pool->thread_proc)
			continue;
		if (process_wait(pid, &status,
				 PROCESS_REAP | PROCESS_GRACE_CUT,
				 deadline) != 1)
			return;
		user_ended(pool, NULL, (int)u, pid, status, false);
	}
	if (pool->thread_proc &&
	    process_wait(pool->thread_proc, &status,
			 PROCESS_REAP | PROCESS_GRACE_CUT, deadline) == 1)
		thread_proc_ended(pool, NULL, status, -1);
}

void users_pool_shutdown(struct user_pool *pool, double grace_s)
{
	struct arena_header *hdr;
	uint64_t deadline = process_deadline_in(grace_s);

	if (!pool->pids)
		return;
	/* First, so that it forks no user the steps below would miss. */
	spawner_stop(&pool->spawner, deadline);
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
	reap_in_order(pool, deadline);
	kill_stuck(pool, NULL);
out:
	free(pool->pids);
	pool->pids = NULL;
}
