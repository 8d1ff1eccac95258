/* driver/users/spawner.c: the driver's side of the small process that forks the users of process mode. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/base/process.h"
#include "driver/users/spawn_channel.h"
#include "driver/users/spawn_state.h"
#include "driver/users/spawner.h"
#include "driver/users/pool.h"
#include "driver/base/util.h"

/*
 * Why users are not forked by the driver itself. A fork copies the
 * parent's memory map: each mapping, the page tables of the private
 * pages it has written, and for each such mapping the chain of anonymous
 * reverse maps it inherited. A driver that has loaded libcjson and libm
 * and written its bookkeeping has two or three times the mappings and
 * written pages of a small C program, and each of its forks costs that
 * much more; a copy of it forked once has the same map, and one more
 * reverse map in every chain. Worse, a page the driver writes between
 * two forks is copied, and the copy each user keeps stays in the
 * driver's reverse map, whose every walk (reclaim, page migration, a
 * DAMON monitor) visits every user, under the lock the next fork needs.
 *
 * So the users are forks of aimsweep-users (driver/users/users_main.c), a
 * program of its own with the users' code, the C library and libm,
 * exec'd once per run: a map about as small as a bare loop of fork()s
 * has, whose only writes between two forks are a pid into the channel,
 * as that loop's are. It reads
 * what the users need of the driver's state from the channel's file
 * (driver/users/spawn_state.h), maps the arena's header and leaves its slots
 * to the users, each mapping its own. CLONE_PARENT makes each user the
 * driver's child all the same: the driver reaps it, gets its SIGCHLD,
 * and the user dies with the driver.
 */

/* How long the spawner may go without forking a user before the driver
 * takes it for stuck: far more than one fork takes anywhere. */
#define SPAWN_STALL_S 60.0
/* How long its exec and set-up may take: far more than they do. */
#define SPAWN_START_S 30.0
/* How often the driver looks at what the spawner has forked. */
#define SPAWN_LOOK_EVERY_NS (1000 * 1000)

/*
 * The channel, with the run's state in it, at *offset in the arena's
 * file, past the arena: the spawner is handed that one descriptor, which
 * the driver holds anyway, and a run needs no more descriptors than the
 * arena's. 0, or an errno value.
 */
static int channel_create(const struct user_pool *pool,
			  struct spawn_channel **chp, size_t *bytes,
			  off_t *offset)
{
	const struct arena *a = pool->ctx.arena;
	size_t state_at = spawn_channel_state_offset(pool->max_users);
	size_t state_bytes = spawn_state_size(&pool->ctx);
	struct spawn_channel *ch;

	*bytes = state_at + state_bytes;
	*offset = (off_t)arena_file_end(a);
	if (ftruncate(a->fd, *offset + (off_t)*bytes))
		return errno;
	ch = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd,
		  *offset);
	if (ch == MAP_FAILED)
		return errno;
	ch->state_offset = state_at;
	ch->state_bytes = state_bytes;
	spawn_state_write(&pool->ctx, (char *)ch + state_at);
	*chp = ch;
	return 0;
}

/* The spawner's command line, made before the fork. */
struct spawner_cmd {
	char path[PATH_MAX];
	char fd_arg[16];
	char offset_arg[32];
};

/* 0, or ENAMETOOLONG when libexec_dir is too long for a path. */
static int spawner_cmd(const struct user_pool *pool, off_t offset,
		       struct spawner_cmd *cmd)
{
	snprintf(cmd->fd_arg, sizeof(cmd->fd_arg), "%d", pool->ctx.arena->fd);
	snprintf(cmd->offset_arg, sizeof(cmd->offset_arg), "%lld",
		 (long long)offset);
	return path_join(cmd->path, sizeof(cmd->path),
			 pool->ctx.libexec_dir, USERS_PROGRAM_NAME)
		       ? 0
		       : ENAMETOOLONG;
}

/* In the forked child: becomes aimsweep-users, with the arena's file fd
 * and the standard three its only descriptors. */
__attribute__((noreturn))
static void spawner_exec(struct spawner_cmd *cmd, int fd,
			 struct spawn_channel *ch)
{
	char *argv[] = { USERS_PROGRAM_NAME, cmd->fd_arg, cmd->offset_arg,
			 NULL };
	int probe;

	process_close_other_fds(&fd, 1);
	if (fcntl(fd, F_SETFD, 0)) {
		ch->start_err = errno;
		_exit(127);
	}
	/* The dynamic loader opens each library with one more descriptor:
	 * a limit that leaves none would end it with a message about a
	 * library, not about the limit. */
	probe = dup(fd);
	if (probe < 0) {
		ch->start_err = errno;
		_exit(127);
	}
	close(probe);
	execve(cmd->path, argv, environ);
	ch->start_err = errno;
	_exit(127);
}

/* Waits until the spawner pid is set up; 0, or an errno value: ECHILD
 * when it ended without saying why. */
static int spawner_wait_ready(struct spawn_channel *ch, pid_t pid)
{
	struct timespec look = { 0, SPAWN_LOOK_EVERY_NS };
	uint64_t deadline = now_ns() + (uint64_t)(SPAWN_START_S * NSEC_PER_SEC);
	int status, err;

	for (;;) {
		err = __atomic_load_n(&ch->start_err, __ATOMIC_ACQUIRE);
		if (err)
			return err;
		if (__atomic_load_n(&ch->ready, __ATOMIC_ACQUIRE))
			return 0;
		if (process_has_exited(pid) || now_ns() > deadline)
			break;
		nanosleep(&look, NULL);
	}
	/* One last look: it may have said why just before it exited. */
	err = __atomic_load_n(&ch->start_err, __ATOMIC_ACQUIRE);
	kill(pid, SIGKILL);
	process_reap_killed(pid, &status,
			    process_deadline_in(PROCESS_KILLED_WAIT_S));
	return err ? err : ECHILD;
}

/* spawner_start()'s steps: 0, or the errno value of the one that failed. */
static int spawner_launch(struct user_pool *pool)
{
	struct spawn_channel *ch = NULL;
	struct spawner_cmd cmd;
	size_t bytes;
	off_t offset;
	int err;
	pid_t pid;

	err = channel_create(pool, &ch, &bytes, &offset);
	if (err)
		return err;
	err = spawner_cmd(pool, offset, &cmd);
	if (err) {
		munmap(ch, bytes);
		return err;
	}
	fflush(NULL);
	/* It leads a group of its own; every user is born in it. */
	pid = process_fork(SIGKILL);
	if (pid == 0)
		spawner_exec(&cmd, pool->ctx.arena->fd, ch);
	if (pid < 0) {
		err = errno;
		munmap(ch, bytes);
		return err;
	}
	err = spawner_wait_ready(ch, pid);
	if (err) {
		munmap(ch, bytes);
		return err;
	}
	pool->pgid = pid;
	pool->spawner = (struct spawner){ pid, ch, bytes };
	return 0;
}

int spawner_start(struct user_pool *pool, char *err, size_t errlen)
{
	int cause = spawner_launch(pool);

	if (!cause)
		return 0;
	err_set(err, errlen,
		"cannot start %s/%s, the process that forks the users: %s",
		pool->ctx.libexec_dir, USERS_PROGRAM_NAME,
		cause == ECHILD ? "it ended before it was ready" :
				  strerror(cause));
	errno = cause;
	return -1;
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
 * they come. 0 with the answer, -1 with why in err when none will come. */
static int spawner_wait(struct user_pool *pool, uint32_t req,
			unsigned int *forked, char *err, size_t errlen)
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
		if (process_has_exited(sp->pid))
			return err_set(err, errlen,
				       "the process that forks the users (pid %d) ended",
				       (int)sp->pid);
		if (now_ns() > process_deadline(deadline))
			return err_set(err, errlen,
				       "the process that forks the users (pid %d) forked none for %.0f s",
				       (int)sp->pid, SPAWN_STALL_S);
		nanosleep(&look, NULL);
	}
}

/* What RLIMIT_NPROC is, for the message of a fork that failed. */
static void describe_nproc(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) || rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "RLIMIT_NPROC unlimited");
	else
		snprintf(buf, len, "RLIMIT_NPROC is %llu",
			 (unsigned long long)rl.rlim_cur);
}

int spawner_fork(struct user_pool *pool, unsigned int first,
		 unsigned int count, unsigned int users, uint32_t gen_seen,
		 char *err, size_t errlen)
{
	struct spawner *sp = &pool->spawner;
	struct spawn_channel *ch = sp->ch;
	unsigned int forked = 0;
	char limit[64];
	uint32_t req;

	if (!sp->pid)
		return err_set(err, errlen,
			       "the process that forks the users is gone");
	ch->first = first;
	ch->count = count;
	ch->gen_seen = gen_seen;
	ch->forked = 0;
	ch->err = 0;
	__atomic_store_n(&ch->stop, 0, __ATOMIC_RELAXED);
	req = ch->req + 1;
	__atomic_store_n(&ch->req, req, __ATOMIC_RELEASE);
	gate_wake_all(&ch->req);
	if (spawner_wait(pool, req, &forked, err, errlen))
		return -1;
	if (ch->err) {
		describe_nproc(limit, sizeof(limit));
		return err_set(err, errlen, "cannot fork user %u of %u: %s (%s)",
			       first + forked, users, strerror(ch->err),
			       limit);
	}
	if (forked < count)
		return err_set(err, errlen, "interrupted");
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
