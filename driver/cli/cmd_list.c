/* driver/cli/cmd_list.c: `aimsweep list`: its options and command line. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "driver/base/args.h"
#include "driver/base/util.h"
#include "driver/cli/cmd.h"
#include "driver/cli/list.h"

struct list_opts {
	bool verbose;
};

static const struct args_option list_options[] = {
	{ .name = "verbose", .letter = 'v',
	  .help = "a block per job: what it does, then its facts\n",
	  ARGS_FIELD(struct list_opts, verbose) },
	{ NULL },
};

static void list_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep list [jobs|workfiles] [-v]\n"
		"Lists the jobs, micro jobs then AIM7 jobs, family by family\n"
		"(name, family, the unit of an inner op and how many one op\n"
		"makes, the syscalls one op makes; -v gives each job a block:\n"
		"what it does, those facts a line each, AIM7 1.1's name for it\n"
		"where reaim renamed it (a workfile may use either), its\n"
		"untimed setup, where it deviates from reaim and what it\n"
		"cannot measure on a tmpfs), and the shipped workfiles.\n"
		"\n"
		"Options:\n");
	args_options_help(f, list_options);
}

static int list_exec(int argc, char **argv)
{
	struct args a = { .cmd = "list", .prefixed = true,
			  .usage = list_usage };
	struct list_opts opts = { 0 };
	const char *what = NULL;
	int first;

	first = args_parse(&a, list_options, argc, argv, &opts);
	if (first < 0)
		return args_status(first);
	for (int i = first; i < argc; i++) {
		if (what || (strcmp(argv[i], "jobs") &&
			     strcmp(argv[i], "workfiles"))) {
			msg_error("list: unknown argument '%s' (want jobs, workfiles or -v)",
				  argv[i]);
			return EXIT_USAGE;
		}
		what = argv[i];
	}
	if (!what || !strcmp(what, "jobs"))
		list_jobs(stdout, opts.verbose);
	if (!what)
		putchar('\n');
	if (!what || !strcmp(what, "workfiles"))
		list_workfiles(stdout);
	return EXIT_OK;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.synopsis = "list [jobs|workfiles] [-v]",
	.summary = "show the jobs and shipped workfiles",
	.exec = list_exec,
	.usage = list_usage,
};
