/* driver/cpu_profile.h: --cpu-profile, where the CPUs' time goes in each level: perf record and its report. */
#ifndef AIMSWEEP_CPU_PROFILE_H
#define AIMSWEEP_CPU_PROFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "driver/params.h"
#include "driver/perf_record.h"
#include "driver/result.h"

/*
 * perf samples every CPU this often, in Hz. Each sample is a timer
 * interrupt, which in a virtual machine can cost tens of microseconds
 * (docs/profiles.md has the measurement): at about 500 Hz that stays
 * near 1% of each CPU while sampling is on, where 1000 Hz costs twice as
 * much. A 1 s slice of a 2-CPU machine still holds some 1000 samples, so
 * that a share of 5% is known to about 1.5% (two binomial standard
 * errors). 499 is prime, so that sampling does not run in step with the
 * scheduler tick (100, 250 or 1000 Hz) or with other periodic work, which
 * would show what runs at those moments instead of what runs most.
 */
#define CPU_PROFILE_HZ 499

/* Above this share of the window's CPU time taken by perf record itself,
 * a level is marked disturbed. */
#define CPU_PROFILE_DISTURB_PCT 2.0

/*
 * A level's CPU profile, in the steps of struct level_capture (capture.h):
 *
 *   cpu_profile_prepare()  at the gate: `perf record -a -e cpu-clock`
 *                          starts with its sampling off and waits
 *   cpu_profile_start()    t0: sampling goes on, and off again
 *                          slice_s later (a timer process does that)
 *   cpu_profile_finish()   after the users parked: perf is stopped, its
 *                          report read into level->cpu_prof
 *   cpu_profile_abort()    instead of finish: everything ends, no report
 *
 * Zeroed, it means "nothing started".
 */
struct cpu_capture {
	const struct run_params *params;
	char dir[PATH_MAX];	/* the level's directory, absolute */
	char data[PATH_MAX];	/* perf record's output */
	/* perf record, and its timer that turns sampling off at t0 +
	 * slice_s. */
	struct perf_record perf;
	double slice_s;		/* how long sampling is on */
	bool started;
	uint64_t perf_cpu0_ns;	/* perf record's CPU time at t0 */
	char error[REASON_LEN];	/* the first failure; it fails the level */
};

/*
 * Once before the first level: proves that perf is here, may sample the
 * whole machine, and prints a report this parser reads (a 0.1 s profile
 * in a temporary directory). -1 with what failed and how to fix it.
 */
int cpu_profile_check(const struct run_params *p, char *err, size_t errlen);

/* While the level's users wait at the gate; level_dir exists and is
 * absolute. -1 with the reason in err; cpu_profile_abort() anyway. */
int cpu_profile_prepare(struct cpu_capture *c, const struct run_params *p,
			const char *level_dir, char *err, size_t errlen);

/* At t0. A failure is kept for cpu_profile_finish(). */
void cpu_profile_start(struct cpu_capture *c);

/*
 * After the level's users have parked: stops perf and, when `report` (the
 * level is ok so far), reads its profile into level->cpu_prof. -1 with
 * the reason in err when anything failed: the level fails with it.
 */
int cpu_profile_finish(struct cpu_capture *c, struct level_result *level,
		       bool report, char *err, size_t errlen);

/* Kills and reaps what the capture started and removes its profile. */
void cpu_profile_abort(struct cpu_capture *c);

/*
 * Reads the text of `perf report --stdio --sort sym -n` (perf 6.1: '#'
 * lines with "Total Lost Samples: N", "Samples: 2K of event 'cpu-clock'"
 * and the column header "Overhead Samples Symbol", then a line per
 * symbol: "17.09%  361  [k] name"). Lines of one name and mark are merged
 * (perf prints a name once per binary that has it), unresolved addresses
 * ("[.] 0x16df89") are merged into "[unknown]" of their mark, and the
 * `top` symbols with the most samples kept, with their share of every
 * sample in the report. A line that cannot be read is dropped and counted
 * (its samples still count when they can be read; a mark other than [k]
 * and [.] is such a line). A report that makes no sense is rejected: no
 * samples, a count in the header that the lines do not add up to, or a
 * percentage that does not match its line's samples; out->rejected says
 * why and out has no symbols. Returns 0, EBADMSG when the column header
 * never came (not the report we know), or ENOMEM.
 */
int cpu_profile_parse(FILE *f, size_t top, struct cpu_profile *out);

/* The rule that marks a level disturbed: perf lost samples, or perf
 * record took more than CPU_PROFILE_DISTURB_PCT of the window's CPU. */
bool cpu_profile_disturbed(const struct cpu_profile *prof);

#endif
