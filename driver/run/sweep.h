/* driver/run/sweep.h: one `aimsweep run`: what its stages share, set up before the first level. */
#ifndef AIMSWEEP_SWEEP_H
#define AIMSWEEP_SWEEP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "driver/base/params.h"
#include "driver/base/scratch.h"
#include "driver/base/workfile.h"
#include "driver/capture/capture.h"
#include "driver/measure/arena.h"
#include "driver/measure/collector.h"
#include "driver/measure/result.h"
#include "driver/output/result_dir.h"
#include "driver/users/pool.h"

/* The run's state, which every level reuses: made once by sweep_run(),
 * read and filled by the ramp, the repeats, each level and its window. */
struct sweep {
	const struct run_params *params;
	const struct mix *mix;
	struct arena arena;
	struct snapshot t0, t1;
	struct scratch scratch[MAX_SCRATCH_DIRS];
	size_t n_scratch;		/* created so far */
	struct user_pool pool;
	const char *run_dirs[MAX_SCRATCH_DIRS];
	const char *shared_dirs[MAX_SCRATCH_DIRS];
	char shared_paths[MAX_SCRATCH_DIRS][PATH_MAX];
	struct run_result result;
	struct capture_run *captures;	/* NULL: none asked for */
	struct result_dir dir;
};

struct cJSON;

/* Runs every level and writes the results, params_json as result.json's
 * params; returns the exit status. */
int sweep_run(const struct run_params *p, const struct mix *mix,
	      const struct cJSON *params_json);

/* Rewrites result.json; -1 after a message when it cannot. */
int sweep_write_result(struct sweep *s);

/* The default format is the table, printed as levels end; the others are
 * printed whole at the end, from result.json's contents. */
bool sweep_live_table(const struct sweep *s);

#endif
