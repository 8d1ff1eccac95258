/* driver/run/driver_task.c: the driver's own task before the first level: its signals, its priority, its clock. */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/process.h"
#include "driver/base/util.h"
#include "driver/run/driver_task.h"

static void on_signal(int signo)
{
	if (!run_interrupted)
		run_interrupted = signo;
}

void driver_task_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	/*
	 * What a parent left ignored or blocked survives exec: with SIGCHLD
	 * ignored, users that die are reaped by the kernel unseen, and the
	 * driver would wait out its timeouts, then signal pids no longer
	 * its own; with SIGINT blocked, Ctrl-C would never reach it.
	 */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must cut the driver's sleeps short. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/* A closed stdout must not kill the driver before it cleans up. */
	signal(SIGPIPE, SIG_IGN);
}

/*
 * The driver takes real-time priority where it may (root, CAP_SYS_NICE):
 * it sleeps nearly all the time, but when a snapshot or a sample is due
 * it must run then, not after a thousand busy users have had their turn
 * (reading /proc/stat took seconds at 1000 users without it). Users and
 * every other child start as ordinary tasks (SCHED_RESET_ON_FORK).
 */
void driver_task_priority(struct run_record *rec)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0)
		rec->driver_sched = "SCHED_FIFO 1";
	else
		rec->driver_sched = "normal (no permission for SCHED_FIFO)";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Two clock reads, the typical (median) pair of many back-to-back reads.
 * Not the cheapest: under a hypervisor the typical pair can cost twice
 * the cheapest, and a sampling period chosen from the cheapest would
 * then spend twice its budget.
 */
uint64_t driver_task_timer_cost_ns(void)
{
	uint64_t d[255];

	for (size_t i = 0; i < 255; i++) {
		uint64_t a = now_ns(), b = now_ns();

		d[i] = b - a;
	}
	qsort(d, 255, sizeof(d[0]), cmp_u64);
	return d[127] ? 2 * d[127] : 1;
}
