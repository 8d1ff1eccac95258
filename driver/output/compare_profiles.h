/* driver/output/compare_profiles.h: compare's profile rows: what moved most. */
#ifndef AIMSWEEP_COMPARE_PROFILES_H
#define AIMSWEEP_COMPARE_PROFILES_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* Rows under a level: the CPU symbols and the lock callers that moved
 * most. */
#define COMPARE_CPU_SYMBOL_ROWS 3
#define COMPARE_LOCK_CALLER_ROWS 5
/* |z| at or above this is called beyond sampling noise. */
#define COMPARE_CPU_Z 3.0

/*
 * At a level both sides profiled (la in root_a, lb in root_b, both ok),
 * the CPU symbols whose share of all samples moved most, then the lock
 * callers whose wait per second profiled did; nothing for a profile a
 * side lacks.
 */
void compare_print_profiles(FILE *f, const cJSON *root_a, const cJSON *la,
			    const cJSON *root_b, const cJSON *lb);

#endif
