/* driver/capture/cpu_profile.h: --cpu-profile, where the CPUs' time goes in each level: perf record and its report. */
#ifndef AIMSWEEP_CPU_PROFILE_H
#define AIMSWEEP_CPU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "driver/capture/capture.h"
#include "driver/measure/result.h"

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
 * --cpu-profile. check proves, once before the first level, that perf is
 * here, may sample the whole machine, and prints a report this parser
 * reads (a 0.1 s profile in a temporary directory). At the gate `perf
 * record -a -e cpu-clock` starts with its sampling off and is waited for;
 * at t0 sampling goes on, and off again --cpu-profile-seconds later (a
 * timer process does that). After the users parked perf is stopped and,
 * when the level is ok so far, its report read into the level's
 * cpu_prof.
 */
extern const struct capture_ops cpu_profile_capture;

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
