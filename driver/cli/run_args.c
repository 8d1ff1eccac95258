/* driver/cli/run_args.c: the command line of `aimsweep run` and workfile lookup. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/base/args.h"
#include "driver/cli/run_args.h"
#include "driver/cli/options.h"
#include "driver/cli/paths.h"
#include "driver/base/scratch.h"
#include "driver/base/util.h"

void cli_run_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep run [options] [WORKFILE]\n"
		"\n"
		"Runs WORKFILE's job mix with a rising number of users, each level\n"
		"for a fixed time, and reports throughput per level. WORKFILE is a\n"
		"path or the name of a shipped workfile (aimsweep list workfiles);\n"
		"the default is " DEFAULT_WORKFILE ".\n"
		"\nOptions:\n");
	run_options_help(f);
	fprintf(f,
		"\nExit status: 0 every level ok; 1 a level failed, or result.json\n"
		"could not be rewritten after a level; 2 bad usage or input,\n"
		"found before any level ran (an output directory where the first\n"
		"result.json cannot be written included); 128+N ended by signal\n"
		"N (130 SIGINT, 143 SIGTERM). See aimsweep(1).\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	static const struct args run_args = { .cmd = "run" };
	va_list ap;

	va_start(ap, fmt);
	args_verror(&run_args, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

/* Whether the command line gave the option --name. */
static bool given_named(const bool *given, const char *name)
{
	return given[run_option_named(name) - run_options];
}

static int ramp_levels(struct run_params *p)
{
	size_t n;

	if (p->end_users < p->start_users)
		return usage_error("end %u is below start %u", p->end_users,
				   p->start_users);
	if (p->increment == 0 && p->end_users > p->start_users)
		return usage_error("-i/--increment: 0 would never reach the end");
	if (p->increment == 0)
		p->increment = 1;
	n = (p->end_users - p->start_users) / p->increment + 1;
	if (n > MAX_LEVELS)
		return usage_error("%zu levels from %u to %u by %u: at most %d",
				   n, p->start_users, p->end_users,
				   p->increment, MAX_LEVELS);
	p->levels = calloc(n, sizeof(*p->levels));
	if (!p->levels)
		return usage_error("out of memory");
	for (size_t i = 0; i < n; i++)
		p->levels[i] = p->start_users + (unsigned int)i * p->increment;
	p->n_levels = n;
	return 0;
}

/* The command line as a shell would need it: arguments with anything
 * but plain characters in single quotes. */
static char *join_args(int argc, char **argv)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789-_./,:=+@%";
	size_t len = sizeof("aimsweep");
	char *s, *w;

	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	w = s + sprintf(s, "aimsweep");
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		*w++ = ' ';
		if (*a && strspn(a, plain) == strlen(a)) {
			w = stpcpy(w, a);
			continue;
		}
		*w++ = '\'';
		for (; *a; a++)
			w = *a == '\'' ? stpcpy(w, "'\\''") : (*w = *a, w + 1);
		*w++ = '\'';
		*w = '\0';
	}
	*w = '\0';
	return s;
}

/* getopt's table from the rows: a row's letter is its val, else 256 and
 * its index. */
static void make_longopts(struct option *longopts)
{
	size_t n = 0;

	for (size_t i = 0; i < n_run_options; i++) {
		const struct run_option *o = &run_options[i];

		if (!o->name)
			continue;
		longopts[n++] = (struct option){
			o->name,
			o->kind == OPT_FLAG || o->kind == OPT_HELP ?
				no_argument : required_argument,
			NULL, o->letter ? o->letter : 256 + (int)i };
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
}

static const struct run_option *option_of(int c)
{
	if (c >= 256)
		return &run_options[c - 256];
	for (size_t i = 0; i < n_run_options; i++)
		if (run_options[i].letter == c)
			return &run_options[i];
	return NULL;
}

/* Each option into p through its row, given[] noting which came; then
 * the workfile. */
static int parse_command_line(int argc, char **argv, struct run_params *p,
			      bool *given)
{
	struct option longopts[RUN_OPTIONS_MAX + 1];
	struct args a = { .cmd = "run", .longopts = longopts,
			  .usage = cli_run_usage };
	const struct run_option *o;
	char why[512], label[64];
	int c;

	make_longopts(longopts);
	while ((c = args_next(&a, argc, argv)) != ARGS_END) {
		if (c < 0)
			return c == ARGS_HELP ? CLI_HELP_SHOWN : EXIT_USAGE;
		o = option_of(c);
		given[o - run_options] = true;
		if (!run_option_parse(o, optarg, p, why, sizeof(why))) {
			run_option_label(o, label, sizeof(label));
			return usage_error("%s: %s", label, why);
		}
	}
	if (optind < argc - 1)
		return usage_error("one workfile at most, got '%s' and '%s'",
				   argv[optind], argv[optind + 1]);
	p->workfile_arg = optind < argc ? argv[optind] : DEFAULT_WORKFILE;
	return 0;
}

/* What one option's row cannot say: how options go together. */
static int check_combinations(struct run_params *p, const bool *given)
{
	bool order_given = given_named(given, "repeat-order");
	char label[64];

	if (p->levels_given && (given_named(given, "start") ||
				given_named(given, "end") ||
				given_named(given, "increment")))
		return usage_error("--levels and -s/-e/-i do not mix: give one or the other");
	for (size_t i = 0; i < n_run_options; i++) {
		const struct run_option *o = &run_options[i];

		if (!given[i] || !o->needs || given_named(given, o->needs))
			continue;
		run_option_label(o, label, sizeof(label));
		return usage_error("%s needs --%s", label, o->needs);
	}
	if (order_given && p->repeat < 2)
		return usage_error("--repeat-order needs -r 2 or more");
	if (p->keep_profiles && !p->lock_profile && !p->cpu_profile)
		return usage_error("--keep-profiles needs --lock-profile or --cpu-profile");
	/* The crossover ends the ramp on a level's median repeat, which
	 * interleaved repeats give only in the last round. */
	if (p->crossover > 0 && p->repeat > 1) {
		if (order_given && p->interleave)
			return usage_error("--stop-at-crossover judges a level on all its repeats: use --repeat-order consecutive with it");
		p->interleave = false;
	}
	return 0;
}

/* -c's file, under the command line. */
static int read_config(struct run_params *p, struct config *config,
		       const bool *given)
{
	char err[PATH_MAX + 1024];

	if (config_load(p->config_path, config, err, sizeof(err)) ||
	    config_apply(config, p->config_path, p, given, err,
			 sizeof(err))) {
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	return 0;
}

/* What no option set: a random seed, a scratch directory, and what the
 * environment says. */
static void fill_unset(struct run_params *p, const bool *given)
{
	const char *tmp = getenv("TMPDIR");
	uint64_t seed;

	p->seed_given = given_named(given, "seed");
	if (!p->seed_given) {
		if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
			seed = now_ns() ^ (uint64_t)getpid();
		p->seed = seed;
	}
	if (!p->n_scratch) {
		p->scratch_default = !tmp || !*tmp;
		p->scratch_bases[p->n_scratch++] =
			p->scratch_default ? scratch_default_base() : tmp;
	}
	p->test_fault = getenv("AIMSWEEP_TEST_FAULT");
	p->libexec_dir = paths_libexec_dir();
}

int cli_parse_run(int argc, char **argv, struct run_params *p,
		  struct config *config)
{
	bool given[RUN_OPTIONS_MAX] = { false };
	int rc;

	run_options_defaults(p);
	memset(config, 0, sizeof(*config));
	p->cmdline = join_args(argc, argv);
	rc = parse_command_line(argc, argv, p, given);
	if (!rc)
		rc = check_combinations(p, given);
	if (!rc && p->config_path)
		rc = read_config(p, config, given);
	if (!rc && !p->levels_given)
		rc = ramp_levels(p);
	if (!rc)
		fill_unset(p, given);
	return rc;
}

void run_args_free(struct run_params *p, struct config *config)
{
	free(p->levels);
	free(p->workfile_path);
	free(p->cmdline);
	free(p->libexec_dir);
	config_free(config);
	memset(p, 0, sizeof(*p));
}
