/* driver/users/pool.h: the driver's side of the users: having them forked, calling them to a level, waiting for them at each step. */
#ifndef AIMSWEEP_POOL_H
#define AIMSWEEP_POOL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "driver/base/params.h"
#include "driver/measure/result.h"
#include "driver/measure/run_record.h"
#include "driver/users/spawner.h"
#include "driver/users/user_ctx.h"

/*
 * Users are forked once and serve every level that needs them: level N+1
 * forks only the users level N did not have. Between levels a user parks,
 * its jobs finished (fini) and its files gone; at the next level it sets
 * its jobs up anew for the new number of users. Forking is not free (it is
 * milliseconds per process on some virtual machines), and a ramp would
 * otherwise fork sum(levels) processes instead of max(levels).
 */
struct user_pool {
	/* All a user sees of the run; the rest is the driver's. */
	struct user_ctx ctx;
	enum user_mode mode;
	double grace_s;		/* for the messages of stuck users */
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

/* What the pool's users work with, from the driver's run. */
struct pool_run {
	struct arena *arena;	/* for arena->max_users users */
	const struct mix *mix;
	const struct run_params *params;
	const struct run_record *record;
	/* The run's scratch directories, n_dirs of each; shared_dirs are
	 * used with LAYOUT_SHARED. */
	const char *const *run_dirs;
	const char *const *shared_dirs;
	size_t n_dirs;
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

/*
 * Sets the pool up for run's users and, in process mode, starts the
 * spawner, which takes the arena's file; the driver's descriptor of it
 * is closed then, whatever happened. 0, or -1 with what failed in err
 * and errno the cause: EMFILE when the descriptor limit leaves the
 * spawner none to start with (spawner_start()). Before the driver
 * allocates what grows with the users: the spawner is a fork of the
 * driver until its exec.
 */
int pool_start(struct user_pool *pool, const struct pool_run *run,
	       char *err, size_t errlen);
/* Ends every user (grace_s to exit, then SIGKILL; in an interrupted run
 * no later than INTERRUPT_GRACE_NS after the signal) and frees the pool. */
void pool_shutdown(struct user_pool *pool, double grace_s);

/* Forks the users the level lacks and calls users 0..users-1 to it.
 * On failure records why in lr and returns -1; the level must still be
 * stopped and finished. */
int pool_level_begin(struct user_pool *pool, struct level_run *lr,
		     unsigned int users);
/* Waits until every user of the level waits at the gate; -1 on a
 * failure or a signal. */
int pool_wait_ready(struct user_pool *pool, struct level_run *lr);
void pool_release(struct user_pool *pool, struct level_run *lr);
/* Notes users that died or whose thread ended since the last look; -1
 * when the level has failed. Does not wait. */
int pool_check(struct user_pool *pool, struct level_run *lr);
/* Waits until every user of the level has come through the open gate;
 * -1 on a failure or a signal. */
int pool_wait_through(struct user_pool *pool, struct level_run *lr);
void pool_stop(struct user_pool *pool, struct level_run *lr);
/* Waits grace_s for every user of the level to park; SIGKILLs the rest
 * and records each user that died or got stuck as a failure. */
void pool_level_end(struct user_pool *pool, struct level_run *lr,
		    double grace_s);

#endif
