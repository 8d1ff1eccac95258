/* driver/run/sweep.h: runs the levels of one `aimsweep run`. */
#ifndef AIMSWEEP_SWEEP_H
#define AIMSWEEP_SWEEP_H

#include "driver/base/params.h"
#include "driver/base/workfile.h"

/* Runs every level and writes the results; returns the exit status. */
int sweep_run(struct run_params *p, const struct mix *mix);

#endif
