/* driver/spawner.c: the small process that forks the users of process mode for the driver. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "driver/gate.h"
#include "driver/process.h"
#include "driver/spawner.h"
#include "driver/user_loop.h"
#include "driver/users.h"
#include "driver/util.h"

/*
 * Why users are not forked by the driver itself. A child shares its
 * parent's private pages until one of them writes; a page the parent
 * writes after a fork is copied, and the copy the child keeps stays in
 * the parent's anonymous reverse map, whose every walk (reclaim, page
 * migration, a DAMON monitor checking accesses) visits every process
 * forked from that parent, as each maps the same address range. A driver
 * that forks N users and writes its bookkeeping between the forks leaves
 * a few such pages per user: O(N) pages, each an O(N) walk, under the
 * lock that the next fork needs. The spawner is forked once, before the
 * driver's per-user arrays exist, and writes nothing between two forks
 * but a pid into the channel below, as a bare loop of fork()s does; nor
 * does it map the arena's slots, so that a user maps only its own.
 * CLONE_PARENT makes each user the driver's child all the same: the
 * driver reaps it, gets its SIGCHLD, and the user dies with the driver.
 */

/*
 * What the driver and the spawner share, and no user (the spawner marks
 * it MADV_DONTFORK): one request at a time, for users first..first+count-1
 * to join the levels after gen_seen. The spawner writes each one's pid,
 * then `forked`; when it is done, or told to stop, or a fork failed (err),
 * it sets `done` to the request's number.
 */
struct spawn_channel {
	uint32_t req;		/* bumped by the driver for each request */
	uint32_t quit;		/* 1: the spawner exits */
	uint32_t stop;		/* 1: it forks no more users of this request */
	uint32_t first;
	uint32_t count;
	uint32_t gen_seen;
	uint32_t forked;	/* of this request, so far */
	int32_t err;		/* errno of the fork that failed, or 0 */
	uint32_t done;		/* == req once the spawner has answered */
	pid_t pids[];		/* [max_users], by user */
};

/* How long the spawner may go without forking a user before the driver
 * takes it for stuck: far more than one fork takes anywhere. */
#define SPAWN_STALL_S 60.0
/* How often the driver looks at what the spawner has forked. */
#define SPAWN_LOOK_EVERY_NS (1000 * 1000)

static size_t channel_bytes(unsigned int max_users)
{
	return sizeof(struct spawn_channel) + (size_t)max_users * sizeof(pid_t);
}

/*
 * fork() whose child is the driver's, not the spawner's. glibc's fork()
 * takes no flags, and what it does beyond the system call is for a
 * parent with threads or fork handlers, which the spawner does not have.
 * One thing it does the child misses: glibc's record of the thread's id
 * stays the spawner's, so user code asks the kernel (getpid(),
 * SYS_gettid) and uses no error-checking, recursive or robust mutex,
 * the locks that read that record.
 */
static pid_t fork_for_parent(void)
{
	return (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL,
			      NULL, 0UL);
}

/* Forks the users of request number req; in the child, becomes one. */
static void spawn_users(struct user_pool *pool, struct spawn_channel *ch,
			uint32_t req)
{
	uint32_t first = __atomic_load_n(&ch->first, __ATOMIC_RELAXED);
	uint32_t count = __atomic_load_n(&ch->count, __ATOMIC_RELAXED);
	uint32_t gen_seen = __atomic_load_n(&ch->gen_seen, __ATOMIC_RELAXED);
	int32_t err = 0;

	for (uint32_t i = 0; i < count; i++) {
		pid_t pid;

		if (__atomic_load_n(&ch->stop, __ATOMIC_ACQUIRE))
			break;
		pid = fork_for_parent();
		if (pid == 0) {
			if (arena_attach_slot(pool->arena, first + i))
				_exit(USER_EXIT_SETUP);
			user_process_main(pool, first + i, gen_seen);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		ch->pids[first + i] = pid;
		__atomic_store_n(&ch->forked, i + 1, __ATOMIC_RELEASE);
	}
	ch->err = err;
	/* The driver looks every SPAWN_LOOK_EVERY_NS: no wake. */
	__atomic_store_n(&ch->done, req, __ATOMIC_RELEASE);
}

/*
 * The driver's priority, which its children do not inherit: forking is
 * what the driver did at it, and the users just forked, busy setting up
 * on every CPU, would otherwise hold up the forks of the rest. Users
 * start as ordinary tasks (SCHED_RESET_ON_FORK). Where the driver could
 * not have it, neither can the spawner.
 */
static void spawner_priority(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
}

__attribute__((noreturn))
static void spawner_main(struct user_pool *pool, struct spawn_channel *ch,
			 size_t ch_bytes)
{
	uint32_t seen = 0, req;

	process_child_setup(pool->parent, SIGKILL);
	spawner_priority();
	/* As a user does: the driver alone acts on terminal signals. */
	process_set_stop_signals(SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	pool->pgid = getpid();
	/* The driver's, and none of it for a user to inherit. */
	free(pool->pids);
	pool->pids = NULL;
	if (madvise(ch, ch_bytes, MADV_DONTFORK) ||
	    arena_detach_slots(pool->arena))
		_exit(USER_EXIT_SETUP);
	for (;;) {
		req = __atomic_load_n(&ch->req, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ch->quit, __ATOMIC_ACQUIRE))
			_exit(0);
		if (req == seen) {
			gate_wait_change(&ch->req, seen, 0);
			continue;
		}
		seen = req;
		spawn_users(pool, ch, req);
	}
}

int spawner_start(struct user_pool *pool)
{
	size_t bytes = channel_bytes(pool->max_users);
	struct spawn_channel *ch;
	pid_t pid;

	ch = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ch == MAP_FAILED)
		return errno;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		spawner_main(pool, ch, bytes);
	if (pid < 0) {
		int err = errno;

		munmap(ch, bytes);
		return err;
	}
	/* Both sides set the group, so that neither depends on who runs
	 * first. Every user is born in it. */
	setpgid(pid, pid);
	pool->pgid = pid;
	pool->spawner = (struct spawner){ pid, ch, bytes };
	return 0;
}

/* Takes in the users the spawner has forked since the last look. */
static void spawner_take(struct user_pool *pool, unsigned int *forked)
{
	struct spawn_channel *ch = pool->spawner.ch;
	uint32_t now = __atomic_load_n(&ch->forked, __ATOMIC_ACQUIRE);

	for (; *forked < now; (*forked)++) {
		pool->pids[ch->first + *forked] = ch->pids[ch->first + *forked];
		pool->alive++;
	}
}

/* Waits for the spawner's answer to request req, taking in its users as
 * they come. 0 with the answer, -1 (reason set) when none will come. */
static int spawner_wait(struct user_pool *pool, uint32_t req,
			unsigned int *forked, char *reason, size_t len)
{
	struct spawner *sp = &pool->spawner;
	struct timespec look = { 0, SPAWN_LOOK_EVERY_NS };
	uint64_t stall = (uint64_t)(SPAWN_STALL_S * NSEC_PER_SEC);
	uint64_t deadline = now_ns() + stall;
	unsigned int seen = 0;

	for (;;) {
		bool done = __atomic_load_n(&sp->ch->done, __ATOMIC_ACQUIRE) ==
			    req;

		spawner_take(pool, forked);
		if (done)
			return 0;
		if (*forked != seen) {
			seen = *forked;
			deadline = now_ns() + stall;
		}
		/* The fork in hand is the spawner's last. */
		if (run_interrupted)
			__atomic_store_n(&sp->ch->stop, 1, __ATOMIC_RELEASE);
		/* Reaped later, as a member of the users' group. */
		if (process_has_exited(sp->pid)) {
			snprintf(reason, len,
				 "the process that forks the users (pid %d) ended",
				 (int)sp->pid);
			return -1;
		}
		if (now_ns() > process_deadline(deadline)) {
			snprintf(reason, len,
				 "the process that forks the users (pid %d) forked none for %.0f s",
				 (int)sp->pid, SPAWN_STALL_S);
			return -1;
		}
		nanosleep(&look, NULL);
	}
}

int spawner_fork(struct user_pool *pool, unsigned int first,
		 unsigned int count, uint32_t gen_seen, unsigned int *forked,
		 char *reason, size_t len)
{
	struct spawner *sp = &pool->spawner;
	struct spawn_channel *ch = sp->ch;
	uint32_t req;

	*forked = 0;
	if (!sp->pid) {
		snprintf(reason, len, "the process that forks the users is gone");
		return -1;
	}
	ch->first = first;
	ch->count = count;
	ch->gen_seen = gen_seen;
	ch->forked = 0;
	ch->err = 0;
	__atomic_store_n(&ch->stop, 0, __ATOMIC_RELAXED);
	req = ch->req + 1;
	__atomic_store_n(&ch->req, req, __ATOMIC_RELEASE);
	gate_wake_all(&ch->req);
	if (spawner_wait(pool, req, forked, reason, len))
		return -1;
	if (ch->err)
		return ch->err;
	if (*forked < count) {
		snprintf(reason, len, "interrupted");
		return -1;
	}
	return 0;
}

void spawner_forget(struct spawner *sp)
{
	if (sp->ch)
		munmap(sp->ch, sp->ch_bytes);
	sp->ch = NULL;
	sp->pid = 0;
}

void spawner_stop(struct spawner *sp, uint64_t deadline_ns)
{
	pid_t pid = sp->pid;
	int status;

	if (!pid)
		return;
	__atomic_store_n(&sp->ch->quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&sp->ch->req, 1, __ATOMIC_RELEASE);
	gate_wake_all(&sp->ch->req);
	spawner_forget(sp);
	if (process_wait(pid, &status, PROCESS_REAP | PROCESS_GRACE_CUT,
			 deadline_ns) != 1) {
		kill(pid, SIGKILL);
		process_reap_killed(pid, &status,
				    process_deadline_in(PROCESS_KILLED_WAIT_S));
	}
}
