/* driver/run/ramp.h: the levels in their order, then the run's end: its status, its summary, its plots. */
#ifndef AIMSWEEP_RAMP_H
#define AIMSWEEP_RAMP_H

#include "driver/run/sweep.h"

/*
 * Runs the levels, one after another or, with -r, in rounds; after the
 * last one writes result.json with the run's status, prints the summary
 * (or the whole -f output) and draws the plots. Returns the run's exit
 * status.
 */
int ramp_run(struct sweep *s);

#endif
