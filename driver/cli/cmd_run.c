/* driver/cli/cmd_run.c: `aimsweep run`: from its command line to the sweep. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "driver/base/params.h"
#include "driver/base/scratch.h"
#include "driver/base/util.h"
#include "driver/base/workfile.h"
#include "driver/cli/cmd.h"
#include "driver/cli/options.h"
#include "driver/cli/paths.h"
#include "driver/cli/run_args.h"
#include "driver/measure/limits.h"
#include "driver/run/sweep.h"
#include "driver/users/user_level.h"

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

static int run_exec(int argc, char **argv)
{
	struct run_params p;
	struct config config;
	struct mix mix = { 0 };
	cJSON *params = NULL;
	char err[1024];
	int rc;

	rc = cli_parse_run(argc, argv, &p, &config);
	if (rc) {
		run_args_free(&p, &config);
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	}
	rc = load_mix(&p, &config, &mix);
	if (!rc && limits_check(&p, mix.n_entries, users_loop_bytes(&mix), err,
				sizeof(err))) {
		msg_error("%s", err);
		rc = EXIT_USAGE;
	}
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

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.synopsis = "run [options] [WORKFILE]",
	.summary = "run a user ramp (aimsweep run --help)",
	.exec = run_exec,
	/* run's options are its own table's (driver/cli/options.c), which
	 * also holds their reaim.config keys and result.json params. */
	.usage = cli_run_usage,
};
