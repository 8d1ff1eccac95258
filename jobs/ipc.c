/* jobs/ipc.c: the ipc family of the AIM7 job catalog (pipes, FIFOs, shm). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/catalog.h"

/*
 * A message is one page: it fits the smallest buffer a pipe can have (a
 * pipe's owner over pipe-user-pages-soft gets small ones), is written
 * atomically (PIPE_BUF), and fits any socket buffer. Each message is
 * written and then read back before the next one, so with both ends in
 * one user nothing can ever block.
 */
#define CHAN_MSG_BYTES 4096
#define CHAN_MSGS 100

/* Semaphore-guarded stores into the shared segment per op. */
#define SHM_UPDATES 100
#define SHM_BYTES 4096

/* One user's end pair of a pipe-like channel, and its message buffers. */
struct chan_state {
	int rfd;
	int wfd;
	bool stream;		/* a read may return part of a message */
	uint64_t seq;		/* stamped into each message */
	unsigned char wbuf[CHAN_MSG_BYTES];
	unsigned char rbuf[CHAN_MSG_BYTES];
};

static struct chan_state *chan_alloc(const struct job_ctx *ctx, bool stream)
{
	struct chan_state *st = malloc(sizeof(*st));

	if (!st)
		return NULL;
	st->rfd = -1;
	st->wfd = -1;
	st->stream = stream;
	st->seq = ctx->seed;
	/* Content the compiler cannot know, so that the copies are real. */
	job_fill_random(st->wbuf, sizeof(st->wbuf), ctx->seed);
	return st;
}

static void chan_fini(void *state)
{
	struct chan_state *st = state;

	if (st->rfd >= 0)
		close(st->rfd);
	if (st->wfd >= 0 && st->wfd != st->rfd)
		close(st->wfd);
	free(st);
}

/*
 * Reads one whole message. A stream (pipe, FIFO, stream socket) may hand
 * it back in pieces; a datagram comes whole or it is an error. End of
 * file or a short datagram is EIO.
 */
static int chan_read(struct chan_state *st)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(st->rbuf)) {
		n = read(st->rfd, st->rbuf + got, sizeof(st->rbuf) - got);
		if (n < 0)
			return errno;
		if (n == 0)
			return EIO;
		got += (size_t)n;
		if (!st->stream && got < sizeof(st->rbuf))
			return EIO;
	}
	return 0;
}

/*
 * After a failed op, empties the channel without blocking, so that a
 * message left behind does not make every later op fail too.
 */
static void chan_drain(struct chan_state *st)
{
	int flags = fcntl(st->rfd, F_GETFL);

	if (flags < 0 || fcntl(st->rfd, F_SETFL, flags | O_NONBLOCK))
		return;
	while (read(st->rfd, st->rbuf, sizeof(st->rbuf)) > 0)
		;
	fcntl(st->rfd, F_SETFL, flags);
}

/* One op: CHAN_MSGS messages through the channel, each checked byte for
 * byte; the sequence number in each tells a stale message from a new one. */
static int chan_run(void *state)
{
	struct chan_state *st = state;
	ssize_t n;
	int err = 0;

	for (unsigned int i = 0; i < CHAN_MSGS; i++) {
		st->seq++;
		memcpy(st->wbuf, &st->seq, sizeof(st->seq));
		n = write(st->wfd, st->wbuf, sizeof(st->wbuf));
		if (n < 0) {
			err = errno;
			goto out;
		}
		if ((size_t)n != sizeof(st->wbuf)) {
			err = EIO;
			goto out;
		}
		err = chan_read(st);
		if (err)
			goto out;
		if (memcmp(st->rbuf, st->wbuf, sizeof(st->wbuf))) {
			err = EIO;
			goto out;
		}
	}
	return 0;
out:
	chan_drain(st);
	return err;
}

static int pipe_init(const struct job_ctx *ctx, void **state)
{
	struct chan_state *st = chan_alloc(ctx, true);
	int fds[2];

	if (!st)
		return ENOMEM;
	if (pipe2(fds, O_CLOEXEC)) {
		int err = errno;

		job_set_reason(ctx, "pipe: %s", strerror(err));
		free(st);
		return err;
	}
	st->rfd = fds[0];
	st->wfd = fds[1];
	*state = st;
	return 0;
}

/* A connected pair of AF_UNIX sockets; one end writes, the other reads. */
static int socketpair_init(const struct job_ctx *ctx, void **state, int type)
{
	struct chan_state *st = chan_alloc(ctx, type == SOCK_STREAM);
	int fds[2];

	if (!st)
		return ENOMEM;
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, fds)) {
		int err = errno;

		job_set_reason(ctx, "socketpair: %s", strerror(err));
		free(st);
		return err;
	}
	st->wfd = fds[0];
	st->rfd = fds[1];
	*state = st;
	return 0;
}

static int stream_pipe_init(const struct job_ctx *ctx, void **state)
{
	return socketpair_init(ctx, state, SOCK_STREAM);
}

static int dgram_pipe_init(const struct job_ctx *ctx, void **state)
{
	return socketpair_init(ctx, state, SOCK_DGRAM);
}

/*
 * The FIFO is made in the user's directory and opened at both ends: the
 * reader first, non-blocking, because opening one end of a FIFO blocks
 * until the other end is open; then the writer, which now finds a reader.
 * The name is unlinked once both ends are open, so that nothing is left
 * in the directory even if the user is killed; the open FIFO lives on.
 */
static int fifo_init(const struct job_ctx *ctx, void **state)
{
	struct chan_state *st = chan_alloc(ctx, true);
	char path[PATH_MAX];
	int err, flags;

	if (!st)
		return ENOMEM;
	err = job_path(path, sizeof(path), ctx->dir, "fifo_test.%u", ctx->user);
	if (err) {
		job_set_reason(ctx, "FIFO path too long");
		goto out_free;
	}
	if (mkfifo(path, 0600)) {
		err = errno;
		job_set_reason(ctx, "mkfifo %s: %s", path, strerror(err));
		goto out_free;
	}
	st->rfd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (st->rfd < 0)
		goto out_errno;
	st->wfd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (st->wfd < 0)
		goto out_errno;
	flags = fcntl(st->rfd, F_GETFL);
	if (flags < 0 || fcntl(st->rfd, F_SETFL, flags & ~O_NONBLOCK))
		goto out_errno;
	if (unlink(path)) {
		err = errno;
		job_set_reason(ctx, "unlink %s: %s", path, strerror(err));
		chan_fini(st);
		return err;
	}
	*state = st;
	return 0;

out_errno:
	err = errno;
	job_set_reason(ctx, "cannot open FIFO %s: %s", path, strerror(err));
	unlink(path);
	chan_fini(st);
	return err;
out_free:
	free(st);
	return err;
}

/* glibc leaves this union to the caller, as POSIX says. */
union sem_arg {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

struct shm_state {
	int shmid;
	int semid;
	volatile uint64_t *seg;	/* the attached segment */
	uint64_t seq;		/* the value the next update stores */
	unsigned int slot;	/* where in the segment it goes */
};

static void shm_fini(void *state)
{
	struct shm_state *st = state;

	if (st->seg)
		shmdt((const void *)st->seg);
	/* The segment was marked for removal when attached; this is for an
	 * init() that failed before that. */
	if (st->shmid >= 0)
		shmctl(st->shmid, IPC_RMID, NULL);
	if (st->semid >= 0)
		semctl(st->semid, 0, IPC_RMID);
	free(st);
}

/*
 * A private segment and a one-count semaphore guarding it, each recorded
 * for the driver the moment it exists. The segment is marked for removal
 * as soon as it is attached: it lives until detached, so it cannot outlive
 * the user however the user ends.
 */
static int shm_init(const struct job_ctx *ctx, void **state)
{
	struct shm_state *st = calloc(1, sizeof(*st));
	union sem_arg arg;
	void *addr;
	int err;

	if (!st)
		return ENOMEM;
	st->semid = -1;
	st->seq = ctx->seed;
	st->shmid = shmget(IPC_PRIVATE, SHM_BYTES, IPC_CREAT | 0600);
	if (st->shmid < 0) {
		err = errno;
		job_set_reason(ctx, "shmget: %s", strerror(err));
		goto out;
	}
	err = job_register_sysv(ctx, JOB_SYSV_SHM, st->shmid);
	if (err) {
		job_set_reason(ctx, "too many SysV objects for one user");
		goto out;
	}
	addr = shmat(st->shmid, NULL, 0);
	if (addr == (void *)-1) {
		err = errno;
		job_set_reason(ctx, "shmat: %s", strerror(err));
		goto out;
	}
	st->seg = addr;
	if (shmctl(st->shmid, IPC_RMID, NULL)) {
		err = errno;
		job_set_reason(ctx, "shmctl IPC_RMID: %s", strerror(err));
		goto out;
	}
	st->shmid = -1;

	st->semid = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (st->semid < 0) {
		err = errno;
		job_set_reason(ctx, "semget: %s", strerror(err));
		goto out;
	}
	err = job_register_sysv(ctx, JOB_SYSV_SEM, st->semid);
	if (err) {
		job_set_reason(ctx, "too many SysV objects for one user");
		goto out;
	}
	arg.val = 1;
	if (semctl(st->semid, 0, SETVAL, arg)) {
		err = errno;
		job_set_reason(ctx, "semctl SETVAL: %s", strerror(err));
		goto out;
	}
	*state = st;
	return 0;
out:
	shm_fini(st);
	return err;
}

/*
 * One op: SHM_UPDATES times, take the semaphore, store the next sequence
 * number into the segment, release the semaphore, and check the store.
 * The slot walks through the segment a cache line at a time. glibc makes
 * semop() a semtimedop() without a timeout, which is what strace shows.
 */
static int shm_run(void *state)
{
	struct shm_state *st = state;
	struct sembuf down = { .sem_num = 0, .sem_op = -1, .sem_flg = 0 };
	struct sembuf up = { .sem_num = 0, .sem_op = 1, .sem_flg = 0 };
	const unsigned int slots = SHM_BYTES / sizeof(uint64_t);

	for (unsigned int i = 0; i < SHM_UPDATES; i++) {
		if (semop(st->semid, &down, 1))
			return errno;
		st->seq++;
		st->seg[st->slot] = st->seq;
		if (semop(st->semid, &up, 1))
			return errno;
		if (st->seg[st->slot] != st->seq)
			return EIO;
		st->slot = (st->slot + 8) % slots;
	}
	return 0;
}

const struct job job_pipe_cpy = {
	.name = "pipe_cpy",
	.family = "ipc",
	.unit = "Pipe Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "write 4 KiB messages into a pipe and read each back",
	.syscalls = (const struct job_syscall[]){
		{ "write", CHAN_MSGS }, { "read", CHAN_MSGS }, { NULL, 0 } },
	.init = pipe_init,
	.run = chan_run,
	.fini = chan_fini,
};

const struct job job_stream_pipe = {
	.name = "stream_pipe",
	.family = "ipc",
	.unit = "Stream Pipe Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "write 4 KiB messages into an AF_UNIX stream socket pair "
		   "and read each back",
	.syscalls = (const struct job_syscall[]){
		{ "write", CHAN_MSGS }, { "read", CHAN_MSGS }, { NULL, 0 } },
	.init = stream_pipe_init,
	.run = chan_run,
	.fini = chan_fini,
};

const struct job job_dgram_pipe = {
	.name = "dgram_pipe",
	.family = "ipc",
	.unit = "DataGram Pipe Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "send 4 KiB datagrams over an AF_UNIX datagram socket pair "
		   "and read each back",
	.syscalls = (const struct job_syscall[]){
		{ "write", CHAN_MSGS }, { "read", CHAN_MSGS }, { NULL, 0 } },
	.init = dgram_pipe_init,
	.run = chan_run,
	.fini = chan_fini,
};

const struct job job_fifo_test = {
	.name = "fifo_test",
	.family = "ipc",
	.uses_dir = true,
	.unit = "FIFO Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "write 4 KiB messages into a named FIFO and read each back",
	.syscalls = (const struct job_syscall[]){
		{ "write", CHAN_MSGS }, { "read", CHAN_MSGS }, { NULL, 0 } },
	.init = fifo_init,
	.run = chan_run,
	.fini = chan_fini,
};

const struct job job_shared_memory = {
	.name = "shared_memory",
	.family = "ipc",
	.unit = "Shared Memory Operations",
	.inner_ops = SHM_UPDATES,
	.summary = "update a SysV shared memory segment under a SysV "
		   "semaphore (P, store, V)",
	.syscalls = (const struct job_syscall[]){
		{ "semtimedop", 2 * SHM_UPDATES }, { NULL, 0 } },
	.init = shm_init,
	.run = shm_run,
	.fini = shm_fini,
};
