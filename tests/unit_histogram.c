/* tests/unit_histogram.c: tests and a micro benchmark of the histograms. */
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/measure/histogram.h"
#include "tests/test.h"

/* The worst relative distance of a bucket's value from a value in it. */
#define REL_BOUND (1.0 / 32)

/* xorshift64*: a fixed, seedable stream, so that failures repeat. */
static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed ? seed : 1;
}

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

/* Values spread evenly over the powers of two from 1 ns to 2^37 ns. */
static uint64_t rng_latency(void)
{
	unsigned int bits = (unsigned int)(rng_next() % HIST_TOP_BITS) + 1;

	return rng_next() >> (64 - bits);
}

static uint64_t bucket_total(const struct hist_window *w)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		total += w->bucket[i];
	return total;
}

/* Compares two windows field by field; says which bucket differs. */
static bool windows_equal(const struct hist_window *a,
			  const struct hist_window *b)
{
	bool ok = true;

	ok &= CHECK_EQ_U64(a->count, b->count);
	ok &= CHECK_EQ_U64(a->sum_ns, b->sum_ns);
	ok &= CHECK_EQ_U64(a->min_ns, b->min_ns);
	ok &= CHECK_EQ_U64(a->max_ns, b->max_ns);
	for (unsigned int i = 0; i < HIST_BUCKETS && ok; i++)
		if (a->bucket[i] != b->bucket[i])
			ok = test_report(false, __FILE__, __LINE__,
					 "bucket %u: %" PRIu64 " != %" PRIu64,
					 i, a->bucket[i], b->bucket[i]);
	return ok;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void test_size(void)
{
	/* The arena holds one per user per entry: keep an eye on it. */
	CHECK_EQ_U64(HIST_BUCKETS, 544);
	CHECK_EQ_U64(sizeof(struct hist), 2208);
	CHECK(HIST_MAX_NS >= UINT64_C(100000000000));	/* 100 s */
}

static void test_layout(void)
{
	/* Below 32 ns every value has its own bucket. */
	for (uint64_t v = 0; v < 32; v++) {
		CHECK_EQ_U64(hist_bucket_of(v), v);
		CHECK_EQ_U64(hist_bucket_value((unsigned int)v), v);
	}
	/* Hand-worked: 1000 is in [992, 1023] (width 32 in 512..1023),
	 * 5100 in [4864, 5119] (width 256 in 4096..8191). */
	CHECK_EQ_U64(hist_bucket_lowest(hist_bucket_of(1000)), 992);
	CHECK_EQ_U64(hist_bucket_highest(hist_bucket_of(1000)), 1023);
	CHECK_EQ_U64(hist_bucket_lowest(hist_bucket_of(5100)), 4864);
	CHECK_EQ_U64(hist_bucket_highest(hist_bucket_of(5100)), 5119);
	CHECK_EQ_U64(hist_bucket_value(hist_bucket_of(1500)), 1503);
	CHECK_EQ_U64(hist_bucket_of(32), 32);
	CHECK_EQ_U64(hist_bucket_of(33), 32);
	CHECK_EQ_U64(hist_bucket_of(34), 33);

	/* The buckets tile 0..HIST_MAX_NS with no gap and no overlap, each
	 * at most 1/16 of its lowest value wide. */
	CHECK_EQ_U64(hist_bucket_lowest(0), 0);
	CHECK_EQ_U64(hist_bucket_highest(HIST_BUCKETS - 1), HIST_MAX_NS);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo = hist_bucket_lowest(i);
		uint64_t hi = hist_bucket_highest(i);

		if (!CHECK(lo <= hi))
			break;
		if (!CHECK_EQ_U64(hist_bucket_of(lo), i) ||
		    !CHECK_EQ_U64(hist_bucket_of(hi), i))
			break;
		if (i + 1 < HIST_BUCKETS &&
		    !CHECK_EQ_U64(hist_bucket_lowest(i + 1), hi + 1))
			break;
		if (i >= 32 && !CHECK((hi - lo + 1) * 16 <= lo))
			break;
	}
	/* Above the top, the last bucket, without undefined shifts. */
	CHECK_EQ_U64(hist_bucket_of(HIST_MAX_NS + 1), HIST_BUCKETS - 1);
	CHECK_EQ_U64(hist_bucket_of(UINT64_MAX), HIST_BUCKETS - 1);
}

/* |value(bucket(v)) - v| / v for one v; fails the check past the bound. */
static bool check_rel_error(uint64_t v, double *worst)
{
	uint64_t rep = hist_bucket_value(hist_bucket_of(v));
	double err = fabs((double)rep - (double)v) / (double)v;

	if (err > *worst)
		*worst = err;
	if (err <= REL_BOUND)
		return true;
	return test_report(false, __FILE__, __LINE__,
			   "value %" PRIu64 " stands as %" PRIu64
			   ": %.4f%% off", v, rep, err * 100);
}

static void test_relative_error_sweep(void)
{
	double worst = 0;
	unsigned int prev = 0;
	uint64_t v;

	/* Every value to 2^20, then 4096 steps per power of two to the
	 * top, then both edges of every bucket. */
	for (v = 1; v <= HIST_MAX_NS; v += v < (1u << 20) ? 1 : v >> 12) {
		unsigned int i = hist_bucket_of(v);

		if (!check_rel_error(v, &worst))
			return;
		if (!CHECK(i >= prev))
			return;
		prev = i;
	}
	for (unsigned int i = 1; i < HIST_BUCKETS; i++) {
		if (!check_rel_error(hist_bucket_lowest(i), &worst) ||
		    !check_rel_error(hist_bucket_highest(i), &worst))
			return;
	}
	CHECK(check_rel_error(UINT64_C(100000000000), &worst));
	for (v = 1; v < 32; v++)
		CHECK_EQ_U64(hist_bucket_value(hist_bucket_of(v)), v);
	/* The bound is approached, not loose by a factor. */
	CHECK(worst > 0.9 * REL_BOUND);
	test_note("worst relative error %.3f%%", worst * 100);
}

static void test_empty(void)
{
	struct hist h, s;
	struct hist_window w;

	memset(&h, 0, sizeof(h));
	memset(&w, 0xff, sizeof(w));	/* garbage hist_sub must clear */
	CHECK_EQ_INT(hist_sub(&w, &h, NULL), 0);
	CHECK_EQ_U64(w.count, 0);
	CHECK_EQ_U64(bucket_total(&w), 0);
	CHECK_EQ_U64(w.min_ns, 0);
	CHECK_EQ_U64(w.max_ns, 0);
	CHECK_EQ_U64(hist_percentile(&w, 0), 0);
	CHECK_EQ_U64(hist_percentile(&w, 50), 0);
	CHECK_EQ_U64(hist_percentile(&w, 100), 0);
	CHECK_NEAR(hist_mean(&w), 0, 0);

	/* A window in which nothing happened, of a busy recorder. */
	for (uint64_t v = 1; v < 1000; v++)
		hist_record(&h, v * 7);
	hist_snapshot(&s, &h);
	CHECK_EQ_INT(hist_sub(&w, &h, &s), 0);
	CHECK_EQ_U64(w.count, 0);
	CHECK_EQ_U64(bucket_total(&w), 0);
	CHECK_EQ_U64(hist_percentile(&w, 99), 0);
	CHECK_EQ_U64(w.min_ns, 0);
	CHECK_EQ_U64(w.max_ns, 0);
	CHECK_NEAR(hist_mean(&w), 0, 0);
}

static void test_single_value(void)
{
	struct hist h;
	struct hist_window w;

	memset(&h, 0, sizeof(h));
	hist_record(&h, 12345);
	CHECK_EQ_U64(h.count, 1);
	CHECK_EQ_U64(h.min_ns, 12345);
	CHECK_EQ_U64(h.max_ns, 12345);
	CHECK_EQ_INT(hist_sub(&w, &h, NULL), 0);
	/* The bucket's middle is not 12345; the clamp to min and max
	 * makes every percentile of one sample that sample. */
	CHECK(hist_bucket_value(hist_bucket_of(12345)) != 12345);
	CHECK_EQ_U64(hist_percentile(&w, 0), 12345);
	CHECK_EQ_U64(hist_percentile(&w, 50), 12345);
	CHECK_EQ_U64(hist_percentile(&w, 99.9), 12345);
	CHECK_EQ_U64(hist_percentile(&w, 100), 12345);
	CHECK_NEAR(hist_mean(&w), 12345, 0);

	/* A zero-length sample is a sample, and min 0 is a real min. */
	memset(&h, 0, sizeof(h));
	hist_record(&h, 0);
	hist_record(&h, 10);
	CHECK_EQ_U64(h.min_ns, 0);
	CHECK_EQ_INT(hist_sub(&w, &h, NULL), 0);
	CHECK_EQ_U64(w.min_ns, 0);
	CHECK_EQ_U64(hist_percentile(&w, 50), 0);
	CHECK_EQ_U64(hist_percentile(&w, 51), 10);
	CHECK_NEAR(hist_mean(&w), 5, 0);
}

static void test_uniform(void)
{
	struct hist h;
	struct hist_window w;
	uint64_t sum = 0;

	memset(&h, 0, sizeof(h));
	rng_seed(42);
	for (unsigned int i = 0; i < 1000000; i++) {
		uint64_t v = 1000 + rng_next() % 1001;

		sum += v;
		hist_record(&h, v);
	}
	CHECK_EQ_INT(hist_sub(&w, &h, NULL), 0);
	CHECK_EQ_U64(w.count, 1000000);
	CHECK_EQ_U64(bucket_total(&w), 1000000);
	CHECK_EQ_U64(w.sum_ns, sum);
	CHECK_NEAR(hist_mean(&w), (double)sum / 1e6, 1e-6);
	CHECK_NEAR(hist_mean(&w), 1500, 1);
	CHECK_EQ_U64(w.min_ns, 1000);
	CHECK_EQ_U64(w.max_ns, 2000);
	CHECK_NEAR(hist_percentile(&w, 50), 1500, 0.03 * 1500);
	CHECK_NEAR(hist_percentile(&w, 90), 1900, 0.03 * 1900);
	CHECK_NEAR(hist_percentile(&w, 99), 1990, 0.03 * 1990);
	CHECK_EQ_U64(hist_percentile(&w, 0), 1000);
	CHECK_EQ_U64(hist_percentile(&w, 100), 2000);
	/* Out of range and NaN are clamped, not undefined. */
	CHECK_EQ_U64(hist_percentile(&w, -5), 1000);
	CHECK_EQ_U64(hist_percentile(&w, 1e9), 2000);
	CHECK_EQ_U64(hist_percentile(&w, NAN), 1000);
}

/* Percentiles against the exact order statistics of the same rank. */
static void test_percentiles_exact(void)
{
	static const double qs[] = { 0, 1, 10, 25, 50, 75, 90, 99, 99.9,
				     99.99, 100 };
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hist h;
	struct hist_window w;

	if (!v)
		test_bail("malloc: out of memory");
	memset(&h, 0, sizeof(h));
	rng_seed(7);
	for (unsigned int i = 0; i < N; i++) {
		v[i] = rng_latency();
		hist_record(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	CHECK_EQ_INT(hist_sub(&w, &h, NULL), 0);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		/* Nearest rank, kept from rounding up by float error. */
		double rank = ceil(qs[k] * N / 100 - 1e-9);
		uint64_t want = v[rank < 1 ? 0 : (size_t)rank - 1];
		uint64_t got = hist_percentile(&w, qs[k]);

		test_report(fabs((double)got - (double)want) <=
			    REL_BOUND * (double)want, __FILE__, __LINE__,
			    "p%g: got %" PRIu64 ", exact %" PRIu64, qs[k],
			    got, want);
	}
	CHECK_EQ_U64(hist_percentile(&w, 0), v[0]);
	CHECK_EQ_U64(hist_percentile(&w, 100), v[N - 1]);
	free(v);

	/* Nearest rank on small counts: 99.9% of 1000 is rank 999. */
	memset(&h, 0, sizeof(h));
	for (uint64_t i = 1; i <= 1000; i++)
		hist_record(&h, i < 1000 ? 10 : 20);
	hist_sub(&w, &h, NULL);
	CHECK_EQ_U64(hist_percentile(&w, 99.9), 10);
	CHECK_EQ_U64(hist_percentile(&w, 99.95), 20);
}

static void test_extremes(void)
{
	const uint64_t s100 = UINT64_C(100000000000);
	struct hist h;
	struct hist_window w;

	memset(&h, 0, sizeof(h));
	hist_record(&h, 1);
	hist_record(&h, s100);
	CHECK_EQ_U64(hist_bucket_of(1), 1);
	/* 100 s is 23 * 2^32 + something: power 2^36, width 2^32. */
	CHECK_EQ_U64(hist_bucket_of(s100), 32 * 16 + 23);
	CHECK_EQ_INT(hist_sub(&w, &h, NULL), 0);
	CHECK_EQ_U64(w.min_ns, 1);
	CHECK_EQ_U64(w.max_ns, s100);
	CHECK_EQ_U64(hist_percentile(&w, 50), 1);
	/* The bucket's middle is above 100 s; the max clamps it. */
	CHECK_EQ_U64(hist_percentile(&w, 75), s100);
	CHECK_EQ_U64(hist_percentile(&w, 100), s100);
	CHECK_NEAR(hist_mean(&w), (1.0 + (double)s100) / 2, 0);
}

static void test_beyond_top(void)
{
	const uint64_t s200 = UINT64_C(200000000000);
	const uint64_t big = UINT64_C(1000000000000000);	/* 11.6 days */
	struct hist h;
	struct hist_window w;

	memset(&h, 0, sizeof(h));
	hist_record(&h, 5);
	hist_record(&h, s200);
	hist_record(&h, big);
	CHECK_EQ_U64(h.count, 3);
	CHECK_EQ_U64(h.bucket[HIST_BUCKETS - 1], 2);
	CHECK_EQ_U64(h.bucket[5], 1);
	CHECK_EQ_INT(hist_sub(&w, &h, NULL), 0);
	CHECK_EQ_U64(bucket_total(&w), 3);
	/* The sum and the max are of the real values. */
	CHECK_EQ_U64(w.sum_ns, 5 + s200 + big);
	CHECK_EQ_U64(w.max_ns, big);
	CHECK_EQ_U64(hist_percentile(&w, 100), big);
	/* Inside the last bucket the value is its middle, at least 128 s:
	 * beyond the top, percentiles only say "that long or longer". */
	CHECK(hist_percentile(&w, 50) >= hist_bucket_lowest(HIST_BUCKETS - 1));
	CHECK(hist_percentile(&w, 50) <= big);

	/* Even UINT64_MAX is counted (the sum then wraps: 584 years). */
	memset(&h, 0, sizeof(h));
	hist_record(&h, UINT64_MAX);
	CHECK_EQ_U64(h.bucket[HIST_BUCKETS - 1], 1);
	CHECK_EQ_U64(h.max_ns, UINT64_MAX);
}

/* Records A, snapshots, records B: the window must be B's histogram. */
static void check_window(const uint64_t *a, size_t na, const uint64_t *b,
			 size_t nb)
{
	struct hist h, t0, only_b;
	struct hist_window w, want;

	memset(&h, 0, sizeof(h));
	memset(&only_b, 0, sizeof(only_b));
	for (size_t i = 0; i < na; i++)
		hist_record(&h, a[i]);
	hist_snapshot(&t0, &h);
	CHECK(!memcmp(&t0, &h, sizeof(h)));
	for (size_t i = 0; i < nb; i++) {
		hist_record(&h, b[i]);
		hist_record(&only_b, b[i]);
	}
	CHECK_EQ_INT(hist_sub(&w, &h, &t0), 0);
	CHECK_EQ_INT(hist_sub(&want, &only_b, NULL), 0);
	CHECK_EQ_U64(w.count, nb);
	CHECK_EQ_U64(w.sum_ns, want.sum_ns);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		if (!CHECK_EQ_U64(w.bucket[i], want.bucket[i]))
			break;
}

static void test_sub(void)
{
	/* B holds the lifetime min and max: the window's are exact. */
	const uint64_t a1[] = { 5000, 6000, 7000 };
	const uint64_t b1[] = { 100, 200000, 3000 };
	/* A holds them: the window's are B's outer buckets' edges. */
	const uint64_t a2[] = { 50, 1000000000 };
	const uint64_t b2[] = { 1000, 1003, 5000, 5100 };
	struct hist h, t0;
	struct hist_window w;
	uint64_t *a, *b;

	check_window(a1, 3, b1, 3);
	check_window(a2, 2, b2, 4);

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < 3; i++)
		hist_record(&h, a1[i]);
	hist_snapshot(&t0, &h);
	for (size_t i = 0; i < 3; i++)
		hist_record(&h, b1[i]);
	hist_sub(&w, &h, &t0);
	CHECK_EQ_U64(w.min_ns, 100);
	CHECK_EQ_U64(w.max_ns, 200000);

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < 2; i++)
		hist_record(&h, a2[i]);
	hist_snapshot(&t0, &h);
	for (size_t i = 0; i < 4; i++)
		hist_record(&h, b2[i]);
	hist_sub(&w, &h, &t0);
	/* True min 1000 is in [992, 1023], true max 5100 in [4864, 5119]:
	 * the estimates lie outside the truth, within one bucket. */
	CHECK_EQ_U64(w.min_ns, 992);
	CHECK_EQ_U64(w.max_ns, 5119);
	CHECK_EQ_U64(hist_percentile(&w, 0), 992);
	CHECK_EQ_U64(hist_percentile(&w, 100), 5119);
	CHECK_NEAR(hist_mean(&w), (1000 + 1003 + 5000 + 5100) / 4.0, 0);

	/* Two large random sets. */
	a = malloc(200000 * sizeof(*a));
	if (!a)
		test_bail("malloc: out of memory");
	b = a + 100000;
	rng_seed(1234);
	for (size_t i = 0; i < 200000; i++)
		a[i] = rng_latency();
	check_window(a, 100000, b, 100000);
	free(a);
}

static void test_sub_wrap(void)
{
	const unsigned int i = hist_bucket_of(777);
	struct hist h, t0, t1;
	struct hist_window w;

	/* A bucket 5 short of wrapping at t0 takes 10 more samples. */
	memset(&h, 0, sizeof(h));
	h.bucket[i] = UINT32_MAX - 4;
	h.count = UINT32_MAX - 4;
	h.sum_ns = h.count * 777;
	h.min_ns = h.max_ns = 777;
	hist_snapshot(&t0, &h);
	for (unsigned int k = 0; k < 10; k++)
		hist_record(&h, 777);
	CHECK_EQ_U64(h.bucket[i], 5);
	CHECK_EQ_U64(h.count, UINT64_C(0xffffffff) + 6);
	CHECK_EQ_INT(hist_sub(&w, &h, &t0), 0);
	CHECK_EQ_U64(w.count, 10);
	CHECK_EQ_U64(w.bucket[i], 10);
	CHECK_EQ_U64(bucket_total(&w), 10);
	CHECK_EQ_U64(w.sum_ns, 7770);
	CHECK_EQ_U64(hist_percentile(&w, 50), 777);

	/* 2^32 + 10 samples in one bucket: the bucket says 10, the count
	 * knows better, and hist_sub says so. */
	t1 = t0;
	t1.count += (UINT64_C(1) << 32) + 10;
	t1.bucket[i] += 10;
	CHECK_EQ_INT(hist_sub(&w, &t1, &t0), EOVERFLOW);
	CHECK_EQ_U64(w.count, (UINT64_C(1) << 32) + 10);

	/* A snapshot a few samples apart (count read before the buckets)
	 * is not an overflow. */
	t1 = t0;
	t1.count += 3;
	t1.bucket[i] += 5;
	CHECK_EQ_INT(hist_sub(&w, &t1, &t0), 0);
	t1.bucket[i] -= 4;
	CHECK_EQ_INT(hist_sub(&w, &t1, &t0), 0);

	/* The snapshots the wrong way round. */
	CHECK_EQ_INT(hist_sub(&w, &t0, &h), EINVAL);
	CHECK_EQ_U64(w.count, 0);
	CHECK_EQ_U64(bucket_total(&w), 0);
}

static void test_add(void)
{
	struct hist ha, hb, hab, empty;
	struct hist_window wa, wb, wab, sum;

	memset(&ha, 0, sizeof(ha));
	memset(&hb, 0, sizeof(hb));
	memset(&hab, 0, sizeof(hab));
	memset(&empty, 0, sizeof(empty));
	rng_seed(99);
	for (unsigned int k = 0; k < 50000; k++) {
		uint64_t v = rng_latency();

		hist_record(k % 3 ? &ha : &hb, v);
		hist_record(&hab, v);
	}
	hist_sub(&wa, &ha, NULL);
	hist_sub(&wb, &hb, NULL);
	hist_sub(&wab, &hab, NULL);
	CHECK(wa.count && wb.count);

	/* Into an empty window: its zero min must not stick. */
	hist_sub(&sum, &empty, NULL);
	hist_add(&sum, &wa);
	CHECK(windows_equal(&sum, &wa));
	hist_add(&sum, &wb);
	CHECK(windows_equal(&sum, &wab));
	/* Adding an empty window changes nothing. */
	hist_sub(&wa, &empty, NULL);
	hist_add(&sum, &wa);
	CHECK(windows_equal(&sum, &wab));
	CHECK_EQ_U64(hist_percentile(&sum, 50), hist_percentile(&wab, 50));

	/* By hand: users of 300..400 ns and 100..200 ns merge to 100..400,
	 * whichever comes first, and not to an empty window's 0. */
	memset(&ha, 0, sizeof(ha));
	memset(&hb, 0, sizeof(hb));
	hist_record(&ha, 300);
	hist_record(&ha, 400);
	hist_record(&hb, 100);
	hist_record(&hb, 200);
	hist_sub(&wa, &ha, NULL);
	hist_sub(&wb, &hb, NULL);
	memset(&sum, 0, sizeof(sum));
	hist_add(&sum, &wa);
	hist_add(&sum, &wb);
	CHECK_EQ_U64(sum.min_ns, 100);
	CHECK_EQ_U64(sum.max_ns, 400);
	CHECK_EQ_U64(sum.count, 4);
	CHECK_EQ_U64(sum.sum_ns, 1000);
	memset(&sum, 0, sizeof(sum));
	hist_add(&sum, &wb);
	hist_add(&sum, &wa);
	CHECK_EQ_U64(sum.min_ns, 100);
	CHECK_EQ_U64(sum.max_ns, 400);
}

/*
 * A user process records while the parent snapshots it through a shared
 * mapping, as in a level: every snapshot must be a plausible state (no
 * count going backwards, no wrap detected), and the last one exact.
 */
struct shared_rec {
	struct hist h;
	uint32_t done;
};

static void test_snapshot_live(void)
{
	enum { N = 3000000 };
	struct shared_rec *sh;
	struct hist prev, cur;
	struct hist_window w;
	unsigned long snapshots = 0;
	uint64_t want_sum = 0;
	int status;
	pid_t pid;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		test_bail("mmap %zu bytes: %s", sizeof(*sh), strerror(errno));
	memset(&prev, 0, sizeof(prev));
	for (uint64_t k = 0; k < N; k++)
		want_sum += 100 + k % 5000;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		test_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		for (uint64_t k = 0; k < N; k++)
			hist_record(&sh->h, 100 + k % 5000);
		__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
		_exit(0);
	}
	while (!__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) {
		int rc;

		hist_snapshot(&cur, &sh->h);
		snapshots++;
		if (!CHECK(cur.count >= prev.count))
			break;
		rc = hist_sub(&w, &cur, &prev);
		if (!CHECK_EQ_INT(rc, 0))
			break;
		/* A bucket read going backwards would wrap to ~2^32. */
		if (!CHECK(bucket_total(&w) <= N))
			break;
		prev = cur;
	}
	if (waitpid(pid, &status, 0) != pid)
		test_bail("waitpid %d: %s", (int)pid, strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_INT(hist_sub(&w, &sh->h, NULL), 0);
	CHECK_EQ_U64(w.count, N);
	CHECK_EQ_U64(bucket_total(&w), N);
	CHECK_EQ_U64(w.sum_ns, want_sum);
	CHECK_EQ_U64(w.min_ns, 100);
	CHECK_EQ_U64(w.max_ns, 5099);
	test_note("%lu snapshots taken while recording", snapshots);
	munmap(sh, sizeof(*sh));
}

static uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Not a test: what recording costs here, for choosing how often users
 * time an op. Printed, never asserted (the machine is shared).
 */
static void bench_record(void)
{
	enum { N = 2000000, VALUES = 4096 };
	static uint64_t values[VALUES];
	static struct hist h;
	volatile uint64_t sink = 0;
	uint64_t t0, t1, acc = 0;
	double record_ns, clocks_ns, timed_ns;

	rng_seed(5);
	for (unsigned int i = 0; i < VALUES; i++)
		values[i] = 50 + rng_next() % 100000;

	t0 = bench_now_ns();
	for (unsigned int i = 0; i < N; i++)
		hist_record(&h, values[i & (VALUES - 1)]);
	t1 = bench_now_ns();
	record_ns = (double)(t1 - t0) / N;

	t0 = bench_now_ns();
	for (unsigned int i = 0; i < N; i++) {
		uint64_t a = bench_now_ns();

		acc += bench_now_ns() - a;
	}
	t1 = bench_now_ns();
	sink = acc;
	clocks_ns = (double)(t1 - t0) / N;

	t0 = bench_now_ns();
	for (unsigned int i = 0; i < N; i++) {
		uint64_t a = bench_now_ns();

		hist_record(&h, bench_now_ns() - a);
	}
	t1 = bench_now_ns();
	timed_ns = (double)(t1 - t0) / N;
	(void)sink;

	CHECK_EQ_U64(h.count, 2 * (uint64_t)N);
	test_note("hist_record: %.1f ns; two clock_gettime: %.1f ns; "
		  "both (one timed sample): %.1f ns", record_ns, clocks_ns,
		  timed_ns);
}

int main(void)
{
	RUN_TEST(test_size);
	RUN_TEST(test_layout);
	RUN_TEST(test_relative_error_sweep);
	RUN_TEST(test_empty);
	RUN_TEST(test_single_value);
	RUN_TEST(test_uniform);
	RUN_TEST(test_percentiles_exact);
	RUN_TEST(test_extremes);
	RUN_TEST(test_beyond_top);
	RUN_TEST(test_sub);
	RUN_TEST(test_sub_wrap);
	RUN_TEST(test_add);
	RUN_TEST(test_snapshot_live);
	RUN_TEST(bench_record);
	return test_done();
}
