/* driver/cli/main.c: aimsweep's entry point: picks the subcommand. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "driver/cli/options.h"
#include "driver/cli/run_args.h"
#include "driver/output/compare.h"
#include "driver/cli/paths.h"
#include "driver/measure/limits.h"
#include "driver/cli/list.h"
#include "driver/capture/lock_bpf.h"
#include "driver/base/params.h"
#include "driver/output/plot.h"
#include "driver/output/report.h"
#include "driver/base/scratch.h"
#include "driver/run/sweep.h"
#include "driver/users/user_level.h"
#include "driver/base/util.h"
#include "driver/base/workfile.h"

/* The mix's jobs that cannot measure on a tmpfs what they are for: one
 * warning for each such note, naming every job it is about. */
static void warn_tmpfs_jobs(const char *base, const struct mix *mix)
{
	for (size_t i = 0; i < mix->n_entries; i++) {
		const char *note = mix->entries[i].job->on_tmpfs;
		char names[512] = "";
		size_t used = 0, k;

		for (k = 0; note && k < i; k++)
			if (mix->entries[k].job->on_tmpfs == note)
				break;
		if (!note || k < i)
			continue;	/* none, or said with an earlier job */
		for (k = i; k < mix->n_entries && used < sizeof(names); k++) {
			const struct job *j = mix->entries[k].job;

			if (j->on_tmpfs == note)
				used += snprintf(names + used,
						 sizeof(names) - used, "%s%s",
						 used ? ", " : "", j->name);
		}
		msg_warn("%s is a tmpfs: %s: %s", base, names, note);
	}
}

/* Each scratch directory can be written in, and what its filesystem is;
 * what that means for the measurement is said before the run. */
static int check_scratch_bases(struct run_params *p, const struct mix *mix)
{
	char err[PATH_MAX + 256];

	for (size_t i = 0; i < p->n_scratch; i++) {
		const char *base = p->scratch_bases[i];
		const struct scratch_fs *fs = &p->scratch_fs[i];

		if (scratch_check_base(base, err, sizeof(err))) {
			msg_error("%s", err);
			return EXIT_USAGE;
		}
		scratch_probe_fs(base, &p->scratch_fs[i]);
		if (!mix_uses_dir(mix))
			continue;
		if (!strcmp(fs->type, "tmpfs"))
			warn_tmpfs_jobs(base, mix);
		else if (p->scratch_default)
			msg_warn("no -d, DISKDIR or TMPDIR, and %s is not a "
				 "tmpfs one can write in: the users' files go "
				 "to %s, on %s, which the run measures as much "
				 "as the kernel; give -d a tmpfs to measure the "
				 "kernel alone",
				 SCRATCH_TMPFS, base, fs->type);
		/* A back-to-back comparison on such a disk measures this as
		 * much as the kernel change: say so before the run. */
		if (fs->journal == 0)
			msg_warn("%s is on %s without a journal, which does not reuse "
				 "the inodes of files deleted in the last minute (six "
				 "while they are not written back): file-creating jobs "
				 "slow down when runs follow each other; leave a few "
				 "minutes between runs you compare",
				 base, fs->type);
	}
	return 0;
}

/* The workfile as a mix, its sizes from the workfile, else the config
 * file's (as reaim has it), else the reference reaim.config values; and
 * the layout the run settles on. EXIT_USAGE after a message. */
static int load_mix(struct run_params *p, const struct config *config,
		    struct mix *mix)
{
	char err[8192];

	p->workfile_path = workfile_resolve(p->workfile_arg, err, sizeof(err));
	if (!p->workfile_path || workfile_load(p->workfile_path, mix, err,
					       sizeof(err))) {
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	if (!mix->file_size_set)
		mix->file_size = config->file_size_set ? config->file_size
						       : DEFAULT_FILE_SIZE;
	if (!mix->pool_size_set)
		mix->pool_size = config->pool_size_set ? config->pool_size
						       : DEFAULT_POOL_SIZE;
	if (p->layout == LAYOUT_UNSET)
		p->layout = mix->layout != LAYOUT_UNSET ? mix->layout
							: LAYOUT_PER_USER;
	return 0;
}

/*
 * result.json's params, made once from the option table when the
 * parameters are final: the writer copies them into every result.json
 * it writes, and adds what the run measured (driver/measure/run_record.h).
 */
static cJSON *params_json(const struct run_params *p)
{
	cJSON *o = cJSON_CreateObject();

	if (o && run_options_json(o, p)) {
		cJSON_Delete(o);
		o = NULL;
	}
	if (!o)
		msg_error("out of memory");
	return o;
}

static int run_main(int argc, char **argv)
{
	struct run_params p;
	struct config config;
	struct mix mix = { 0 };
	cJSON *params = NULL;
	int rc;

	rc = cli_parse_run(argc, argv, &p, &config);
	if (rc) {
		run_args_free(&p, &config);
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	}
	rc = load_mix(&p, &config, &mix);
	if (!rc)
		rc = limits_check(&p, mix.n_entries, users_loop_bytes(&mix));
	/* --check-limits asks no more than that: nothing is made. */
	if (rc || p.check_limits)
		goto out;
	rc = check_scratch_bases(&p, &mix);
	if (!rc && !(params = params_json(&p)))
		rc = EXIT_RUN_FAILED;
	if (!rc)
		rc = sweep_run(&p, &mix, params);
out:
	cJSON_Delete(params);
	mix_free(&mix);
	run_args_free(&p, &config);
	return rc;
}

static void main_usage(FILE *f);

static int help_main(int argc, char **argv);

static int version_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("aimsweep %s\n", PACKAGE_VERSION);
	if (lock_bpf_missing())
		printf("lock profile: perf lock record only (built without %s)\n",
		       lock_bpf_missing());
	else
		printf("lock profile: in-kernel collector (BPF), perf lock record as fallback\n");
	return EXIT_OK;
}

/* The subcommands; main() runs argv[1]'s with argv[1] as its argv[0]. */
static const struct command {
	const char *name;
	const char *alias[2];	/* "--help" and the like */
	int (*main)(int argc, char **argv);
	void (*usage)(FILE *f);	/* aimsweep help NAME */
	const char *synopsis, *summary;	/* a line of aimsweep help */
} commands[] = {
	{ "run", { NULL }, run_main, cli_run_usage,
	  "run [options] [WORKFILE]", "run a user ramp (aimsweep run --help)" },
	{ "list", { NULL }, list_main, list_usage,
	  "list [jobs|workfiles] [-v]", "show the jobs and shipped workfiles" },
	{ "report", { NULL }, report_main, report_usage,
	  "report [-f FORMAT] FILE",
	  "print a result.json: table, csv, aim7, reaim..." },
	{ "compare", { NULL }, compare_main, compare_usage,
	  "compare A B [--fail-above PCT] [--noise PCT]",
	  "jobs/min per level and job, B against A" },
	{ "plot", { NULL }, plot_main, plot_usage,
	  "plot FILE... [-o OUT.svg]",
	  "draw results with gnuplot (svg or png)" },
	{ "help", { "--help", "-h" }, help_main, main_usage,
	  "help [COMMAND]", "show this help, or COMMAND's" },
	{ "version", { "--version" }, version_main, NULL,
	  "version", "show the version" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *command_named(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct command *c = &commands[i];

		if (!strcmp(name, c->name) ||
		    (c->alias[0] && !strcmp(name, c->alias[0])) ||
		    (c->alias[1] && !strcmp(name, c->alias[1])))
			return c;
	}
	return NULL;
}

static void main_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep COMMAND [options]\n"
		"\n"
		"A multi-process scalability driver modeled on AIM7: runs a\n"
		"weighted job mix with a rising number of users and reports\n"
		"throughput per user level.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct command *c = &commands[i];

		/* A long synopsis puts its summary on the next line. */
		if (strlen(c->synopsis) > 26)
			fprintf(f, "  %s\n  %-26s %s\n", c->synopsis, "",
				c->summary);
		else
			fprintf(f, "  %-26s %s\n", c->synopsis, c->summary);
	}
	fprintf(f,
		"\n"
		"See aimsweep(1) for the output, result.json and exit statuses.\n");
}

static int help_main(int argc, char **argv)
{
	const struct command *c = argc > 1 ? command_named(argv[1]) : NULL;

	if (c && c->usage)
		c->usage(stdout);
	else
		main_usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	c = command_named(argv[1]);
	if (!c) {
		msg_error("unknown command '%s' (aimsweep help)", argv[1]);
		return EXIT_USAGE;
	}
	return c->main(argc - 1, argv + 1);
}
