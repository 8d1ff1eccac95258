/* tests/unit_stats.c: unit tests of the statistics, of the collector, and
 * of small numeric helpers (decimal_put). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "driver/measure/arena.h"
#include "driver/measure/collector.h"
#include "driver/measure/result.h"
#include "driver/measure/stats.h"
#include "driver/base/util.h"
#include "driver/base/workfile.h"
#include "jobs/decimal.h"
#include "jobs/job.h"
#include "tests/test.h"

#define EPS 1e-9

static void test_summarize_empty(void)
{
	struct summary s;

	memset(&s, 0xff, sizeof(s));	/* garbage that must be cleared */
	CHECK_EQ_INT(stats_summarize(NULL, 0, &s), 0);
	CHECK_NEAR(s.min, 0, 0);
	CHECK_NEAR(s.max, 0, 0);
	CHECK_NEAR(s.mean, 0, 0);
	CHECK_NEAR(s.median, 0, 0);
	CHECK_NEAR(s.stddev, 0, 0);
}

static void test_summarize_one(void)
{
	const double v[] = { 42.5 };
	struct summary s;

	CHECK_EQ_INT(stats_summarize(v, 1, &s), 0);
	CHECK_NEAR(s.min, 42.5, 0);
	CHECK_NEAR(s.max, 42.5, 0);
	CHECK_NEAR(s.mean, 42.5, 0);
	CHECK_NEAR(s.median, 42.5, 0);
	/* The sample stddev is undefined for one value; the header says 0. */
	CHECK_NEAR(s.stddev, 0, 0);
}

static void test_summarize_odd(void)
{
	/* Unsorted on purpose: the median is of the sorted values. */
	double v[] = { 3, 1, 2 };
	struct summary s;

	CHECK_EQ_INT(stats_summarize(v, 3, &s), 0);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 3, 0);
	CHECK_NEAR(s.mean, 2, EPS);
	CHECK_NEAR(s.median, 2, 0);
	/* Deviations -1, 0, 1: squares sum to 2, over n - 1 = 2: 1. */
	CHECK_NEAR(s.stddev, 1, EPS);
	/* The caller's array is left as it was. */
	CHECK(v[0] == 3 && v[1] == 1 && v[2] == 2);
}

static void test_summarize_even(void)
{
	const double v[] = { 4, 1, 3, 2 };
	struct summary s;

	CHECK_EQ_INT(stats_summarize(v, 4, &s), 0);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 4, 0);
	CHECK_NEAR(s.mean, 2.5, EPS);
	/* Even n: the mean of the two middle values, (2 + 3) / 2. */
	CHECK_NEAR(s.median, 2.5, EPS);
	/* Squares 2.25 + 2.25 + 0.25 + 0.25 = 5, over 3: sqrt(5/3). */
	CHECK_NEAR(s.stddev, 1.2909944487358056, EPS);
}

static void test_summarize_textbook(void)
{
	/* The textbook set: mean 5, squared deviations sum to 32. */
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct summary s;

	CHECK_EQ_INT(stats_summarize(v, 8, &s), 0);
	CHECK_NEAR(s.min, 2, 0);
	CHECK_NEAR(s.max, 9, 0);
	CHECK_NEAR(s.mean, 5, EPS);
	CHECK_NEAR(s.median, 4.5, EPS);
	/* Sample stddev sqrt(32 / 7), not the population one, 2. */
	CHECK_NEAR(s.stddev, 2.138089935299395, EPS);
}

static void test_summarize_negative(void)
{
	const double v[] = { -1, -3 };
	struct summary s;

	CHECK_EQ_INT(stats_summarize(v, 2, &s), 0);
	CHECK_NEAR(s.min, -3, 0);
	CHECK_NEAR(s.max, -1, 0);
	CHECK_NEAR(s.mean, -2, EPS);
	CHECK_NEAR(s.median, -2, EPS);
	CHECK_NEAR(s.stddev, sqrt(2), EPS);
}

static void test_summarize_all_equal(void)
{
	const double v[] = { 7, 7, 7, 7, 7 };
	struct summary s;

	CHECK_EQ_INT(stats_summarize(v, 5, &s), 0);
	CHECK_NEAR(s.min, 7, 0);
	CHECK_NEAR(s.max, 7, 0);
	CHECK_NEAR(s.mean, 7, EPS);
	CHECK_NEAR(s.median, 7, 0);
	CHECK_NEAR(s.stddev, 0, EPS);
}

static void test_jti(void)
{
	const double equal[] = { 1000, 1000, 1000 };
	const double spread[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	/* mean 25, stddev 50: 100 * (1 - 2) is below zero. */
	const double starved[] = { 0, 0, 0, 100 };
	const double idle[] = { 0, 0, 0 };
	struct summary s;

	stats_summarize(equal, 3, &s);
	CHECK_NEAR(stats_jti(&s), 100, EPS);

	/* 100 * (1 - sqrt(32/7) / 5) */
	stats_summarize(spread, 8, &s);
	CHECK_NEAR(stats_jti(&s), 57.23820129401209, 1e-7);

	stats_summarize(starved, 4, &s);
	CHECK_NEAR(s.stddev, 50, EPS);
	CHECK_NEAR(stats_jti(&s), 0, 0);

	/* No work at all: no fairness to speak of, and no division by 0. */
	stats_summarize(idle, 3, &s);
	CHECK_NEAR(stats_jti(&s), 0, 0);
	CHECK(!isnan(stats_jti(&s)));

	/* One user is trivially fair. */
	stats_summarize(equal, 1, &s);
	CHECK_NEAR(stats_jti(&s), 100, EPS);

	/* Hand-made summaries: the formula and both clamps. */
	s = (struct summary){ .mean = 10, .stddev = 0 };
	CHECK_NEAR(stats_jti(&s), 100, EPS);
	s = (struct summary){ .mean = 10, .stddev = 2.5 };
	CHECK_NEAR(stats_jti(&s), 75, EPS);
	s = (struct summary){ .mean = 10, .stddev = 30 };
	CHECK_NEAR(stats_jti(&s), 0, 0);
	s = (struct summary){ .mean = 0, .stddev = 0 };
	CHECK_NEAR(stats_jti(&s), 0, 0);
	s = (struct summary){ .mean = -5, .stddev = 1 };
	CHECK_NEAR(stats_jti(&s), 0, 0);
}

/*
 * The collector on a hand-built level: 3 users, a mix of getppid (weight
 * 30) and brk (weight 10), a 2.5 s window. Per user, the ops inside the
 * window are:
 *
 *   user  getppid  brk  total  jobs/min (total * 60 / 2.5)
 *   0     100      50   150    3600
 *   1     200      0    200    4800
 *   2     300      150  450    10800
 *
 * and user 1 had 3 brk errors (ENOMEM). The t0 counters are not zero, as
 * in a real level after warm-up, so only the deltas may count.
 */
#define C_USERS 3
#define C_ENTRIES 2

static const uint64_t c_t0_ops[C_USERS][C_ENTRIES] = {
	{ 1000, 17 }, { 5, 123456789 }, { 0, 42 },
};
static const uint64_t c_delta_ops[C_USERS][C_ENTRIES] = {
	{ 100, 50 }, { 200, 0 }, { 300, 150 },
};
static const uint64_t c_t0_errors[C_USERS][C_ENTRIES] = {
	{ 0, 0 }, { 0, 7 }, { 0, 0 },
};
static const uint64_t c_delta_errors[C_USERS][C_ENTRIES] = {
	{ 0, 0 }, { 0, 3 }, { 0, 0 },
};

static bool build_mix(struct mix *mix, struct mix_entry *entries)
{
	const struct job *getppid_job = job_find("getppid");
	const struct job *brk_job = job_find("brk");

	if (!CHECK(getppid_job) || !CHECK(brk_job))
		return false;
	memset(mix, 0, sizeof(*mix));
	entries[0] = (struct mix_entry){ .job = getppid_job, .weight = 30,
					 .line = 1 };
	entries[1] = (struct mix_entry){ .job = brk_job, .weight = 10,
					 .line = 2 };
	mix->entries = entries;
	mix->n_entries = C_ENTRIES;
	mix->total_weight = 40;
	return true;
}

static void fill_snapshots(struct snapshot *t0, struct snapshot *t1)
{
	for (unsigned int u = 0; u < C_USERS; u++) {
		for (size_t e = 0; e < C_ENTRIES; e++) {
			size_t i = (size_t)u * C_ENTRIES + e;

			t0->ops[i] = c_t0_ops[u][e];
			t1->ops[i] = c_t0_ops[u][e] + c_delta_ops[u][e];
			t0->errors[i] = c_t0_errors[u][e];
			t1->errors[i] = c_t0_errors[u][e] +
					c_delta_errors[u][e];
		}
	}
}

static void test_collector_level(void)
{
	struct mix_entry entries[C_ENTRIES];
	struct level_result level;
	struct snapshot t0, t1;
	struct arena a;
	struct mix mix;
	int rc;

	if (!build_mix(&mix, entries))
		return;
	rc = arena_create(&a, C_USERS, C_ENTRIES, 0, false);
	if (rc)
		test_bail("arena_create: %s", strerror(errno));
	if (snapshot_alloc(&t0, C_USERS, C_ENTRIES) ||
	    snapshot_alloc(&t1, C_USERS, C_ENTRIES))
		test_bail("snapshot_alloc: out of memory");
	arena_reset_level(&a, C_USERS);
	/* What the users left in their slots: the errno of user 1's last
	 * brk error, and user 2 saying brk could not run for it. */
	arena_slot(&a, 1)->counters[1].last_errno = ENOMEM;
	arena_slot(&a, 2)->counters[1].skipped = 1;

	fill_snapshots(&t0, &t1);
	t0.t_ns = UINT64_C(1000000000000);
	t1.t_ns = t0.t_ns + UINT64_C(2500000000);

	memset(&level, 0, sizeof(level));
	level.users = C_USERS;
	rc = collector_level(&t0, &t1, &a, &mix, C_USERS, &level);
	CHECK_EQ_INT(rc, 0);
	CHECK_NEAR(level.window_s, 2.5, EPS);
	if (!CHECK_EQ_U64(level.n_jobs, 2) || !CHECK(level.jobs))
		goto out;

	CHECK_STR_EQ(level.jobs[0].name, "getppid");
	CHECK_EQ_U64(level.jobs[0].weight, 30);
	CHECK_EQ_U64(level.jobs[0].ops, 600);
	CHECK_NEAR(level.jobs[0].ops_per_sec, 240, EPS);
	CHECK_EQ_U64(level.jobs[0].errors, 0);
	CHECK_EQ_INT(level.jobs[0].last_errno, 0);
	CHECK(!level.jobs[0].skipped);

	CHECK_STR_EQ(level.jobs[1].name, "brk");
	CHECK_EQ_U64(level.jobs[1].weight, 10);
	CHECK_EQ_U64(level.jobs[1].ops, 200);
	CHECK_NEAR(level.jobs[1].ops_per_sec, 80, EPS);
	CHECK_EQ_U64(level.jobs[1].errors, 3);
	CHECK_EQ_INT(level.jobs[1].last_errno, ENOMEM);
	CHECK(level.jobs[1].skipped);

	CHECK_EQ_U64(level.ops, 800);
	CHECK_EQ_U64(level.errors, 3);
	/* 800 ops * 60 / 2.5 s */
	CHECK_NEAR(level.jobs_per_min, 19200, EPS);
	CHECK_NEAR(level.jobs_per_min_per_user, 6400, EPS);
	CHECK_NEAR(level.user_min, 3600, EPS);
	CHECK_NEAR(level.user_median, 4800, EPS);
	CHECK_NEAR(level.user_max, 10800, EPS);
	/* Deviations from 6400: -2800, -1600, 4400; squares sum to 29.76e6,
	 * over 2: stddev sqrt(14.88e6) = 3857.4603; JTI 100 * (1 - that /
	 * 6400). */
	CHECK_NEAR(level.jti, 39.72718274379403, 1e-7);
	/* The collector measures; it does not decide a level's fate. */
	CHECK_EQ_INT(level.status, LEVEL_OK);
	CHECK_EQ_U64(level.users, C_USERS);
out:
	level_result_free(&level);
	snapshot_free(&t0);
	snapshot_free(&t1);
	arena_destroy(&a);
}

/* A window of zero length must not divide by zero. */
static void test_collector_empty_window(void)
{
	struct mix_entry entries[C_ENTRIES];
	struct level_result level;
	struct snapshot t0, t1;
	struct arena a;
	struct mix mix;
	int rc;

	if (!build_mix(&mix, entries))
		return;
	rc = arena_create(&a, C_USERS, C_ENTRIES, 0, false);
	if (rc)
		test_bail("arena_create: %s", strerror(errno));
	if (snapshot_alloc(&t0, C_USERS, C_ENTRIES) ||
	    snapshot_alloc(&t1, C_USERS, C_ENTRIES))
		test_bail("snapshot_alloc: out of memory");
	arena_reset_level(&a, C_USERS);
	fill_snapshots(&t0, &t1);
	t0.t_ns = t1.t_ns = UINT64_C(5000000000);

	memset(&level, 0, sizeof(level));
	rc = collector_level(&t0, &t1, &a, &mix, C_USERS, &level);
	CHECK_EQ_INT(rc, 0);
	CHECK_NEAR(level.window_s, 0, 0);
	CHECK_EQ_U64(level.ops, 800);
	CHECK_NEAR(level.jobs_per_min, 0, 0);
	CHECK_NEAR(level.jobs_per_min_per_user, 0, 0);
	CHECK(!isnan(level.jti) && !isinf(level.jti));
	if (CHECK_EQ_U64(level.n_jobs, 2) && CHECK(level.jobs)) {
		CHECK_NEAR(level.jobs[0].ops_per_sec, 0, 0);
		CHECK_NEAR(level.jobs[1].ops_per_sec, 0, 0);
	}
	level_result_free(&level);
	snapshot_free(&t0);
	snapshot_free(&t1);
	arena_destroy(&a);
}

/* The counters the users bump in the arena are what a snapshot copies. */
static void test_arena_snapshot(void)
{
	struct snapshot s;
	struct arena a;
	uint64_t before;
	int rc;

	rc = arena_create(&a, C_USERS, C_ENTRIES, 0, false);
	if (rc)
		test_bail("arena_create: %s", strerror(errno));
	if (snapshot_alloc(&s, C_USERS, C_ENTRIES))
		test_bail("snapshot_alloc: out of memory");
	CHECK(a.slot_stride % CACHE_LINE == 0);
	CHECK(((uintptr_t)arena_slot(&a, 1) - (uintptr_t)arena_slot(&a, 0)) ==
	      a.slot_stride);
	arena_reset_level(&a, C_USERS);
	for (unsigned int u = 0; u < C_USERS; u++) {
		for (size_t e = 0; e < C_ENTRIES; e++) {
			arena_slot(&a, u)->counters[e].ops = c_t0_ops[u][e];
			arena_slot(&a, u)->counters[e].errors =
				c_t0_errors[u][e];
		}
	}
	before = now_ns();
	snapshot_take(&s, &a, C_USERS);
	CHECK(s.t_ns >= before && s.t_ns <= now_ns());
	for (unsigned int u = 0; u < C_USERS; u++) {
		for (size_t e = 0; e < C_ENTRIES; e++) {
			size_t i = (size_t)u * C_ENTRIES + e;

			CHECK_EQ_U64(s.ops[i], c_t0_ops[u][e]);
			CHECK_EQ_U64(s.errors[i], c_t0_errors[u][e]);
		}
	}
	snapshot_free(&s);
	arena_destroy(&a);
}

/* A slot's loop state lies between its counters and its histograms, and
 * filling it, or the histograms, leaves every counter as it was. */
static void test_arena_loop_state(void)
{
	const size_t loop_bytes = 1000;
	struct arena a;
	int rc;

	rc = arena_create(&a, C_USERS, C_ENTRIES, loop_bytes, true);
	if (rc)
		test_bail("arena_create: %s", strerror(errno));
	arena_reset_level(&a, C_USERS);
	for (unsigned int u = 0; u < C_USERS; u++) {
		struct user_slot *slot = arena_slot(&a, u);
		char *loop = arena_loop_state(&a, slot);

		for (size_t e = 0; e < C_ENTRIES; e++)
			slot->counters[e].ops = 1000 * u + e;
		CHECK(loop >= (char *)&slot->counters[C_ENTRIES]);
		CHECK((uintptr_t)loop % CACHE_LINE == 0);
		CHECK((char *)arena_hist(&a, slot, 0) >= loop + loop_bytes);
		CHECK((char *)arena_hist(&a, slot, C_ENTRIES) <=
		      (char *)slot + a.slot_stride);
		memset(loop, 0xa5, loop_bytes);
		memset(arena_hist(&a, slot, 0), 0x5a,
		       C_ENTRIES * sizeof(struct hist));
	}
	for (unsigned int u = 0; u < C_USERS; u++)
		for (size_t e = 0; e < C_ENTRIES; e++)
			CHECK_EQ_U64(arena_slot(&a, u)->counters[e].ops,
				     1000 * u + e);
	CHECK(arena_size_for(C_USERS, C_ENTRIES, loop_bytes, true) == a.size);
	arena_destroy(&a);
}

static void test_t_crit95(void)
{
	double prev = INFINITY;

	/* The printed table's values. */
	CHECK_NEAR(stats_t_crit95(1), 12.706, 1e-3);
	CHECK_NEAR(stats_t_crit95(2), 4.303, 1e-3);
	CHECK_NEAR(stats_t_crit95(4), 2.776, 1e-3);
	CHECK_NEAR(stats_t_crit95(10), 2.228, 1e-3);
	CHECK_NEAR(stats_t_crit95(20), 2.086, 1e-3);
	CHECK_NEAR(stats_t_crit95(30), 2.042, 1e-3);
	/* Fractional df round down, to the wider interval. */
	CHECK_NEAR(stats_t_crit95(2.9), stats_t_crit95(2), 0);
	CHECK_NEAR(stats_t_crit95(30.5), stats_t_crit95(30), 0);
	/* Beyond the table: the expansion meets 31, 40, 60, 120, infinity. */
	CHECK_NEAR(stats_t_crit95(31), 2.040, 1e-3);
	CHECK_NEAR(stats_t_crit95(40), 2.021, 1e-3);
	CHECK_NEAR(stats_t_crit95(60), 2.000, 1e-3);
	CHECK_NEAR(stats_t_crit95(120), 1.980, 1e-3);
	CHECK_NEAR(stats_t_crit95(1e12), 1.960, 1e-3);
	/* Never rising with more data, including across the table's end. */
	for (double df = 1; df <= 1000; df += 0.5) {
		double t = stats_t_crit95(df);

		if (!CHECK(t <= prev && t > 1.959))
			break;
		prev = t;
	}
	CHECK(isnan(stats_t_crit95(0)));
	CHECK(isnan(stats_t_crit95(0.99)));
	CHECK(isnan(stats_t_crit95(-3)));
	CHECK(isnan(stats_t_crit95(NAN)));
}

static void test_ci95(void)
{
	const double three[] = { 10, 12, 14 };
	const double two[] = { 1, 3 };
	struct summary s;
	double low, high;

	/* mean 12, stddev 2, t(2) = 4.303: 12 -+ 4.303 * 2 / sqrt(3). */
	stats_summarize(three, 3, &s);
	CHECK_EQ_INT(stats_ci95(&s, 3, &low, &high), 0);
	CHECK_NEAR(low, 12 - 4.3027 * 2 / sqrt(3), 1e-9);
	CHECK_NEAR(high, 12 + 4.3027 * 2 / sqrt(3), 1e-9);
	CHECK_NEAR(low, 7.0317, 1e-3);
	CHECK_NEAR(high, 16.9683, 1e-3);

	/* mean 2, stddev sqrt(2), n 2: half-width t(1) = 12.706. */
	stats_summarize(two, 2, &s);
	CHECK_EQ_INT(stats_ci95(&s, 2, &low, &high), 0);
	CHECK_NEAR(low, 2 - 12.706, 1e-3);
	CHECK_NEAR(high, 2 + 12.706, 1e-3);

	/* Many repeats: t(49) = 2.0096, so 100 -+ 2.0096 * 10 / sqrt(50). */
	s = (struct summary){ .mean = 100, .stddev = 10 };
	CHECK_EQ_INT(stats_ci95(&s, 50, &low, &high), 0);
	CHECK_NEAR(low, 100 - 2.0096 * 10 / sqrt(50), 1e-3);
	CHECK_NEAR(high, 100 + 2.0096 * 10 / sqrt(50), 1e-3);

	/* No spread, no width. */
	s = (struct summary){ .mean = 5, .stddev = 0 };
	CHECK_EQ_INT(stats_ci95(&s, 4, &low, &high), 0);
	CHECK_NEAR(low, 5, 0);
	CHECK_NEAR(high, 5, 0);

	/* One value: no interval, said so, and both ends at the mean. */
	s = (struct summary){ .mean = 42, .stddev = 0 };
	CHECK_EQ_INT(stats_ci95(&s, 1, &low, &high), EDOM);
	CHECK_NEAR(low, 42, 0);
	CHECK_NEAR(high, 42, 0);
	CHECK_EQ_INT(stats_ci95(&s, 0, &low, &high), EDOM);
}

static void test_cov(void)
{
	const double spread[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct summary s;

	s = (struct summary){ .mean = 10, .stddev = 2.5 };
	CHECK_NEAR(stats_cov(&s), 0.25, EPS);
	s = (struct summary){ .mean = -4, .stddev = 1 };
	CHECK_NEAR(stats_cov(&s), 0.25, EPS);
	s = (struct summary){ .mean = 0, .stddev = 3 };
	CHECK_NEAR(stats_cov(&s), 0, 0);
	/* sqrt(32 / 7) / 5 */
	stats_summarize(spread, 8, &s);
	CHECK_NEAR(stats_cov(&s), 0.427617987059879, 1e-9);
}

static void test_jain(void)
{
	const double equal[] = { 1, 1, 1, 1 };
	const double one_has_all[] = { 1, 0, 0, 0 };
	const double ramp[] = { 1, 2, 3, 4 };
	const double ramp10[] = { 10, 20, 30, 40 };
	const double idle[] = { 0, 0 };
	const double single[] = { 5 };

	CHECK_NEAR(stats_jain(equal, 4), 1, EPS);
	CHECK_NEAR(stats_jain(one_has_all, 4), 0.25, EPS);
	/* 10^2 / (4 * 30) */
	CHECK_NEAR(stats_jain(ramp, 4), 100.0 / 120, EPS);
	/* It does not depend on the unit. */
	CHECK_NEAR(stats_jain(ramp10, 4), 100.0 / 120, EPS);
	CHECK_NEAR(stats_jain(single, 1), 1, EPS);
	CHECK_NEAR(stats_jain(idle, 2), 0, 0);
	CHECK_NEAR(stats_jain(NULL, 0), 0, 0);
}

static void test_percentile(void)
{
	double unsorted[] = { 4, 1, 3, 2 };
	const double wiki[] = { 15, 20, 35, 40, 50 };
	const double single[] = { 7 };

	/* h = 3 * q / 100 over 1, 2, 3, 4. */
	CHECK_NEAR(stats_percentile(unsorted, 4, 0), 1, 0);
	CHECK_NEAR(stats_percentile(unsorted, 4, 25), 1.75, EPS);
	CHECK_NEAR(stats_percentile(unsorted, 4, 50), 2.5, EPS);
	CHECK_NEAR(stats_percentile(unsorted, 4, 90), 3.7, EPS);
	CHECK_NEAR(stats_percentile(unsorted, 4, 100), 4, 0);
	CHECK_NEAR(stats_percentile(unsorted, 4, -10), 1, 0);
	CHECK_NEAR(stats_percentile(unsorted, 4, 250), 4, 0);
	CHECK_NEAR(stats_percentile(unsorted, 4, NAN), 1, 0);
	CHECK(unsorted[0] == 4 && unsorted[1] == 1 && unsorted[2] == 3 &&
	      unsorted[3] == 2);
	/* h = 1.6: 20 + 0.6 * (35 - 20). */
	CHECK_NEAR(stats_percentile(wiki, 5, 40), 29, EPS);
	CHECK_NEAR(stats_percentile(wiki, 5, 50), 35, EPS);
	CHECK_NEAR(stats_percentile(single, 1, 0), 7, 0);
	CHECK_NEAR(stats_percentile(single, 1, 99), 7, 0);
	CHECK_NEAR(stats_percentile(NULL, 0, 50), 0, 0);
}

static void test_welch(void)
{
	/* Two sets of repeats, summarised the way a compare would. */
	const double a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3,
			     18.9, 19.5, 22.0 };
	const double b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7,
			     27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0,
			     23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	struct summary sa, sb;
	double t, df;

	/*
	 * By hand: squared standard errors 4 / 5 = 0.8 and 16 / 10 = 1.6,
	 * t = 3 / sqrt(2.4), df = 2.4^2 / (0.8^2 / 4 + 1.6^2 / 9)
	 * = 5.76 / (0.16 + 0.2844...) = 12.96.
	 */
	CHECK_EQ_INT(stats_welch(10, 2, 5, 7, 4, 10, &t, &df), 0);
	CHECK_NEAR(t, 3 / sqrt(2.4), 1e-12);
	CHECK_NEAR(t, 1.9364916731, 1e-9);
	CHECK_NEAR(df, 12.96, 1e-9);
	/* Swapped: t changes sign, df does not. */
	CHECK_EQ_INT(stats_welch(7, 4, 10, 10, 2, 5, &t, &df), 0);
	CHECK_NEAR(t, -1.9364916731, 1e-9);
	CHECK_NEAR(df, 12.96, 1e-9);

	/* Equal variances and sizes: df is the pooled test's 2n - 2, and
	 * t = 2 / sqrt(9 / 8 + 9 / 8). */
	CHECK_EQ_INT(stats_welch(5, 3, 8, 3, 3, 8, &t, &df), 0);
	CHECK_NEAR(t, 4.0 / 3, 1e-12);
	CHECK_NEAR(df, 14, 1e-9);

	/*
	 * From the data: means 19.37 and 21.59, stddevs 1.20374 and
	 * 4.12348, so squared standard errors 0.144900 and 0.850150:
	 * t = -2.22 / sqrt(0.995050) = -2.22551, df = 0.990124 /
	 * (0.0023329 + 0.0380398) = 24.5246. Significant at 95%, if
	 * barely: |t| = 2.23 is above t(24) = 2.064.
	 */
	stats_summarize(a, 10, &sa);
	stats_summarize(b, 20, &sb);
	CHECK_EQ_INT(stats_welch(sa.mean, sa.stddev, 10, sb.mean, sb.stddev,
				 20, &t, &df), 0);
	CHECK_NEAR(t, -2.22551204, 1e-6);
	CHECK_NEAR(df, 24.5246349, 1e-5);
	CHECK(fabs(t) > stats_t_crit95(df));

	/* Too few values for a variance. */
	t = df = 99;
	CHECK_EQ_INT(stats_welch(1, 1, 1, 2, 1, 5, &t, &df), EDOM);
	CHECK_NEAR(t, 0, 0);
	CHECK_NEAR(df, 0, 0);
	CHECK_EQ_INT(stats_welch(1, 1, 5, 2, 1, 0, &t, &df), EDOM);

	/* No spread at all: any difference is infinitely significant. */
	CHECK_EQ_INT(stats_welch(5, 0, 3, 3, 0, 4, &t, &df), 0);
	CHECK(isinf(t) && t > 0);
	CHECK_NEAR(df, 5, 0);
	CHECK_EQ_INT(stats_welch(3, 0, 3, 5, 0, 4, &t, &df), 0);
	CHECK(isinf(t) && t < 0);
	CHECK_EQ_INT(stats_welch(4, 0, 3, 4, 0, 4, &t, &df), 0);
	CHECK_NEAR(t, 0, 0);
	/* One side constant: df is the other side's n - 1. */
	CHECK_EQ_INT(stats_welch(10, 2, 5, 7, 0, 10, &t, &df), 0);
	CHECK_NEAR(df, 4, 1e-12);
	CHECK_NEAR(t, 3 / sqrt(0.8), 1e-12);
}

/* The number the file jobs write into each name per op. */
static void test_decimal_put(void)
{
	char buf[32];

	CHECK_EQ_INT((int)decimal_put(buf, sizeof(buf), 0), 1);
	CHECK_STR_EQ(buf, "0");
	CHECK_EQ_INT((int)decimal_put(buf, sizeof(buf), 1070), 4);
	CHECK_STR_EQ(buf, "1070");
	CHECK_EQ_INT((int)decimal_put(buf, sizeof(buf), 18446744073709551615UL),
		     20);
	CHECK_STR_EQ(buf, "18446744073709551615");
	/* Three digits and the NUL need 4 bytes; 3 leave the buffer alone. */
	strcpy(buf, "xy");
	CHECK_EQ_INT((int)decimal_put(buf, 3, 123), 0);
	CHECK_STR_EQ(buf, "xy");
	CHECK_EQ_INT((int)decimal_put(buf, 4, 123), 3);
	CHECK_STR_EQ(buf, "123");
}

int main(void)
{
	RUN_TEST(test_summarize_empty);
	RUN_TEST(test_summarize_one);
	RUN_TEST(test_summarize_odd);
	RUN_TEST(test_summarize_even);
	RUN_TEST(test_summarize_textbook);
	RUN_TEST(test_summarize_negative);
	RUN_TEST(test_summarize_all_equal);
	RUN_TEST(test_jti);
	RUN_TEST(test_t_crit95);
	RUN_TEST(test_ci95);
	RUN_TEST(test_cov);
	RUN_TEST(test_jain);
	RUN_TEST(test_percentile);
	RUN_TEST(test_welch);
	RUN_TEST(test_decimal_put);
	RUN_TEST(test_collector_level);
	RUN_TEST(test_collector_empty_window);
	RUN_TEST(test_arena_snapshot);
	RUN_TEST(test_arena_loop_state);
	return test_done();
}
