/* driver/output/compare.h: compare A B: the change per level and per job. */
#ifndef AIMSWEEP_COMPARE_H
#define AIMSWEEP_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/*
 * The smallest change, in percent, called significant by default. Two
 * identical sweeps run one after the other differ by more than their
 * repeats do (repeats share one run's processes, memory layout and
 * moment, so their spread leaves the run-to-run drift out); the floor
 * covers that drift (docs/comparing-kernels.md has the figures). A
 * plain number, so that compare's --help shows it as written.
 */
#define COMPARE_NOISE_PCT 5

/*
 * Prints the comparison of two trees from result_parse(), named a_name
 * and b_name. With fail_above_pct >= 0, returns true when a level that is
 * ok in A dropped by more than that many percent in B (or failed in B),
 * after naming each such level on stderr.
 */
bool compare_print(FILE *f, const cJSON *a, const char *a_name,
		   const cJSON *b, const char *b_name, double fail_above_pct,
		   double noise_pct);

/* Compares the result.json files at a_path and b_path on standard
 * output (compare_print()); returns the exit status: 0, 1 when a level
 * dropped beyond fail_above_pct, 2 after a message. */
int compare_files(const char *a_path, const char *b_path,
		  double fail_above_pct, double noise_pct);

#endif
