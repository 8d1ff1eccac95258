/* driver/users.h: starting, releasing, stopping and reaping a level's users. */
#ifndef AIMSWEEP_USERS_H
#define AIMSWEEP_USERS_H

#include <stdbool.h>
#include <sys/types.h>

#include "driver/arena.h"
#include "driver/params.h"
#include "driver/result.h"
#include "driver/workfile.h"

/* Exit statuses of a user process; anything else is a failure too. */
enum {
	USER_EXIT_OK = 0,
	USER_EXIT_SETUP = 3,	/* could not set itself up (reason in slot) */
	USER_EXIT_JOB_INIT = 4,	/* a job's init() failed (reason in slot) */
	USER_EXIT_ORPHAN = 5,	/* the driver was gone before it started */
	USER_EXIT_TEST_FAULT = 6, /* injected with AIMSWEEP_TEST_FAULT */
};

struct level_users {
	struct arena *arena;
	const struct mix *mix;
	const struct run_params *params;
	const char *run_dir;	/* scratch directory for this run */
	const char *job_dir;	/* LAYOUT_SHARED: the one directory */
	unsigned int users;	/* asked for */
	unsigned int started;	/* forked so far */
	unsigned int reaped;
	pid_t parent;
	pid_t *pids;		/* [users], 0 once reaped */
	bool failed;
	unsigned int failures;
	char reason[REASON_LEN];	/* the first failure */
	struct rusage_sum rusage;
};

/* The signal that interrupted the run, or 0; set by the driver's handler. */
extern volatile int run_interrupted;

int users_init(struct level_users *lu);
void users_free(struct level_users *lu);
/* Forks every user; on failure, records why and returns -1 (the users
 * already started must still be stopped and reaped). */
int users_start(struct level_users *lu);
/* Waits until every user waits at the gate; -1 on a failure or signal. */
int users_wait_ready(struct level_users *lu);
void users_release(struct level_users *lu);
void users_stop(struct level_users *lu);
/* Reaps every started user within grace_s, SIGKILLs the rest, and records
 * each abnormal end as a failure of the level. */
void users_reap(struct level_users *lu, double grace_s);

#endif
