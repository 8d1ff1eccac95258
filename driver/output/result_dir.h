/* driver/output/result_dir.h: the run's result directory and each level's directory in it. */
#ifndef AIMSWEEP_RESULT_DIR_H
#define AIMSWEEP_RESULT_DIR_H

#include <limits.h>
#include <stddef.h>

#include "driver/measure/result.h"

struct result_dir {
	char path[PATH_MAX];		/* results/<date>-<workfile> */
	char json_path[PATH_MAX];	/* its result.json */
};

/*
 * Makes the run's directory under `output_dir` (made first if missing):
 * <date>-<workfile>, with -2, -3... if a run already took it; stamps
 * r->started_at with the same clock reading, so that the two agree.
 * Returns 0, or -1 with a message in err.
 */
int result_dir_create(struct result_dir *d, const char *output_dir,
		      struct run_result *r, char *err, size_t errlen);

/* The level's own directory, for the lock profile and the hook: level-8,
 * its second 8 (--levels 8,8) level-8.2, and with -r each repeat its own,
 * level-8-r1... */
void result_dir_level(const struct result_dir *d, const struct run_params *p,
		      unsigned int users, size_t index, unsigned int repeat,
		      char *dir, size_t len);

#endif
