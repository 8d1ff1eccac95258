/* driver/stats.c: summary statistics over small arrays of doubles. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/stats.h"

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
		return ENOMEM;
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
