/* driver/output/compare.c: compare A B: the change per level and per job. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/output/compare.h"
#include "driver/output/compare_profiles.h"
#include "driver/output/compare_stats.h"
#include "driver/output/result_read.h"
#include "driver/base/util.h"


/* A level as one side sees it; `occurrence` tells apart repeated user
 * counts (--levels 8,8,8): the k-th 8 of A is matched with the k-th of B. */
struct side_level {
	double users;
	size_t index;
	size_t occurrence;
	const cJSON *level;
};

static int cmp_side_level(const void *x, const void *y)
{
	const struct side_level *a = x, *b = y;

	if (a->users != b->users)
		return a->users < b->users ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return 0;
}

static int cmp_match(const struct side_level *a, const struct side_level *b)
{
	if (a->users != b->users)
		return a->users < b->users ? -1 : 1;
	if (a->occurrence != b->occurrence)
		return a->occurrence < b->occurrence ? -1 : 1;
	return 0;
}

/* The levels sorted by users, then by the order they ran. */
static struct side_level *side_levels(const cJSON *root, size_t *n)
{
	const cJSON *levels = result_levels(root), *l;
	struct side_level *v;
	size_t i = 0;

	*n = (size_t)cJSON_GetArraySize(levels);
	v = calloc(*n ? *n : 1, sizeof(*v));
	if (!v)
		return NULL;
	cJSON_ArrayForEach(l, levels) {
		v[i].users = level_users(l);
		v[i].index = i;
		v[i].level = l;
		i++;
	}
	qsort(v, *n, sizeof(*v), cmp_side_level);
	for (i = 1; i < *n; i++)
		if (v[i].users == v[i - 1].users)
			v[i].occurrence = v[i - 1].occurrence + 1;
	return v;
}

static const char *side_workfile(const cJSON *root);

static void print_side_header(FILE *f, const char *tag, const cJSON *root,
			      const char *name)
{
	const cJSON *host = json_obj(root, "host");
	const char *wf = side_workfile(root);

	fprintf(f, "# %s: ", tag);
	fput_safe(f, name);
	fputs(": Linux ", f);
	fput_safe(f, json_str(host, "kernel_release"));
	fputs(", workfile ", f);
	fput_safe(f, wf);
	fputs(", host ", f);
	fput_safe(f, json_str(host, "hostname"));
	fprintf(f, " (%g CPUs), started ", json_num(host, "cpus_online"));
	fput_safe(f, json_str(root, "started_at"));
	fputs(", ", f);
	fput_safe(f, json_str(root, "status"));
	fputc('\n', f);
}

static const char *side_workfile(const cJSON *root)
{
	const char *wf = json_str(json_obj(root, "mix"), "name");

	return wf ? wf : json_str(json_obj(root, "params"), "workfile");
}

/* Results before version 3 count AIM7 jobs in aimsweep's own, smaller
 * units (results/SCHEMA.md). */
#define SCHEMA_AIM7_UNITS 3

/* What makes a comparison doubtful, said on standard error: different
 * workfiles (other jobs: the numbers do not compare), AIM7 jobs counted in
 * other units, and a side whose run did not complete (levels it did not
 * reach are missing). */
static void warn_sides(const cJSON *a, const char *a_name, const cJSON *b,
		       const char *b_name)
{
	const char *wa = side_workfile(a), *wb = side_workfile(b);
	const char *sa = json_str(a, "status"), *sb = json_str(b, "status");
	double va = json_num(a, "schema_version");
	double vb = json_num(b, "schema_version");

	if (wa && wb && strcmp(wa, wb))
		msg_warn("compare: A ran workfile %s and B workfile %s: other jobs, so their jobs/min do not compare",
			 wa, wb);
	if ((va < SCHEMA_AIM7_UNITS) != (vb < SCHEMA_AIM7_UNITS))
		msg_warn("compare: A is a version %.0f result and B a version %.0f one: before version %d, AIM7 jobs were counted in smaller units of aimsweep's own, so their jobs/min do not compare",
			 va, vb, SCHEMA_AIM7_UNITS);
	/* "failed" ran to its end: its failed levels have their rows. */
	if (sa && strcmp(sa, "complete") && strcmp(sa, "failed"))
		msg_warn("compare: A (%s) did not complete: its status is %s",
			 a_name, sa);
	if (sb && strcmp(sb, "complete") && strcmp(sb, "failed"))
		msg_warn("compare: B (%s) did not complete: its status is %s",
			 b_name, sb);
}

static void put_value(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, " %15s", "-");
	else
		fprintf(f, " %15.1f", v);
}

static void put_change(FILE *f, double pct)
{
	if (isnan(pct))
		fprintf(f, " %9s", "-");
	else
		fprintf(f, " %+8.1f%%", pct);
}

/* n, mean and stddev of a repeats summary; false without 2 repeats. */
static bool read_spread(const cJSON *o, struct repeat_stats *r)
{
	r->n = json_num(o, "n");
	r->mean = json_num(o, "mean");
	r->stddev = json_num(o, "stddev");
	return r->n >= 2 && !isnan(r->mean) && r->stddev >= 0;
}

static bool read_repeats(const cJSON *level, struct repeat_stats *r)
{
	return read_spread(json_obj(json_obj(level, "repeats"), "jobs_per_min"),
			   r);
}

/* A job's spread over the level's repeats (levels[].repeats.jobs[]). */
static bool read_job_repeats(const cJSON *level, const char *name,
			     struct repeat_stats *r)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, json_arr(json_obj(level, "repeats"), "jobs")) {
		const char *other = json_str(x, "name");

		if (other && !strcmp(other, name))
			return read_spread(json_obj(x, "ops_per_sec"), r);
	}
	return false;
}

/* The verdict column: Welch's test of the means when both sides have
 * repeats, else "no repeats: noise unknown". */
static void put_verdict(FILE *f, const struct repeat_stats *ra,
			const struct repeat_stats *rb, bool have, double pct,
			double noise_pct)
{
	double p, t, df;

	if (!have) {
		fputs("  no repeats: noise unknown", f);
		return;
	}
	p = welch_p_value(ra, rb, &t, &df);
	fprintf(f, "  %s (Welch p=%.3g, n=%.0f+%.0f",
		compare_significant(p, pct, noise_pct) ? "significant" :
							 "within noise",
		p, ra->n, rb->n);
	if (p < COMPARE_ALPHA && !isnan(pct) && fabs(pct) < noise_pct)
		fprintf(f, "; under --noise %g%%", noise_pct);
	fputc(')', f);
}

/* The "what" column of a job's row, as wide as the header's. */
static void put_job_name(FILE *f, const char *name)
{
	size_t len = strlen(name) + strlen(" ops/s");

	fprintf(f, "%7s  ", "");
	fput_safe(f, name);
	fprintf(f, " ops/s%*s", len < 22 ? (int)(22 - len) : 0, "");
}

/*
 * The rows of each job's ops/s, matched by name: the means over the
 * repeats, with a verdict, when both levels kept each job's repeats (as
 * the level's row uses the mean of its repeats), else the numbers of the
 * levels as shown.
 */
static void print_jobs(FILE *f, const cJSON *la, const cJSON *lb,
		       double noise_pct)
{
	const cJSON *ja = json_arr(la, "jobs"), *jb = json_arr(lb, "jobs");
	const cJSON *x, *y;

	cJSON_ArrayForEach(x, ja) {
		const char *name = json_str(x, "name");
		double va = json_num(x, "ops_per_sec"), vb = NAN, pct;
		struct repeat_stats ra, rb;
		bool found = false, have;

		if (!name)
			continue;
		cJSON_ArrayForEach(y, jb) {
			const char *other = json_str(y, "name");

			if (other && !strcmp(name, other)) {
				vb = json_num(y, "ops_per_sec");
				found = true;
				break;
			}
		}
		put_job_name(f, name);
		if (!found) {
			put_value(f, va);
			put_value(f, NAN);
			put_change(f, NAN);
			fputs("  only in A\n", f);
			continue;
		}
		have = read_job_repeats(la, name, &ra) &&
		       read_job_repeats(lb, name, &rb);
		if (have) {
			va = ra.mean;
			vb = rb.mean;
		}
		pct = percent_change(va, vb);
		put_value(f, va);
		put_value(f, vb);
		put_change(f, pct);
		put_verdict(f, &ra, &rb, have, pct, noise_pct);
		fputc('\n', f);
	}
	cJSON_ArrayForEach(y, jb) {
		const char *name = json_str(y, "name");
		bool found = false;

		if (!name)
			continue;
		cJSON_ArrayForEach(x, ja) {
			const char *other = json_str(x, "name");

			if (other && !strcmp(name, other)) {
				found = true;
				break;
			}
		}
		if (found)
			continue;
		put_job_name(f, name);
		put_value(f, NAN);
		put_value(f, json_num(y, "ops_per_sec"));
		put_change(f, NAN);
		fputs("  only in B\n", f);
	}
}


struct compare_totals {
	size_t both, only_a, only_b, regressions;
	double fail_above_pct;
	double noise_pct;
	const cJSON *root_a, *root_b;	/* the two results */
};

static void print_pair(FILE *f, double users, const cJSON *la,
		       const cJSON *lb, struct compare_totals *tot)
{
	bool ok_a = la && level_is_ok(la), ok_b = lb && level_is_ok(lb);
	struct repeat_stats ra, rb;
	double va, vb, pct = NAN;
	bool regressed = false, have;

	fprintf(f, "%7.0f  %-22s", users, "jobs/min");
	if (!la || !lb) {
		const cJSON *l = la ? la : lb;

		put_value(f, ok_a ? json_num(l, "jobs_per_min") : NAN);
		put_value(f, ok_b ? json_num(l, "jobs_per_min") : NAN);
		put_change(f, NAN);
		fprintf(f, "  only in %s%s", la ? "A" : "B",
			level_is_ok(l) ? "" : " (failed)");
		/* A level B lacks is no evidence that B did well: an
		 * interrupted or shortened B must not pass a regression
		 * check. */
		if (la && ok_a && tot->fail_above_pct >= 0) {
			msg_error("compare: the level of %.0f users is missing in B",
				  users);
			tot->regressions++;
			fputs("; REGRESSION", f);
		}
		fputc('\n', f);
		if (la)
			tot->only_a++;
		else
			tot->only_b++;
		return;
	}
	tot->both++;
	if (!ok_a || !ok_b) {
		put_value(f, ok_a ? json_num(la, "jobs_per_min") : NAN);
		put_value(f, ok_b ? json_num(lb, "jobs_per_min") : NAN);
		put_change(f, NAN);
		if (!ok_a && !ok_b) {
			fputs("  failed in both\n", f);
			return;
		}
		fprintf(f, "  failed in %s: ", ok_a ? "B" : "A");
		fput_safe(f, level_reason(ok_a ? lb : la));
		/* A level that used to work and now fails is the worst
		 * drop of all. */
		if (ok_a && tot->fail_above_pct >= 0) {
			msg_error("compare: the level of %.0f users failed in B",
				  users);
			tot->regressions++;
			fputs("; REGRESSION", f);
		}
		fputc('\n', f);
		return;
	}
	have = read_repeats(la, &ra) && read_repeats(lb, &rb);
	if (have) {
		va = ra.mean;
		vb = rb.mean;
	} else {
		va = json_num(la, "jobs_per_min");
		vb = json_num(lb, "jobs_per_min");
	}
	pct = percent_change(va, vb);
	put_value(f, va);
	put_value(f, vb);
	put_change(f, pct);
	if (tot->fail_above_pct >= 0 && !isnan(pct) &&
	    pct < -tot->fail_above_pct) {
		regressed = true;
		tot->regressions++;
		msg_error("compare: jobs/min at %.0f users dropped %.1f%%, more than --fail-above %g%%",
			  users, -pct, tot->fail_above_pct);
	}
	put_verdict(f, &ra, &rb, have, pct, tot->noise_pct);
	fputs(regressed ? "; REGRESSION\n" : "\n", f);
	print_jobs(f, la, lb, tot->noise_pct);
	compare_print_profiles(f, tot->root_a, la, tot->root_b, lb);
}

bool compare_print(FILE *f, const cJSON *a, const char *a_name,
		   const cJSON *b, const char *b_name, double fail_above_pct,
		   double noise_pct)
{
	struct compare_totals tot = { .fail_above_pct = fail_above_pct,
				      .noise_pct = noise_pct,
				      .root_a = a, .root_b = b };
	struct side_level *va, *vb;
	size_t na, nb, i = 0, k = 0;

	print_side_header(f, "A", a, a_name);
	print_side_header(f, "B", b, b_name);
	warn_sides(a, a_name, b, b_name);
	va = side_levels(a, &na);
	vb = side_levels(b, &nb);
	if (!va || !vb) {
		free(va);
		free(vb);
		msg_error("compare: out of memory");
		/* Failing safe: a bot must not read this as "no change". */
		return true;
	}
	fprintf(f, "%7s  %-22s %15s %15s %9s  %s\n", "users", "what", "A", "B",
		"change", "verdict");
	while (i < na || k < nb) {
		int c = i == na ? 1 : k == nb ? -1 : cmp_match(&va[i], &vb[k]);

		if (c < 0) {
			print_pair(f, va[i].users, va[i].level, NULL, &tot);
			i++;
		} else if (c > 0) {
			print_pair(f, vb[k].users, NULL, vb[k].level, &tot);
			k++;
		} else {
			print_pair(f, va[i].users, va[i].level, vb[k].level,
				   &tot);
			i++;
			k++;
		}
	}
	fprintf(f, "# %zu level%s in both, %zu only in A, %zu only in B",
		tot.both, tot.both == 1 ? "" : "s", tot.only_a, tot.only_b);
	if (fail_above_pct >= 0)
		fprintf(f, "; %zu regression%s (dropped more than %g%%, failed or missing in B)",
			tot.regressions, tot.regressions == 1 ? "" : "s",
			fail_above_pct);
	fputc('\n', f);
	free(va);
	free(vb);
	return tot.regressions > 0;
}

int compare_files(const char *a_path, const char *b_path,
		  double fail_above_pct, double noise_pct)
{
	cJSON *a = NULL, *b = NULL;
	char err[1024];
	int rc = EXIT_USAGE;

	a = result_read(a_path, err, sizeof(err));
	if (!a) {
		msg_error("%s", err);
		goto out;
	}
	b = result_read(b_path, err, sizeof(err));
	if (!b) {
		msg_error("%s", err);
		goto out;
	}
	rc = compare_print(stdout, a, a_path, b, b_path, fail_above_pct,
			   noise_pct) ? EXIT_RUN_FAILED : EXIT_OK;
	if (fflush(stdout) || ferror(stdout)) {
		/* Not 1: that would read as "a level dropped". */
		msg_error("compare: cannot write standard output: %s",
			  strerror(errno));
		rc = EXIT_USAGE;
	}
out:
	cJSON_Delete(a);
	cJSON_Delete(b);
	return rc;
}
