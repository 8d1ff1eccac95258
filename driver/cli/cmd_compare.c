/* driver/cli/cmd_compare.c: `aimsweep compare`: its options, command line. */
#include <stdio.h>

#include "driver/base/args.h"
#include "driver/base/util.h"
#include "driver/cli/cmd.h"
#include "driver/output/compare.h"
#include "driver/output/compare_profiles.h"
#include "driver/output/compare_stats.h"

struct compare_opts {
	double fail_above_pct;	/* below 0: no --fail-above */
	double noise_pct;
};

static const struct args_option compare_options[] = {
	{ .name = "fail-above", .metavar = "PCT",
	  .help = "exit 1 when a level's jobs/min dropped by more\n"
		  "than PCT percent from A to B; only drops count,\n"
		  "a rise never fails. A level ok in A that failed\n"
		  "in B or is missing from it (B interrupted or\n"
		  "shorter) counts as a drop; levels only in B\n"
		  "and the jobs' rows do not count\n",
	  ARGS_FIELD(struct compare_opts, fail_above_pct),
	  .what = "a percentage", .min = 0, .max = 100 },
	{ .name = "noise", .metavar = "PCT",
	  .def = STRINGIFY(COMPARE_NOISE_PCT),
	  .help = "the smallest change called significant;\n"
		  "lower it on a quiet machine\n",
	  ARGS_FIELD(struct compare_opts, noise_pct),
	  .what = "a percentage", .min = 0, .max = 100 },
	{ NULL },
};

static void compare_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep compare A.json B.json [--fail-above PCT] [--noise PCT]\n"
		"\n"
		"Compares two saved results, B against A: for every level (matched\n"
		"by users; a repeated user count is matched in the order run) the\n"
		"jobs/min of A and B and the change in percent, then each job's\n"
		"ops/s (matched by name). Levels or jobs in only one file are\n"
		"listed as such. The header names each side's kernel, workfile and\n"
		"host; a warning says when the workfiles differ or a side's run did\n"
		"not complete.\n"
		"\n"
		"Verdict: when both levels carry repeat statistics (aimsweep run -r:\n"
		"levels[].repeats.jobs_per_min with n, mean and stddev, and the\n"
		"same for each job in levels[].repeats.jobs[]), the means are\n"
		"shown and compared: \"significant\" when Welch's t-test gives a\n"
		"two-sided p-value below %g and the change is at least --noise\n"
		"percent either way, else \"within noise\". The floor is there because\n"
		"repeats run in one process tree: their spread misses how much two\n"
		"separate runs differ, which is what A and B are (run -r's\n"
		"default, interleaved repeats spread over the run, miss less).\n"
		"Without repeats the verdict is \"no repeats: noise unknown\": one\n"
		"run per side says nothing about how much the number moves by\n"
		"itself.\n"
		"\n"
		"CPU profiles: at a level both results profiled (run --cpu-profile),\n"
		"the %d symbols whose share of all CPU samples moved most, in\n"
		"percentage points (pt), marked [k] kernel or [.] user. A symbol\n"
		"a side did not keep is shown as below that side's smallest kept\n"
		"share, and counted at it. z is the change over its binomial\n"
		"standard error: \"beyond sampling noise\" from |z| %g, which says\n"
		"that sampling alone would hardly move the share that far, not\n"
		"that another run would not.\n"
		"\n"
		"Lock profiles: at a level both results profiled (run\n"
		"--lock-profile), the %d callers, with their lock type, whose wait\n"
		"per second of profiled time moved most, in ms/s: A's, B's and the\n"
		"change. Per second, so that a profile of a slice of the window\n"
		"compares with one of all of it. A caller a side did not keep is\n"
		"shown as below that side's smallest kept rate and counted at it,\n"
		"or as none when that side kept every caller it saw.\n"
		"\n"
		"Options:\n",
		COMPARE_ALPHA, COMPARE_CPU_SYMBOL_ROWS, COMPARE_CPU_Z,
		COMPARE_LOCK_CALLER_ROWS);
	args_options_help(f, compare_options);
	fprintf(f,
		"\n"
		"Exit status: 0 compared (and no drop beyond --fail-above); 1 a\n"
		"level dropped beyond --fail-above; 2 bad usage, a file that\n"
		"cannot be read or is not a result.json this aimsweep reads, or\n"
		"output that cannot be written.\n");
}

static int compare_exec(int argc, char **argv)
{
	struct args a = { .cmd = "compare", .prefixed = true,
			  .usage = compare_usage };
	struct compare_opts opts = { .fail_above_pct = -1 };
	int first;

	first = args_parse(&a, compare_options, argc, argv, &opts);
	if (first < 0)
		return args_status(first);
	if (argc - first != 2)
		return args_error(&a, "want two result.json files, got %d",
				  argc - first);
	return compare_files(argv[first], argv[first + 1],
			     opts.fail_above_pct, opts.noise_pct);
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.synopsis = "compare A B [--fail-above PCT] [--noise PCT]",
	.summary = "jobs/min per level and job, B against A",
	.exec = compare_exec,
	.usage = compare_usage,
};
