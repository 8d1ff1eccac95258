/* driver/measure/histogram.h: log-linear latency histograms for the shared arena. */
#ifndef AIMSWEEP_HISTOGRAM_H
#define AIMSWEEP_HISTOGRAM_H

#include <stdint.h>

/*
 * Bucket layout (HDR style). Values below 32 ns have a bucket each. Above
 * that, every power of two [2^k, 2^(k+1)) is cut into 16 equal buckets of
 * width 2^(k-4): a bucket is at most 1/16 (6.25%) of its lowest value
 * wide, and its middle is less than 1/32 (3.125%) away from any value in
 * it. The top power is [2^36, 2^37): the histogram resolves 1 ns to
 * 137.4 s; larger values are counted in the last bucket (their sum and
 * the max stay exact).
 *
 * Size: 16 exact buckets below 16 ns plus 33 powers (2^4 .. 2^36) of 16
 * each is 544 buckets. The arena holds one histogram per user per mix entry
 * (1000 users x 60 entries of workfile.alltests is 60000), so the
 * counts are 32-bit: 544 * 4 + 32 bytes of header is 2208 bytes, half of
 * what 64-bit counts would take. A count wraps after 2^32 samples in
 * one bucket, which one user timing every op of a ~40 ns job reaches in
 * about three minutes; hist_sub() subtracts modulo 2^32, which is exact
 * for any window with fewer than 2^32 samples per bucket, and it detects
 * a window with more from the 64-bit total count (EOVERFLOW). Windows
 * and the per-job merge of all users live in the parent only and use
 * 64-bit counts (struct hist_window), so a merge cannot overflow.
 */
#define HIST_SUB_BITS 4
#define HIST_SUB_BUCKETS (1u << HIST_SUB_BITS)
#define HIST_TOP_BITS 37
#define HIST_MAX_NS ((UINT64_C(1) << HIST_TOP_BITS) - 1)
#define HIST_BUCKETS ((HIST_TOP_BITS - HIST_SUB_BITS + 1) * HIST_SUB_BUCKETS)

/*
 * One recorder: written by one user, read by the parent while the user
 * runs. All-zero bytes is an empty histogram, so clearing the arena
 * clears it. No pointers: it lives in a MAP_SHARED mapping.
 */
struct hist {
	uint64_t count;		/* samples recorded, never wraps */
	uint64_t sum_ns;	/* of the unclamped values */
	uint64_t min_ns;	/* valid when count > 0 */
	uint64_t max_ns;
	uint32_t bucket[HIST_BUCKETS];	/* modulo 2^32, see above */
};

/*
 * What happened between two snapshots of a recorder, or several of those
 * merged (hist_add). Parent-side only. min_ns and max_ns are estimates:
 * a window's exact extremes cannot be recovered from two snapshots. They
 * are the recorder's lifetime min (max) at the end of the window, moved
 * into the window's lowest (highest) non-empty bucket. That is exact
 * when the window holds the lifetime extreme (always when t0 is empty,
 * e.g. when users record nothing before t0), and otherwise within that
 * bucket (6.25%) on the safe side: min is never above the window's true
 * min, max never below its true max (but for samples recorded while a
 * snapshot was being copied).
 */
struct hist_window {
	uint64_t count;		/* for the mean; percentiles count buckets */
	uint64_t sum_ns;
	uint64_t min_ns;	/* 0 when the window is empty */
	uint64_t max_ns;
	uint64_t bucket[HIST_BUCKETS];
};

/* The bucket a value falls in: one clz, a shift and an add. */
static inline unsigned int hist_bucket_of(uint64_t ns)
{
	unsigned int msb, shift;

	ns = ns > HIST_MAX_NS ? HIST_MAX_NS : ns;
	/* The | 31 puts everything below 32 in the first, exact, power. */
	msb = 63 - (unsigned int)__builtin_clzll(ns | 31);
	shift = msb - HIST_SUB_BITS;
	return (shift << HIST_SUB_BITS) + (unsigned int)(ns >> shift);
}

/*
 * Records one sample; runs in every user's hot loop, so no division, no
 * floating point and no branch but the ones the compiler turns into
 * conditional moves. The user is the only writer, so it reads its own
 * fields plainly and needs no atomic read-modify-write (no lock prefix);
 * the stores are relaxed atomics because the parent reads concurrently:
 * that rules out torn or merged stores (a plain 64-bit store may be split
 * in two on a 32-bit target, and the compiler may defer plain stores),
 * and costs nothing on x86-64 or arm64, where it is an ordinary store.
 * The parent tolerates the fields being a few samples apart.
 */
static inline void hist_record(struct hist *h, uint64_t ns)
{
	unsigned int i = hist_bucket_of(ns);
	uint64_t count = h->count;
	uint64_t min = count == 0 || ns < h->min_ns ? ns : h->min_ns;
	uint64_t max = ns > h->max_ns ? ns : h->max_ns;

	__atomic_store_n(&h->bucket[i], h->bucket[i] + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->count, count + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sum_ns, h->sum_ns + ns, __ATOMIC_RELAXED);
	__atomic_store_n(&h->min_ns, min, __ATOMIC_RELAXED);
	__atomic_store_n(&h->max_ns, max, __ATOMIC_RELAXED);
}

/* The lowest and highest values bucket i holds, and the one that stands
 * for all of them in percentiles: the middle, rounded down. */
uint64_t hist_bucket_lowest(unsigned int i);
uint64_t hist_bucket_highest(unsigned int i);
uint64_t hist_bucket_value(unsigned int i);

/* Copies a live recorder field by field with relaxed loads. */
void hist_snapshot(struct hist *dst, const struct hist *src);

/*
 * dst = what t1 recorded since t0 (t0 may be NULL: since it was cleared).
 * t1 may be the live recorder. Returns 0; EINVAL when t0 has more samples
 * than t1 (not the same recorder, or cleared in between); EOVERFLOW when
 * a bucket took 2^32 or more samples in the window, so that the bucket
 * counts are short of the total (dst is filled anyway: count, sum and
 * mean are right, percentiles are not).
 */
int hist_sub(struct hist_window *dst, const struct hist *t1,
	     const struct hist *t0);

/* dst += src: merges windows, e.g. of all users of one job. */
void hist_add(struct hist_window *dst, const struct hist_window *src);

/*
 * The q-th percentile (q in percent, 0..100, clamped): the value of the
 * bucket holding the sample of rank ceil(q / 100 * samples) (nearest
 * rank), clamped to [min_ns, max_ns]; the ranks of the first and the last
 * sample give min_ns and max_ns themselves. 0 for an empty window.
 */
uint64_t hist_percentile(const struct hist_window *h, double q);

/* The exact mean of the samples (sum / count); 0 for an empty window. */
double hist_mean(const struct hist_window *h);

#endif
