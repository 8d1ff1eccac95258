/* driver/users/pool_end.h: how the pool's users end: reaped when they exit, killed when stuck, and what they leave behind removed. */
#ifndef AIMSWEEP_POOL_END_H
#define AIMSWEEP_POOL_END_H

#include <stdint.h>
#include <sys/types.h>

#include "driver/users/pool.h"

/* Counts the driver's children as they end (SIGCHLD), so that the pool
 * reaps only after one did. */
void pool_end_init(struct user_pool *pool);

/* Counts a failure of the level; the first one is its reason. */
void level_run_fail(struct level_run *lr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The ends below record how users ended. During a level (lr != NULL) any
 * end of one of its users fails the level: users only exit when told to
 * quit. Each removes the SysV objects the user's jobs left.
 */

/* Reaps every user that has exited since the last SIGCHLD seen; returns
 * how many. */
unsigned int pool_reap_exited(struct user_pool *pool, struct level_run *lr);
/* Thread mode: notes user threads that failed and ended themselves. */
void pool_check_threads(struct user_pool *pool, struct level_run *lr);
/* The end of the process pid, user u's when u >= 0 (-1: look it up);
 * killed_by_us: the pool killed it, stuck. */
void pool_user_ended(struct user_pool *pool, struct level_run *lr, int u,
		     pid_t pid, int status, bool killed_by_us);
/* Thread mode: the process of every user thread ended, and with it every
 * user; `stuck`, when >= 0, is the user it was killed for. */
void pool_thread_proc_ended(struct user_pool *pool, struct level_run *lr,
			    int status, int stuck);
/* SIGKILLs every user of the level that has neither parked nor exited
 * (lr NULL: every user of the pool), and reaps them. */
void pool_kill_stuck(struct user_pool *pool, struct level_run *lr);
/* Reaps every user as it exits, by deadline; those not gone by then are
 * left to the caller. */
void pool_reap_in_order(struct user_pool *pool, uint64_t deadline);

#endif
