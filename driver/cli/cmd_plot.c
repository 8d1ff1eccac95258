/* driver/cli/cmd_plot.c: `aimsweep plot`: its options and command line. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "driver/base/args.h"
#include "driver/base/util.h"
#include "driver/cli/cmd.h"
#include "driver/output/plot.h"

/* The --labels, in the order given. */
struct label_list {
	const char **v;		/* as many as argv has words */
	size_t n;
};

struct plot_opts {
	const char *out;	/* the picture */
	struct label_list labels;
};

static bool add_label(const char *arg, void *field, char *why, size_t len)
{
	struct label_list *labels = field;

	(void)why;
	(void)len;
	labels->v[labels->n++] = arg;
	return true;
}

static const struct args_option plot_options[] = {
	{ .name = "output", .letter = 'o', .metavar = "FILE",
	  .def = "plot.svg", .help = "the picture: .svg or .png\n",
	  ARGS_FIELD(struct plot_opts, out) },
	{ .name = "label", .letter = 'l', .metavar = "TEXT",
	  .help = "the legend's name for the next RESULT, in order,\n"
		  "with its kernel release after it\n"
		  "(default: its kernel release and workfile)\n",
	  ARGS_FIELD(struct plot_opts, labels), .parse = add_label },
	{ NULL },
};

static void plot_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep plot RESULT.json... [-o FILE.svg|FILE.png] [--label TEXT]...\n"
		"\n"
		"Draws saved results against users, one line per result, with a\n"
		"legend: jobs/min; jobs/min per user with each run's ideal (its\n"
		"first level's per-user value, flat); p99 latency per job (when the\n"
		"results have latency); sys %% (the machine's, when the results\n"
		"have it, else the users' own system time over window x CPUs,\n"
		"labelled so); the lock wait, in ms per second of profiled time\n"
		"(summed over the waiters, so above 1000 when several wait at\n"
		"once), of the %d callers and lock types that waited most over\n"
		"the run (when the results have lock contention); the share of\n"
		"all CPU samples of the %d kernel symbols with the largest share\n"
		"at the level of the most users (when the results have a CPU\n"
		"profile; a level where a symbol was not kept breaks its line).\n"
		"Failed levels are left out and break the line. SVG is 1200x900\n"
		"(taller for five panels or more);\n"
		"PNG uses gnuplot's pngcairo terminal where it has it, else png.\n"
		"\n"
		"FILE's data and a gnuplot script are written next to it (plot.svg:\n"
		"plot.dat and plot.gp), then gnuplot draws FILE when it is\n"
		"installed. Without gnuplot the script is still written, and\n"
		"`gnuplot plot.gp` in that directory draws it later.\n"
		"\n"
		"Options:\n", PLOT_TOP_LOCKS, PLOT_TOP_SYMBOLS);
	args_options_help(f, plot_options);
	fprintf(f,
		"\n"
		"Exit status: 0 written (drawn, or gnuplot is missing); 1 a file\n"
		"cannot be read or written, nothing is ok, or gnuplot failed;\n"
		"2 bad usage.\n");
}

static int plot_exec(int argc, char **argv)
{
	struct args a = { .cmd = "plot", .prefixed = true,
			  .usage = plot_usage };
	struct plot_opts opts = { 0 };
	size_t n;
	int first, rc = EXIT_USAGE;

	/* A label takes a word of argv: argc of them are always enough. */
	opts.labels.v = calloc((size_t)argc, sizeof(*opts.labels.v));
	if (!opts.labels.v) {
		msg_error("plot: out of memory");
		return EXIT_RUN_FAILED;
	}
	first = args_parse(&a, plot_options, argc, argv, &opts);
	if (first < 0) {
		rc = args_status(first);
		goto out;
	}
	n = (size_t)(argc - first);
	if (!n) {
		rc = args_error(&a, "which result.json files?");
		goto out;
	}
	if (opts.labels.n > n) {
		msg_error("plot: %zu labels for %zu results: one --label per result at most",
			  opts.labels.n, n);
		goto out;
	}
	if (plot_output_name_ok(opts.out))
		rc = plot_files(argv + first, n, opts.labels.v, opts.labels.n,
				opts.out);
out:
	free(opts.labels.v);
	return rc;
}

const struct cmd_entry cmd_plot_entry = {
	.name = "plot",
	.synopsis = "plot FILE... [-o OUT.svg]",
	.summary = "draw results with gnuplot (svg or png)",
	.exec = plot_exec,
	.usage = plot_usage,
};
