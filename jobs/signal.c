/* jobs/signal.c: signal delivery jobs (kill). */
#include <errno.h>
#include <pthread.h>
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
