/* jobs/signal.c: signals and non-local gotos (kill, signal_test, jmp_test). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jobs/catalog.h"

/* Per thread, so that in thread mode each user counts its own signals. */
static __thread volatile sig_atomic_t signals_caught;

static void signal_count(int signo)
{
	(void)signo;
	signals_caught++;
}

struct kill_state {
	pid_t pid;
	pid_t tid;
	bool threaded;
};

static int kill_init(const struct job_ctx *ctx, void **state)
{
	struct kill_state *st = malloc(sizeof(*st));
	struct sigaction sa;
	sigset_t set;

	if (!st)
		return ENOMEM;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = signal_count;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		goto fail;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (pthread_sigmask(SIG_UNBLOCK, &set, NULL))
		goto fail;
	/* The target is always this process (or this thread), taken from
	 * the kernel, never from input. */
	st->pid = getpid();
	st->tid = (pid_t)syscall(SYS_gettid);
	st->threaded = ctx->threaded;
	*state = st;
	return 0;
fail:
	free(st);
	return errno ? errno : EINVAL;
}

/* One op sends SIGUSR1 to itself; a signal sent to oneself is delivered
 * before kill() returns, so a missing handler run is an error. */
static int kill_run(void *state)
{
	struct kill_state *st = state;
	sig_atomic_t before = signals_caught;
	long rc;

	if (st->threaded)
		rc = syscall(SYS_tgkill, st->pid, st->tid, SIGUSR1);
	else
		rc = kill(st->pid, SIGUSR1);
	if (rc)
		return errno;
	if (signals_caught == before)
		return EINTR;
	return 0;
}

const struct job job_kill = {
	.name = "kill",
	.family = "signal",
	.unit = "Signals Sent and Caught",
	.inner_ops = 1,
	.summary = "send SIGUSR1 to the user itself and catch it in a handler",
	.syscalls = (const struct job_syscall[]){
		{ "kill", 1 }, { "rt_sigreturn", 1 }, { NULL, 0 } },
	.init = kill_init,
	.run = kill_run,
	.fini = free,
};

/* The AIM7 signal and non-local goto jobs. */

/*
 * signal_test, after reaim: one op installs a handler for SIGUSR2 and
 * sends itself the signal 1000 times, each caught before kill() returns
 * by a handler that installs itself again, as reaim's does: 1001
 * rt_sigaction(), 1000 kill() and 1000 rt_sigreturn() calls, and one
 * getpid(). reaim counts the signals in a plain int, which the compiler
 * may keep in a register while its loop waits for the count, so at -O1
 * and above it sends signals forever; this count is volatile.
 */
#define SIGNAL_TEST_SIGNALS 1000

/* Per thread, so that in thread mode each user counts its own signals. */
static __thread volatile sig_atomic_t signal_test_caught;

static void signal_test_catch(int signo);

static int signal_test_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = signal_test_catch;
	sa.sa_flags = SA_RESTART;	/* what reaim's signal() sets */
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGUSR2, &sa, NULL);
}

static void signal_test_catch(int signo)
{
	int saved_errno = errno;

	(void)signo;
	signal_test_install();
	signal_test_caught++;
	errno = saved_errno;
}

struct signal_test_state {
	pid_t tid;
	bool threaded;
	uint64_t *progress;
};

static int signal_test_init(const struct job_ctx *ctx, void **state)
{
	struct signal_test_state *st = JOB_STATE_NEW(ctx,
						     struct signal_test_state);
	sigset_t set;
	int err;

	if (!st)
		return ENOMEM;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	err = pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (err) {
		free(st);
		return err;
	}
	/* init() runs in the thread that runs the ops. */
	st->tid = (pid_t)syscall(SYS_gettid);
	st->threaded = ctx->threaded;
	*state = st;
	return 0;
}

/*
 * The target is always the user itself, from the kernel, never from
 * input: its process, or in thread mode its own thread (tgkill), as a
 * signal to a process of many user threads may be taken by any of them.
 */
static int signal_test_run(void *state)
{
	struct signal_test_state *st = state;
	pid_t pid = getpid();
	long rc;

	if (signal_test_install())
		return errno;
	signal_test_caught = 0;
	for (unsigned int i = 1; i <= SIGNAL_TEST_SIGNALS; i++) {
		if (st->threaded)
			rc = syscall(SYS_tgkill, pid, st->tid, SIGUSR2);
		else
			rc = kill(pid, SIGUSR2);
		if (rc)
			return errno;
		/* A signal to oneself is taken before kill() returns. */
		if (signal_test_caught != (sig_atomic_t)i)
			return EINTR;
		job_progress(st->progress, 1);
	}
	return 0;
}

/*
 * jmp_test, after reaim: one op makes 1000 setjmp()s, and after each
 * calls down 11 nested calls (reaim's count from 10 to 0), the last of
 * which longjmp()s back to it.
 */
#define JMP_TEST_GOTOS 1000
#define JMP_TEST_DEPTH 11

struct jmp_test_state {
	jmp_buf env;
	unsigned int depth;	/* from init, so the compiler cannot see it */
	uint64_t *progress;
};

static int jmp_test_init(const struct job_ctx *ctx, void **state)
{
	struct jmp_test_state *st = JOB_STATE_NEW(ctx, struct jmp_test_state);

	if (!st)
		return ENOMEM;
	st->depth = JMP_TEST_DEPTH;
	*state = st;
	return 0;
}

/*
 * Calls itself down to st->depth and jumps back from there. The sum after
 * the call keeps every frame real: no tail call, no loop in its place.
 * The last return cannot happen, but without it the compiler sees every
 * path recurse or jump, and rejects the recursion as endless.
 */
static __attribute__((noinline)) unsigned int
jmp_test_descend(struct jmp_test_state *st, unsigned int depth)
{
	volatile unsigned int frame = depth;

	if (depth < st->depth)
		return jmp_test_descend(st, depth + 1) + frame;
	if (depth == st->depth)
		longjmp(st->env, 1);
	return 0;
}

/* The loop's variables change between a setjmp() and the longjmp() that
 * returns to it; only volatile ones are sure to keep their values. */
static int jmp_test_run(void *state)
{
	struct jmp_test_state *st = state;
	volatile unsigned int i, jumps = 0;

	for (i = 0; i < JMP_TEST_GOTOS; i++) {
		if (setjmp(st->env) == 0) {
			job_sink += jmp_test_descend(st, 1);
		} else {
			jumps++;
			job_progress(st->progress, 1);
		}
	}
	/* A descent that returned instead of jumping. */
	if (jumps != JMP_TEST_GOTOS)
		return EFAULT;
	return 0;
}

const struct job job_signal_test = {
	.name = "signal_test",
	.family = "signal",
	.units = JOB_UNITS_AIM7,
	.unit = "Signal Traps",
	.inner_ops = SIGNAL_TEST_SIGNALS,
	.summary = "send SIGUSR2 to the user itself 1000 times, catching "
		   "each in a handler that installs itself again",
	.syscalls = (const struct job_syscall[]){
		{ "getpid", 1, 0 }, { "rt_sigaction", 1, 1 },
		{ "kill", 0, 1 }, { "rt_sigreturn", 0, 1 }, { NULL, 0, 0 } },
	.deviation = "reaim's counter is not volatile, so its signal_test "
		     "hangs at -O1 and above; this one counts in a volatile "
		     "(and in thread mode sends with tgkill() to its own "
		     "thread, where reaim has no threads)",
	.init = signal_test_init,
	.run = signal_test_run,
	.fini = free,
};

const struct job job_jmp_test = {
	.name = "jmp_test",
	.family = "signal",
	.units = JOB_UNITS_AIM7,
	.unit = "Non-local gotos",
	.inner_ops = JMP_TEST_GOTOS,
	.summary = "longjmp() 1000 times out of 11 nested calls to a setjmp()",
	.syscalls = (const struct job_syscall[]){ { NULL, 0 } },
	.init = jmp_test_init,
	.run = jmp_test_run,
	.fini = free,
};
