/* driver/run/repeats.h: -r: a level's repeats, in a row or in rounds, and the median repeat that stands for it. */
#ifndef AIMSWEEP_REPEATS_H
#define AIMSWEEP_REPEATS_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/measure/result.h"
#include "driver/run/sweep.h"

/*
 * A level run -r times in a row (--repeat-order consecutive; once
 * without -r). Its numbers are those of the median repeat, a real
 * measurement rather than an average of several; every repeat's jobs/min
 * is kept for the spread. Any failed repeat fails the level. Returns
 * false when higher levels cannot work either.
 */
bool repeats_level(struct sweep *s, unsigned int users, size_t index,
		   struct level_result *level);

/*
 * -r N with the interleaved order (the default): the ramp run N times
 * over, so that each level's repeats are spread over the whole run
 * instead of coming one after another. Returns the run's exit status so
 * far.
 */
int repeats_rounds(struct sweep *s);

#endif
