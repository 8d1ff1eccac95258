/* driver/measure/histogram.c: windows, merges and percentiles of latency histograms. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "driver/measure/histogram.h"

/* Below 2 * HIST_SUB_BUCKETS (32 ns) every value has its own bucket. */
#define HIST_EXACT_BUCKETS (2 * HIST_SUB_BUCKETS)

uint64_t hist_bucket_lowest(unsigned int i)
{
	unsigned int shift;

	if (i >= HIST_BUCKETS)
		i = HIST_BUCKETS - 1;
	if (i < HIST_EXACT_BUCKETS)
		return i;
	/* The inverse of hist_bucket_of(): i = shift * 16 + (ns >> shift),
	 * where ns >> shift is 16..31. */
	shift = (i >> HIST_SUB_BITS) - 1;
	return (uint64_t)((i & (HIST_SUB_BUCKETS - 1)) + HIST_SUB_BUCKETS)
	       << shift;
}

uint64_t hist_bucket_highest(unsigned int i)
{
	if (i >= HIST_BUCKETS)
		i = HIST_BUCKETS - 1;
	if (i < HIST_EXACT_BUCKETS)
		return i;
	return hist_bucket_lowest(i) +
	       (UINT64_C(1) << ((i >> HIST_SUB_BITS) - 1)) - 1;
}

uint64_t hist_bucket_value(unsigned int i)
{
	uint64_t lo = hist_bucket_lowest(i);

	return lo + (hist_bucket_highest(i) - lo) / 2;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The last bucket also holds every value above HIST_MAX_NS. */
static uint64_t bucket_highest_unclamped(unsigned int i)
{
	return i == HIST_BUCKETS - 1 ? UINT64_MAX : hist_bucket_highest(i);
}

void hist_snapshot(struct hist *dst, const struct hist *src)
{
	dst->count = __atomic_load_n(&src->count, __ATOMIC_RELAXED);
	dst->sum_ns = __atomic_load_n(&src->sum_ns, __ATOMIC_RELAXED);
	dst->min_ns = __atomic_load_n(&src->min_ns, __ATOMIC_RELAXED);
	dst->max_ns = __atomic_load_n(&src->max_ns, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] = __atomic_load_n(&src->bucket[i],
						 __ATOMIC_RELAXED);
}

int hist_sub(struct hist_window *dst, const struct hist *t1,
	     const struct hist *t0)
{
	uint64_t count1, count0 = 0, sum0 = 0, total = 0;
	unsigned int lowest = HIST_BUCKETS, highest = 0;

	memset(dst, 0, sizeof(*dst));
	count1 = __atomic_load_n(&t1->count, __ATOMIC_RELAXED);
	if (t0) {
		count0 = __atomic_load_n(&t0->count, __ATOMIC_RELAXED);
		sum0 = __atomic_load_n(&t0->sum_ns, __ATOMIC_RELAXED);
	}
	if (count1 < count0)
		return EINVAL;
	dst->count = count1 - count0;
	dst->sum_ns = __atomic_load_n(&t1->sum_ns, __ATOMIC_RELAXED) - sum0;

	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		uint32_t b1 = __atomic_load_n(&t1->bucket[i], __ATOMIC_RELAXED);
		uint32_t b0 = t0 ? __atomic_load_n(&t0->bucket[i],
						   __ATOMIC_RELAXED) : 0;
		/* Unsigned 32-bit subtraction undoes one wrap of the count. */
		uint32_t d = b1 - b0;

		if (!d)
			continue;
		dst->bucket[i] = d;
		total += d;
		if (lowest == HIST_BUCKETS)
			lowest = i;
		highest = i;
	}
	if (!total)
		goto check;

	/* The window's extremes lie in its outermost buckets; the lifetime
	 * extremes are exact when they were recorded in the window. */
	dst->min_ns = clamp_u64(__atomic_load_n(&t1->min_ns, __ATOMIC_RELAXED),
				hist_bucket_lowest(lowest),
				bucket_highest_unclamped(lowest));
	dst->max_ns = clamp_u64(__atomic_load_n(&t1->max_ns, __ATOMIC_RELAXED),
				hist_bucket_lowest(highest),
				bucket_highest_unclamped(highest));
check:
	/*
	 * Snapshots of a running recorder may be a few samples apart between
	 * count and buckets; a bucket that wrapped twice makes the buckets
	 * fall short of the count by 2^32 or more.
	 */
	if ((int64_t)(dst->count - total) >= (INT64_C(1) << 31))
		return EOVERFLOW;
	return 0;
}

static uint64_t window_total(const struct hist_window *h)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		total += h->bucket[i];
	return total;
}

void hist_add(struct hist_window *dst, const struct hist_window *src)
{
	bool dst_empty = window_total(dst) == 0;

	if (window_total(src)) {
		if (dst_empty || src->min_ns < dst->min_ns)
			dst->min_ns = src->min_ns;
		if (dst_empty || src->max_ns > dst->max_ns)
			dst->max_ns = src->max_ns;
	}
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t hist_percentile(const struct hist_window *h, double q)
{
	uint64_t total = window_total(h), rank, seen = 0;
	double r;

	if (!total)
		return 0;
	if (!(q > 0))		/* also NaN */
		q = 0;
	if (q > 100)
		q = 100;
	/*
	 * Nearest rank. q * total / 100 is an integer more often than q / 100
	 * is exact in binary (99 * 200 / 100, not 0.99 * 200); the few ulps
	 * taken off keep 99.9 * 1000 / 100 from becoming rank 1000.
	 */
	r = q * (double)total / 100;
	r = ceil(r - r * 4 * DBL_EPSILON);
	/* The first and the last sample are the min and the max. */
	if (r <= 1)
		return h->min_ns;
	if (r >= (double)total)
		return h->max_ns;
	rank = (uint64_t)r;

	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return clamp_u64(hist_bucket_value(i), h->min_ns,
					 h->max_ns);
	}
	return h->max_ns;	/* not reached: seen ends at total */
}

double hist_mean(const struct hist_window *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0;
}
