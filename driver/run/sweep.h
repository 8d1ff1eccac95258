/* driver/run/sweep.h: runs the levels of one `aimsweep run`. */
#ifndef AIMSWEEP_SWEEP_H
#define AIMSWEEP_SWEEP_H

#include "driver/base/params.h"
#include "driver/base/workfile.h"

struct cJSON;

/* Runs every level and writes the results, params_json as result.json's
 * params; returns the exit status. */
int sweep_run(const struct run_params *p, const struct mix *mix,
	      const struct cJSON *params_json);

#endif
