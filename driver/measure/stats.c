/* driver/measure/stats.c: summary statistics over small arrays of doubles. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/measure/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int stats_summarize(const double *v, size_t n, struct summary *s)
{
	double *sorted, sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -1;
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2]
			  : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	free(sorted);
	return 0;
}

double stats_jti(const struct summary *s)
{
	double jti;

	if (s->mean <= 0)
		return 0;
	jti = 100.0 * (1.0 - s->stddev / s->mean);
	if (jti < 0)
		return 0;
	return jti > 100 ? 100 : jti;
}

/* Student's t, 97.5% quantile, for 1..30 degrees of freedom. */
static const double t975[] = {
	12.7062, 4.3027, 3.1824, 2.7764, 2.5706,
	2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
	2.2010, 2.1788, 2.1604, 2.1448, 2.1314,
	2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
	2.0796, 2.0739, 2.0687, 2.0639, 2.0595,
	2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
};

#define T975_MAX_DF (sizeof(t975) / sizeof(t975[0]))

double stats_t_crit95(double df)
{
	/* The normal distribution's 97.5% quantile. */
	const double z = 1.959963984540054;
	double z3 = z * z * z, z5 = z3 * z * z;

	if (!(df >= 1))
		return NAN;
	if (df < T975_MAX_DF + 1)
		return t975[(size_t)df - 1];
	return z + (z3 + z) / (4 * df) +
	       (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

int stats_ci95(const struct summary *s, size_t n, double *low, double *high)
{
	double half;

	if (n < 2) {
		*low = *high = s->mean;
		return EDOM;
	}
	half = stats_t_crit95((double)(n - 1)) * s->stddev / sqrt((double)n);
	*low = s->mean - half;
	*high = s->mean + half;
	return 0;
}

double stats_cov(const struct summary *s)
{
	return s->mean == 0 ? 0 : s->stddev / fabs(s->mean);
}

double stats_jain(const double *v, size_t n)
{
	double sum = 0, sq = 0;

	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		sq += v[i] * v[i];
	}
	if (sq == 0)
		return 0;
	return sum * sum / ((double)n * sq);
}

double stats_percentile(const double *v, size_t n, double q)
{
	double *sorted, h, frac, result;
	size_t lo;

	if (n == 0)
		return 0;
	if (!(q > 0))		/* also NaN */
		q = 0;
	if (q > 100)
		q = 100;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		errno = ENOMEM;
		return NAN;
	}
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	h = (double)(n - 1) * q / 100;
	lo = (size_t)h;
	if (lo >= n - 1) {
		result = sorted[n - 1];
	} else {
		frac = h - (double)lo;
		result = sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
	}
	free(sorted);
	return result;
}

int stats_welch(double mean_a, double sd_a, double n_a, double mean_b,
		double sd_b, double n_b, double *t, double *df)
{
	double va, vb, diff = mean_a - mean_b;

	*t = *df = 0;
	if (!(n_a >= 2 && n_b >= 2))
		return EDOM;
	/* The squared standard errors of the two means. */
	va = sd_a * sd_a / n_a;
	vb = sd_b * sd_b / n_b;
	if (va + vb == 0) {
		*t = diff == 0 ? 0 : diff > 0 ? INFINITY : -INFINITY;
		*df = n_a + n_b - 2;
		return 0;
	}
	*t = diff / sqrt(va + vb);
	*df = (va + vb) * (va + vb) /
	      (va * va / (n_a - 1) + vb * vb / (n_b - 1));
	return 0;
}
