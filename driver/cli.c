/* driver/cli.c: the command line of `aimsweep run` and workfile lookup. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/arena.h"
#include "driver/cli.h"
#include "driver/host.h"
#include "driver/paths.h"
#include "driver/report_formats.h"
#include "driver/util.h"

#define MAX_LEVELS 10000
#define MAX_USERS 1000000

enum {
	OPT_LEVELS = 256,
	OPT_SEED,
	OPT_LAYOUT,
	OPT_GRACE,
	OPT_HELP,
	OPT_NO_LATENCY,
	OPT_NO_PLOT,
	OPT_INTERVAL,
	OPT_MODE,
	OPT_CPUS,
	OPT_KNEE,
	OPT_CROSSOVER,
	OPT_LOCK_PROFILE,
	OPT_LOCK_PROFILE_S,
	OPT_LOCK_PROFILE_TOP,
	OPT_CPU_PROFILE,
	OPT_CPU_PROFILE_S,
	OPT_CPU_PROFILE_TOP,
	OPT_KEEP_PROFILES,
	OPT_HOOK,
	OPT_REPEAT_ORDER,
};

/* One table drives getopt_long and the help text. */
struct run_option {
	const char *name;
	int has_arg;
	int val;
	const char *metavar;
	const char *help;
};

static const struct run_option run_options[] = {
	{ "start", required_argument, 's', "N",
	  "first level's users (default 100)" },
	{ "end", required_argument, 'e', "N",
	  "most users a level may have: the ramp ends at the last level\n"
	  "not above it (default 1000)" },
	{ "increment", required_argument, 'i', "N",
	  "users added per level (default 100)" },
	{ "levels", required_argument, OPT_LEVELS, "LIST",
	  "run exactly these levels, e.g. 1,2,4,8\n(instead of -s/-e/-i)" },
	{ "runtime", required_argument, 't', "SECONDS",
	  "measured window per level (default 10)" },
	{ "warmup", required_argument, 'w', "SECONDS",
	  "unmeasured time after the start gate opens, in which users set\n"
	  "up and run; the window also waits until every user is set up\n"
	  "and in its loop for half of it (default 2)" },
	{ "grace", required_argument, OPT_GRACE, "SECONDS",
	  "time users get to finish after the window, counted again from\n"
	  "each user that finishes or makes a step of its op, before they\n"
	  "are killed and the level fails (default 5)" },
	{ "dir", required_argument, 'd', "DIR",
	  "scratch directory (default: -c's DISKDIR, else $TMPDIR, else\n"
	  "/tmp); a private aimsweep.XXXXXX directory is made inside and\n"
	  "removed at the end; repeat -d to spread users over several\n"
	  "(user u uses the (u mod n)th), like reaim's DISKDIR" },
	{ "config", required_argument, 'c', "FILE",
	  "read a reaim.config: FILESIZE, POOLSIZE (the workfile's win),\n"
	  "DISKDIR (as -d), STARTUSERS, ENDUSERS, INCREMENT (as -s, -e,\n"
	  "-i); the command line wins over it" },
	{ "output", required_argument, 'o', "DIR",
	  "results directory (default ./results); each run writes\n"
	  "DIR/<date>-<workfile>/result.json" },
	{ "layout", required_argument, OPT_LAYOUT, "shared|per-user",
	  "all users work in one directory, or each in its own\n"
	  "(default: the workfile's LAYOUT, else per-user)" },
	{ "seed", required_argument, OPT_SEED, "N",
	  "seed for each user's job order (default: random, recorded)" },
	{ "format", required_argument, 'f', "FORMAT",
	  "stdout: default (the table, a row per level as it ends; with\n"
	  "interleaved -r, in the last round), simple, json, csv, aim7\n"
	  "(AIM7's multitask table), reaim (reaim's table) or lkp (printed\n"
	  "at the end; see aimsweep report --help)" },
	{ "no-plot", no_argument, OPT_NO_PLOT, NULL,
	  "do not draw plot.svg and plot.png into the result directory\n"
	  "(drawn by default when gnuplot is installed)" },
	{ "repeat", required_argument, 'r', "N",
	  "run each level N times and report their spread (default 1)" },
	{ "repeat-order", required_argument, OPT_REPEAT_ORDER, "ORDER",
	  "with -r: interleaved (default) runs the whole ramp N times over\n"
	  "(levels 1,2,1,2), so that each level's spread takes in the\n"
	  "machine's drift over the run, and prints the table's rows in\n"
	  "the last round; consecutive runs each level N times in a row\n"
	  "(1,1,2,2)" },
	{ "interval", required_argument, OPT_INTERVAL, "SECONDS",
	  "sample throughput this often inside the window (default 1)" },
	{ "no-latency", no_argument, OPT_NO_LATENCY, NULL,
	  "do not time ops (no latency histograms); a user with one job\n"
	  "still times its first 7 of each level, to set how often it\n"
	  "stores its count" },
	{ "mode", required_argument, OPT_MODE, "process|thread",
	  "users are processes (default) or threads of one process" },
	{ "cpus", required_argument, OPT_CPUS, "LIST",
	  "pin users round-robin to these CPUs, e.g. 0-3,6 (default:\n"
	  "unpinned)" },
	{ "knee", required_argument, OPT_KNEE, "FRACTION",
	  "the knee is the first ok level whose per-user throughput is\n"
	  "below FRACTION of the first ok level's (default 0.8)" },
	{ "stop-at-crossover", required_argument, OPT_CROSSOVER, "JPM",
	  "end the ramp after the first ok level whose jobs/min/user\n"
	  "falls below JPM, at least 0.001 (AIM7's crossover); with -r,\n"
	  "the repeats of a level run in a row, so that it is judged on\n"
	  "all of them" },
	{ "lock-profile", no_argument, OPT_LOCK_PROFILE, NULL,
	  "profile kernel lock contention in each level's window with\n"
	  "perf lock (root or kernel.perf_event_paranoid -1); the top\n"
	  "callers by wait go into result.json" },
	{ "lock-profile-seconds", required_argument, OPT_LOCK_PROFILE_S, "N",
	  "profile the first N seconds of each window (default 1, at\n"
	  "most the runtime)" },
	{ "lock-profile-top", required_argument, OPT_LOCK_PROFILE_TOP, "N",
	  "callers kept per level (default 10)" },
	{ "cpu-profile", no_argument, OPT_CPU_PROFILE, NULL,
	  "sample where the CPUs' time goes in each level's window with\n"
	  "perf record -e cpu-clock (root or kernel.perf_event_paranoid\n"
	  "0); the top symbols' shares of all samples go into\n"
	  "result.json; with --lock-profile, first the CPU profile, then\n"
	  "the lock profile" },
	{ "cpu-profile-seconds", required_argument, OPT_CPU_PROFILE_S, "N",
	  "sample the first N seconds of each window (default 1, at most\n"
	  "the runtime)" },
	{ "cpu-profile-top", required_argument, OPT_CPU_PROFILE_TOP, "N",
	  "symbols kept per level (default 20)" },
	{ "keep-profiles", no_argument, OPT_KEEP_PROFILES, NULL,
	  "keep each level's perf.data in its level directory beside\n"
	  "result.json, level-<users>/ (level-<users>-r<k>/ with -r; .2\n"
	  "for a user count's second level)" },
	{ "hook", required_argument, OPT_HOOK, "CMD",
	  "run /bin/sh -c CMD at the start of each level's window, with\n"
	  "AIMSWEEP_USERS, AIMSWEEP_LEVEL, AIMSWEEP_RUNTIME and\n"
	  "AIMSWEEP_LEVEL_DIR set and its output in that directory's\n"
	  "hook.out; SIGTERM at the level's end if still running" },
	{ "help", no_argument, 'h', NULL, "show this help" },
};

#define N_RUN_OPTIONS (sizeof(run_options) / sizeof(run_options[0]))

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
	for (size_t i = 0; i < N_RUN_OPTIONS; i++) {
		const struct run_option *o = &run_options[i];
		char left[64];
		const char *h = o->help, *nl;

		if (o->val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->val,
				 o->name, o->metavar ? " " : "",
				 o->metavar ? o->metavar : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				 o->metavar ? " " : "",
				 o->metavar ? o->metavar : "");
		/* Multi-line help is indented under its first line. */
		for (int first = 1; h; first = 0) {
			nl = strchr(h, '\n');
			fprintf(f, "  %-28s %.*s\n", first ? left : "",
				nl ? (int)(nl - h) : (int)strlen(h), h);
			h = nl ? nl + 1 : NULL;
		}
	}
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
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	msg_error("%s (aimsweep run --help)", buf);
	return EXIT_USAGE;
}

static int parse_users(const char *opt, const char *arg, unsigned int *out)
{
	uint64_t v;

	if (!parse_u64(arg, MAX_USERS, &v))
		return usage_error("%s: '%s' is not a number of users from 1 to %d",
				   opt, arg, MAX_USERS);
	if (v == 0)
		return usage_error("%s: 0 users: a level needs at least 1", opt);
	*out = (unsigned int)v;
	return 0;
}

static bool parse_double(const char *arg, double min, double max,
			 double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static int parse_seconds(const char *opt, const char *arg, double min,
			 double max, double *out)
{
	if (!parse_double(arg, min, max, out))
		return usage_error("%s: '%s' is not a time in seconds from %g to %g",
				   opt, arg, min, max);
	return 0;
}

static int parse_levels(const char *arg, struct run_params *p)
{
	const char *s = arg;
	char word[32];
	size_t n;

	free(p->levels);
	p->levels = calloc(MAX_LEVELS, sizeof(*p->levels));
	p->n_levels = 0;
	if (!p->levels)
		return usage_error("--levels: out of memory");
	while (*s) {
		n = strcspn(s, ",");
		if (n == 0 || n >= sizeof(word))
			return usage_error("--levels: bad list '%s' (want e.g. 1,2,4,8)",
					   arg);
		memcpy(word, s, n);
		word[n] = '\0';
		if (p->n_levels == MAX_LEVELS)
			return usage_error("--levels: more than %d levels",
					   MAX_LEVELS);
		if (parse_users("--levels", word, &p->levels[p->n_levels]))
			return EXIT_USAGE;
		p->n_levels++;
		s += n;
		if (*s == ',' && !*++s)
			return usage_error("--levels: bad list '%s' (trailing comma)",
					   arg);
	}
	if (!p->n_levels)
		return usage_error("--levels: empty list");
	p->levels_given = true;
	return 0;
}

/* "0-3,6": CPUs in the order users are pinned to them; each must be
 * online here. */
static int parse_cpus(const char *arg, struct run_params *p)
{
	long online = sysconf(_SC_NPROCESSORS_CONF);
	const char *s = arg;
	char *end;
	long a, b;

	p->n_cpus = 0;
	while (*s) {
		errno = 0;
		a = strtol(s, &end, 10);
		if (end == s || errno || a < 0)
			goto bad;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || errno || b < a)
				goto bad;
		}
		for (long c = a; c <= b; c++) {
			if (c >= online || c >= CPU_SETSIZE)
				return usage_error("--cpus: CPU %ld does not exist here (CPUs 0-%ld)",
						   c, online - 1);
			if (p->n_cpus == MAX_CPUS_LISTED)
				return usage_error("--cpus: more than %d CPUs",
						   MAX_CPUS_LISTED);
			p->cpus[p->n_cpus++] = (int)c;
		}
		s = end;
		if (*s == ',' && *++s == '\0')
			goto bad;
		else if (*s && *s != ',' && !(*s >= '0' && *s <= '9'))
			goto bad;
	}
	if (p->n_cpus)
		return 0;
bad:
	return usage_error("--cpus: bad list '%s' (want e.g. 0-3,6)", arg);
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

int cli_parse_run(int argc, char **argv, struct run_params *p)
{
	struct option longopts[N_RUN_OPTIONS + 1];
	char shortopts[64] = ":";	/* ":": a missing value returns ':' */
	bool start_given = false, end_given = false, inc_given = false;
	bool order_given = false;	/* needs -r 2 or more */
	const char *lock_opts_given = NULL;	/* needs --lock-profile */
	const char *cpu_opts_given = NULL;	/* needs --cpu-profile */
	uint64_t seed, number;
	int c, rc;

	memset(p, 0, sizeof(*p));
	p->start_users = DEFAULT_START_USERS;
	p->end_users = DEFAULT_END_USERS;
	p->increment = DEFAULT_INCREMENT;
	p->runtime_s = DEFAULT_RUNTIME_S;
	p->warmup_s = DEFAULT_WARMUP_S;
	p->grace_s = DEFAULT_GRACE_S;
	p->latency = true;
	p->interval_s = DEFAULT_INTERVAL_S;
	p->repeat = 1;
	p->interleave = true;
	p->knee = DEFAULT_KNEE;
	p->lock_profile_s = DEFAULT_LOCK_PROFILE_S;
	p->lock_profile_top = DEFAULT_LOCK_PROFILE_TOP;
	p->cpu_profile_s = DEFAULT_CPU_PROFILE_S;
	p->cpu_profile_top = DEFAULT_CPU_PROFILE_TOP;
	p->output_dir = DEFAULT_OUTPUT_DIR;
	p->cmdline = join_args(argc, argv);

	for (size_t i = 0; i < N_RUN_OPTIONS; i++) {
		longopts[i] = (struct option){ run_options[i].name,
					       run_options[i].has_arg, NULL,
					       run_options[i].val };
		if (run_options[i].val < 256) {
			size_t n = strlen(shortopts);

			shortopts[n] = (char)run_options[i].val;
			shortopts[n + 1] = run_options[i].has_arg ? ':' : '\0';
			shortopts[n + 2] = '\0';
		}
	}
	memset(&longopts[N_RUN_OPTIONS], 0, sizeof(longopts[0]));

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 's':
			rc = parse_users("-s/--start", optarg, &p->start_users);
			start_given = true;
			break;
		case 'e':
			rc = parse_users("-e/--end", optarg, &p->end_users);
			end_given = true;
			break;
		case 'i':
			if (!parse_u64(optarg, MAX_USERS, &number))
				return usage_error("-i/--increment: '%s' is not a number of users",
						   optarg);
			p->increment = (unsigned int)number;
			inc_given = true;
			break;
		case OPT_LEVELS:
			rc = parse_levels(optarg, p);
			break;
		case 't':
			rc = parse_seconds("-t/--runtime", optarg, 0.1, 86400,
					   &p->runtime_s);
			break;
		case 'w':
			rc = parse_seconds("-w/--warmup", optarg, 0, 3600,
					   &p->warmup_s);
			break;
		case OPT_GRACE:
			rc = parse_seconds("--grace", optarg, 0.1, 3600,
					   &p->grace_s);
			break;
		case 'd':
			if (p->n_scratch == MAX_SCRATCH_DIRS)
				return usage_error("-d/--dir: at most %d scratch directories",
						   MAX_SCRATCH_DIRS);
			p->scratch_bases[p->n_scratch++] = optarg;
			break;
		case 'c':
			p->config_path = optarg;
			break;
		case 'o':
			p->output_dir = optarg;
			break;
		case OPT_LAYOUT:
			if (!layout_parse(optarg, &p->layout))
				return usage_error("--layout: '%s' is not shared or per-user",
						   optarg);
			break;
		case OPT_SEED:
			if (!parse_u64(optarg, UINT64_MAX, &p->seed))
				return usage_error("--seed: '%s' is not a whole number",
						   optarg);
			p->seed_given = true;
			break;
		case 'r':
			if (!parse_u64(optarg, 1000, &number) || !number)
				return usage_error("-r/--repeat: '%s' is not a count from 1 to 1000",
						   optarg);
			p->repeat = (unsigned int)number;
			break;
		case OPT_INTERVAL:
			rc = parse_seconds("--interval", optarg, 0.01, 3600,
					   &p->interval_s);
			break;
		case OPT_NO_LATENCY:
			p->latency = false;
			break;
		case 'f': {
			enum report_format fmt;

			if (!report_format_parse(optarg, &fmt))
				return usage_error("-f/--format: '%s' is not " REPORT_FORMAT_NAMES,
						   optarg);
			p->format = optarg;
			break;
		}
		case OPT_NO_PLOT:
			p->no_plot = true;
			break;
		case OPT_REPEAT_ORDER:
			if (!strcmp(optarg, "interleaved"))
				p->interleave = true;
			else if (!strcmp(optarg, "consecutive"))
				p->interleave = false;
			else
				return usage_error("--repeat-order: '%s' is not interleaved or consecutive",
						   optarg);
			order_given = true;
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "process"))
				p->mode = MODE_PROCESS;
			else if (!strcmp(optarg, "thread"))
				p->mode = MODE_THREAD;
			else
				return usage_error("--mode: '%s' is not process or thread",
						   optarg);
			break;
		case OPT_CPUS:
			rc = parse_cpus(optarg, p);
			break;
		case OPT_KNEE:
			if (!parse_double(optarg, 0.01, 1, &p->knee))
				return usage_error("--knee: '%s' is not a fraction from 0.01 to 1",
						   optarg);
			break;
		case OPT_CROSSOVER:
			if (!parse_double(optarg, 0.001, 1e18, &p->crossover))
				return usage_error("--stop-at-crossover: '%s' is not a jobs/min/user of at least 0.001",
						   optarg);
			break;
		case OPT_LOCK_PROFILE:
			p->lock_profile = true;
			break;
		case OPT_LOCK_PROFILE_S:
			rc = parse_seconds("--lock-profile-seconds", optarg, 0.1,
					   86400, &p->lock_profile_s);
			lock_opts_given = "--lock-profile-seconds";
			break;
		case OPT_LOCK_PROFILE_TOP:
			if (!parse_u64(optarg, 100000, &number) || !number)
				return usage_error("--lock-profile-top: '%s' is not a number from 1 to 100000",
						   optarg);
			p->lock_profile_top = (unsigned int)number;
			lock_opts_given = "--lock-profile-top";
			break;
		case OPT_CPU_PROFILE:
			p->cpu_profile = true;
			break;
		case OPT_CPU_PROFILE_S:
			rc = parse_seconds("--cpu-profile-seconds", optarg, 0.1,
					   86400, &p->cpu_profile_s);
			cpu_opts_given = "--cpu-profile-seconds";
			break;
		case OPT_CPU_PROFILE_TOP:
			if (!parse_u64(optarg, 100000, &number) || !number)
				return usage_error("--cpu-profile-top: '%s' is not a number from 1 to 100000",
						   optarg);
			p->cpu_profile_top = (unsigned int)number;
			cpu_opts_given = "--cpu-profile-top";
			break;
		case OPT_KEEP_PROFILES:
			p->keep_profiles = true;
			break;
		case OPT_HOOK:
			if (!optarg[strspn(optarg, " \t\n")])
				return usage_error("--hook: the command is empty");
			p->hook_cmd = optarg;
			break;
		case 'h':
			cli_run_usage(stdout);
			return CLI_HELP_SHOWN;
		case ':':
			return usage_error("option %s needs a value",
					   argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return usage_error("unknown option -%c", optopt);
			return usage_error("unknown option %s", argv[optind - 1]);
		}
		if (rc)
			return rc;
	}
	if (optind < argc - 1)
		return usage_error("one workfile at most, got '%s' and '%s'",
				   argv[optind], argv[optind + 1]);
	p->workfile_arg = optind < argc ? argv[optind] : DEFAULT_WORKFILE;
	if (p->levels_given && (start_given || end_given || inc_given))
		return usage_error("--levels and -s/-e/-i do not mix: give one or the other");
	if (lock_opts_given && !p->lock_profile)
		return usage_error("%s needs --lock-profile", lock_opts_given);
	if (cpu_opts_given && !p->cpu_profile)
		return usage_error("%s needs --cpu-profile", cpu_opts_given);
	if (p->keep_profiles && !p->lock_profile && !p->cpu_profile)
		return usage_error("--keep-profiles needs --lock-profile or --cpu-profile");
	/* The two profiles take turns in the window: each alone would see
	 * the other's perf at work. */
	if (p->cpu_profile && p->lock_profile &&
	    p->cpu_profile_s + p->lock_profile_s > p->runtime_s)
		return usage_error("--cpu-profile and --lock-profile take turns in each window: their %g s and %g s need a runtime of at least %g s, and it is %g s (give -t %g, or shorter --cpu-profile-seconds or --lock-profile-seconds)",
				   p->cpu_profile_s, p->lock_profile_s,
				   p->cpu_profile_s + p->lock_profile_s,
				   p->runtime_s,
				   p->cpu_profile_s + p->lock_profile_s);
	if (order_given && p->repeat < 2)
		return usage_error("--repeat-order needs -r 2 or more");
	/* The crossover ends the ramp on a level's median repeat, which
	 * interleaved repeats give only in the last round. */
	if (p->crossover > 0 && p->repeat > 1) {
		if (order_given && p->interleave)
			return usage_error("--stop-at-crossover judges a level on all its repeats: use --repeat-order consecutive with it");
		p->interleave = false;
	}
	if (p->config_path) {
		char err[PATH_MAX + 256];

		if (config_load(p->config_path, &p->config, err, sizeof(err))) {
			msg_error("%s", err);
			return EXIT_USAGE;
		}
		/* The command line wins over the config file. */
		if (!start_given && p->config.start_set)
			p->start_users = p->config.start_users;
		if (!end_given && p->config.end_set)
			p->end_users = p->config.end_users;
		if (!inc_given && p->config.increment_set)
			p->increment = p->config.increment;
		for (size_t i = 0; !p->n_scratch && i < p->config.n_diskdirs; i++)
			p->scratch_bases[i] = p->config.diskdirs[i];
		if (!p->n_scratch)
			p->n_scratch = p->config.n_diskdirs;
	}
	if (!p->levels_given && (rc = ramp_levels(p)))
		return rc;
	if (!p->seed_given) {
		if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
			seed = now_ns() ^ (uint64_t)getpid();
		p->seed = seed;
	}
	if (!p->n_scratch) {
		const char *tmp = getenv("TMPDIR");

		p->scratch_bases[p->n_scratch++] = tmp && *tmp ? tmp : "/tmp";
	}
	p->test_fault = getenv("AIMSWEEP_TEST_FAULT");
	p->libexec_dir = paths_libexec_dir();
	return 0;
}

/* Tasks on the system now, from /proc/loadavg's "running/total" field. */
static long tasks_now(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	long running, total = 0;
	double l1, l5, l15;

	if (!f)
		return 0;
	if (fscanf(f, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &running,
		   &total) != 5)
		total = 0;
	fclose(f);
	return total;
}

static long read_long_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Above this many users, a running kdamond is worth a warning. */
#define KDAMOND_WARN_USERS 1000

int cli_check_limits(const struct run_params *p, size_t n_entries,
		     size_t loop_bytes)
{
	unsigned int max = 0, kdamonds;
	long pid_max = read_long_file("/proc/sys/kernel/pid_max");
	long threads_max = read_long_file("/proc/sys/kernel/threads-max");
	long tasks = tasks_now();
	struct rlimit rl;
	/* Room left for the driver, the shell and whatever else runs. */
	const long margin = 64;

	for (size_t i = 0; i < p->n_levels; i++)
		if (p->levels[i] > max)
			max = p->levels[i];
	if (pid_max > 0 && (long)max > pid_max - tasks - margin) {
		msg_error("a level of %u users is more than this machine allows: kernel.pid_max is %ld and %ld tasks exist, leaving %ld",
			  max, pid_max, tasks, pid_max - tasks - margin);
		return EXIT_USAGE;
	}
	if (threads_max > 0 && (long)max > threads_max - tasks - margin) {
		msg_error("a level of %u users is more than this machine allows: kernel.threads-max is %ld and %ld tasks exist, leaving %ld",
			  max, threads_max, tasks, threads_max - tasks - margin);
		return EXIT_USAGE;
	}
	/* RLIMIT_NPROC counts every process of the user; root is exempt. */
	if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && (rlim_t)max + 1 > rl.rlim_cur) {
		msg_error("a level of %u users is more than this machine allows: RLIMIT_NPROC (ulimit -u) is %llu processes",
			  max, (unsigned long long)rl.rlim_cur);
		return EXIT_USAGE;
	}
	if (arena_size_for(max, n_entries, loop_bytes, p->latency) >
	    SIZE_MAX / 4) {
		msg_error("a level of %u users needs more counter memory than this machine can map",
			  max);
		return EXIT_USAGE;
	}
	/* Not a limit, but it can stall such a level: see host_kdamonds(). */
	if (max > KDAMOND_WARN_USERS && (kdamonds = host_kdamonds()))
		msg_warn("DAMON is monitoring this machine's memory (%u kdamond thread%s): "
			 "its reverse-map walks hold locks that all %u users take to "
			 "fork and exit, which can hold up their start and end for "
			 "minutes (see SCHEDULING in aimsweep(1)); host.kdamonds in "
			 "result.json records it",
			 kdamonds, kdamonds == 1 ? "" : "s", max);
	return 0;
}

void params_free(struct run_params *p)
{
	free(p->levels);
	free(p->workfile_path);
	free(p->cmdline);
	free(p->libexec_dir);
	config_free(&p->config);
	memset(p, 0, sizeof(*p));
}
