/* driver/main.c: aimsweep's entry point: picks the subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cli.h"
#include "driver/compare.h"
#include "driver/paths.h"
#include "driver/limits.h"
#include "driver/list.h"
#include "driver/params.h"
#include "driver/plot.h"
#include "driver/report_formats.h"
#include "driver/scratch.h"
#include "driver/sweep.h"
#include "driver/users.h"
#include "driver/util.h"
#include "driver/workfile.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep COMMAND [options]\n"
		"\n"
		"A multi-process scalability driver modeled on AIM7: runs a\n"
		"weighted job mix with a rising number of users and reports\n"
		"throughput per user level.\n"
		"\n"
		"Commands:\n"
		"  run [options] [WORKFILE]   run a user ramp (aimsweep run --help)\n"
		"  list [jobs|workfiles] [-v] show the jobs and shipped workfiles\n"
		"  report [-f FORMAT] FILE    print a result.json: table, csv, aim7, reaim...\n"
		"  compare A B [--fail-above PCT] [--noise PCT]\n"
		"                             jobs/min per level and job, B against A\n"
		"  plot FILE... [-o OUT.svg]  draw results with gnuplot (svg or png)\n"
		"  help                       show this help\n"
		"  version                    show the version\n"
		"\n"
		"See aimsweep(1) for the output, result.json and exit statuses.\n");
}

static int run_main(int argc, char **argv)
{
	struct run_params p;
	struct mix mix;
	char err[8192];
	int rc;

	rc = cli_parse_run(argc, argv, &p);
	if (rc) {
		params_free(&p);
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	}
	p.workfile_path = workfile_resolve(p.workfile_arg, err, sizeof(err));
	if (!p.workfile_path) {
		msg_error("%s", err);
		params_free(&p);
		return EXIT_USAGE;
	}
	if (workfile_load(p.workfile_path, &mix, err, sizeof(err))) {
		msg_error("%s", err);
		params_free(&p);
		return EXIT_USAGE;
	}
	/* Sizes: the workfile's, else the config file's (as reaim has it),
	 * else the reference reaim.config values. */
	if (!mix.file_size_set)
		mix.file_size = p.config.file_size_set ? p.config.file_size
						       : DEFAULT_FILE_SIZE;
	if (!mix.pool_size_set)
		mix.pool_size = p.config.pool_size_set ? p.config.pool_size
						       : DEFAULT_POOL_SIZE;
	if (p.layout == LAYOUT_UNSET)
		p.layout = mix.layout != LAYOUT_UNSET ? mix.layout
						      : LAYOUT_PER_USER;
	rc = limits_check(&p, mix.n_entries, users_loop_bytes(&mix));
	for (size_t i = 0; !rc && i < p.n_scratch; i++) {
		if (scratch_check_base(p.scratch_bases[i], err, sizeof(err))) {
			msg_error("%s", err);
			rc = EXIT_USAGE;
			break;
		}
		scratch_probe_fs(p.scratch_bases[i], &p.scratch_fs[i]);
		/* A back-to-back comparison on such a disk measures this as
		 * much as the kernel change: say so before the run. */
		if (p.scratch_fs[i].journal == 0 && mix_uses_dir(&mix))
			msg_warn("%s is on %s without a journal, which does not reuse "
				 "the inodes of files deleted in the last minute (six "
				 "while they are not written back): file-creating jobs "
				 "slow down when runs follow each other; leave a few "
				 "minutes between runs you compare",
				 p.scratch_bases[i], p.scratch_fs[i].type);
	}
	if (!rc)
		rc = sweep_run(&p, &mix);
	mix_free(&mix);
	params_free(&p);
	return rc;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("aimsweep %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "run"))
		return run_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return list_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return report_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return compare_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "plot"))
		return plot_main(argc - 1, argv + 1);
	msg_error("unknown command '%s' (aimsweep help)", cmd);
	return EXIT_USAGE;
}
