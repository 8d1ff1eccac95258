/* driver/output/compare_stats.h: Welch's t-test and compare's verdict. */
#ifndef AIMSWEEP_COMPARE_STATS_H
#define AIMSWEEP_COMPARE_STATS_H

#include <stdbool.h>

/* Below this two-sided p-value a difference is called significant. */
#define COMPARE_ALPHA 0.05

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

/* A change of pct percent with Welch p-value p is significant when p is
 * below COMPARE_ALPHA and the change is at least noise_pct either way. */
bool compare_significant(double p, double pct, double noise_pct);

#endif
