/* jobs/ipc.c: AIM7's pipe, FIFO and shm jobs and their message loop. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/aim7_msgs.h"
#include "jobs/catalog.h"

/*
 * AIM7's message sizes, in its order: two rounds of assorted sizes, then
 * runs of the sizes it attributes to X clients and to databases. The
 * cycle runs on from one op to the next, as AIM7's counter does.
 */
static const unsigned short aim7_msg_sizes[] = {
	1, 3, 5, 7, 16, 32, 64, 512, 1024, 2048, 4096,
	1, 3, 5, 7, 16, 32, 64, 512, 1024, 2048, 4096,
	32, 32, 32, 32, 32, 32,
	512, 512, 512, 512, 512,
	2048, 2048, 2048, 2048,
};

#define AIM7_MSG_SIZES (sizeof(aim7_msg_sizes) / sizeof(aim7_msg_sizes[0]))

/*
 * AIM7 asks its channel jobs for 100 messages and sends one less: its
 * loop counts down and stops at one. shared_memory makes its 100.
 */
#define CHAN_MSGS 99
#define SHM_COPIES 100

/* AIM7's segment size; a copy touches at most its first page. */
#define SHM_BYTES 65536

/*
 * How long a message may take to arrive before it counts as lost. Only a
 * datagram over loopback can be lost (a full backlog queue drops it); its
 * socket is non-blocking so that the job waits here, not forever in
 * read(). Below the driver's default grace, so a user ends its op first.
 */
#define MSG_WAIT_MS 3000

void aim7_msgs_init(struct aim7_msgs *m, const struct job_ctx *ctx,
		    bool datagram)
{
	m->progress = ctx->progress;
	m->next = 0;
	m->datagram = datagram;
	/* AIM7 sends whatever its buffer holds; any content does. */
	job_fill_random(m->buf, sizeof(m->buf), ctx->seed);
}

size_t aim7_msg_size(struct aim7_msgs *m)
{
	size_t size = aim7_msg_sizes[m->next];

	m->next = (m->next + 1) % AIM7_MSG_SIZES;
	return size;
}

/* Waits for fd to become ready after EAGAIN; a timeout is ETIMEDOUT. */
static int msg_wait(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int n;

	do {
		n = poll(&pfd, 1, MSG_WAIT_MS);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	return n ? 0 : ETIMEDOUT;
}

/*
 * Writes one whole message to fd, or with `in` reads one from it. A
 * datagram moves whole or it is EIO; so is the end of file on a read.
 */
static inline int msg_move(struct aim7_msgs *m, int fd, size_t size, bool in)
{
	size_t done = 0;
	ssize_t n;
	int err;

	while (done < size) {
		n = in ? read(fd, m->buf + done, size - done) :
			 write(fd, m->buf + done, size - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return errno;
			err = msg_wait(fd, in ? POLLIN : POLLOUT);
			if (err)
				return err;
			continue;
		}
		if ((in && n == 0) || (m->datagram && (size_t)n != size))
			return EIO;
		done += (size_t)n;
	}
	return 0;
}

/* One process at both ends, one message in flight: nothing ever blocks. */
int aim7_msgs_pass(struct aim7_msgs *m, int rfd, int wfd, unsigned int count)
{
	size_t size;
	int err;

	for (unsigned int i = 0; i < count; i++) {
		size = aim7_msg_size(m);
		err = msg_move(m, wfd, size, false);
		if (!err)
			err = msg_move(m, rfd, size, true);
		if (err)
			return err;
		job_progress(m->progress, 1);
	}
	return 0;
}

/* Closes both ends as AIM7 does, read end first; the first error wins. */
static int close_pair(int rfd, int wfd, int err)
{
	if (close(rfd) && !err)
		err = errno;
	if (close(wfd) && !err)
		err = errno;
	return err;
}

/* A channel job's state is its messages; the channel is made per op. */
static int aim7_msgs_new(const struct job_ctx *ctx, void **state,
			 bool datagram)
{
	struct aim7_msgs *m = malloc(sizeof(*m));

	if (!m)
		return ENOMEM;
	aim7_msgs_init(m, ctx, datagram);
	*state = m;
	return 0;
}

int aim7_msgs_stream_init(const struct job_ctx *ctx, void **state)
{
	return aim7_msgs_new(ctx, state, false);
}

int aim7_msgs_dgram_init(const struct job_ctx *ctx, void **state)
{
	return aim7_msgs_new(ctx, state, true);
}

/* pipe_cpy: a pipe per op, 99 messages through it, both ends closed. */
static int pipe_run(void *state)
{
	int fds[2], err;

	if (pipe2(fds, O_CLOEXEC))
		return errno;
	err = aim7_msgs_pass(state, fds[0], fds[1], CHAN_MSGS);
	return close_pair(fds[0], fds[1], err);
}

/* stream_pipe and dgram_pipe: the same with an AF_UNIX socket pair. */
static int socketpair_run(struct aim7_msgs *m, int type)
{
	int fds[2], err;

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, fds))
		return errno;
	err = aim7_msgs_pass(m, fds[0], fds[1], CHAN_MSGS);
	return close_pair(fds[0], fds[1], err);
}

static int stream_pipe_run(void *state)
{
	return socketpair_run(state, SOCK_STREAM);
}

static int dgram_pipe_run(void *state)
{
	return socketpair_run(state, SOCK_DGRAM);
}

struct fifo_state {
	struct aim7_msgs msgs;
	char path[PATH_MAX];	/* the FIFO each op makes and removes */
};

static int fifo_init(const struct job_ctx *ctx, void **state)
{
	struct fifo_state *st = malloc(sizeof(*st));

	if (!st)
		return ENOMEM;
	aim7_msgs_init(&st->msgs, ctx, false);
	if (job_path(st->path, sizeof(st->path), ctx->dir, "fifo_test.%u",
		     ctx->user)) {
		job_set_reason(ctx, "FIFO path too long");
		free(st);
		return ENAMETOOLONG;
	}
	*state = st;
	return 0;
}

/*
 * fifo_test: AIM7 clears the name, makes the FIFO, opens it twice without
 * waiting (read-only, then read-write, which needs no reader), passes 99
 * messages, closes both and removes the name. A user killed mid-op leaves
 * the FIFO in its scratch directory, which the driver removes.
 */
static int fifo_run(void *state)
{
	struct fifo_state *st = state;
	const int flags = O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
	int rfd, wfd, err;

	unlink(st->path);
	if (mkfifo(st->path, 0600))
		return errno;
	rfd = open(st->path, O_RDONLY | flags);
	if (rfd < 0) {
		err = errno;
		goto out_unlink;
	}
	wfd = open(st->path, O_RDWR | flags);
	if (wfd < 0) {
		err = errno;
		close(rfd);
		goto out_unlink;
	}
	err = aim7_msgs_pass(&st->msgs, rfd, wfd, CHAN_MSGS);
	err = close_pair(rfd, wfd, err);
out_unlink:
	if (unlink(st->path) && !err)
		err = errno;
	return err;
}

/* glibc leaves this union to the caller, as POSIX says. */
union sem_arg {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

struct shm_state {
	struct aim7_msgs msgs;	/* the copy sizes and the private buffer */
	/* The user's context, for the SysV records each op makes and drops;
	 * what it points to lives as long as the user. */
	struct job_ctx ctx;
};

static int shm_init(const struct job_ctx *ctx, void **state)
{
	struct shm_state *st = malloc(sizeof(*st));

	if (!st)
		return ENOMEM;
	aim7_msgs_init(&st->msgs, ctx, false);
	st->ctx = *ctx;
	*state = st;
	return 0;
}

/*
 * AIM7 keys its segment and semaphore by its pid; a user that is a thread
 * shares its pid, so it takes its own thread id, unique the same way.
 */
static key_t shm_key(const struct shm_state *st)
{
	return st->ctx.threaded ? (key_t)gettid() : (key_t)getpid();
}

/* shmget() or semget() for the op's segment or semaphore, made anew. */
static int shm_get(enum job_sysv_kind kind, key_t key)
{
	const int flags = IPC_CREAT | IPC_EXCL | 0600;

	if (kind == JOB_SYSV_SHM)
		return shmget(key, SHM_BYTES, flags);
	return semget(key, 1, flags);
}

/*
 * Creates the op's segment, or its semaphore, and records it for the
 * driver. The key is recorded before the create and dropped only after
 * the id is registered, so that the driver can find the object of a user
 * killed between the two. A key that some other program's object already
 * has is left to it (IPC_EXCL); the op then takes a private object
 * instead.
 */
static int shm_create(struct shm_state *st, enum job_sysv_kind kind, int *idp)
{
	key_t key = shm_key(st);
	int id, err;

	job_pending_sysv(&st->ctx, kind, key);
	id = shm_get(kind, key);
	if (id < 0 && errno == EEXIST) {
		/* The key is another program's: the driver must not remove
		 * what it finds under it. This is the one window left: a
		 * user killed before it registers its private object leaves
		 * it, and only while another program holds the user's key. */
		job_pending_sysv(&st->ctx, kind, IPC_PRIVATE);
		id = shm_get(kind, IPC_PRIVATE);
	}
	if (id < 0) {
		err = errno;
		goto out;
	}
	err = job_register_sysv(&st->ctx, kind, id);
	if (err) {
		if (kind == JOB_SYSV_SHM)
			shmctl(id, IPC_RMID, NULL);
		else
			semctl(id, 0, IPC_RMID);
		goto out;
	}
	*idp = id;
out:
	job_pending_sysv(&st->ctx, kind, IPC_PRIVATE);
	return err;
}

/* Copies each message into the segment and back, each copy under the
 * semaphore, as AIM7's writer side and reader side in one process. */
static int shm_copies(struct shm_state *st, int semid, unsigned char *seg)
{
	struct sembuf down = { .sem_num = 0, .sem_op = -1, .sem_flg = 0 };
	struct sembuf up = { .sem_num = 0, .sem_op = 1, .sem_flg = 0 };
	unsigned char *buf = st->msgs.buf;
	size_t size;

	for (unsigned int i = 0; i < SHM_COPIES; i++) {
		size = aim7_msg_size(&st->msgs);
		if (semop(semid, &down, 1))
			return errno;
		memcpy(seg, buf, size);
		if (semop(semid, &up, 1) || semop(semid, &down, 1))
			return errno;
		memcpy(buf, seg, size);
		if (semop(semid, &up, 1))
			return errno;
		job_progress(st->msgs.progress, 1);
	}
	return 0;
}

/*
 * shared_memory: per op, a 64 KiB segment and a semaphore set to one,
 * 100 messages copied into the segment and back under it, then detach and
 * remove both. glibc makes each semop() a semtimedop() without a timeout,
 * which is what strace shows.
 */
static int shm_run(void *state)
{
	struct shm_state *st = state;
	union sem_arg arg = { .val = 1 };
	int shmid, semid = -1, err;
	void *seg = (void *)-1;

	err = shm_create(st, JOB_SYSV_SHM, &shmid);
	if (err)
		return err;
	err = shm_create(st, JOB_SYSV_SEM, &semid);
	if (err)
		goto out;
	seg = shmat(shmid, NULL, 0);
	if (seg == (void *)-1) {
		err = errno;
		goto out;
	}
	if (semctl(semid, 0, SETVAL, arg)) {
		err = errno;
		goto out;
	}
	err = shm_copies(st, semid, seg);
out:
	if (seg != (void *)-1 && shmdt(seg) && !err)
		err = errno;
	if (shmctl(shmid, IPC_RMID, NULL) && !err)
		err = errno;
	job_unregister_sysv(&st->ctx, shmid);
	if (semid >= 0) {
		if (semctl(semid, 0, IPC_RMID) && !err)
			err = errno;
		job_unregister_sysv(&st->ctx, semid);
	}
	return err;
}

const struct job job_pipe_cpy = {
	.name = "pipe_cpy",
	.family = "ipc",
	.units = JOB_UNITS_AIM7,
	.unit = "Pipe Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "make a pipe, pass 99 messages of AIM7's sizes (1 B to "
		   "4 KiB) through it, close it",
	.syscalls = (const struct job_syscall[]){
		{ "pipe2", 1, 0 }, { "write", 0, 1 }, { "read", 0, 1 },
		{ "close", 2, 0 }, { NULL, 0, 0 } },
	.init = aim7_msgs_stream_init,
	.run = pipe_run,
	.fini = free,
};

const struct job job_stream_pipe = {
	.name = "stream_pipe",
	.family = "ipc",
	.units = JOB_UNITS_AIM7,
	.unit = "Stream Pipe Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "make an AF_UNIX stream socket pair, pass 99 messages of "
		   "AIM7's sizes through it, close it",
	.syscalls = (const struct job_syscall[]){
		{ "socketpair", 1, 0 }, { "write", 0, 1 }, { "read", 0, 1 },
		{ "close", 2, 0 }, { NULL, 0, 0 } },
	.init = aim7_msgs_stream_init,
	.run = stream_pipe_run,
	.fini = free,
};

const struct job job_dgram_pipe = {
	.name = "dgram_pipe",
	.family = "ipc",
	.units = JOB_UNITS_AIM7,
	.unit = "DataGram Pipe Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "make an AF_UNIX datagram socket pair, pass 99 datagrams "
		   "of AIM7's sizes through it, close it",
	.syscalls = (const struct job_syscall[]){
		{ "socketpair", 1, 0 }, { "write", 0, 1 }, { "read", 0, 1 },
		{ "close", 2, 0 }, { NULL, 0, 0 } },
	.init = aim7_msgs_dgram_init,
	.run = dgram_pipe_run,
	.fini = free,
};

const struct job job_fifo_test = {
	.name = "fifo_test",
	.family = "ipc",
	.units = JOB_UNITS_AIM7,
	.uses_dir = true,
	.unit = "FIFO Messages",
	.inner_ops = CHAN_MSGS,
	.summary = "make a named FIFO, open both ends, pass 99 messages of "
		   "AIM7's sizes through it, close and remove it",
	.syscalls = (const struct job_syscall[]){
		{ "unlink", 2, 0 }, { "mknodat", 1, 0 }, { "openat", 2, 0 },
		{ "write", 0, 1 }, { "read", 0, 1 }, { "close", 2, 0 },
		{ NULL, 0, 0 } },
	.init = fifo_init,
	.run = fifo_run,
	.fini = free,
};

const struct job job_shared_memory = {
	.name = "shared_memory",
	.family = "ipc",
	.units = JOB_UNITS_AIM7,
	.unit = "Shared Memory Operations",
	.inner_ops = SHM_COPIES,
	.summary = "make a SysV segment and semaphore, copy 100 messages of "
		   "AIM7's sizes into it and back under the semaphore, "
		   "remove both",
	.syscalls = (const struct job_syscall[]){
		{ "getpid", 2, 0 }, { "shmget", 1, 0 }, { "semget", 1, 0 },
		{ "shmat", 1, 0 }, { "semctl", 2, 0 },
		{ "semtimedop", 0, 4 }, { "shmdt", 1, 0 }, { "shmctl", 1, 0 },
		{ NULL, 0, 0 } },
	.init = shm_init,
	.run = shm_run,
	.fini = free,
};
