/* driver/users/pool_end.c: how the pool's users end: reaped when they exit, killed when stuck, and what they leave behind removed. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/base/process.h"
#include "driver/users/pool_end.h"
#include "driver/base/util.h"

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

void pool_end_init(struct user_pool *pool)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child_end;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	/* Reap at the first look: a child may have ended already. */
	pool->ended_seen = children_ended - 1;
}

/* Counts a failure of the level; the first one is its reason. */
void level_run_fail(struct level_run *lr, const char *fmt, ...)
{
	va_list ap;

	lr->failures++;
	lr->failed = true;
	va_start(ap, fmt);
	err_keepv(lr->reason, sizeof(lr->reason), fmt, ap);
	va_end(ap);
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
void pool_thread_proc_ended(struct user_pool *pool, struct level_run *lr,
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
		remove_sysv(pool, arena_slot(pool->ctx.arena, u), pid);
	}
	if (!lr)
		return;
	if (stuck >= 0) {
		level_run_fail(lr, "user %d (a thread of pid %d) was stuck: still running %.1f s after the window or the last user that parked; its process was killed with every user thread",
			   stuck, (int)pid, pool->grace_s);
		return;
	}
	process_status_text(status, how, sizeof(how));
	level_run_fail(lr, "the process of the user threads (pid %d) %s", (int)pid,
		   how);
}

/* Thread mode: a user thread that failed has ended itself; its reason is
 * in its slot. */
void pool_check_threads(struct user_pool *pool, struct level_run *lr)
{
	uint32_t failed = __atomic_load_n(&pool->ctx.arena->hdr->threads_failed,
					  __ATOMIC_ACQUIRE);

	if (failed == pool->threads_failed_seen)
		return;
	pool->threads_failed_seen = failed;
	for (unsigned int u = 0; pool->thread_proc && u < lr->users; u++) {
		struct user_slot *slot = arena_slot(pool->ctx.arena, u);

		if (!pool->pids[u] ||
		    !__atomic_load_n(&slot->exit_code, __ATOMIC_ACQUIRE))
			continue;
		pool->pids[u] = 0;
		/* Its jobs were torn down; what System V objects of theirs
		 * are left would outlive the run. */
		remove_sysv(pool, slot, pool->thread_proc);
		level_run_fail(lr, "user %u (a thread of pid %d) failed: %s", u,
			   (int)pool->thread_proc, slot->reason);
	}
}

/* The end of the process pid, user u's when u >= 0 (-1: look it up). */
void pool_user_ended(struct user_pool *pool, struct level_run *lr, int u,
		       pid_t pid, int status, bool killed_by_us)
{
	const struct user_slot *slot;
	char how[64];

	if (pool->thread_proc && pid == pool->thread_proc) {
		pool_thread_proc_ended(pool, lr, status, -1);
		return;
	}
	if (pool->spawner.pid && pid == pool->spawner.pid) {
		spawner_forget(&pool->spawner);
		if (!lr)
			return;
		process_status_text(status, how, sizeof(how));
		level_run_fail(lr, "the process that forks the users (pid %d) %s",
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
	slot = arena_slot(pool->ctx.arena, (unsigned int)u);
	remove_sysv(pool, slot, pid);
	if (!lr || (unsigned int)u >= lr->users)
		return;
	process_status_text(status, how, sizeof(how));
	if (killed_by_us)
		level_run_fail(lr, "user %d (pid %d) was stuck: still running %.1f s after the window or the last user that parked, killed",
			   u, (int)pid, pool->grace_s);
	else if (WIFSIGNALED(status))
		level_run_fail(lr, "user %d (pid %d) %s", u, (int)pid, how);
	else if (WIFEXITED(status) && WEXITSTATUS(status) != USER_EXIT_OK)
		level_run_fail(lr, "user %d (pid %d) %s%s%s", u, (int)pid, how,
			   slot->reason[0] ? ": " : "", slot->reason);
	else
		level_run_fail(lr, "user %d (pid %d) exited during the level", u,
			   (int)pid);
}

/* Reaps every user that has exited since the last SIGCHLD seen; returns
 * how many. */
unsigned int pool_reap_exited(struct user_pool *pool, struct level_run *lr)
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
		pool_user_ended(pool, lr, -1, pid, status, false);
		n++;
	}
	return n;
}

/* Whether user u has parked after the level of generation gen. */
static bool user_parked(const struct user_pool *pool, unsigned int u,
			uint32_t gen)
{
	const struct user_slot *slot = arena_slot(pool->ctx.arena, u);

	return __atomic_load_n(&slot->parked_gen, __ATOMIC_ACQUIRE) == gen;
}

/*
 * Sends SIGKILL to every user of the level that has neither parked nor
 * exited (lr NULL: to every user of the pool), then reaps them all
 * within one time limit. Each is a failure of the level, unless the run
 * was interrupted: it kills its users on purpose, and the level is
 * dropped anyway.
 */
void pool_kill_stuck(struct user_pool *pool, struct level_run *lr)
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
			pool_thread_proc_ended(pool, run_interrupted ? NULL : lr,
					  status, (int)u);
		else
			pool_user_ended(pool, lr, (int)u, pid, status,
				   !run_interrupted);
	}
}

/*
 * Reaps every user as it exits, each by its own pid: a waitpid() for any
 * child makes the kernel walk the driver's children up to the first that
 * ended, and users exiting in no order would make that a walk over half
 * of them per user. Those not gone by the deadline are left to the caller.
 */
void pool_reap_in_order(struct user_pool *pool, uint64_t deadline)
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
		pool_user_ended(pool, NULL, (int)u, pid, status, false);
	}
	if (pool->thread_proc &&
	    process_wait(pool->thread_proc, &status,
			 PROCESS_REAP | PROCESS_GRACE_CUT, deadline) == 1)
		pool_thread_proc_ended(pool, NULL, status, -1);
}
