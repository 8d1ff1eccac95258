/* driver/measure/verdicts.h: the summary math on a run's levels: efficiency, crossover, knee, peak. */
#ifndef AIMSWEEP_VERDICTS_H
#define AIMSWEEP_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/measure/result.h"

/*
 * Sets level `index`'s efficiency, its jobs/min per user over the first
 * ok level's, when both are ok; the ramp calls it after each level.
 * Returns true when the level is past the crossover (see
 * verdicts_crossed()): --stop-at-crossover ends the ramp after it.
 */
bool verdicts_scale_level(struct run_result *r, size_t index, double crossover);

/* AIM7's crossover: an ok level whose jobs/min per user is below
 * `crossover` (jobs/min/user; 0 is off). */
bool verdicts_crossed(const struct level_result *l, double crossover);

/* The knee: index of the first ok level whose efficiency is below
 * `knee`, or -1. */
long verdicts_knee_level(const struct run_result *r, double knee);

/* Index of the first ok level past the crossover, or -1. */
long verdicts_crossover_level(const struct run_result *r, double crossover);

/*
 * The peak, offered the levels in their order: the first ok level with
 * the most jobs/min. The run's levels and result.json's, read back by
 * the report, go through this one rule, so that the summary's
 * peak_users and the report's peak are always the same level.
 */
struct verdicts_peak {
	long index;		/* -1 until an ok level is offered */
	double jobs_per_min;
};

#define VERDICTS_PEAK_INIT { .index = -1 }

/* Offers level `index`; true when it is the peak so far. A level with
 * no jobs/min (NAN, as a report reads a missing one) is never the peak. */
bool verdicts_peak_offer(struct verdicts_peak *pk, size_t index, bool ok,
			 double jobs_per_min);

/* Index of the run's peak level, or -1 when no level is ok. */
long verdicts_peak_level(const struct run_result *r);

#endif
