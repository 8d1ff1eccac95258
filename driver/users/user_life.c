/* driver/users/user_life.c: a user's life between levels, as a process forked by aimsweep-users or as a thread of the thread process. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/base/process.h"
#include "driver/users/test_fault.h"
#include "driver/users/user_level.h"
#include "driver/users/user_life.h"

/* The thread process's record of which user threads run (thread mode). */
static bool *thread_alive;

/* Waits until *word differs from `seen`, and returns the new value. */
static uint32_t wait_change(uint32_t *word, uint32_t seen)
{
	uint32_t v;

	while ((v = __atomic_load_n(word, __ATOMIC_ACQUIRE)) == seen)
		gate_wait_change(word, seen, 0);
	return v;
}

void users_inherited_setup(pid_t pgid)
{
	if (!pgid || setpgid(0, pgid))
		setpgid(0, 0);
	/* The driver alone decides what a terminal signal means, and stops
	 * the users itself. */
	process_set_stop_signals(SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* The driver's SIGCHLD counter is not the user's: its jobs wait
	 * for their own children. */
	signal(SIGCHLD, SIG_DFL);
}

/* Becomes a child the driver owns, in a process that has made
 * users_inherited_setup() its own: dies with the driver, and holds no
 * descriptor of the arena's. */
static void user_process_setup(const struct user_ctx *ctx)
{
	/* Die with the driver, even if it is killed with SIGKILL. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != ctx->parent)
		_exit(USER_EXIT_ORPHAN);
	/* Its slot is mapped: the file behind the arena would only be one
	 * more descriptor for its jobs to count. */
	arena_close_fd(ctx->arena);
}

/* --cpus: user u runs on cpus[u mod n], set before any job, and read back
 * into the slot so that the driver can tell it really applies. */
static void user_pin(const struct user_ctx *ctx, unsigned int user,
		     struct user_slot *slot)
{
	cpu_set_t set;
	int cpu;

	slot->cpu = -1;
	if (!ctx->n_cpus)
		return;
	cpu = ctx->cpus[user % ctx->n_cpus];
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pid 0 is the calling thread, in either mode. */
	if (sched_setaffinity(0, sizeof(set), &set))
		user_fail(slot, USER_EXIT_SETUP, "cannot pin to CPU %d: %s",
			  cpu, strerror(errno));
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) == 1 &&
	    CPU_ISSET(cpu, &set))
		slot->cpu = cpu;
	else
		slot->cpu = -2;
}

/* A user's life: park until called to a level it takes part in, run it,
 * park again; leave when the driver says quit. */
__attribute__((noreturn))
static void user_life(const struct user_ctx *ctx, unsigned int user,
		      uint32_t gen_seen, bool thread)
{
	struct arena_header *hdr = ctx->arena->hdr;
	struct user_slot *slot = arena_slot(ctx->arena, user);
	struct user_entry *entries;
	uint32_t gen;

	slot->pid = (int32_t)syscall(SYS_gettid);
	/* Its entries, then its job order: see arena_loop_state(). */
	entries = arena_loop_state(ctx->arena, slot);
	memset(entries, 0, ctx->mix->n_entries * sizeof(*entries));
	/* Before anything that can fail: a user thread that fails must end
	 * itself, not the process of every user thread. */
	if (thread)
		user_thread_enter(hdr, entries, ctx->mix->n_entries);
	user_pin(ctx, user, slot);
	if (thread) {
		/* Threads share one working directory: a user thread takes
		 * its own before its first chdir() (user_dir()), so that its
		 * scratch directory is its own, and a job's chdir() (disk_src
		 * changes into its tree and back) moves no other user. */
		if (unshare(CLONE_FS))
			user_fail(slot, USER_EXIT_SETUP,
				  "cannot take a working directory of its own (unshare CLONE_FS): %s",
				  strerror(errno));
	}
	for (;;) {
		uint64_t called;

		gen = wait_change(&hdr->level_gen, gen_seen);
		gen_seen = gen;
		if (__atomic_load_n(&hdr->quit, __ATOMIC_ACQUIRE))
			_exit(USER_EXIT_OK);
		test_fault_lag(ctx->test_fault, user);
		/*
		 * The user count read with its own generation: a user woken
		 * for a level it had no part in, that slept until the driver
		 * had called the next, would otherwise take that level's
		 * count for this one's, join it under the old generation,
		 * and be counted at its gate and among its parked users
		 * twice. A newer level than gen: the next wait returns it.
		 */
		called = __atomic_load_n(&hdr->called, __ATOMIC_ACQUIRE);
		if ((uint32_t)(called >> 32) == gen && user < (uint32_t)called)
			user_run_level(ctx, user, gen, entries);
	}
}

void user_process_main(const struct user_ctx *ctx, unsigned int user,
		       uint32_t gen_seen)
{
	user_process_setup(ctx);
	user_life(ctx, user, gen_seen, false);
}

struct thread_start {
	const struct user_ctx *ctx;
	unsigned int user;
	uint32_t gen_seen;
};

/*
 * What each user thread starts from, one per user, made once by the
 * thread process. Not malloc()ed per thread: the thread's free() of it
 * would be its first call into malloc, which gives each thread an arena
 * of its own (M_ARENA_MAX, below), a mapping of 64 MiB reserved under the
 * process's mmap lock, while the thread process is making the next
 * thread under the same lock. The user's first malloc() comes with its
 * jobs' set-up instead, after the gate.
 */
static struct thread_start *thread_starts;

static void *user_thread(void *arg)
{
	struct thread_start ts = *(struct thread_start *)arg;

	user_life(ts.ctx, ts.user, ts.gen_seen, true);
}

/* Marks a user thread gone so that the thread process starts a new one. */
static void user_thread_gone(void *arg)
{
	thread_alive[(uintptr_t)arg] = false;
}

static void *user_thread_guarded(void *arg)
{
	uintptr_t user = ((struct thread_start *)arg)->user;
	void *ret;

	pthread_cleanup_push(user_thread_gone, (void *)user);
	ret = user_thread(arg);
	pthread_cleanup_pop(1);
	return ret;
}

/* Starts user u's thread, to join the level after gen_seen. A failure is
 * the user's: its slot says why, and the driver fails the level. */
static void thread_start_user(const struct user_ctx *ctx, pthread_attr_t *attr,
			      unsigned int u, uint32_t gen_seen)
{
	struct thread_start *ts = &thread_starts[u];
	struct user_slot *slot;
	pthread_t t;
	int err;

	/* A thread of user u that ran before is gone: it took its copy. */
	*ts = (struct thread_start){ ctx, u, gen_seen };
	thread_alive[u] = true;
	err = pthread_create(&t, attr, user_thread_guarded, ts);
	if (!err)
		return;
	slot = arena_slot(ctx->arena, u);
	snprintf(slot->reason, sizeof(slot->reason),
		 "cannot create its thread: %s (threads-max, RLIMIT_NPROC or memory)",
		 strerror(err));
	__atomic_store_n(&slot->exit_code, USER_EXIT_SETUP, __ATOMIC_RELEASE);
	user_thread_failed(ctx->arena->hdr);
	thread_alive[u] = false;
}

void thread_proc_main(const struct user_ctx *ctx, pid_t pgid,
		      uint32_t gen_seen)
{
	struct arena_header *hdr = ctx->arena->hdr;
	unsigned int max_users = ctx->arena->max_users;
	pthread_attr_t attr;
	uint32_t gen;

	users_inherited_setup(pgid);
	user_process_setup(ctx);
	/*
	 * An arena for every user thread, so that no user's malloc takes
	 * memory with sbrk(): glibc gives threads past its arena limit (8 per
	 * CPU) the main arena, which grows with sbrk(), and the brk job of
	 * another user moves that same break with raw brk() calls; a break
	 * moved under malloc corrupts its heap. Set before any thread starts.
	 */
	mallopt(M_ARENA_MAX, (int)(max_users + 1));
	thread_alive = calloc(max_users, sizeof(*thread_alive));
	thread_starts = calloc(max_users, sizeof(*thread_starts));
	if (!thread_alive || !thread_starts || pthread_attr_init(&attr))
		_exit(USER_EXIT_SETUP);
	/* Jobs keep their buffers in their state, not on the stack. */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		gen = wait_change(&hdr->level_gen, gen_seen);
		if (__atomic_load_n(&hdr->quit, __ATOMIC_ACQUIRE))
			_exit(USER_EXIT_OK);
		/* A thread started now has not seen this generation: it
		 * joins it. */
		for (unsigned int u = 0;
		     u < __atomic_load_n(&hdr->active_users, __ATOMIC_ACQUIRE);
		     u++)
			if (!thread_alive[u])
				thread_start_user(ctx, &attr, u, gen_seen);
		gen_seen = gen;
	}
}
