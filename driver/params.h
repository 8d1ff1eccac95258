/* driver/params.h: what `aimsweep run` was asked to do. */
#ifndef AIMSWEEP_PARAMS_H
#define AIMSWEEP_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/workfile.h"

#define DEFAULT_START_USERS 100
#define DEFAULT_END_USERS 1000
#define DEFAULT_INCREMENT 100
#define DEFAULT_RUNTIME_S 10.0
#define DEFAULT_WARMUP_S 2.0
#define DEFAULT_OUTPUT_DIR "./results"
#define DEFAULT_WORKFILE "syscall-mix"
/* AIM7 disk file sizes when neither the workfile nor a config sets them:
 * the values of the reference reaim.config. */
#define DEFAULT_FILE_SIZE (10 * 1024)
#define DEFAULT_POOL_SIZE (1024 * 1024)
/* How long users get to finish their op after the stop flag. */
#define DEFAULT_GRACE_S 5.0

struct run_params {
	unsigned int *levels;	/* user counts, in the order they run */
	size_t n_levels;
	unsigned int start_users, end_users, increment;
	bool levels_given;	/* --levels, instead of start/end/increment */
	double runtime_s;	/* measured window per level */
	double warmup_s;	/* from the gate opening to t0 */
	double grace_s;		/* after the stop flag, before SIGKILL */
	const char *scratch_base; /* -d, else $TMPDIR, else /tmp */
	const char *output_dir;	/* -o */
	uint64_t seed;
	bool seed_given;
	enum scratch_layout layout; /* --layout, else the workfile, else per-user */
	const char *workfile_arg; /* as given on the command line */
	char *workfile_path;	/* resolved */
	char *cmdline;		/* the whole command line, for the record */
	char *libexec_dir;	/* where aimsweep-exec-child is */
	/* Test-only fault injection (AIMSWEEP_TEST_FAULT), see users.c. */
	const char *test_fault;
};

void params_free(struct run_params *p);

#endif
