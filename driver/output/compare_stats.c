/* driver/output/compare_stats.c: Welch's t-test and compare's verdict. */
#include <math.h>

#include "driver/output/compare_stats.h"
#include "driver/measure/stats.h"

/*
 * The regularized incomplete beta function I_x(a, b), evaluated with its
 * continued fraction (DLMF 8.17.22) by the modified Lentz method. The
 * fraction converges fast for x < (a + 1) / (a + b + 2); above that the
 * symmetry I_x(a, b) = 1 - I_(1-x)(b, a) is used.
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double num, delta;

		/* The even step, d_2m. */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		/* The odd step, d_2m+1. */
		num = -(a + m) * (a + b + m) * x /
		      ((a + 2 * m) * (a + 2 * m + 1));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1.0) < 1e-15)
			break;
	}
	return h;
}

static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_fraction(a, b, x) / a;
	return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double student_t_two_sided_p(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return 0.0;
	return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double welch_p_value(const struct repeat_stats *a,
		     const struct repeat_stats *b, double *t, double *df)
{
	/* b first: t is positive when b is higher. */
	if (isnan(a->mean) || isnan(b->mean) || !(a->stddev >= 0) ||
	    !(b->stddev >= 0) ||
	    stats_welch(b->mean, b->stddev, b->n, a->mean, a->stddev, a->n, t,
			df)) {
		*t = NAN;
		*df = NAN;
		return NAN;
	}
	/* With no spread on either side t is 0 or infinite, and p is 1 or
	 * 0: any difference is real. */
	return student_t_two_sided_p(*t, *df);
}

double percent_change(double a, double b)
{
	if (a == 0)
		return b == 0 ? 0.0 : NAN;
	return (b - a) / fabs(a) * 100.0;
}

bool compare_significant(double p, double pct, double noise_pct)
{
	return p < COMPARE_ALPHA && !isnan(pct) && fabs(pct) >= noise_pct;
}
