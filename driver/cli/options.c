/* driver/cli/options.c: the options of `aimsweep run`, one descriptor each. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/capture/cpu_profile.h"
#include "driver/cli/options.h"
#include "driver/output/report.h"
#include "driver/users/user_loop.h"
#include "driver/base/util.h"

/* "'x' is not ..." and the like, into why; always false. */
static bool why_not(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool why_not(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

/* A number of users from min to max; "0 users" has a message of its own. */
static bool users_value(const char *arg, unsigned int min, unsigned int max,
			unsigned int *out, char *why, size_t len)
{
	bool number;
	uint64_t v;

	number = parse_u64(arg, max, &v);
	if (number && v == 0 && min > 0)
		return why_not(why, len, "0 users: a level needs at least 1");
	if (!number || v < min)
		return why_not(why, len,
			       "'%s' is not a number of users from %u to %u",
			       arg, min, max);
	*out = (unsigned int)v;
	return true;
}

static bool parse_levels(const struct run_option *o, const char *arg,
			 struct run_params *p, char *why, size_t len)
{
	const char *s = arg;
	char word[32];
	size_t n;

	(void)o;
	free(p->levels);
	p->levels = calloc(MAX_LEVELS, sizeof(*p->levels));
	p->n_levels = 0;
	if (!p->levels)
		return why_not(why, len, "out of memory");
	while (*s) {
		n = strcspn(s, ",");
		if (n == 0 || n >= sizeof(word))
			return why_not(why, len,
				       "bad list '%s' (want e.g. 1,2,4,8)", arg);
		memcpy(word, s, n);
		word[n] = '\0';
		if (p->n_levels == MAX_LEVELS)
			return why_not(why, len, "more than %d levels",
				       MAX_LEVELS);
		if (!users_value(word, 1, MAX_USERS, &p->levels[p->n_levels],
				 why, len))
			return false;
		p->n_levels++;
		s += n;
		if (*s == ',' && !*++s)
			return why_not(why, len,
				       "bad list '%s' (trailing comma)", arg);
	}
	if (!p->n_levels)
		return why_not(why, len, "empty list");
	p->levels_given = true;
	return true;
}

/* "0-3,6": CPUs in the order users are pinned to them; each must be
 * online here. */
static bool parse_cpus(const struct run_option *o, const char *arg,
		       struct run_params *p, char *why, size_t len)
{
	long online = sysconf(_SC_NPROCESSORS_CONF);
	const char *s = arg;
	char *end;
	long a, b;

	(void)o;
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
				return why_not(why, len,
					       "CPU %ld does not exist here (CPUs 0-%ld)",
					       c, online - 1);
			if (p->n_cpus == MAX_CPUS_LISTED)
				return why_not(why, len, "more than %d CPUs",
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
		return true;
bad:
	return why_not(why, len, "bad list '%s' (want e.g. 0-3,6)", arg);
}

static bool parse_dir(const struct run_option *o, const char *arg,
		      struct run_params *p, char *why, size_t len)
{
	(void)o;
	if (p->n_scratch == MAX_SCRATCH_DIRS)
		return why_not(why, len, "at most %d scratch directories",
			       MAX_SCRATCH_DIRS);
	p->scratch_bases[p->n_scratch++] = arg;
	return true;
}

static bool parse_format(const struct run_option *o, const char *arg,
			 struct run_params *p, char *why, size_t len)
{
	enum report_format fmt;

	(void)o;
	if (!report_format_parse(arg, &fmt))
		return why_not(why, len, "'%s' is not " REPORT_FORMAT_NAMES,
			       arg);
	p->format = arg;
	return true;
}

static bool parse_hook(const struct run_option *o, const char *arg,
		       struct run_params *p, char *why, size_t len)
{
	(void)o;
	if (!arg[strspn(arg, " \t\n")])
		return why_not(why, len, "the command is empty");
	p->hook_cmd = arg;
	return true;
}

static bool push_number(cJSON *arr, double v)
{
	cJSON *n = cJSON_CreateNumber(v);

	if (!n || !cJSON_AddItemToArray(arr, n)) {
		cJSON_Delete(n);
		return false;
	}
	return true;
}

static bool push_string(cJSON *arr, const char *v)
{
	cJSON *s = cJSON_CreateString(v);

	if (!s || !cJSON_AddItemToArray(arr, s)) {
		cJSON_Delete(s);
		return false;
	}
	return true;
}

static bool levels_json(const struct run_option *o,
			const struct run_params *p, cJSON *params)
{
	cJSON *arr = cJSON_AddArrayToObject(params, o->json);

	if (!arr)
		return false;
	for (size_t i = 0; i < p->n_levels; i++)
		if (!push_number(arr, p->levels[i]))
			return false;
	return true;
}

/* One run of each level is consecutive, whatever was asked for. */
static bool repeat_order_json(const struct run_option *o,
			      const struct run_params *p, cJSON *params)
{
	return cJSON_AddStringToObject(params, o->json,
				       p->interleave && p->repeat > 1 ?
				       "interleaved" : "consecutive");
}

static bool cpus_json(const struct run_option *o, const struct run_params *p,
		      cJSON *params)
{
	cJSON *arr = p->n_cpus ? cJSON_AddArrayToObject(params, o->json) :
				 NULL;

	if (p->n_cpus && !arr)
		return false;
	for (size_t i = 0; i < p->n_cpus; i++)
		if (!push_number(arr, p->cpus[i]))
			return false;
	return cJSON_AddStringToObject(params, "pinning",
				       p->n_cpus ? "user u runs on cpus[u mod n]" :
						   "none");
}

/* The directories, then each one's filesystem. */
static bool dirs_json(const struct run_option *o, const struct run_params *p,
		      cJSON *params)
{
	cJSON *dirs = cJSON_AddArrayToObject(params, o->json);
	cJSON *fss = cJSON_AddArrayToObject(params, "scratch_fs");

	if (!dirs || !fss)
		return false;
	for (size_t i = 0; i < p->n_scratch; i++) {
		const struct scratch_fs *f = &p->scratch_fs[i];
		cJSON *fs = cJSON_CreateObject();

		if (!fs || !cJSON_AddItemToArray(fss, fs)) {
			cJSON_Delete(fs);
			return false;
		}
		if (!push_string(dirs, p->scratch_bases[i]) ||
		    !cJSON_AddStringToObject(fs, "type", f->type) ||
		    (f->journal >= 0 &&
		     !cJSON_AddBoolToObject(fs, "journal", f->journal)))
			return false;
	}
	return true;
}

/* result.json's params.latency_sampling.rule: how users time ops. The
 * writer adds the timer's cost the run measured (timer_ns) to the object. */
static const char latency_rule[] =
	"each user times one op in N per job, N the smallest power of two "
	"(1 to 1024) for which two clock reads cost at most budget_pct of N "
	"ops, re-chosen after every timed op; only ops that end inside the "
	"window are recorded";

static bool latency_json(const struct run_option *o,
			 const struct run_params *p, cJSON *params)
{
	cJSON *ls;

	if (!p->latency)
		return true;
	ls = cJSON_AddObjectToObject(params, o->json);
	return ls &&
	       cJSON_AddStringToObject(ls, "rule", latency_rule) &&
	       cJSON_AddNumberToObject(ls, "budget_pct",
				       SAMPLE_BUDGET_PERMILLE / 10.0);
}

/* --cpu-profile's object: what it samples and the rule that marks a
 * level disturbed; its seconds and top follow from their rows. */
static bool cpu_profile_json(const struct run_option *o,
			     const struct run_params *p, cJSON *params)
{
	cJSON *cp;

	if (!p->cpu_profile)
		return true;
	cp = cJSON_AddObjectToObject(params, o->json);
	return cp &&
	       cJSON_AddStringToObject(cp, "event", "cpu-clock") &&
	       cJSON_AddNumberToObject(cp, "frequency_hz", CPU_PROFILE_HZ) &&
	       cJSON_AddNumberToObject(cp, "disturbed_above_pct",
				       CPU_PROFILE_DISTURB_PCT);
}

/* --keep-profiles goes with each profile that was taken. */
static bool keep_profiles_json(const struct run_option *o,
			       const struct run_params *p, cJSON *params)
{
	static const char *const keys[] = { "lock_profile", "cpu_profile" };
	const bool taken[] = { p->lock_profile, p->cpu_profile };

	for (size_t i = 0; i < 2; i++) {
		cJSON *obj;

		if (!taken[i])
			continue;
		obj = cJSON_GetObjectItemCaseSensitive(params, keys[i]);
		if (!obj || !cJSON_AddBoolToObject(obj, o->json,
						   p->keep_profiles))
			return false;
	}
	return true;
}

static const struct opt_choice order_choices[] = {
	{ "interleaved", true },
	{ "consecutive", false },
	{ NULL, 0 },
};

static const struct opt_choice lock_method_choices[] = {
	{ "auto", LOCK_METHOD_AUTO },
	{ "bpf", LOCK_METHOD_BPF },
	{ "perf", LOCK_METHOD_PERF },
	{ NULL, 0 },
};

static const struct opt_choice mode_choices[] = {
	{ "process", MODE_PROCESS },
	{ "thread", MODE_THREAD },
	{ NULL, 0 },
};

static const struct opt_choice layout_choices[] = {
	{ "shared", LAYOUT_SHARED },
	{ "per-user", LAYOUT_PER_USER },
	{ NULL, 0 },
};

/*
 * In the order of `aimsweep run --help` and of result.json's params.
 * Adding an option: its field in struct run_params, its row here, its
 * entry in aimsweep.1's OPTIONS (tests/man-options.sh checks it), and,
 * when it has a json key, its row in results/SCHEMA.md.
 */
const struct run_option run_options[] = {
	{ .json = "workfile", .kind = OPT_STRING, RUN_FIELD(workfile_path) },
	{ "start", 's', OPT_USERS, RUN_FIELD(start_users),
	  .def = 100, .min = 1, .max = MAX_USERS, .config_key = "STARTUSERS",
	  .help = "users of the first level" },
	{ "end", 'e', OPT_USERS, RUN_FIELD(end_users),
	  .def = 1000, .min = 1, .max = MAX_USERS, .config_key = "ENDUSERS",
	  .help = "most users a level may have: the ramp ends at the last "
		  "level not above it" },
	{ "increment", 'i', OPT_USERS, RUN_FIELD(increment),
	  .def = 100, .min = 0, .max = MAX_USERS, .config_key = "INCREMENT",
	  .help = "users added per level" },
	{ "levels", 0, OPT_CUSTOM, .metavar = "LIST", .json = "levels",
	  .parse = parse_levels, .to_json = levels_json,
	  .help = "run exactly these levels, e.g. 1,2,4,8 (instead of "
		  "-s/-e/-i)" },
	{ "runtime", 't', OPT_SECONDS, RUN_FIELD(runtime_s),
	  .def = 10, .min = 0.1, .max = 86400, .json = "runtime_s",
	  .help = "measured window per level" },
	{ "warmup", 'w', OPT_SECONDS, RUN_FIELD(warmup_s),
	  .def = 2, .min = 0, .max = 3600, .json = "warmup_s",
	  .help = "unmeasured time after the start gate opens, in which users "
		  "set up and run; the window also waits until every user is "
		  "set up and in its loop for half of it" },
	{ "grace", 0, OPT_SECONDS, RUN_FIELD(grace_s),
	  .def = 5, .min = 0.1, .max = 3600, .json = "grace_s",
	  .help = "time users get to finish after the window, counted again "
		  "from each user that finishes or makes a step of its op, "
		  "before they are killed and the level fails" },
	{ "interval", 0, OPT_SECONDS, RUN_FIELD(interval_s),
	  .def = 1, .min = 0.01, .max = 3600, .json = "interval_s",
	  .help = "sample throughput this often inside the window" },
	{ "repeat", 'r', OPT_UINT, RUN_FIELD(repeat),
	  .def = 1, .min = 1, .max = 1000, .what = "a count",
	  .json = "repeat",
	  .help = "run each level N times and report their spread" },
	{ "repeat-order", 0, OPT_CHOICE, RUN_FIELD(interleave),
	  .choices = order_choices, .def_str = "interleaved",
	  .metavar = "ORDER",
	  .json = "repeat_order", .to_json = repeat_order_json,
	  .help = "with -r: interleaved runs the whole ramp N times over "
		  "(levels 1,2,1,2), so that each level's spread takes in the "
		  "machine's drift over the run, and prints the table's rows "
		  "in the last round; consecutive runs each level N times in "
		  "a row (1,1,2,2)" },
	{ "mode", 0, OPT_CHOICE, RUN_FIELD(mode),
	  .choices = mode_choices, .def_str = "process", .json = "mode",
	  .help = "users are processes or threads of one process" },
	{ "cpus", 0, OPT_CUSTOM, .metavar = "LIST", .def_note = "unpinned",
	  .json = "cpus", .parse = parse_cpus, .to_json = cpus_json,
	  .help = "pin users round-robin to these CPUs, e.g. 0-3,6" },
	{ "knee", 0, OPT_DOUBLE, RUN_FIELD(knee),
	  .def = 0.8, .min = 0.01, .max = 1, .what = "a fraction",
	  .metavar = "FRACTION", .json = "knee",
	  .help = "the knee is the first ok level whose per-user throughput "
		  "is below FRACTION of the first ok level's" },
	{ "lock-profile", 0, OPT_FLAG, RUN_FIELD(lock_profile),
	  .help = "count kernel lock contention in each level's window, in "
		  "the kernel (root, or CAP_BPF and CAP_PERFMON) or with perf "
		  "lock record where the in-kernel collector cannot load; the "
		  "top callers by wait go into result.json" },
	{ "lock-profile-seconds", 0, OPT_SECONDS, RUN_FIELD(lock_profile_s),
	  .def_note = "the whole window with the in-kernel collector, 1 with "
		      "perf lock record",
	  .min = 0.1, .max = 86400, .metavar = "N",
	  .needs = "lock-profile", .json = "lock_profile.seconds",
	  .help = "profile only the first N seconds of each window (after "
		  "the CPU profile's with perf lock record), at most the "
		  "runtime" },
	{ "lock-profile-top", 0, OPT_UINT, RUN_FIELD(lock_profile_top),
	  .def = 10, .min = 1, .max = 100000, .what = "a number",
	  .needs = "lock-profile", .json = "lock_profile.top",
	  .help = "callers kept per level" },
	{ "lock-method", 0, OPT_CHOICE, RUN_FIELD(lock_method),
	  .choices = lock_method_choices, .def_str = "auto",
	  .needs = "lock-profile", .json = "lock_profile.method",
	  .help = "how --lock-profile counts: auto (the in-kernel collector "
		  "where it can load, else perf lock record), bpf, or perf" },
	{ "cpu-profile", 0, OPT_FLAG, RUN_FIELD(cpu_profile),
	  .json = "cpu_profile", .to_json = cpu_profile_json,
	  .help = "sample where the CPUs' time goes in each level's window "
		  "with perf record -e cpu-clock (root or "
		  "kernel.perf_event_paranoid 0); the top symbols' shares of "
		  "all samples go into result.json; beside perf lock "
		  "record, first the CPU profile, then the lock profile" },
	{ "cpu-profile-seconds", 0, OPT_SECONDS, RUN_FIELD(cpu_profile_s),
	  .def = 1, .min = 0.1, .max = 86400, .metavar = "N",
	  .needs = "cpu-profile", .json = "cpu_profile.seconds",
	  .help = "sample the first N seconds of each window, at most the "
		  "runtime" },
	{ "cpu-profile-top", 0, OPT_UINT, RUN_FIELD(cpu_profile_top),
	  .def = 20, .min = 1, .max = 100000, .what = "a number",
	  .needs = "cpu-profile", .json = "cpu_profile.top",
	  .help = "symbols kept per level" },
	{ "keep-profiles", 0, OPT_FLAG, RUN_FIELD(keep_profiles),
	  .json = "keep_profiles", .to_json = keep_profiles_json,
	  .help = "with --lock-profile or --cpu-profile: keep each level's "
		  "perf data in its level directory beside result.json, "
		  "level-<users>/ (level-<users>-r<k>/ with -r; .2 for a user "
		  "count's second level)" },
	{ "hook", 0, OPT_STRING, RUN_FIELD(hook_cmd), .metavar = "CMD",
	  .parse = parse_hook, .json = "hook", .flags = OPTF_JSON_IF_SET,
	  .help = "run /bin/sh -c CMD at the start of each level's window, "
		  "with AIMSWEEP_USERS, AIMSWEEP_LEVEL, AIMSWEEP_RUNTIME and "
		  "AIMSWEEP_LEVEL_DIR set and its output in that directory's "
		  "hook.out; SIGTERM at the level's end if still running" },
	{ "stop-at-crossover", 0, OPT_DOUBLE, RUN_FIELD(crossover),
	  .def_note = "off", .min = 0.001, .max = OPT_NO_MAX,
	  .what = "a jobs/min/user", .metavar = "JPM",
	  .json = "stop_at_crossover", .flags = OPTF_JSON_IF_SET,
	  .help = "end the ramp after the first ok level whose jobs/min/user "
		  "falls below JPM (AIM7's crossover); with -r, the repeats "
		  "of a level run in a row, so that it is judged on all of "
		  "them" },
	{ "seed", 0, OPT_U64, RUN_FIELD(seed),
	  .def_note = "random, recorded", .json = "seed",
	  .help = "seed for each user's job order" },
	{ "layout", 0, OPT_CHOICE, RUN_FIELD(layout),
	  .choices = layout_choices, .json = "layout",
	  .def_note = "the workfile's LAYOUT, else per-user",
	  .help = "all users work in one directory, or each in its own" },
	{ "dir", 'd', OPT_CUSTOM, .metavar = "DIR", .config_key = "DISKDIR",
	  .def_note = "-c's DISKDIR, else $TMPDIR, else /dev/shm when it is "
		      "a writable tmpfs, else /tmp",
	  .json = "scratch_dirs", .parse = parse_dir, .to_json = dirs_json,
	  .help = "scratch directory; a private aimsweep.XXXXXX directory is "
		  "made inside and removed at the end; repeat -d to spread "
		  "users over several (user u uses the (u mod n)th), like "
		  "reaim's DISKDIR" },
	{ "config", 'c', OPT_STRING, RUN_FIELD(config_path),
	  .metavar = "FILE", .json = "config", .flags = OPTF_JSON_IF_SET,
	  .help = "read a reaim.config: its keys named above stand for their "
		  "options, FILESIZE and POOLSIZE for the workfile's (which "
		  "win); the command line wins over it" },
	{ "output", 'o', OPT_STRING, RUN_FIELD(output_dir),
	  .metavar = "DIR", .def_str = "./results", .json = "output_dir",
	  .help = "results directory; each run writes "
		  "DIR/<date>-<workfile>/result.json" },
	{ .json = "cmdline", .kind = OPT_STRING, RUN_FIELD(cmdline) },
	{ "no-latency", 0, OPT_FLAG, RUN_FIELD(latency), .def = 1,
	  .json = "latency_sampling", .to_json = latency_json,
	  .help = "do not time ops (no latency histograms); a user with one "
		  "job still times its first 7 of each level, to set how "
		  "often it stores its count" },
	{ "format", 'f', OPT_STRING, RUN_FIELD(format), .metavar = "FORMAT",
	  .def_str = "default", .parse = parse_format,
	  .help = "stdout: default (the table, a row per level as it ends; "
		  "with interleaved -r, in the last round), simple, json, "
		  "csv, aim7 (AIM7's multitask table), reaim (reaim's table) "
		  "or lkp (printed at the end; see aimsweep report --help)" },
	{ "no-plot", 0, OPT_FLAG, RUN_FIELD(no_plot),
	  .help = "do not draw plot.svg and plot.png into the result "
		  "directory (drawn when gnuplot is installed)" },
	/* No json key: such a run writes no result. */
	{ "check-limits", 0, OPT_FLAG, RUN_FIELD(check_limits),
	  .help = "only check, as a run does before its first level, that the "
		  "largest level fits this machine's limits, and exit: 0 when "
		  "it does, 2 with the line a run would print when it does "
		  "not; makes no directory and starts no user" },
	{ "help", 'h', OPT_HELP, .help = "show this help" },
};

const size_t n_run_options = sizeof(run_options) / sizeof(run_options[0]);

_Static_assert(sizeof(run_options) / sizeof(run_options[0]) <=
	       RUN_OPTIONS_MAX, "raise RUN_OPTIONS_MAX");

static void *field_of(const struct run_option *o, struct run_params *p)
{
	return (char *)p + o->offset;
}

static const void *cfield_of(const struct run_option *o,
			     const struct run_params *p)
{
	return (const char *)p + o->offset;
}

/* A choice's field is a bool or an enum. */
static int choice_get(const struct run_option *o, const struct run_params *p)
{
	if (o->size == sizeof(bool))
		return *(const bool *)cfield_of(o, p);
	return *(const int *)cfield_of(o, p);
}

static void choice_set(const struct run_option *o, struct run_params *p,
		       int value)
{
	if (o->size == sizeof(bool))
		*(bool *)field_of(o, p) = value;
	else
		*(int *)field_of(o, p) = value;
}

static const struct opt_choice *choice_named(const struct run_option *o,
					     const char *name)
{
	for (const struct opt_choice *c = o->choices; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* The size of a kind's field; 0: any. */
static size_t kind_size(const struct run_option *o)
{
	switch (o->kind) {
	case OPT_USERS:
	case OPT_UINT:
		return sizeof(unsigned int);
	case OPT_U64:
		return sizeof(uint64_t);
	case OPT_DOUBLE:
	case OPT_SECONDS:
		return sizeof(double);
	case OPT_STRING:
		return sizeof(const char *);
	case OPT_FLAG:
		return sizeof(bool);
	case OPT_CHOICE:
		return o->size == sizeof(bool) ? sizeof(bool) : sizeof(int);
	default:
		return 0;
	}
}

/* A row that contradicts itself is a bug of the table, which the first
 * run of any test finds. */
static void check_row(const struct run_option *o)
{
	const char *bad = NULL;
	size_t want = kind_size(o);

	if (want && o->size != want)
		bad = "its field does not fit its kind";
	else if (o->kind == OPT_CHOICE && o->def_str &&
		 !choice_named(o, o->def_str))
		bad = "its default is none of its words";
	else if (o->needs && !run_option_named(o->needs))
		bad = "the option it needs is not in the table";
	if (bad) {
		msg_error("option table: %s: %s", o->name ? o->name : o->json,
			  bad);
		abort();
	}
}

void run_options_defaults(struct run_params *p)
{
	memset(p, 0, sizeof(*p));
	for (const struct run_option *o = run_options;
	     o < run_options + n_run_options; o++) {
		check_row(o);
		switch (o->kind) {
		case OPT_USERS:
		case OPT_UINT:
			*(unsigned int *)field_of(o, p) = (unsigned int)o->def;
			break;
		case OPT_U64:
			*(uint64_t *)field_of(o, p) = (uint64_t)o->def;
			break;
		case OPT_DOUBLE:
		case OPT_SECONDS:
			*(double *)field_of(o, p) = o->def;
			break;
		case OPT_STRING:
			*(const char **)field_of(o, p) = o->def_str;
			break;
		case OPT_FLAG:
			*(bool *)field_of(o, p) = o->def != 0;
			break;
		case OPT_CHOICE:
			if (o->def_str)
				choice_set(o, p,
					   choice_named(o, o->def_str)->value);
			break;
		default:
			break;
		}
	}
}

const struct run_option *run_option_named(const char *name)
{
	for (size_t i = 0; i < n_run_options; i++)
		if (run_options[i].name && !strcmp(run_options[i].name, name))
			return &run_options[i];
	return NULL;
}

const struct run_option *run_option_for_config_key(const char *key)
{
	for (size_t i = 0; i < n_run_options; i++)
		if (run_options[i].config_key &&
		    !strcmp(run_options[i].config_key, key))
			return &run_options[i];
	return NULL;
}

void run_option_label(const struct run_option *o, char *buf, size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c/--%s", o->letter, o->name);
	else
		snprintf(buf, len, "--%s", o->name);
}

/* " from 1 to 1000", " of at least 0.001", or nothing: a number's range
 * as messages say it. */
static void range_text(const struct run_option *o, char *buf, size_t len)
{
	if (o->kind == OPT_U64)
		buf[0] = '\0';
	else if (o->max >= OPT_NO_MAX)
		snprintf(buf, len, " of at least %.15g", o->min);
	else
		snprintf(buf, len, " from %.15g to %.15g", o->min, o->max);
}

static const char *what_of(const struct run_option *o)
{
	if (o->what)
		return o->what;
	switch (o->kind) {
	case OPT_USERS:
		return "a number of users";
	case OPT_SECONDS:
		return "a time in seconds";
	case OPT_U64:
		return "a whole number";
	default:
		return "a number";
	}
}

static bool parse_number(const struct run_option *o, const char *arg,
			 struct run_params *p, char *why, size_t len)
{
	char range[64];
	uint64_t u = 0;
	double d;
	char *end;
	bool ok;

	switch (o->kind) {
	case OPT_USERS:
		return users_value(arg, (unsigned int)o->min,
				   (unsigned int)o->max, field_of(o, p), why,
				   len);
	case OPT_UINT:
		ok = parse_u64(arg, (uint64_t)o->max, &u) && u >= o->min;
		if (ok)
			*(unsigned int *)field_of(o, p) = (unsigned int)u;
		break;
	case OPT_U64:
		ok = parse_u64(arg, UINT64_MAX, field_of(o, p));
		break;
	default:
		errno = 0;
		d = strtod(arg, &end);
		ok = !errno && end != arg && !*end && isfinite(d) &&
		     d >= o->min && d <= o->max;
		if (ok)
			*(double *)field_of(o, p) = d;
		break;
	}
	if (ok)
		return true;
	range_text(o, range, sizeof(range));
	return why_not(why, len, "'%s' is not %s%s", arg, what_of(o), range);
}

/* "'x' is not a or b", "... a, b or c". */
static bool bad_choice(const struct run_option *o, const char *arg,
		       char *why, size_t len)
{
	size_t n = 0, k;

	while (o->choices[n].name)
		n++;
	k = (size_t)snprintf(why, len, "'%s' is not ", arg);
	for (size_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(why + k, len - k, "%s%s",
				      i == 0 ? "" : i + 1 == n ? " or " : ", ",
				      o->choices[i].name);
	return false;
}

bool run_option_parse(const struct run_option *o, const char *arg,
		      struct run_params *p, char *why, size_t len)
{
	const struct opt_choice *c;

	if (o->parse)
		return o->parse(o, arg, p, why, len);
	switch (o->kind) {
	case OPT_STRING:
		*(const char **)field_of(o, p) = arg;
		return true;
	case OPT_FLAG:
		*(bool *)field_of(o, p) = o->def == 0;
		return true;
	case OPT_CHOICE:
		c = choice_named(o, arg);
		if (!c)
			return bad_choice(o, arg, why, len);
		choice_set(o, p, c->value);
		return true;
	case OPT_CUSTOM:
	case OPT_HELP:
		return true;
	default:
		return parse_number(o, arg, p, why, len);
	}
}

/* Whether a row's value is 0, false or NULL. */
static bool row_unset(const struct run_option *o, const struct run_params *p)
{
	switch (o->kind) {
	case OPT_USERS:
	case OPT_UINT:
		return !*(const unsigned int *)cfield_of(o, p);
	case OPT_U64:
		return !*(const uint64_t *)cfield_of(o, p);
	case OPT_DOUBLE:
	case OPT_SECONDS:
		return *(const double *)cfield_of(o, p) == 0;
	case OPT_STRING:
		return !*(const char *const *)cfield_of(o, p);
	case OPT_FLAG:
		return !*(const bool *)cfield_of(o, p);
	case OPT_CHOICE:
		return !choice_get(o, p);
	default:
		return false;
	}
}

/* "a.b": the object a of params, made when missing; key is then "b". */
static cJSON *json_parent(cJSON *params, const char **key)
{
	const char *dot = strchr(*key, '.');
	char name[64];
	cJSON *obj;

	if (!dot)
		return params;
	snprintf(name, sizeof(name), "%.*s", (int)(dot - *key), *key);
	*key = dot + 1;
	obj = cJSON_GetObjectItemCaseSensitive(params, name);
	return obj ? obj : cJSON_AddObjectToObject(params, name);
}

static bool option_json(const struct run_option *o, const struct run_params *p,
			cJSON *params)
{
	const struct run_option *needed = o->needs ? run_option_named(o->needs)
						   : NULL;
	const char *key = o->json, *s;
	const struct opt_choice *c;
	char seed[32];
	cJSON *obj;

	if (needed && row_unset(needed, p))
		return true;
	if (o->to_json)
		return o->to_json(o, p, params);
	if ((o->flags & OPTF_JSON_IF_SET) && row_unset(o, p))
		return true;
	obj = json_parent(params, &key);
	if (!obj)
		return false;
	switch (o->kind) {
	case OPT_USERS:
	case OPT_UINT:
		return cJSON_AddNumberToObject(obj, key,
				*(const unsigned int *)cfield_of(o, p));
	case OPT_U64:
		/* A string: JSON numbers lose 64-bit integers in most
		 * readers. */
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)
			 *(const uint64_t *)cfield_of(o, p));
		return cJSON_AddStringToObject(obj, key, seed);
	case OPT_DOUBLE:
	case OPT_SECONDS:
		return cJSON_AddNumberToObject(obj, key,
				*(const double *)cfield_of(o, p));
	case OPT_STRING:
		s = *(const char *const *)cfield_of(o, p);
		return cJSON_AddStringToObject(obj, key, s ? s : "");
	case OPT_FLAG:
		return cJSON_AddBoolToObject(obj, key,
					     *(const bool *)cfield_of(o, p));
	case OPT_CHOICE:
		for (c = o->choices; c->name; c++)
			if (c->value == choice_get(o, p))
				return cJSON_AddStringToObject(obj, key,
							       c->name);
		return true;
	default:
		return true;
	}
}

int run_options_json(cJSON *params, const struct run_params *p)
{
	for (size_t i = 0; i < n_run_options; i++)
		if (run_options[i].json &&
		    !option_json(&run_options[i], p, params))
			return -1;
	return 0;
}
