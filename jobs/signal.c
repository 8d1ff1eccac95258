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

static void kill_fini(void *state)
{
	free(state);
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
	.fini = kill_fini,
};

/* The AIM7 signal and non-local goto jobs. */

/* Signals one signal_test op sends itself; also its inner_ops. */
#define SIGNAL_TEST_SIGNALS 100

/*
 * One op sends SIGUSR1 to itself SIGNAL_TEST_SIGNALS times (to its own
 * thread in thread mode), each caught by the kill job's handler before
 * kill() returns. The count restarts at every op, so it never overflows,
 * and it is volatile, so the compiler reads it anew after the signals:
 * reaim's signal_test hangs at -O2 because its counter is not.
 */
static int signal_test_run(void *state)
{
	struct kill_state *st = state;
	long rc;

	signals_caught = 0;
	for (unsigned int i = 0; i < SIGNAL_TEST_SIGNALS; i++) {
		if (st->threaded)
			rc = syscall(SYS_tgkill, st->pid, st->tid, SIGUSR1);
		else
			rc = kill(st->pid, SIGUSR1);
		if (rc)
			return errno;
	}
	if (signals_caught != SIGNAL_TEST_SIGNALS)
		return EINTR;
	return 0;
}

/* jmp_test: jumps one op makes, and the frames each jump unwinds. */
#define JMP_TEST_GOTOS 100
#define JMP_TEST_DEPTH 4

struct jmp_test_state {
	jmp_buf env;
	unsigned int depth;	/* from init, so the compiler cannot see it */
};

static int jmp_test_init(const struct job_ctx *ctx, void **state)
{
	struct jmp_test_state *st = malloc(sizeof(*st));

	(void)ctx;
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
		if (setjmp(st->env) == 0)
			job_sink += jmp_test_descend(st, 1);
		else
			jumps++;
	}
	/* A descent that returned instead of jumping. */
	if (jumps != JMP_TEST_GOTOS)
		return EFAULT;
	return 0;
}

const struct job job_signal_test = {
	.name = "signal_test",
	.family = "signal",
	.unit = "Signal Traps",
	.inner_ops = SIGNAL_TEST_SIGNALS,
	.summary = "send SIGUSR1 to the user itself 100 times, catching each",
	.syscalls = (const struct job_syscall[]){
		{ "kill", SIGNAL_TEST_SIGNALS },
		{ "rt_sigreturn", SIGNAL_TEST_SIGNALS }, { NULL, 0 } },
	.init = kill_init,
	.run = signal_test_run,
	.fini = kill_fini,
};

const struct job job_jmp_test = {
	.name = "jmp_test",
	.family = "signal",
	.unit = "Non-local gotos",
	.inner_ops = JMP_TEST_GOTOS,
	.summary = "longjmp() 100 times out of 4 nested calls to a setjmp()",
	.syscalls = (const struct job_syscall[]){ { NULL, 0 } },
	.init = jmp_test_init,
	.run = jmp_test_run,
	.fini = free,
};
