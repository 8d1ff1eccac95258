/* driver/users/user_ctx.h: what a user needs of the run, and no more: the pool fills it, aimsweep-users reads it back. */
#ifndef AIMSWEEP_USER_CTX_H
#define AIMSWEEP_USER_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "driver/measure/arena.h"
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
 * A user's whole view of the run. The driver's options and bookkeeping
 * stay the driver's: a process-mode user is a fork of aimsweep-users,
 * which has only this (driver/users/spawn_state.c ships it), and a
 * field a user comes to need is added here, and there.
 */
struct user_ctx {
	/* The arena's layout; a process-mode user maps only its slot. */
	struct arena *arena;
	const struct mix *mix;
	/* The run's private scratch directories, one per -d; user u works
	 * in run_dirs[u % n_dirs], in its own subdirectory, or in
	 * shared_dirs[u % n_dirs] with LAYOUT_SHARED. */
	const char *const *run_dirs;
	const char *const *shared_dirs;	/* NULL unless LAYOUT_SHARED */
	size_t n_dirs;
	pid_t parent;		/* the driver: a user dies with it */
	uint64_t seed;		/* each user's job order and jobs' seeds */
	uint64_t timer_ns;	/* what timing one op costs, measured */
	bool latency;		/* time one op in N into histograms */
	const int *cpus;	/* --cpus: user u runs on cpus[u % n_cpus] */
	size_t n_cpus;		/* 0: unpinned */
	const char *libexec_dir;	/* where aimsweep-exec-child is */
	const char *test_fault;	/* AIMSWEEP_TEST_FAULT, or NULL */
};

#endif
