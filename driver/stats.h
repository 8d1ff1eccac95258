/* driver/stats.h: summary statistics over small arrays of doubles. */
#ifndef AIMSWEEP_STATS_H
#define AIMSWEEP_STATS_H

#include <stddef.h>

struct summary {
	double min, max, mean, median, stddev;
};

/* Fills s from n values (n may be 0: all zero). stddev is the sample
 * standard deviation (n - 1), 0 for fewer than two values. */
int stats_summarize(const double *v, size_t n, struct summary *s);

/*
 * AIM7's Job Timing Index as aimsweep computes it: 100 * (1 - stddev/mean)
 * of the per-user throughputs, clamped to [0, 100]. 100 means every user
 * did the same amount of work.
 */
double stats_jti(const struct summary *s);

#endif
