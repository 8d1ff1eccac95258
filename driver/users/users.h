/* driver/users/users.h: the users: the pool the driver runs (pool.c) and the loop each user runs (user_loop.c). */
#ifndef AIMSWEEP_USERS_H
#define AIMSWEEP_USERS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "driver/measure/arena.h"
#include "driver/base/params.h"
#include "driver/base/process.h"
#include "driver/measure/result.h"
#include "driver/users/spawner.h"
#include "driver/base/workfile.h"

/* Exit statuses of a user process; anything else is a failure too. */
enum {
	USER_EXIT_OK = 0,
	USER_EXIT_SETUP = 3,	/* could not set itself up (reason in slot) */
	USER_EXIT_JOB_INIT = 4,	/* a job's init() failed (reason in slot) */
	USER_EXIT_ORPHAN = 5,	/* the driver was gone before it started */
	USER_EXIT_TEST_FAULT = 6, /* injected with AIMSWEEP_TEST_FAULT */
	USER_EXIT_JOB_ERRORS = 7, /* ERROR_STREAK_MAX failed ops in a row */
};

/*
 * Users are forked once and serve every level that needs them: level N+1
 * forks only the users level N did not have. Between levels a user parks,
 * its jobs finished (fini) and its files gone; at the next level it sets
 * its jobs up anew for the new number of users. Forking is not free (it is
 * milliseconds per process on some virtual machines), and a ramp would
 * otherwise fork sum(levels) processes instead of max(levels).
 */
struct user_pool {
	struct arena *arena;
	const struct mix *mix;
	const struct run_params *params;
	/* The run's private scratch directories, one per -d; user u works
	 * in run_dirs[u % n_dirs], in its own subdirectory, or in
	 * shared_dirs[u % n_dirs] with LAYOUT_SHARED. */
	const char *const *run_dirs;
	const char *const *shared_dirs;	/* NULL unless LAYOUT_SHARED */
	size_t n_dirs;
	pid_t parent;
	/* Users form one process group of their own, so the driver reaps
	 * them, and only them, with waitpid(-pgid): other children (a hook,
	 * perf) are waited for by their own code. */
	pid_t pgid;
	pid_t *pids;		/* [max_users]; 0: no live process */
	pid_t thread_proc;	/* thread mode: the process of the threads */
	/* Process mode: forks the users, and leads their group. */
	struct spawner spawner;
	/* When the last level began, in wall-clock seconds as SysV's
	 * sem_ctime counts them: no set a user made in it is older. */
	time_t level_begun_s;
	unsigned int max_users;
	unsigned int alive;
	/* The SIGCHLD count and the failed-thread count last acted on:
	 * the pool looks for ended users only when these move. */
	sig_atomic_t ended_seen;
	uint32_t threads_failed_seen;
};

/* One level as the pool runs it. */
struct level_run {
	unsigned int users;
	uint32_t gen;
	bool failed;
	bool end_ramp;		/* higher levels would fail the same way */
	unsigned int failures;
	char reason[REASON_LEN];	/* the first failure */
	struct rusage_sum rusage;
};

/* What timing may cost, as a share of the ops it stands for, estimated
 * from the clock reads alone: 0.2%. Recording a sample into the histogram
 * costs about as much again, so that the whole cost of latency stays under
 * half a percent of the cheapest job's ops. */
#define SAMPLE_BUDGET_PERMILLE 2
#define SAMPLE_EVERY_MAX 1024

/* Bytes of loop state each user keeps in its arena slot for this mix. */
size_t users_loop_bytes(const struct mix *mix);
int users_pool_init(struct user_pool *pool, unsigned int max_users);
/* Once the pool's run fields are set, before the driver allocates what
 * grows with the users: in process mode, starts the spawner. 0, or an
 * errno value. */
int users_pool_start(struct user_pool *pool);
/* Ends every user (grace_s to exit, then SIGKILL; in an interrupted run
 * no later than INTERRUPT_GRACE_NS after the signal) and frees the pool. */
void users_pool_shutdown(struct user_pool *pool, double grace_s);

/* Forks the users the level lacks and calls users 0..users-1 to it.
 * On failure records why in lr and returns -1; the level must still be
 * stopped and finished. */
int users_level_begin(struct user_pool *pool, struct level_run *lr,
		      unsigned int users);
/* Waits until every user of the level waits at the gate; -1 on a
 * failure or a signal. */
int users_wait_ready(struct user_pool *pool, struct level_run *lr);
void users_release(struct user_pool *pool, struct level_run *lr);
/* Notes users that died or whose thread ended since the last look; -1
 * when the level has failed. Does not wait. */
int users_check(struct user_pool *pool, struct level_run *lr);
/* Waits until every user of the level has come through the open gate;
 * -1 on a failure or a signal. */
int users_wait_through(struct user_pool *pool, struct level_run *lr);
void users_stop(struct user_pool *pool, struct level_run *lr);
/* Waits grace_s for every user of the level to park; SIGKILLs the rest
 * and records each user that died or got stuck as a failure. */
void users_level_end(struct user_pool *pool, struct level_run *lr,
		     double grace_s);

#endif
