/* driver/base/params.h: what `aimsweep run` was asked to do. */
#ifndef AIMSWEEP_PARAMS_H
#define AIMSWEEP_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/base/scratch.h"
#include "driver/base/workfile.h"

/* Each option's default, range and help are in its row in
 * driver/cli/options.c; these are the limits of what the fields hold. */
#define MAX_SCRATCH_DIRS 16
#define MAX_CPUS_LISTED 1024
#define MAX_LEVELS 10000
#define MAX_USERS 1000000
#define DEFAULT_WORKFILE "syscall-mix"
/* AIM7 disk file sizes when neither the workfile nor a config sets them:
 * the values of the reference reaim.config. */
#define DEFAULT_FILE_SIZE (10 * 1024)
#define DEFAULT_POOL_SIZE (1024 * 1024)

/* --lock-method: how --lock-profile counts contention. */
enum lock_method {
	LOCK_METHOD_AUTO,	/* the in-kernel collector where it loads */
	LOCK_METHOD_BPF,	/* the in-kernel collector, or fail */
	LOCK_METHOD_PERF,	/* perf lock record over a slice */
};

enum user_mode {
	MODE_PROCESS,		/* each user is a process (the default) */
	MODE_THREAD,		/* users are threads of one process */
};

struct run_params {
	unsigned int *levels;	/* user counts, in the order they run */
	size_t n_levels;
	unsigned int start_users, end_users, increment;
	bool levels_given;	/* --levels, instead of start/end/increment */
	double runtime_s;	/* measured window per level */
	double warmup_s;	/* from the gate opening to t0 */
	double grace_s;		/* after the stop flag, before SIGKILL */
	/* -d (repeatable), else the config's DISKDIRs, else $TMPDIR, else
	 * scratch_default_base(); user u works in
	 * scratch_bases[u % n_scratch]. */
	const char *scratch_bases[MAX_SCRATCH_DIRS];
	struct scratch_fs scratch_fs[MAX_SCRATCH_DIRS]; /* of each base */
	size_t n_scratch;
	bool scratch_default;	/* nothing named a place: the default chose */
	/* -c; its strings, which options may point into, are the cli's
	 * (driver/cli/config.c), kept until the run ends. */
	const char *config_path;
	const char *output_dir;	/* -o */
	uint64_t seed;
	bool seed_given;
	enum scratch_layout layout; /* --layout, else the workfile, else per-user */
	const char *workfile_arg; /* as given on the command line */
	char *workfile_path;	/* resolved */
	char *cmdline;		/* the whole command line, for the record */
	char *libexec_dir;	/* where aimsweep-exec-child is */
	/* Per-level capture (driver/capture/capture.c). */
	bool lock_profile;	/* --lock-profile */
	double lock_profile_s;	/* events on from t0, at most runtime_s */
	unsigned int lock_profile_top;	/* entries kept per level */
	enum lock_method lock_method;	/* --lock-method, as asked */
	/* --cpu-profile: sampled from t0 (before the lock profile) */
	bool cpu_profile;
	double cpu_profile_s;
	unsigned int cpu_profile_top;	/* symbols kept per level */
	bool keep_profiles;	/* keep each level's perf.data */
	const char *hook_cmd;	/* --hook, run with /bin/sh -c */
	const char *format;	/* -f: how stdout shows the run */
	bool no_plot;		/* --no-plot */
	bool check_limits;	/* --check-limits: stop after limits_check() */
	bool latency;		/* sampled latency histograms (--no-latency) */
	double interval_s;	/* --interval: throughput samples in a window */
	unsigned int repeat;	/* -r: runs of each level */
	/* --repeat-order: true (interleaved, the default) runs the ramp
	 * `repeat` times over; false runs each level `repeat` times in a
	 * row. */
	bool interleave;
	enum user_mode mode;	/* --mode */
	int cpus[MAX_CPUS_LISTED]; /* --cpus: users pinned round-robin */
	size_t n_cpus;		/* 0: unpinned */
	double knee;		/* --knee: efficiency below which is the knee */
	double crossover;	/* --stop-at-crossover, jobs/min/user; 0: off */
	/* Test-only fault injection (AIMSWEEP_TEST_FAULT), see test_fault.c. */
	const char *test_fault;
};

/* The most users any level of the run has. */
static inline unsigned int params_max_users(const struct run_params *p)
{
	unsigned int max = 0;

	for (size_t i = 0; i < p->n_levels; i++)
		if (p->levels[i] > max)
			max = p->levels[i];
	return max;
}

#endif
