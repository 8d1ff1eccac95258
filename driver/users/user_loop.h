/* driver/users/user_loop.h: the measured loop of a user, and how it times one op in N. */
#ifndef AIMSWEEP_USER_LOOP_H
#define AIMSWEEP_USER_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/measure/arena.h"
#include "jobs/job.h"

/* What timing may cost, as a share of the ops it stands for, estimated
 * from the clock reads alone: 0.2%. Recording a sample into the histogram
 * costs about as much again, so that the whole cost of latency stays under
 * half a percent of the cheapest job's ops. */
#define SAMPLE_BUDGET_PERMILLE 2
#define SAMPLE_EVERY_MAX 1024

/* Failed ops of one job in a row after which its user gives up: a job
 * that can only fail (a full disk, no descriptors left) must not turn the
 * level into a silent busy loop of failures, even while other jobs of
 * the mix still succeed. */
#define ERROR_STREAK_MAX 1000

/* One mix entry as a user runs it. The job's functions are copied in,
 * so that an op reads no job table. */
struct user_entry {
	int (*run)(void *state);
	int (*prepare)(void *state);	/* NULL: none */
	const struct job *job;
	void *state;
	struct entry_counters *counters;
	/* An AIM7 job's count of inner operations (counters->inner), NULL
	 * for a micro job. */
	uint64_t *progress;
	struct hist *hist;	/* NULL without latency */
	uint32_t sample_every;	/* time one op in this many */
	uint32_t countdown;	/* ops until the next timed one */
	unsigned int streak;	/* failed ops in a row */
	bool ready;		/* init() succeeded */
};

/*
 * Runs the entries in `order` (len of them, at least one) until the stop
 * word names generation gen; NULL, or the entry whose ERROR_STREAK_MAX
 * failures in a row ended the loop. A lone micro job gets a loop of its
 * own, which touches no shared page per op.
 */
struct user_entry *user_loop_run(const struct arena_header *hdr, uint32_t gen,
				 struct user_entry *entries,
				 const uint16_t *order, size_t len,
				 uint64_t timer_ns);

#endif
