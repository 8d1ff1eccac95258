/* tests/unit_collector.c: unit tests of how the collector counts jobs between two snapshots. */
#include <errno.h>
#include <stdint.h>

#include "driver/measure/collector.h"
#include "driver/base/util.h"
#include "tests/test.h"

static int no_run(void *state)
{
	(void)state;
	return 0;
}

/* A micro job (one op, one operation) and an AIM7 job of 1000 inner
 * operations, the shape of creat_clo. */
static const struct job micro = {
	.name = "micro", .units = JOB_UNITS_MICRO, .inner_ops = 1,
	.run = no_run,
};
static const struct job aim7 = {
	.name = "aim7", .units = JOB_UNITS_AIM7, .inner_ops = 1000,
	.run = no_run,
};

/* Two users, entries micro then aim7: counters [user * 2 + entry]. */
static struct mix_entry entries[] = {
	{ .job = &micro, .weight = 1 },
	{ .job = &aim7, .weight = 1 },
};
static const struct mix mix = { .entries = entries, .n_entries = 2 };

/* Progress counts ticks. */
#define T JOB_PROGRESS_TICKS

static uint64_t ops0[4], inner0[4], errors0[4];
static uint64_t ops1[4], inner1[4], errors1[4];
static const struct snapshot t0 = { 0, ops0, inner0, errors0 };
static const struct snapshot t1 = { 1, ops1, inner1, errors1 };

/* Counts with AIM7 jobs in flight at t0 and t1. */
static void fill_partial_counts(void)
{
	memset(ops0, 0, sizeof(ops0));
	memset(inner0, 0, sizeof(inner0));
	memset(ops1, 0, sizeof(ops1));
	memset(inner1, 0, sizeof(inner1));
	/* User 0: 10 micro ops; a quarter into its third AIM7 job at t0,
	 * half into its fifth at t1: 2.25 jobs in the window. */
	ops0[0] = 5, ops1[0] = 15;
	ops0[1] = 2, inner0[1] = 2250 * T;
	ops1[1] = 4, inner1[1] = 4500 * T;
	/* User 1: no micro op; 0.1 of an AIM7 job, none finished, in parts
	 * of an inner operation. */
	inner0[3] = 100 * T - T / 2, inner1[3] = 200 * T - T / 2;
}

/* A micro job counts whole ops; an AIM7 job counts by its inner
 * operations, so a job in flight at t0 or t1 counts by its share. */
static void test_partial_jobs(void)
{
	fill_partial_counts();
	CHECK_NEAR(snapshot_jobs(&t0, &t1, &mix, 2), 10 + 2.25 + 0.1, 1e-9);
	/* From zero: the whole counts at t1. */
	CHECK_NEAR(snapshot_jobs(NULL, &t1, &mix, 2), 15 + 4.5 + 0.1995, 1e-9);
}

/* A level's numbers count the same shares: per job, per user and in
 * all, over a 60 s window so that jobs are jobs/min. */
static void test_level_partial_jobs(void)
{
	const struct snapshot w0 = { 0, ops0, inner0, errors0 };
	const struct snapshot w1 = { 60 * NSEC_PER_SEC, ops1, inner1, errors1 };
	struct level_result level = { .users = 2 };
	struct arena a;

	if (arena_create(&a, 2, mix.n_entries, 0, false))
		test_bail("arena_create: %s", strerror(errno));
	fill_partial_counts();
	if (collector_level(&w0, &w1, &a, &mix, 2, &level))
		test_bail("collector_level: %s", strerror(ENOMEM));
	CHECK_NEAR(level.window_s, 60, 1e-12);
	if (CHECK_EQ_U64(level.n_jobs, 2)) {
		CHECK_NEAR(level.jobs[0].ops, 10, 1e-9);
		CHECK_NEAR(level.jobs[1].ops, 2.25 + 0.1, 1e-9);
	}
	CHECK_NEAR(level.ops, 12.35, 1e-9);
	CHECK_NEAR(level.jobs_per_min, 12.35, 1e-9);
	CHECK_NEAR(level.jobs_per_min_per_user, 12.35 / 2, 1e-9);
	/* User 0 did 12.25 jobs, user 1 a tenth of one. */
	CHECK_NEAR(level.user_max, 12.25, 1e-9);
	CHECK_NEAR(level.user_min, 0.1, 1e-9);
	level_result_free(&level);
	arena_destroy(&a);
}

/* An AIM7 op in flight at t0 that then failed took its inner
 * operations back: its user did no job in the window, not fewer than
 * none. */
static void test_failed_op_in_flight(void)
{
	memset(ops0, 0, sizeof(ops0));
	memset(inner0, 0, sizeof(inner0));
	memset(ops1, 0, sizeof(ops1));
	memset(inner1, 0, sizeof(inner1));
	inner0[1] = 3600 * T, inner1[1] = 3000 * T;
	CHECK_NEAR(snapshot_jobs(&t0, &t1, &mix, 1), 0, 1e-12);
}

int main(void)
{
	RUN_TEST(test_partial_jobs);
	RUN_TEST(test_failed_op_in_flight);
	RUN_TEST(test_level_partial_jobs);
	return test_done();
}
