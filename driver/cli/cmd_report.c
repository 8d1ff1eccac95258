/* driver/cli/cmd_report.c: `aimsweep report`: its options and command line. */
#include <stdbool.h>
#include <stdio.h>

#include "driver/base/args.h"
#include "driver/base/util.h"
#include "driver/cli/cmd.h"
#include "driver/output/report.h"

struct report_opts {
	enum report_format format;
};

static bool parse_format(const char *arg, void *field, char *why,
			 size_t len)
{
	if (report_format_parse(arg, field))
		return true;
	snprintf(why, len, "unknown format '%s' (" REPORT_FORMAT_NAMES ")",
		 arg);
	return false;
}

static const struct args_option report_options[] = {
	{ .name = "format", .letter = 'f', .metavar = "FORMAT",
	  .def = "default", .help = "one of the above\n",
	  ARGS_FIELD(struct report_opts, format), .parse = parse_format },
	{ NULL },
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep report [-f FORMAT] RESULT.json\n"
		"\n"
		"Prints a saved result.json (\"-\" reads standard input) in one of\n"
		"these formats:\n"
		"\n"
		"  default  the table `aimsweep run` prints: a header, one row per\n"
		"           level (failed levels as FAILED: reason), a summary line\n"
		"  simple   one line per ok level: USERS JOBS_PER_MIN, the number\n"
		"           exactly as in the file; failed levels are left out\n"
		"  json     the document printed again (the same keys and values)\n"
		"  csv      a header line, then one row per level: users,status,\n"
		"           window_s,jobs_per_min,jobs_per_min_per_user,user_min,\n"
		"           user_median,user_max,jti,utime_s,stime_s,errors,reason;\n"
		"           a failed level has status failed, empty numbers and its\n"
		"           reason, quoted as RFC 4180 says; lines end in LF\n"
		"  aim7     AIM7's multitask table, the layout LKP's aim7 parser\n"
		"           reads: a header line \"Tasks jobs/min jti jobs/min/task\n"
		"           real cpu\", then one row per ok level, right after it:\n"
		"           users, jobs/min, JTI (0 to 100), jobs/min per user,\n"
		"           window_s, the users' CPU seconds (utime + stime); then\n"
		"           a line \"# level N users failed: why\" per failed level\n"
		"  reaim    reaim's table: Num Forked (users), Parent Time\n"
		"           (window_s), Child SysTime and Child UTime (the users'\n"
		"           rusage over the level), Jobs per Minute, Jobs/min/Child,\n"
		"           Std_dev (of the users' jobs/min; from jti when the file\n"
		"           has no per_user_jobs_per_min.stddev), Percent (Std_dev\n"
		"           as a share of Jobs/min/Child, reaim's Std_dev Percent:\n"
		"           JTI = 100 - Percent up to 100), JTI; then \"Max Jobs per\n"
		"           Minute N\".\n"
		"           A failed level is a line \"# level N users failed: why\"\n"
		"  lkp      key: value lines: users.N.jobs_per_min,\n"
		"           users.N.jobs_per_min_per_user, users.N.jti and, with a\n"
		"           lock profile, users.N.lock.CALLER.TYPE.wait_ns_per_s for\n"
		"           each kept lock entry (ok levels),\n"
		"           users.N.status (every level), then max_jobs_per_min,\n"
		"           max_jobs_per_min_users and jti (of that peak level)\n"
		"\n"
		"Options:\n");
	args_options_help(f, report_options);
	fprintf(f,
		"\n"
		"Exit status: 0 printed; 1 the file cannot be read or is not a\n"
		"result.json this aimsweep reads, or output failed; 2 bad usage.\n");
}

static int report_exec(int argc, char **argv)
{
	struct args a = { .cmd = "report", .prefixed = true,
			  .usage = report_usage };
	struct report_opts opts;
	int first;

	first = args_parse(&a, report_options, argc, argv, &opts);
	if (first < 0)
		return args_status(first);
	if (first != argc - 1)
		return args_error(&a, first == argc ? "which result.json?" :
				  "one result.json at a time");
	return report_file(argv[first], opts.format);
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.synopsis = "report [-f FORMAT] FILE",
	.summary = "print a result.json: table, csv, aim7, reaim...",
	.exec = report_exec,
	.usage = report_usage,
};
