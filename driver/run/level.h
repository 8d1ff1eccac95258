/* driver/run/level.h: one level: start its users, warm up, measure the window, stop, collect. */
#ifndef AIMSWEEP_LEVEL_H
#define AIMSWEEP_LEVEL_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/measure/result.h"
#include "driver/run/sweep.h"

/*
 * One level of `users`, the index-th of --levels, its repeat-th run
 * (from 0) with -r, into `level`: call the users to it (forking those the
 * pool lacks), wait for all of them at the gate, open it, let the
 * warm-up pass while they set up and start their loops, snapshot at t0
 * and t1, stop, wait for them to park. The window is timed by the parent
 * alone, so users' start and stop skew is not in it. Returns false when
 * higher levels cannot work either.
 */
bool level_measure(struct sweep *s, unsigned int users, size_t index,
		   unsigned int repeat, struct level_result *level);

#endif
