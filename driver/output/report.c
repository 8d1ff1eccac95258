/* driver/output/report.c: `aimsweep report`: result.json as text, CSV... */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/output/report.h"
#include "driver/output/result_read.h"
#include "driver/measure/verdicts.h"
#include "driver/base/util.h"

/* A right-aligned "%*.*f", or "-" where the number is missing. */
static void put_fixed(FILE *f, int width, int prec, double v)
{
	if (isnan(v))
		fprintf(f, "%*s", width, "-");
	else
		fprintf(f, "%*.*f", width, prec, v);
}

/* A table column: a space, then the number. */
static void put_col(FILE *f, int width, int prec, double v)
{
	fputc(' ', f);
	put_fixed(f, width, prec, v);
}

/* The number exactly as in the file, or nothing when it is missing. */
static void put_exact(FILE *f, double v)
{
	char buf[NUM_TEXT_LEN];

	if (!isnan(v))
		fputs(num_text(buf, sizeof(buf), v), f);
}

static size_t array_len(const cJSON *a)
{
	return a ? (size_t)cJSON_GetArraySize(a) : 0;
}

/* The peak level as summary.peak_users picks it (verdicts_peak_offer());
 * NULL when no level is ok. */
static const cJSON *peak_level(const cJSON *root)
{
	struct verdicts_peak pk = VERDICTS_PEAK_INIT;
	const cJSON *l, *peak = NULL;
	size_t i = 0;

	cJSON_ArrayForEach(l, result_levels(root)) {
		if (verdicts_peak_offer(&pk, i++, level_is_ok(l),
					json_num(l, "jobs_per_min")))
			peak = l;
	}
	return peak;
}

/* params.levels as `run` named them in its header (levels_describe());
 * a list that is not all user counts is only counted. */
static void put_levels(FILE *f, const cJSON *levels)
{
	size_t n = array_len(levels), i = 0;
	unsigned int *users = n ? calloc(n, sizeof(*users)) : NULL;
	const cJSON *l;
	char buf[96];

	cJSON_ArrayForEach(l, levels) {
		if (!users || !cJSON_IsNumber(l) || l->valuedouble < 1 ||
		    l->valuedouble > UINT_MAX ||
		    l->valuedouble != (unsigned int)l->valuedouble)
			break;
		users[i++] = (unsigned int)l->valuedouble;
	}
	if (n && i == n)
		levels_describe(buf, sizeof(buf), users, n);
	else
		snprintf(buf, sizeof(buf), "%zu level%s", n, n == 1 ? "" : "s");
	fputs(buf, f);
	free(users);
}

/* "# users' files in /dev/shm (tmpfs)": the filesystems the run measured
 * besides the rest of the kernel, from params.scratch_dirs and
 * scratch_fs; nothing for a result that has neither. */
static void put_scratch(FILE *f, const cJSON *params)
{
	const cJSON *dirs = json_arr(params, "scratch_dirs");
	const cJSON *fss = json_arr(params, "scratch_fs");
	const cJSON *dir;
	int i = 0;

	if (!array_len(dirs))
		return;
	fputs("# users' files in ", f);
	cJSON_ArrayForEach(dir, dirs) {
		const cJSON *fs = cJSON_GetArrayItem(fss, i);
		const cJSON *journal =
			cJSON_GetObjectItemCaseSensitive(fs, "journal");

		if (i++)
			fputs(", ", f);
		fput_safe(f, cJSON_IsString(dir) ? dir->valuestring : "?");
		fputs(" (", f);
		fput_safe(f, json_str(fs, "type") ?: "unknown");
		if (cJSON_IsFalse(journal))
			fputs(" without a journal", f);
		fputc(')', f);
	}
	fputc('\n', f);
}

void report_default_header(FILE *f, const cJSON *root, const char *source)
{
	const cJSON *host = json_obj(root, "host");
	const cJSON *params = json_obj(root, "params");
	const cJSON *mix = json_obj(root, "mix");
	double mem = json_num(host, "memory_bytes");
	size_t n_jobs;

	fputs("# aimsweep ", f);
	fput_safe(f, json_str(json_obj(root, "tool"), "version"));
	fputs(": workfile ", f);
	fput_safe(f, json_str(mix, "name"));
	n_jobs = array_len(json_arr(mix, "jobs"));
	fprintf(f, " (%zu job%s), ", n_jobs, n_jobs == 1 ? "" : "s");
	put_levels(f, json_arr(params, "levels"));
	fprintf(f, ", %g s per level after %g s warm-up\n",
		json_num(params, "runtime_s"), json_num(params, "warmup_s"));
	fputs("# host ", f);
	fput_safe(f, json_str(host, "hostname"));
	fputs(", Linux ", f);
	fput_safe(f, json_str(host, "kernel_release"));
	fprintf(f, ", %g CPUs, %.1f GiB\n", json_num(host, "cpus_online"),
		mem / (1024.0 * 1024 * 1024));
	put_scratch(f, params);
	if (source) {
		fputs("# results ", f);
		fput_safe(f, source);
		fputc('\n', f);
	}
	fprintf(f, "%7s %14s %13s %12s %12s %12s %6s %9s %9s  %s\n", "users",
		"jobs/min", "jobs/min/user", "user min", "user median",
		"user max", "JTI", "utime s", "stime s", "status");
}

void report_default_level(FILE *f, const cJSON *level)
{
	double errors = json_num(level, "errors");

	fprintf(f, "%7.0f", level_users(level));
	if (!level_is_ok(level)) {
		fputs("  FAILED: ", f);
		fput_safe(f, level_reason(level));
		fputc('\n', f);
		return;
	}
	put_col(f, 14, 1, json_num(level, "jobs_per_min"));
	put_col(f, 13, 1, json_num(level, "jobs_per_min_per_user"));
	put_col(f, 12, 1, json_num2(level, "per_user_jobs_per_min", "min"));
	put_col(f, 12, 1, json_num2(level, "per_user_jobs_per_min", "median"));
	put_col(f, 12, 1, json_num2(level, "per_user_jobs_per_min", "max"));
	put_col(f, 6, 1, json_num(level, "jti"));
	put_col(f, 9, 2, json_num2(level, "rusage", "utime_s"));
	put_col(f, 9, 2, json_num2(level, "rusage", "stime_s"));
	fputs("  ok", f);
	if (errors > 0)
		fprintf(f, " (%.0f errors)", errors);
	fputc('\n', f);
}

void report_default_summary(FILE *f, const cJSON *root)
{
	const cJSON *l, *peak = peak_level(root);
	size_t ok = 0, failed = 0;
	const char *status = json_str(root, "status");

	cJSON_ArrayForEach(l, result_levels(root)) {
		if (level_is_ok(l))
			ok++;
		else
			failed++;
	}
	fprintf(f, "# %zu level%s ok, %zu failed", ok, ok == 1 ? "" : "s",
		failed);
	if (peak) {
		double users = level_users(peak);

		fprintf(f, "; peak %.1f jobs/min at %.0f user%s",
			json_num(peak, "jobs_per_min"), users,
			users == 1 ? "" : "s");
	}
	if (status && !strcmp(status, "interrupted"))
		fputs("; interrupted", f);
	fputc('\n', f);
}

static void print_default(FILE *f, const cJSON *root, const char *source)
{
	const cJSON *l;

	report_default_header(f, root, source);
	cJSON_ArrayForEach(l, result_levels(root))
		report_default_level(f, l);
	report_default_summary(f, root);
}

/* Regression bots want one number per level: failed levels have none and
 * are left out (csv and lkp list them). */
static void print_simple(FILE *f, const cJSON *root)
{
	const cJSON *l;
	char buf[NUM_TEXT_LEN];

	cJSON_ArrayForEach(l, result_levels(root)) {
		double v = json_num(l, "jobs_per_min");

		if (!level_is_ok(l) || isnan(v))
			continue;
		fprintf(f, "%.0f %s\n", level_users(l),
			num_text(buf, sizeof(buf), v));
	}
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted, and
 * quotes inside it are doubled. */
static void put_csv_text(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv(FILE *f, const cJSON *root)
{
	static const char *const pu[] = { "min", "median", "max" };
	const cJSON *l;

	fputs("users,status,window_s,jobs_per_min,jobs_per_min_per_user,"
	      "user_min,user_median,user_max,jti,utime_s,stime_s,errors,"
	      "reason\n", f);
	cJSON_ArrayForEach(l, result_levels(root)) {
		bool ok = level_is_ok(l);

		fprintf(f, "%.0f,", level_users(l));
		put_csv_text(f, json_str(l, "status"));
		if (!ok) {
			/* A failed level has no numbers, only a reason. */
			fputs(",,,,,,,,,,,", f);
			put_csv_text(f, level_reason(l));
			fputc('\n', f);
			continue;
		}
		fputc(',', f);
		put_exact(f, json_num(l, "window_s"));
		fputc(',', f);
		put_exact(f, json_num(l, "jobs_per_min"));
		fputc(',', f);
		put_exact(f, json_num(l, "jobs_per_min_per_user"));
		for (size_t i = 0; i < 3; i++) {
			fputc(',', f);
			put_exact(f, json_num2(l, "per_user_jobs_per_min",
					       pu[i]));
		}
		fputc(',', f);
		put_exact(f, json_num(l, "jti"));
		fputc(',', f);
		put_exact(f, json_num2(l, "rusage", "utime_s"));
		fputc(',', f);
		put_exact(f, json_num2(l, "rusage", "stime_s"));
		fputc(',', f);
		put_exact(f, json_num(l, "errors"));
		fputs(",\n", f);
	}
}

/*
 * The standard deviation of the users' jobs/min: per_user_jobs_per_min.
 * stddev, or, in results written before it existed, recovered from jti =
 * 100 * (1 - stddev / mean) with mean = jobs_per_min_per_user. jti is
 * clamped at 0, so where the spread exceeded the mean this gives the
 * mean, a lower bound.
 */
static double user_stddev(const cJSON *level)
{
	double sd = json_num2(level, "per_user_jobs_per_min", "stddev");

	if (!isnan(sd))
		return sd;
	return json_num(level, "jobs_per_min_per_user") *
	       (1.0 - json_num(level, "jti") / 100.0);
}

/* A failed level has no numbers for a table row; a comment line says
 * why it is missing. */
static void put_failed_comment(FILE *f, const cJSON *level)
{
	fprintf(f, "# level %.0f users failed: ", level_users(level));
	fput_safe(f, level_reason(level));
	fputc('\n', f);
}

/*
 * AIM7's multitask table, one row per ok level. LKP's aim7 parser finds
 * the header line naming Tasks, jobs/min and jti and reads fields 2 to 6
 * of the very next line as numbers, so the first row follows the header
 * directly, every field is a plain number, and the failed levels are
 * commented after the last row rather than among the rows.
 */
static void print_aim7(FILE *f, const cJSON *root)
{
	const cJSON *l;

	fprintf(f, "%5s %11s %4s %14s %9s %9s\n", "Tasks", "jobs/min", "jti",
		"jobs/min/task", "real", "cpu");
	cJSON_ArrayForEach(l, result_levels(root)) {
		if (!level_is_ok(l))
			continue;
		fprintf(f, "%5.0f", level_users(l));
		put_col(f, 11, 2, json_num(l, "jobs_per_min"));
		put_col(f, 4, 0, json_num(l, "jti"));
		put_col(f, 14, 4, json_num(l, "jobs_per_min_per_user"));
		put_col(f, 9, 2, json_num(l, "window_s"));
		/* AIM7's cpu: the CPU time its tasks used, user and system. */
		put_col(f, 9, 2, json_num2(l, "rusage", "utime_s") +
				 json_num2(l, "rusage", "stime_s"));
		fputc('\n', f);
	}
	cJSON_ArrayForEach(l, result_levels(root))
		if (!level_is_ok(l))
			put_failed_comment(f, l);
}

/* reaim's table, one row per ok level, so that tools that parse reaim's
 * output read ours unchanged. */
static void print_reaim(FILE *f, const cJSON *root)
{
	const cJSON *l, *peak = peak_level(root);
	double max = peak ? json_num(peak, "jobs_per_min") : NAN;

	fprintf(f, "%-7s %-9s %-9s %-9s %-13s %-13s %-12s %-8s %s\n", "Num",
		"Parent", "Child", "Child", "Jobs per", "Jobs/min/",
		"Std_dev", "Percent", "JTI");
	fprintf(f, "%-7s %-9s %-9s %-9s %-13s %s\n", "Forked", "Time",
		"SysTime", "UTime", "Minute", "Child");
	cJSON_ArrayForEach(l, result_levels(root)) {
		double jpm = json_num(l, "jobs_per_min");
		double per_user = json_num(l, "jobs_per_min_per_user");
		double sd = user_stddev(l);

		if (!level_is_ok(l)) {
			put_failed_comment(f, l);
			continue;
		}
		fprintf(f, "%-7.0f ", level_users(l));
		put_fixed(f, -9, 2, json_num(l, "window_s"));
		fputc(' ', f);
		put_fixed(f, -9, 2, json_num2(l, "rusage", "stime_s"));
		fputc(' ', f);
		put_fixed(f, -9, 2, json_num2(l, "rusage", "utime_s"));
		fputc(' ', f);
		put_fixed(f, -13, 2, jpm);
		fputc(' ', f);
		put_fixed(f, -13, 2, per_user);
		fputc(' ', f);
		put_fixed(f, -12, 2, sd);
		fputc(' ', f);
		/* reaim's "Std_dev Percent": the spread as a share of the
		 * mean, so that JTI = 100 - Percent, as in its tables. */
		put_fixed(f, -8, 2, per_user > 0 ? sd / per_user * 100.0 : NAN);
		fputc(' ', f);
		put_fixed(f, 0, 0, json_num(l, "jti"));
		fputc('\n', f);
	}
	if (peak)
		fprintf(f, "\nMax Jobs per Minute %.2f\n", max);
	else
		fputs("\n# no level ok: no Max Jobs per Minute\n", f);
}

static void put_lkp(FILE *f, double users, const char *key, double v)
{
	char buf[NUM_TEXT_LEN];

	if (!isnan(v))
		fprintf(f, "users.%.0f.%s: %s\n", users, key,
			num_text(buf, sizeof(buf), v));
}

/* A name as one part of an LKP key: lowercase, [a-z0-9_+-], any other
 * byte '_' (a dot too, which would split the part in two); "unknown"
 * when empty. */
static void put_lkp_part(FILE *f, const char *s)
{
	if (!s || !*s)
		s = "unknown";
	for (; *s; s++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;

		fputc((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '+' || c == '-' ? c : '_', f);
	}
}

/* Each kept lock entry's wait per second of profiled time:
 * users.N.lock.CALLER.TYPE.wait_ns_per_s. */
static void put_lkp_locks(FILE *f, const cJSON *root, const cJSON *l)
{
	double offset_s, covered_s;
	char buf[NUM_TEXT_LEN];
	const cJSON *e;

	if (!level_lock_span(root, l, &offset_s, &covered_s))
		return;
	cJSON_ArrayForEach(e, json_arr(l, "lock_contention")) {
		double wait_ns = lock_entry_wait_ns(e);

		if (!lock_entry_caller(e) || isnan(wait_ns))
			continue;
		fprintf(f, "users.%.0f.lock.", level_users(l));
		put_lkp_part(f, lock_entry_caller(e));
		fputc('.', f);
		put_lkp_part(f, json_str(e, "type"));
		fprintf(f, ".wait_ns_per_s: %s\n",
			num_text(buf, sizeof(buf), wait_ns / covered_s));
	}
}

/* LKP's stats format: flat "key: value" lines that its scripts diff run
 * against run. */
static void print_lkp(FILE *f, const cJSON *root)
{
	const cJSON *l, *peak = peak_level(root);
	char buf[NUM_TEXT_LEN];

	cJSON_ArrayForEach(l, result_levels(root)) {
		double users = level_users(l);

		if (level_is_ok(l)) {
			put_lkp(f, users, "jobs_per_min",
				json_num(l, "jobs_per_min"));
			put_lkp(f, users, "jobs_per_min_per_user",
				json_num(l, "jobs_per_min_per_user"));
			put_lkp(f, users, "jti", json_num(l, "jti"));
			put_lkp_locks(f, root, l);
		}
		fprintf(f, "users.%.0f.status: ", users);
		fput_safe(f, json_str(l, "status"));
		fputc('\n', f);
	}
	if (!peak)
		return;
	fprintf(f, "max_jobs_per_min: %s\n",
		num_text(buf, sizeof(buf), json_num(peak, "jobs_per_min")));
	fprintf(f, "max_jobs_per_min_users: %.0f\n", level_users(peak));
	if (!isnan(json_num(peak, "jti")))
		fprintf(f, "jti: %s\n",
			num_text(buf, sizeof(buf), json_num(peak, "jti")));
}

/* The formats by name. The default table needs the file's name and json
 * can fail, so they have no plain printer. */
static const struct {
	const char *name;
	void (*print)(FILE *f, const cJSON *root);
} formats[] = {
	[REPORT_DEFAULT] = { "default", NULL },
	[REPORT_SIMPLE] = { "simple", print_simple },
	[REPORT_JSON] = { "json", NULL },
	[REPORT_CSV] = { "csv", print_csv },
	[REPORT_AIM7] = { "aim7", print_aim7 },
	[REPORT_REAIM] = { "reaim", print_reaim },
	[REPORT_LKP] = { "lkp", print_lkp },
};

bool report_format_parse(const char *name, enum report_format *fmt)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (!strcmp(name, formats[i].name)) {
			*fmt = (enum report_format)i;
			return true;
		}
	}
	return false;
}

int report_print(FILE *f, const cJSON *root, enum report_format fmt,
		 const char *source)
{
	char *text;

	if (fmt == REPORT_DEFAULT) {
		print_default(f, root, source);
	} else if (fmt == REPORT_JSON) {
		text = cJSON_Print(root);
		if (!text) {
			errno = ENOMEM;
			return -1;
		}
		fprintf(f, "%s\n", text);
		free(text);
	} else {
		formats[fmt].print(f, root);
	}
	return 0;
}

int report_file(const char *path, enum report_format fmt)
{
	char err[1024];
	cJSON *root;
	int rc;

	root = result_read(path, err, sizeof(err));
	if (!root) {
		msg_error("%s", err);
		return EXIT_RUN_FAILED;
	}
	rc = report_print(stdout, root, fmt, path) ? errno : 0;
	cJSON_Delete(root);
	if (rc) {
		msg_error("report: %s: %s", path, strerror(rc));
		return EXIT_RUN_FAILED;
	}
	if (fflush(stdout) || ferror(stdout)) {
		msg_error("report: cannot write standard output: %s",
			  strerror(errno));
		return EXIT_RUN_FAILED;
	}
	return EXIT_OK;
}
