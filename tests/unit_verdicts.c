/* tests/unit_verdicts.c: the scaling verdicts (efficiency, knee, crossover, peak, JTI) on hand-made levels. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/measure/collector.h"
#include "driver/cli/options.h"
#include "driver/output/report.h"
#include "driver/measure/result.h"
#include "driver/output/result_write.h"
#include "driver/measure/verdicts.h"
#include "driver/base/util.h"
#include "tests/test.h"

static int no_run(void *state)
{
	(void)state;
	return 0;
}

/* One micro job: a user's ops in a 60 s window are its jobs/min. */
static const struct job micro = {
	.name = "micro", .family = "test", .unit = "op",
	.units = JOB_UNITS_MICRO, .inner_ops = 1, .run = no_run,
};
static struct mix_entry entries[] = { { .job = &micro, .weight = 1 } };
static struct mix mix = {
	.name = "verdicts", .entries = entries, .n_entries = 1,
	.total_weight = 1,
};

#define WINDOW_S 60
#define LEVEL_USERS_MAX 3

/*
 * The ramp: 1, 2 and 3 users whose jobs/min are, user by user, 1000;
 * 700 and 900; 400, 400 and 700. Per user that is 1000, 800 and 500
 * (efficiency 1, 0.8, 0.5); in all 1000, 1600 and 1500, so that the
 * peak is the middle level and not the one with the most per user. The
 * last level's mean (500) is not its median (400).
 */
static const double user_jpm[][LEVEL_USERS_MAX] = {
	{ 1000 },
	{ 700, 900 },
	{ 400, 400, 700 },
};
#define N_LEVELS (sizeof(user_jpm) / sizeof(user_jpm[0]))

/*
 * JTI = 100 * (1 - s / mean), s the sample standard deviation of the
 * users' jobs/min (stats.h, aimsweep(1)), worked by hand:
 * 1 user: s = 0, JTI 100;
 * 700, 900: mean 800, s = sqrt(100^2 + 100^2) = 141.42135623730950,
 *   JTI = 100 * (1 - 141.42135623730950 / 800) = 82.322330470336313;
 * 400, 400, 700: mean 500, s = sqrt((100^2 + 100^2 + 200^2) / 2)
 *   = sqrt(30000) = 173.20508075688772,
 *   JTI = 100 * (1 - 173.20508075688772 / 500) = 65.358983848622454.
 * With the median for the mean the last would be 56.70, with the
 * population deviation 71.72.
 */
static const double want_jti[N_LEVELS] = {
	100, 82.322330470336313, 65.358983848622454,
};

/* A level as collector_level() makes it from the users' counts. */
static void collect(struct arena *a, size_t level, struct level_result *l)
{
	uint64_t ops0[LEVEL_USERS_MAX] = { 0 }, ops1[LEVEL_USERS_MAX] = { 0 };
	uint64_t inner[LEVEL_USERS_MAX] = { 0 };
	uint64_t errors[LEVEL_USERS_MAX] = { 0 };
	struct snapshot t0 = { 0, ops0, inner, errors };
	struct snapshot t1 = { WINDOW_S * NSEC_PER_SEC, ops1, inner, errors };
	unsigned int users = (unsigned int)level + 1;

	for (unsigned int u = 0; u < users; u++) {
		ops0[u] = 5 * u;
		ops1[u] = ops0[u] + (uint64_t)user_jpm[level][u];
	}
	memset(l, 0, sizeof(*l));
	l->users = users;
	l->status = LEVEL_OK;
	if (collector_level(&t0, &t1, a, &mix, users, l))
		test_bail("collector_level: %s", strerror(ENOMEM));
}

static struct run_params params;
/* The whole ramp, and the ramp as --stop-at-crossover 900 ends it. */
static struct run_result full, stopped;

/* The ramp as run_consecutive() goes: each level collected, added and
 * scaled; it stops after the first level past the crossover. */
static void ramp(struct run_result *r, double crossover)
{
	struct arena a;

	if (arena_create(&a, LEVEL_USERS_MAX, mix.n_entries, 0, false))
		test_bail("arena_create: %s", strerror(errno));
	memset(r, 0, sizeof(*r));
	r->params = &params;
	r->mix = &mix;
	for (size_t i = 0; i < N_LEVELS; i++) {
		struct level_result l;

		collect(&a, i, &l);
		if (result_add_level(r, &l))
			test_bail("result_add_level: out of memory");
		if (verdicts_scale_level(r, r->n_levels - 1, crossover))
			break;
	}
	arena_destroy(&a);
}

/* Each level's spread of per-user jobs/min, JTI among it. */
static void test_per_user(void)
{
	static const double want_median[N_LEVELS] = { 1000, 800, 400 };

	if (!CHECK_EQ_U64(full.n_levels, N_LEVELS))
		return;
	for (size_t i = 0; i < N_LEVELS; i++) {
		const struct level_result *l = &full.levels[i];

		CHECK_NEAR(l->jti, want_jti[i], 1e-9);
		CHECK_NEAR(l->user_median, want_median[i], 1e-9);
	}
	CHECK_NEAR(full.levels[2].user_min, 400, 1e-9);
	CHECK_NEAR(full.levels[2].user_max, 700, 1e-9);
}

/* Efficiency is per-user jobs/min over the first level's, not the
 * totals' ratio (1, 1.6, 1.5). */
static void test_efficiency(void)
{
	static const double want[N_LEVELS] = { 1, 0.8, 0.5 };

	if (!CHECK_EQ_U64(full.n_levels, N_LEVELS))
		return;
	for (size_t i = 0; i < N_LEVELS; i++) {
		CHECK_NEAR(full.levels[i].jobs_per_min_per_user,
			   1000 * want[i], 1e-9);
		CHECK_NEAR(full.levels[i].efficiency, want[i], 1e-12);
	}
}

/* The base is the first ok level: a failed first level is none, and
 * keeps no efficiency of its own. */
static void test_efficiency_base(void)
{
	struct level_result levels[3] = {
		{ .users = 1, .status = LEVEL_FAILED,
		  .jobs_per_min_per_user = 5000 },
		{ .users = 2, .status = LEVEL_OK, .jobs_per_min_per_user = 1000 },
		{ .users = 4, .status = LEVEL_OK, .jobs_per_min_per_user = 700 },
	};
	struct run_result r = { .levels = levels, .n_levels = 3 };

	for (size_t i = 0; i < 3; i++)
		CHECK(!verdicts_scale_level(&r, i, 0));
	CHECK_NEAR(levels[0].efficiency, 0, 0);
	CHECK_NEAR(levels[1].efficiency, 1, 1e-12);
	CHECK_NEAR(levels[2].efficiency, 0.7, 1e-12);
	CHECK_EQ_INT(verdicts_knee_level(&r, 0.8), 2);
}

/* --knee 0.9: the second level (0.8) is the first below it. The
 * default 0.8 is not below 0.8: the third. */
static void test_knee(void)
{
	CHECK_EQ_INT(verdicts_knee_level(&full, 0.9), 1);
	CHECK_EQ_INT(verdicts_knee_level(&full, 0.8), 2);
	CHECK_EQ_INT(verdicts_knee_level(&full, 0.4), -1);
}

/* --stop-at-crossover 900: 800 jobs/min/user at 2 users is below it,
 * so the ramp ends after the middle level; the summary names it. */
static void test_crossover(void)
{
	CHECK_EQ_U64(stopped.n_levels, 2);
	CHECK_EQ_INT(verdicts_crossover_level(&full, 900), 1);
	/* AIM7's classic crossover, 1 job/min/user, is never reached. */
	CHECK_EQ_INT(verdicts_crossover_level(&full, 1), -1);
	CHECK(!verdicts_crossed(&full.levels[0], 900));
	CHECK(verdicts_crossed(&full.levels[1], 900));
	CHECK(!verdicts_crossed(&full.levels[1], 0));
	/* Below, not at: 800 jobs/min/user has not crossed 800. */
	CHECK(!verdicts_crossed(&full.levels[1], 800));
}

/* The peak rule that the run and the report share: a failed level and
 * one with no jobs/min are never the peak, and of two equal levels the
 * first stays it. */
static void test_peak_rule(void)
{
	struct verdicts_peak pk = VERDICTS_PEAK_INIT;

	CHECK(!verdicts_peak_offer(&pk, 0, false, 5000));
	CHECK(!verdicts_peak_offer(&pk, 1, true, NAN));
	CHECK_EQ_INT(pk.index, -1);
	CHECK(verdicts_peak_offer(&pk, 2, true, 1600));
	CHECK(!verdicts_peak_offer(&pk, 3, true, 1600));
	CHECK(!verdicts_peak_offer(&pk, 4, true, 1500));
	CHECK_EQ_INT(pk.index, 2);
	CHECK(verdicts_peak_offer(&pk, 5, true, 1601));
	CHECK_EQ_INT(pk.index, 5);
}

/* A number of result.json's; NAN when it is not there. */
static double num(const cJSON *o, const char *key)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItem(o, key));
}

/* The peak is the most jobs/min in all: 1600 at 2 users, in the run,
 * in result.json's summary and in the table's last line. */
static void test_peak_and_summary(void)
{
	const cJSON *sum, *last;
	char *text = NULL;
	size_t len = 0;
	cJSON *root;
	FILE *f;

	CHECK_EQ_INT(verdicts_peak_level(&full), 1);
	root = result_to_json(&full);
	if (!CHECK(root))
		return;
	sum = cJSON_GetObjectItem(root, "summary");
	CHECK_NEAR(num(sum, "peak_users"), 2, 0);
	CHECK_NEAR(num(sum, "peak_jobs_per_min"), 1600, 1e-9);
	CHECK_NEAR(num(sum, "knee_users"), 2, 0);
	CHECK_NEAR(num(sum, "knee_efficiency"), 0.8, 1e-12);
	CHECK_NEAR(num(sum, "crossover_users"), 2, 0);
	last = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "levels"), 2);
	CHECK_NEAR(num(last, "jti"), want_jti[2], 1e-6);
	CHECK_NEAR(num(last, "efficiency"), 0.5, 1e-12);
	f = open_memstream(&text, &len);
	if (!f)
		test_bail("open_memstream: %s", strerror(errno));
	report_default_summary(f, root);
	fclose(f);
	CHECK_STR_CONTAINS(text, "peak 1600.0 jobs/min at 2 users");
	free(text);
	cJSON_Delete(root);
}

int main(void)
{
	run_options_defaults(&params);
	params.knee = 0.9;
	params.crossover = 900;
	ramp(&full, 0);
	ramp(&stopped, params.crossover);
	RUN_TEST(test_crossover);
	RUN_TEST(test_knee);
	RUN_TEST(test_per_user);
	RUN_TEST(test_efficiency);
	RUN_TEST(test_efficiency_base);
	RUN_TEST(test_peak_rule);
	RUN_TEST(test_peak_and_summary);
	run_result_free(&full);
	run_result_free(&stopped);
	return test_done();
}
