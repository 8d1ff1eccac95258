/* driver/measure/stats.h: summary statistics over small arrays of doubles. */
#ifndef AIMSWEEP_STATS_H
#define AIMSWEEP_STATS_H

#include <stddef.h>

struct summary {
	double min, max, mean, median, stddev;
};

/* Fills s from n values (n may be 0: all zero). stddev is the sample
 * standard deviation (n - 1), 0 for fewer than two values. 0, or -1 with
 * errno (out of memory). */
int stats_summarize(const double *v, size_t n, struct summary *s);

/*
 * AIM7's Job Timing Index as aimsweep computes it: 100 * (1 - stddev/mean)
 * of the per-user throughputs, clamped to [0, 100]. 100 means every user
 * did the same amount of work.
 */
double stats_jti(const struct summary *s);

/*
 * The two-sided 95% critical value of Student's t with df degrees of
 * freedom (its 97.5% quantile): a table for df 1..30, fractional df
 * rounded down (the wider interval); above 30 the Cornish-Fisher
 * expansion around 1.96 (Abramowitz and Stegun 26.7.5, two terms), which
 * meets the printed tables to 3 decimals and tends to 1.96. NAN for
 * df < 1 (or NaN).
 */
double stats_t_crit95(double df);

/*
 * The 95% confidence interval of the mean of the n values s summarises:
 * mean -+ t(n - 1) * stddev / sqrt(n). Returns 0; EDOM for n < 2, when no
 * interval can be estimated and low = high = mean.
 */
int stats_ci95(const struct summary *s, size_t n, double *low, double *high);

/* Coefficient of variation: stddev / |mean|, 0 when the mean is 0. */
double stats_cov(const struct summary *s);

/*
 * Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when every value is
 * equal, 1/n when one value has everything. 0 for n = 0 or all values 0
 * (no work, no fairness to speak of, as stats_jti()).
 */
double stats_jain(const double *v, size_t n);

/*
 * The q-th percentile (q in percent, clamped to 0..100) by linear
 * interpolation between order statistics: with the values sorted as
 * x[0..n-1] and h = (n - 1) * q / 100, x[floor h] + (h - floor h) *
 * (x[floor h + 1] - x[floor h]) (Hyndman and Fan's type 7, the default
 * of R and numpy). v is not modified. 0 for n = 0; NAN with errno ENOMEM
 * when no copy can be made.
 */
double stats_percentile(const double *v, size_t n, double q);

/*
 * Welch's unequal-variances t test of two means from their summaries:
 * t = (mean_a - mean_b) / sqrt(sd_a^2 / n_a + sd_b^2 / n_b), and the
 * Welch-Satterthwaite degrees of freedom. Compare |t| with
 * stats_t_crit95(df). The counts are doubles because they may come from
 * a file. Returns 0; EDOM when n_a or n_b is below 2 or NaN (t and df are
 * 0). When both stddevs are 0, t is 0 for equal means and an infinity of
 * the sign of the difference otherwise, and df is n_a + n_b - 2.
 */
int stats_welch(double mean_a, double sd_a, double n_a, double mean_b,
		double sd_b, double n_b, double *t, double *df);

#endif
