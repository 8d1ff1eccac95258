/* driver/result.h: what one run measured, level by level. */
#ifndef AIMSWEEP_RESULT_H
#define AIMSWEEP_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/arena.h"
#include "driver/host.h"
#include "driver/params.h"
#include "driver/workfile.h"

#define RESULT_SCHEMA_VERSION 1
#define REASON_LEN 512

struct job_result {
	const char *name;
	const char *unit;	/* what an inner op is */
	unsigned int weight;
	uint64_t ops;		/* inside the window */
	uint64_t errors;	/* inside the window */
	int last_errno;		/* of the last error, 0 when none */
	unsigned long inner_ops; /* per op, at this level's file size */
	double inner_ops_per_sec;
	bool skipped;		/* the job could not run here */
	char skip_reason[USER_REASON_LEN];
	double ops_per_sec;
};

/* Sums over the level's users, from fork to exit (wait4()). */
struct rusage_sum {
	double utime_s;
	double stime_s;
	uint64_t nvcsw;		/* voluntary context switches */
	uint64_t nivcsw;	/* involuntary context switches */
	uint64_t minflt;
	uint64_t majflt;
	long maxrss_kb;		/* the largest user's */
};

enum level_status {
	LEVEL_OK,
	LEVEL_FAILED,
};

struct level_result {
	unsigned int users;
	enum level_status status;
	char reason[REASON_LEN];	/* why it failed; empty when ok */
	double window_s;		/* t1 - t0, measured */
	double start_s;			/* first fork to all users at the gate */
	uint64_t ops;			/* all jobs, inside the window */
	uint64_t errors;
	double jobs_per_min;
	double jobs_per_min_per_user;
	/* Per-user jobs/min across the level's users. */
	double user_min, user_median, user_max;
	double jti;
	struct rusage_sum rusage;
	struct job_result *jobs;
	size_t n_jobs;
};

enum run_status {
	RUN_RUNNING,		/* written while levels are still to come */
	RUN_COMPLETE,
	RUN_FAILED,		/* finished, but a level failed */
	RUN_INTERRUPTED,	/* a signal ended it; see interrupted_by */
};

struct run_result {
	struct host_info host;
	const struct run_params *params;
	const struct mix *mix;
	char started_at[40];	/* ISO 8601, local time with offset */
	enum run_status status;
	int interrupted_by;	/* signal number */
	struct level_result *levels;
	size_t n_levels;
	size_t cap_levels;
};

/* Appends a copy of `level` (taking over its jobs array). */
int result_add_level(struct run_result *r, struct level_result *level);
void level_result_free(struct level_result *level);
void run_result_free(struct run_result *r);
const char *run_status_name(enum run_status s);

/* Index of the ok level with the highest jobs/min, or -1. */
long result_peak_level(const struct run_result *r);

#endif
