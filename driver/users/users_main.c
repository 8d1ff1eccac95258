/* driver/users/users_main.c: aimsweep-users, the spawner the driver execs in process mode, and every user it forks. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/base/process.h"
#include "driver/users/spawn_channel.h"
#include "driver/users/spawn_state.h"
#include "driver/users/user_life.h"

/*
 * Run by the driver alone (driver/users/spawner.c), as
 * `aimsweep-users ARENA_FD CHANNEL_OFFSET`: the channel is in the
 * arena's file, past the arena. It sets itself up from the channel, says
 * it is ready, then forks the users the driver asks for until told to
 * quit. Why the users are forks of this program and not of
 * the driver is said in driver/users/spawner.c.
 */

/* What the users are forks of: in this program's data, so that each
 * user has it where the spawner had it. */
static struct spawn_image image;

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
static void spawn_users(const struct user_ctx *ctx, struct spawn_channel *ch,
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
			if (arena_attach_slot(ctx->arena, first + i))
				_exit(USER_EXIT_SETUP);
			user_process_main(ctx, first + i, gen_seen);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		ch->pids[first + i] = pid;
		__atomic_store_n(&ch->forked, i + 1, __ATOMIC_RELEASE);
	}
	ch->err = err;
	/* The driver looks every millisecond or so: no wake. */
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
static void spawner_loop(const struct user_ctx *ctx, struct spawn_channel *ch)
{
	uint32_t seen = 0, req;

	for (;;) {
		req = __atomic_load_n(&ch->req, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ch->quit, __ATOMIC_ACQUIRE))
			_exit(0);
		if (req == seen) {
			gate_wait_change(&ch->req, seen, 0);
			continue;
		}
		seen = req;
		spawn_users(ctx, ch, req);
	}
}

/* A number from argv, from 0 to max; -1 when it is not one. */
static long long number_arg(const char *s, long long max)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 10);
	return *s && !*end && !errno && n >= 0 && n <= max ? n : -1;
}

/* Maps the channel at offset in the arena's file; NULL with a message
 * when it is not there. */
static struct spawn_channel *channel_map(int fd, off_t offset, size_t *bytes)
{
	struct spawn_channel *ch;
	struct stat st;

	if (fstat(fd, &st) ||
	    st.st_size < offset + (off_t)sizeof(*ch)) {
		fprintf(stderr, "%s: no channel in descriptor %d at %lld\n",
			USERS_PROGRAM_NAME, fd, (long long)offset);
		return NULL;
	}
	*bytes = (size_t)(st.st_size - offset);
	ch = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
	if (ch == MAP_FAILED) {
		fprintf(stderr, "%s: cannot map the channel: %s\n",
			USERS_PROGRAM_NAME, strerror(errno));
		return NULL;
	}
	return ch;
}

/* Builds the users' image from the channel; 0, or an errno value. */
static int image_load(struct spawn_channel *ch, size_t bytes, int arena_fd)
{
	char err[256] = "the channel is cut short";

	if (ch->state_offset > bytes ||
	    ch->state_bytes > bytes - ch->state_offset ||
	    spawn_state_read((char *)ch + ch->state_offset, ch->state_bytes,
			     &image, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", USERS_PROGRAM_NAME, err);
		return EINVAL;
	}
	return arena_map_header(&image.arena, arena_fd) ? errno : 0;
}

int main(int argc, char **argv)
{
	struct spawn_channel *ch;
	long long arena_fd = -1, offset = -1;
	size_t bytes;
	int err;

	if (argc == 3) {
		arena_fd = number_arg(argv[1], INT_MAX);
		offset = number_arg(argv[2], LLONG_MAX);
	}
	if (arena_fd < 0 || offset < 0) {
		fprintf(stderr, "%s: run by aimsweep, not by hand\n",
			USERS_PROGRAM_NAME);
		return 2;
	}
	ch = channel_map((int)arena_fd, (off_t)offset, &bytes);
	if (!ch)
		return 2;
	err = image_load(ch, bytes, (int)arena_fd);
	/* The arena's file stays for each user to map its slot, and none of
	 * the programs its jobs exec has it. */
	if (!err && fcntl((int)arena_fd, F_SETFD, FD_CLOEXEC))
		err = errno;
	if (!err && madvise(ch, bytes, MADV_DONTFORK))
		err = errno;
	if (err) {
		__atomic_store_n(&ch->start_err, err, __ATOMIC_RELEASE);
		return 1;
	}
	process_child_setup(image.ctx.parent, SIGKILL);
	spawner_priority();
	/* The spawner leads the users' group (driver/users/spawner.c). */
	users_inherited_setup(getpid());
	__atomic_store_n(&ch->ready, 1, __ATOMIC_RELEASE);
	spawner_loop(&image.ctx, ch);
}
