/* driver/capture/cpu_profile.h: what --cpu-profile's rules are for the code around it: its sampling rate and when a level is disturbed. */
#ifndef AIMSWEEP_CPU_PROFILE_H
#define AIMSWEEP_CPU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* The rule that marks a level disturbed: perf lost samples, or perf
 * record took more than CPU_PROFILE_DISTURB_PCT of the window's CPU. */
bool cpu_profile_disturbed(const struct cpu_profile *prof);

#endif
