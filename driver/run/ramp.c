/* driver/run/ramp.c: the levels in their order, then the run's end: its status, its summary, its plots. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/process.h"
#include "driver/base/util.h"
#include "driver/measure/verdicts.h"
#include "driver/output/plot.h"
#include "driver/output/report.h"
#include "driver/output/report_text.h"
#include "driver/output/result_write.h"
#include "driver/run/ramp.h"
#include "driver/run/repeats.h"

/* -r N runs the ramp N times over. */
static bool interleaved(const struct run_params *p)
{
	return p->interleave && p->repeat > 1;
}

/* The levels one after another, each -r times in a row; returns the
 * run's exit status so far. */
static int ramp_consecutive(struct sweep *s)
{
	const struct run_params *p = s->params;
	int status = EXIT_OK;

	for (size_t i = 0; i < p->n_levels && !run_interrupted; i++) {
		struct level_result level;
		bool go_on, crossed;

		go_on = repeats_level(s, p->levels[i], i, &level);
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

/* After the last level: result.json with the run's status, the summary
 * (or the whole -f output), the plots, and what an interruption kept.
 * Returns the run's exit status. */
static int ramp_finish(struct sweep *s, int status)
{
	const struct run_params *p = s->params;

	if (run_interrupted) {
		s->result.status = RUN_INTERRUPTED;
		s->result.interrupted_by = run_interrupted;
		status = EXIT_INTERRUPTED + run_interrupted;
	} else {
		s->result.status = status == EXIT_OK ? RUN_COMPLETE :
							 RUN_FAILED;
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

int ramp_run(struct sweep *s)
{
	int status;

	progress_init();
	if (sweep_live_table(s))
		report_text_header(stdout, &s->result, s->dir.json_path);
	if (interleaved(s->params))
		status = repeats_rounds(s);
	else
		status = ramp_consecutive(s);
	return ramp_finish(s, status);
}
