/* driver/run/sweep.c: runs the levels of one `aimsweep run`, each -r times, one after another or in rounds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/process.h"
#include "driver/base/util.h"
#include "driver/measure/limits.h"
#include "driver/measure/verdicts.h"
#include "driver/output/plot.h"
#include "driver/output/report.h"
#include "driver/output/report_text.h"
#include "driver/output/result_write.h"
#include "driver/run/driver_task.h"
#include "driver/run/level.h"
#include "driver/run/sweep.h"
#include "driver/users/spawn_channel.h"

int sweep_write_result(struct sweep *s)
{
	char err[PATH_MAX + 128];

	if (result_write(&s->result, s->dir.json_path, err, sizeof(err))) {
		msg_error("%s", err);
		return -1;
	}
	return 0;
}

bool sweep_live_table(const struct sweep *s)
{
	const char *format = s->params->format;

	return !format || !strcmp(format, "default");
}

static int cmp_level_jpm(const void *a, const void *b)
{
	const struct level_result *x = a, *y = b;

	return (x->jobs_per_min > y->jobs_per_min) -
	       (x->jobs_per_min < y->jobs_per_min);
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
			if (strcmp(runs[k].jobs[j].name, runs[0].jobs[j].name)) {
				free(v);
				return NULL;
			}
			if (runs[k].window_s > 0)
				v[k * jobs + j] = (double)runs[k].jobs[j].ops /
						  runs[k].window_s;
		}
	return v;
}

/*
 * A level run -r times in a row (--repeat-order consecutive). Its
 * numbers are those of the median repeat, a
 * real measurement rather than an average of several; every repeat's
 * jobs/min is kept for the spread. Any failed repeat fails the level.
 */
static bool run_repeats(struct sweep *s, unsigned int users, size_t index,
			struct level_result *level)
{
	unsigned int n = s->params->repeat;
	struct level_result *runs = calloc(n, sizeof(*runs));
	double *jpm = calloc(n, sizeof(*jpm));
	bool go_on = true;
	unsigned int done = 0;

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
		*level = runs[done - 1];
		memset(&runs[done - 1], 0, sizeof(runs[0]));
		free(jpm);
	} else {
		double *jops = repeat_job_ops(runs, n);

		qsort(runs, n, sizeof(*runs), cmp_level_jpm);
		*level = runs[n / 2];
		memset(&runs[n / 2], 0, sizeof(runs[0]));
		level->repeat_jpm = jpm;
		level->n_repeats = n;
		level->repeat_job_ops = jops;
	}
	for (unsigned int i = 0; i < done; i++)
		level_result_free(&runs[i]);
	free(runs);
	return go_on;
}

/* -r N runs the ramp N times over. */
static bool interleaved(const struct run_params *p)
{
	return p->interleave && p->repeat > 1;
}

/* The run as result.json holds it, read back (json_read_back()); NULL
 * after a message when memory is short. */
static cJSON *saved_result(struct sweep *s)
{
	cJSON *doc = json_read_back(result_to_json(&s->result));

	if (!doc)
		msg_error("out of memory");
	return doc;
}

/* Prints the run in its -f format from its numbers as result.json holds
 * them, so that `report -f` of that file prints the same to the last
 * digit. */
static void print_format(struct sweep *s)
{
	cJSON *doc = saved_result(s);
	enum report_format fmt;

	if (doc && report_format_parse(s->params->format, &fmt)) {
		report_print(stdout, doc, fmt, s->dir.json_path);
		fflush(stdout);
	} else if (doc) {
		msg_error("out of memory");
	}
	cJSON_Delete(doc);
}

/* plot.svg and plot.png beside result.json, when gnuplot is here, drawn
 * from the run's numbers as result.json holds them. */
static void draw_plots(struct sweep *s)
{
	static const char *const names[] = { "plot.svg", "plot.png" };
	struct plot_result res = { 0 };
	char out[PATH_MAX], *label = NULL;
	cJSON *doc;

	if (!process_in_path("gnuplot")) {
		msg_info("gnuplot is not installed, so no plot was drawn (apt-get install gnuplot-nox; then aimsweep plot %s)",
			 s->dir.json_path);
		return;
	}
	doc = saved_result(s);
	if (doc)
		label = plot_label(doc, NULL, s->dir.json_path);
	if (doc && !label)
		msg_error("plot: out of memory");
	res.root = doc;
	res.label = label;
	for (size_t i = 0; label && i < 2; i++) {
		if (!path_join(out, sizeof(out), s->dir.path, names[i]))
			break;
		/* Its messages are its own; a plot that fails does not fail
		 * the run, whose results are on disk already. */
		plot_draw(&res, 1, out);
	}
	free(label);
	cJSON_Delete(doc);
}

/*
 * -r N with the interleaved order (the default): the ramp run N times
 * over, so that each level's repeats are spread over the whole run
 * instead of coming one after another.
 *
 * runs[i * N + k] is level i's k-th repeat. result.levels[i] shows the
 * level as its repeats so far make it, the way run_repeats() does (the
 * median ok repeat, or the failed one), and shares that repeat's arrays
 * until the end; result.json is written after every repeat.
 */
struct rounds {
	struct level_result *runs;
	unsigned int *done;	/* repeats kept, a failed one included */
	unsigned int *shown;	/* the repeat result.levels[i] shares */
	bool *final;		/* in the table already */
};

/* The repeat at position n/2 when sorted by jobs/min: run_repeats()'s
 * choice. */
static unsigned int median_repeat(const double *jpm, unsigned int n)
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
		rd->shown[i] = median_repeat(jpm, done);
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

/* Hands each shown repeat's arrays over to result.levels and frees the
 * other repeats. */
static void rounds_free(struct sweep *s, struct rounds *rd)
{
	unsigned int n = s->params->repeat;

	for (size_t i = 0; rd->runs && rd->done && rd->shown &&
			   i < s->params->n_levels; i++) {
		for (unsigned int k = 0; k < rd->done[i]; k++) {
			struct level_result *run = &rd->runs[i * n + k];

			if (i < s->result.n_levels && k == rd->shown[i]) {
				run->jobs = NULL;
				run->intervals = NULL;
				run->locks = NULL;
				run->cpu_prof.symbols = NULL;
			}
			level_result_free(run);
		}
	}
	free(rd->runs);
	free(rd->done);
	free(rd->shown);
	free(rd->final);
}

/* Runs the rounds; returns the run's exit status so far. */
static int run_interleaved(struct sweep *s)
{
	const struct run_params *p = s->params;
	unsigned int n = p->repeat;
	struct rounds rd = { 0 };
	size_t ramp = p->n_levels;	/* the levels each round runs */
	int status = EXIT_OK;
	bool stop = false;

	rd.runs = calloc(p->n_levels * n, sizeof(*rd.runs));
	rd.done = calloc(p->n_levels, sizeof(*rd.done));
	rd.shown = calloc(p->n_levels, sizeof(*rd.shown));
	rd.final = calloc(p->n_levels, sizeof(*rd.final));
	if (!rd.runs || !rd.done || !rd.shown || !rd.final) {
		msg_error("out of memory");
		rounds_free(s, &rd);
		return EXIT_RUN_FAILED;
	}
	for (unsigned int k = 0; k < n && !stop && !run_interrupted; k++) {
		msg_info("round %u of %u", k + 1, n);
		for (size_t i = 0; i < ramp && !run_interrupted; i++) {
			struct level_result *run = &rd.runs[i * n + k];
			bool go_on;

			/* A level that failed is not run again; its row
			 * comes in its turn in the last round. */
			if (rounds_failed(&rd, i, n)) {
				if (k == n - 1 && sweep_live_table(s)) {
					progress_clear();
					report_text_level(stdout, &s->result,
							  i);
					rd.final[i] = true;
				}
				continue;
			}
			go_on = level_measure(s, p->levels[i], i, k, run);
			if (run_interrupted) {
				/* The repeat did not finish: not a result. */
				level_result_free(run);
				break;
			}
			rd.done[i]++;
			if (rounds_show(s, &rd, i, k == 0)) {
				msg_error("out of memory");
				status = EXIT_RUN_FAILED;
				stop = true;
				break;
			}
			/* A new median repeat of the first level changes
			 * every level's efficiency. (--stop-at-crossover
			 * makes the order consecutive: see cli.c.) */
			for (size_t j = 0; j < s->result.n_levels; j++)
				verdicts_scale_level(&s->result, j,
						   p->crossover);
			if (run->status != LEVEL_OK)
				status = EXIT_RUN_FAILED;
			if (k == n - 1 && sweep_live_table(s)) {
				progress_clear();
				report_text_level(stdout, &s->result, i);
				rd.final[i] = true;
			}
			if (sweep_write_result(s)) {
				status = EXIT_RUN_FAILED;
				stop = true;
				break;
			}
			/* Higher levels would fail the same way; the lower
			 * ones go on with their rounds. */
			if (!go_on) {
				msg_error("stopping the ramp at %u users: higher levels would fail the same way",
					  p->levels[i]);
				ramp = i + 1;
			}
		}
		/* Levels the first round never reached are not in the ramp. */
		if (!k && ramp > s->result.n_levels)
			ramp = s->result.n_levels;
	}
	/* Levels the run left short of their repeats are shown as they
	 * are. */
	progress_clear();
	for (size_t i = 0; sweep_live_table(s) && i < s->result.n_levels; i++)
		if (!rd.final[i])
			report_text_level(stdout, &s->result, i);
	rounds_free(s, &rd);
	return status;
}

static void sweep_cleanup(struct sweep *s)
{
	users_pool_shutdown(&s->pool, s->params->grace_s);
	for (size_t i = 0; i < s->n_scratch; i++)
		if (scratch_remove(&s->scratch[i]))
			msg_error("could not remove scratch directory %s",
				  s->scratch[i].dir);
	snapshot_free(&s->t0);
	snapshot_free(&s->t1);
	capture_run_free(s->captures);
	arena_destroy(&s->arena);
	run_result_free(&s->result);
}

/* Counters for the largest level, perf's check, the scratch directories
 * and the users' pool: what every level needs. Returns the exit status,
 * EXIT_OK when the levels can run. */
static int sweep_setup(struct sweep *s)
{
	struct run_params *p = s->params;
	unsigned int max_users = limits_max_users(p);
	char err[PATH_MAX + 256];
	int rc;

	/* perf must be able to record before anything is created. */
	if (capture_wanted(p) &&
	    capture_check(p, &s->captures, err, sizeof(err))) {
		if (run_interrupted)
			return EXIT_INTERRUPTED + run_interrupted;
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < p->n_scratch; i++) {
		scratch_remove_stale(p->scratch_bases[i]);
		if (scratch_create(&s->scratch[i], p->scratch_bases[i], err,
				   sizeof(err))) {
			msg_error("%s", err);
			return EXIT_USAGE;
		}
		s->n_scratch++;
		s->run_dirs[i] = s->scratch[i].dir;
		path_join(s->shared_paths[i], sizeof(s->shared_paths[i]),
			  s->scratch[i].dir, "shared");
		s->shared_dirs[i] = s->shared_paths[i];
	}
	/* After the scratch directories: the arena's file is one more
	 * descriptor, held until the spawner has it. */
	rc = arena_create(&s->arena, max_users, s->mix->n_entries,
			  users_loop_bytes(s->mix), p->latency);
	if (!rc)
		rc = users_pool_init(&s->pool, max_users);
	if (rc)
		goto no_counters;
	s->pool.arena = &s->arena;
	s->pool.mix = s->mix;
	s->pool.params = p;
	s->pool.run_dirs = s->run_dirs;
	s->pool.n_dirs = s->n_scratch;
	if (p->layout == LAYOUT_SHARED)
		s->pool.shared_dirs = s->shared_dirs;
	/* The spawner is a fork of the driver until its exec: before the
	 * driver's arrays for N users, that copy is a small one. */
	rc = users_pool_start(&s->pool);
	/* Whoever maps the arena anew has its file by now. */
	arena_close_fd(&s->arena);
	if (rc) {
		msg_error("cannot start %s/%s, the process that forks the users: %s",
			  p->libexec_dir, USERS_PROGRAM_NAME,
			  rc == ECHILD ? "it ended before it was ready" :
					 strerror(rc));
		/* Too few descriptors is a limit of the run's, like one the
		 * driver itself meets in setting up. */
		return rc == EMFILE || rc == ENFILE ? EXIT_USAGE
						    : EXIT_RUN_FAILED;
	}
	rc = snapshot_alloc(&s->t0, max_users, s->mix->n_entries);
	if (!rc)
		rc = snapshot_alloc(&s->t1, max_users, s->mix->n_entries);
	if (rc)
		goto no_counters;
	/* Writing the empty result now proves the output directory works
	 * before any level runs. */
	if (result_dir_create(&s->dir, p->output_dir, &s->result, err,
			      sizeof(err))) {
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	return sweep_write_result(s) ? EXIT_USAGE : EXIT_OK;
no_counters:
	msg_error("cannot allocate counters for %u users: %s", max_users,
		  strerror(rc));
	return EXIT_RUN_FAILED;
}

/* The levels one after another, each -r times in a row; returns the
 * run's exit status so far. */
static int run_consecutive(struct sweep *s)
{
	const struct run_params *p = s->params;
	int status = EXIT_OK;

	for (size_t i = 0; i < p->n_levels && !run_interrupted; i++) {
		struct level_result level;
		bool go_on, crossed;

		go_on = run_repeats(s, p->levels[i], i, &level);
		if (run_interrupted) {
			/* The level did not finish: it is not a result. */
			level_result_free(&level);
			break;
		}
		if (result_add_level(&s->result, &level)) {
			level_result_free(&level);
			msg_error("out of memory");
			return EXIT_RUN_FAILED;
		}
		crossed = verdicts_scale_level(&s->result,
					     s->result.n_levels - 1,
					     p->crossover);
		progress_clear();
		if (sweep_live_table(s))
			report_text_level(stdout, &s->result,
					  s->result.n_levels - 1);
		if (level.status != LEVEL_OK)
			status = EXIT_RUN_FAILED;
		if (sweep_write_result(s))
			return EXIT_RUN_FAILED;
		if (!go_on) {
			msg_error("stopping the ramp: higher levels would fail the same way");
			break;
		}
		if (crossed) {
			msg_info("stopping the ramp at the crossover: %.1f jobs/min/user is below %g",
				 level.jobs_per_min_per_user, p->crossover);
			break;
		}
	}
	return status;
}

/* After the last level: result.json with the run's status, the summary
 * (or the whole -f output), the plots, and what an interruption kept.
 * Returns the run's exit status. */
static int sweep_finish(struct sweep *s, int status)
{
	const struct run_params *p = s->params;

	if (run_interrupted) {
		s->result.status = RUN_INTERRUPTED;
		s->result.interrupted_by = run_interrupted;
		status = EXIT_INTERRUPTED + run_interrupted;
	} else {
		s->result.status = status == EXIT_OK ? RUN_COMPLETE : RUN_FAILED;
	}
	if (sweep_write_result(s) && status == EXIT_OK)
		status = EXIT_RUN_FAILED;
	progress_clear();
	if (sweep_live_table(s))
		report_text_summary(stdout, &s->result);
	else
		print_format(s);
	/* An interrupted run ends now: whoever stopped it is waiting. */
	if (!p->no_plot && verdicts_peak_level(&s->result) >= 0 &&
	    !run_interrupted)
		draw_plots(s);
	if (run_interrupted)
		msg_error(interleaved(p) ?
			  "interrupted by SIG%s: kept %zu levels, each with the repeats it finished, in %s" :
			  "interrupted by SIG%s: kept %zu finished levels in %s",
			  sigabbrev_np(run_interrupted), s->result.n_levels,
			  s->dir.json_path);
	return status;
}

int sweep_run(struct run_params *p, const struct mix *mix)
{
	/* On the heap, not the stack: its scratch paths are over 200 KiB,
	 * more than a stack frame should hold. */
	struct sweep *s = calloc(1, sizeof(*s));
	int status;

	if (!s) {
		msg_error("out of memory");
		return EXIT_RUN_FAILED;
	}
	s->params = p;
	s->mix = mix;
	s->result.params = p;
	s->result.mix = mix;
	s->result.status = RUN_RUNNING;
	host_probe(&s->result.host);

	driver_task_signals();
	p->timer_ns = driver_task_timer_cost_ns();
	driver_task_priority(p);
	status = sweep_setup(s);
	if (status == EXIT_OK) {
		progress_init();
		if (sweep_live_table(s))
			report_text_header(stdout, &s->result, s->dir.json_path);
		if (interleaved(p))
			status = run_interleaved(s);
		else
			status = run_consecutive(s);
		status = sweep_finish(s, status);
	}
	sweep_cleanup(s);
	free(s);
	return status;
}
