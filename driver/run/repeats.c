/* driver/run/repeats.c: -r: a level's repeats, in a row or in rounds, and the median repeat that stands for it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/process.h"
#include "driver/base/util.h"
#include "driver/measure/verdicts.h"
#include "driver/output/report_text.h"
#include "driver/run/level.h"
#include "driver/run/repeats.h"

/*
 * The median repeat: the one at position n/2 were the repeats sorted by
 * jobs/min, equal ones in the order they ran. Both orders choose with it,
 * so that a level's numbers do not depend on --repeat-order.
 */
static unsigned int repeats_median(const double *jpm, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		unsigned int below = 0;

		for (unsigned int j = 0; j < n; j++)
			below += jpm[j] < jpm[k] || (j < k && jpm[j] == jpm[k]);
		if (below == n / 2)
			return k;
	}
	return 0;
}

/*
 * Each repeat's ops/s of each job, [k * n_jobs + j], for compare's noise
 * per job. NULL when the repeats' jobs differ (they never should) or
 * memory is short: the level then has no per-job spread.
 */
static double *repeat_job_ops(const struct level_result *runs, unsigned int n)
{
	size_t jobs = runs[0].n_jobs;
	double *v;

	if (!jobs)
		return NULL;
	for (unsigned int k = 1; k < n; k++)
		if (runs[k].n_jobs != jobs)
			return NULL;
	v = calloc((size_t)n * jobs, sizeof(*v));
	for (unsigned int k = 0; v && k < n; k++)
		for (size_t j = 0; j < jobs; j++) {
			if (strcmp(runs[k].jobs[j].name,
				   runs[0].jobs[j].name)) {
				free(v);
				return NULL;
			}
			if (runs[k].window_s > 0)
				v[k * jobs + j] = (double)runs[k].jobs[j].ops /
						  runs[k].window_s;
		}
	return v;
}

bool repeats_level(struct sweep *s, unsigned int users, size_t index,
		   struct level_result *level)
{
	unsigned int n = s->params->repeat;
	struct level_result *runs = calloc(n, sizeof(*runs));
	double *jpm = calloc(n, sizeof(*jpm));
	unsigned int done = 0, shown;
	bool go_on = true;

	if (!runs || !jpm) {
		free(runs);
		free(jpm);
		memset(level, 0, sizeof(*level));
		level->users = users;
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "out of memory");
		return false;
	}
	for (; done < n; done++) {
		go_on = level_measure(s, users, index, done, &runs[done]);
		if (runs[done].status != LEVEL_OK || run_interrupted) {
			done++;
			break;
		}
		jpm[done] = runs[done].jobs_per_min;
	}
	if (runs[done - 1].status != LEVEL_OK || run_interrupted) {
		/* The failed (or cut) repeat stands for the level. */
		shown = done - 1;
		*level = runs[shown];
		free(jpm);
	} else {
		shown = repeats_median(jpm, n);
		*level = runs[shown];
		level->repeat_jpm = jpm;
		level->n_repeats = n;
		level->repeat_job_ops = repeat_job_ops(runs, n);
	}
	/* The level owns the shown repeat's arrays now. */
	memset(&runs[shown], 0, sizeof(runs[0]));
	for (unsigned int i = 0; i < done; i++)
		level_result_free(&runs[i]);
	free(runs);
	return go_on;
}

/*
 * The rounds of repeats_rounds(). runs[i * N + k] is level i's k-th
 * repeat. result.levels[i] shows the level as its repeats so far make
 * it, the way repeats_level() does (the median ok repeat, or the failed
 * one), and shares that repeat's arrays until the end; result.json is
 * written after every repeat.
 */
struct rounds {
	struct level_result *runs;
	unsigned int *done;	/* repeats kept, a failed one included */
	unsigned int *shown;	/* the repeat result.levels[i] shares */
	bool *final;		/* in the table already */
	size_t ramp;		/* the levels each round runs */
	int status;		/* the run's exit status so far */
	bool stop;		/* the run cannot go on */
};

/* Points result.levels[i] (appended when `add`) at level i's repeats so
 * far. */
static int rounds_show(struct sweep *s, struct rounds *rd, size_t i, bool add)
{
	unsigned int n = s->params->repeat, done = rd->done[i];
	const struct level_result *runs = &rd->runs[i * n];
	struct level_result view;
	double *jpm = NULL;

	if (runs[done - 1].status != LEVEL_OK) {
		rd->shown[i] = done - 1;
		view = runs[done - 1];
	} else {
		jpm = malloc(done * sizeof(*jpm));
		if (!jpm)
			return ENOMEM;
		for (unsigned int k = 0; k < done; k++)
			jpm[k] = runs[k].jobs_per_min;
		rd->shown[i] = repeats_median(jpm, done);
		view = runs[rd->shown[i]];
	}
	view.repeat_jpm = jpm;
	view.n_repeats = jpm ? done : 0;
	view.repeat_job_ops = jpm ? repeat_job_ops(runs, done) : NULL;
	if (add) {
		if (result_add_level(&s->result, &view)) {
			free(jpm);
			free(view.repeat_job_ops);
			return ENOMEM;
		}
		return 0;
	}
	free(s->result.levels[i].repeat_jpm);
	free(s->result.levels[i].repeat_job_ops);
	s->result.levels[i] = view;
	return 0;
}

/* Level i failed: its repeats stop there. */
static bool rounds_failed(const struct rounds *rd, size_t i, unsigned int n)
{
	return rd->done[i] && rd->runs[i * n + rd->done[i] - 1].status !=
				      LEVEL_OK;
}

static int rounds_alloc(struct sweep *s, struct rounds *rd)
{
	size_t levels = s->params->n_levels;

	rd->runs = calloc(levels * s->params->repeat, sizeof(*rd->runs));
	rd->done = calloc(levels, sizeof(*rd->done));
	rd->shown = calloc(levels, sizeof(*rd->shown));
	rd->final = calloc(levels, sizeof(*rd->final));
	rd->ramp = levels;
	rd->status = EXIT_OK;
	return rd->runs && rd->done && rd->shown && rd->final ? 0 : ENOMEM;
}

/* Hands each shown repeat's arrays over to result.levels and frees the
 * other repeats. */
static void rounds_free(struct sweep *s, struct rounds *rd)
{
	unsigned int n = s->params->repeat;

	for (size_t i = 0; rd->runs && rd->done && rd->shown &&
			   i < s->params->n_levels; i++) {
		for (unsigned int k = 0; k < rd->done[i]; k++) {
			struct level_result *run = &rd->runs[i * n + k];

			if (i < s->result.n_levels && k == rd->shown[i])
				level_result_forget(run);
			level_result_free(run);
		}
	}
	free(rd->runs);
	free(rd->done);
	free(rd->shown);
	free(rd->final);
}

/* Level i's row of the table, once its last round is through. */
static void rounds_print(struct sweep *s, struct rounds *rd, size_t i)
{
	if (!sweep_live_table(s))
		return;
	progress_clear();
	report_text_level(stdout, &s->result, i);
	rd->final[i] = true;
}

/* The run cannot go on: no memory, or result.json cannot be written. */
static bool rounds_fail(struct rounds *rd)
{
	rd->status = EXIT_RUN_FAILED;
	rd->stop = true;
	return false;
}

/* Level i's k-th repeat, in round k; false when the round ends here. */
static bool rounds_step(struct sweep *s, struct rounds *rd, size_t i,
			unsigned int k)
{
	const struct run_params *p = s->params;
	unsigned int n = p->repeat;
	struct level_result *run = &rd->runs[i * n + k];
	bool go_on;

	/* A level that failed is not run again; its row comes in its turn
	 * in the last round. */
	if (rounds_failed(rd, i, n)) {
		if (k == n - 1)
			rounds_print(s, rd, i);
		return true;
	}
	go_on = level_measure(s, p->levels[i], i, k, run);
	if (run_interrupted) {
		/* The repeat did not finish: not a result. */
		level_result_free(run);
		return false;
	}
	rd->done[i]++;
	if (rounds_show(s, rd, i, k == 0)) {
		msg_error("out of memory");
		return rounds_fail(rd);
	}
	/* A new median repeat of the first level changes every level's
	 * efficiency. (--stop-at-crossover makes the order consecutive:
	 * see driver/cli/run_args.c.) */
	for (size_t j = 0; j < s->result.n_levels; j++)
		verdicts_scale_level(&s->result, j, p->crossover);
	if (run->status != LEVEL_OK)
		rd->status = EXIT_RUN_FAILED;
	if (k == n - 1)
		rounds_print(s, rd, i);
	if (sweep_write_result(s))
		return rounds_fail(rd);
	/* Higher levels would fail the same way; the lower ones go on with
	 * their rounds. */
	if (!go_on) {
		msg_error("stopping the ramp at %u users: higher levels would fail the same way",
			  p->levels[i]);
		rd->ramp = i + 1;
	}
	return true;
}

int repeats_rounds(struct sweep *s)
{
	unsigned int n = s->params->repeat;
	struct rounds rd = { 0 };

	if (rounds_alloc(s, &rd)) {
		msg_error("out of memory");
		rounds_free(s, &rd);
		return EXIT_RUN_FAILED;
	}
	for (unsigned int k = 0; k < n && !rd.stop && !run_interrupted; k++) {
		msg_info("round %u of %u", k + 1, n);
		for (size_t i = 0; i < rd.ramp && !run_interrupted; i++)
			if (!rounds_step(s, &rd, i, k))
				break;
		/* Levels the first round never reached are not in the ramp. */
		if (!k && rd.ramp > s->result.n_levels)
			rd.ramp = s->result.n_levels;
	}
	/* Levels the run left short of their repeats are shown as they
	 * are. */
	progress_clear();
	for (size_t i = 0; sweep_live_table(s) && i < s->result.n_levels; i++)
		if (!rd.final[i])
			report_text_level(stdout, &s->result, i);
	rounds_free(s, &rd);
	return rd.status;
}
