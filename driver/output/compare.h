/* driver/output/compare.h: `aimsweep compare A B`: the change per level of 2 runs. */
#ifndef AIMSWEEP_COMPARE_H
#define AIMSWEEP_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* Below this two-sided p-value a difference is called significant. */
#define COMPARE_ALPHA 0.05
/* The smallest change, in percent, called significant by default. Two
 * identical sweeps run one after the other differ by more than their
 * repeats do (repeats share one run's processes, memory layout and
 * moment, so their spread leaves the run-to-run drift out); the floor
 * covers that drift (docs/comparing-kernels.md has the figures). */
#define COMPARE_NOISE_PCT 5.0

/* One level's repeat statistics: levels[].repeats.jobs_per_min. */
struct repeat_stats {
	double n, mean, stddev;
};

/*
 * Welch's t-test (stats_welch()) of "a and b have the same mean", from
 * each side's mean, sample standard deviation and number of runs. Returns
 * the two-sided p-value and fills t (positive when b is higher) and the
 * Welch-Satterthwaite degrees of freedom; NaN when a side has n < 2.
 */
double welch_p_value(const struct repeat_stats *a,
		     const struct repeat_stats *b, double *t, double *df);

/* P(|T| >= |t|) for Student's t with df degrees of freedom. */
double student_t_two_sided_p(double t, double df);

/* The change from a to b in percent; NaN when a is 0 and b is not. */
double percent_change(double a, double b);

/*
 * Prints the comparison of two trees from result_parse(), named a_name
 * and b_name. With fail_above_pct >= 0, returns true when a level that is
 * ok in A dropped by more than that many percent in B (or failed in B),
 * after naming each such level on stderr.
 */
bool compare_print(FILE *f, const cJSON *a, const char *a_name,
		   const cJSON *b, const char *b_name, double fail_above_pct,
		   double noise_pct);
/* A change of pct percent with Welch p-value p is significant when p is
 * below COMPARE_ALPHA and the change is at least noise_pct either way. */
bool compare_significant(double p, double pct, double noise_pct);

void compare_usage(FILE *f);
/* `aimsweep compare` (argv[0] is "compare"); returns the exit status. */
int compare_main(int argc, char **argv);

#endif
