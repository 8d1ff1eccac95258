/* driver/output/compare.c: `aimsweep compare A B`: the change per level of 2 runs. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/args.h"
#include "driver/output/compare.h"
#include "driver/output/result_read.h"
#include "driver/measure/stats.h"
#include "driver/base/util.h"

/*
 * The regularized incomplete beta function I_x(a, b), evaluated with its
 * continued fraction (DLMF 8.17.22) by the modified Lentz method. The
 * fraction converges fast for x < (a + 1) / (a + b + 2); above that the
 * symmetry I_x(a, b) = 1 - I_(1-x)(b, a) is used.
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double num, delta;

		/* The even step, d_2m. */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		/* The odd step, d_2m+1. */
		num = -(a + m) * (a + b + m) * x /
		      ((a + 2 * m) * (a + 2 * m + 1));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = 1.0 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1.0) < 1e-15)
			break;
	}
	return h;
}

static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_fraction(a, b, x) / a;
	return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double student_t_two_sided_p(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return 0.0;
	return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double welch_p_value(const struct repeat_stats *a,
		     const struct repeat_stats *b, double *t, double *df)
{
	/* b first: t is positive when b is higher. */
	if (isnan(a->mean) || isnan(b->mean) || !(a->stddev >= 0) ||
	    !(b->stddev >= 0) ||
	    stats_welch(b->mean, b->stddev, b->n, a->mean, a->stddev, a->n, t,
			df)) {
		*t = NAN;
		*df = NAN;
		return NAN;
	}
	/* With no spread on either side t is 0 or infinite, and p is 1 or
	 * 0: any difference is real. */
	return student_t_two_sided_p(*t, *df);
}

double percent_change(double a, double b)
{
	if (a == 0)
		return b == 0 ? 0.0 : NAN;
	return (b - a) / fabs(a) * 100.0;
}

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

/* The most items of a side's level looked at; result.json keeps 20
 * symbols and 10 lock callers by default. */
#define COMPARE_SCANNED 256
/* |z| at or above this is called beyond sampling noise. */
#define COMPARE_CPU_Z 3.0

/* One item (a symbol, a lock caller) of a level on both sides, matched
 * by name and kind; a side that did not keep it has its value at most
 * that side's floor. */
struct item_move {
	const char *name;
	const char *kind;	/* "kernel" or "user"; a lock type */
	double a, b;		/* NaN where not kept */
	double move;		/* b - a, the absent side at its floor */
};

/* One side's list at a level: its items, what their values are scaled
 * by, the floor of the items it did not keep, and its sample count. */
struct item_side {
	const cJSON *items;
	double scale;
	double floor;
	double samples;
};

/*
 * A list of a level that compare shows the most moved items of: where
 * an item holds its name, kind and value (and the largest value that
 * makes sense), how many rows to show, how to read a side (false when
 * the level has no such list), and how to print one row.
 */
struct item_list {
	const char *name, *kind, *value;
	double max;
	size_t rows;
	bool (*read)(const struct item_list *il, const cJSON *root,
		     const cJSON *level, struct item_side *s);
	void (*row)(FILE *f, const struct item_move *m,
		    const struct item_side *a, const struct item_side *b);
};

/* An item's value times scale; NaN when it has none that makes sense. */
static double item_value(const cJSON *e, const struct item_list *il,
			 double scale)
{
	double v = json_num(e, il->value);

	return v >= 0 && v <= il->max ? v * scale : NAN;
}

/* The largest value an item a side did not keep can have: the smallest
 * kept one when the list is as long as `top` allowed, else 0 (every
 * item was kept). */
static double list_floor(const struct item_list *il, const cJSON *items,
			 double scale, double top)
{
	const cJSON *e;
	double floor = 0;
	size_t n = 0;

	cJSON_ArrayForEach(e, items) {
		double v = item_value(e, il, scale);

		if (++n > COMPARE_SCANNED)
			break;
		if (!isnan(v) && (n == 1 || v < floor))
			floor = v;
	}
	return n && (double)n >= top ? floor : 0;
}

/* Adds a side's items to v (at most COMPARE_SCANNED * 2), their values
 * times the side's scale. */
static size_t add_moves(struct item_move *v, size_t n,
			const struct item_list *il, const struct item_side *s,
			bool side_b)
{
	const cJSON *e;
	size_t scanned = 0;

	cJSON_ArrayForEach(e, s->items) {
		const char *name = json_str(e, il->name);
		const char *kind = json_str(e, il->kind);
		double value = item_value(e, il, s->scale);
		size_t i;

		if (scanned++ >= COMPARE_SCANNED)
			break;
		if (!name || !kind || isnan(value))
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(v[i].kind, kind) &&
			    !strcmp(v[i].name, name))
				break;
		if (i == n)
			v[n++] = (struct item_move){ name, kind, NAN, NAN, 0 };
		if (side_b)
			v[i].b = value;
		else
			v[i].a = value;
	}
	return n;
}

static int cmp_move(const void *x, const void *y)
{
	const struct item_move *a = x, *b = y;

	if (fabs(a->move) != fabs(b->move))
		return fabs(a->move) > fabs(b->move) ? -1 : 1;
	if (strcmp(a->name, b->name))
		return strcmp(a->name, b->name);
	return strcmp(a->kind, b->kind);
}

/* At a level whose list both sides have, the il->rows items that moved
 * most from A to B (the side that did not keep one at its floor), most
 * first; none that did not move. */
static void print_moves(FILE *f, const struct item_list *il,
			const cJSON *ra, const cJSON *la, const cJSON *rb,
			const cJSON *lb)
{
	struct item_side sa, sb;
	struct item_move *v;
	size_t n;

	if (!il->read(il, ra, la, &sa) || !il->read(il, rb, lb, &sb))
		return;
	v = calloc(2 * COMPARE_SCANNED, sizeof(*v));
	if (!v)
		return;
	n = add_moves(v, 0, il, &sa, false);
	n = add_moves(v, n, il, &sb, true);
	for (size_t i = 0; i < n; i++)
		v[i].move = (isnan(v[i].b) ? sb.floor : v[i].b) -
			    (isnan(v[i].a) ? sa.floor : v[i].a);
	qsort(v, n, sizeof(*v), cmp_move);
	for (size_t i = 0; i < n && i < il->rows && v[i].move != 0; i++)
		il->row(f, &v[i], &sa, &sb);
	free(v);
}

/* The "what" column of an item's row: "cpu [k] osq_lock", as wide as
 * the header's. */
static void put_item_name(FILE *f, const char *prefix, const char *name,
			  const char *suffix)
{
	size_t len = strlen(prefix) + strlen(name) + strlen(suffix);

	fprintf(f, "%7s  %s", "", prefix);
	fput_safe(f, name);
	fput_safe(f, suffix);
	fprintf(f, "%*s", len < 22 ? (int)(22 - len) : 0, "");
}

/* A level's CPU profile: its symbols' shares, its sample count, and the
 * floor of the symbols it did not keep, against --cpu-profile-top. */
static bool read_cpu_profile(const struct item_list *il, const cJSON *root,
			     const cJSON *level, struct item_side *s)
{
	const cJSON *cp = json_obj(level, "cpu_profile");
	double top = json_num2(json_obj(root, "params"), "cpu_profile", "top");

	s->items = json_arr(cp, "symbols");
	s->samples = json_num(cp, "samples");
	s->scale = 1;
	if (!s->items || !(s->samples > 0) || json_str(cp, "rejected"))
		return false;
	s->floor = list_floor(il, s->items, s->scale, top);
	return true;
}

/* A share in percent, or "<F%" for one not kept, F the side's floor. */
static void put_share(FILE *f, double share, double floor)
{
	char buf[32];

	if (isnan(share))
		snprintf(buf, sizeof(buf), "<%.2f%%", floor * 100);
	else
		snprintf(buf, sizeof(buf), "%.2f%%", share * 100);
	fprintf(f, " %15s", buf);
}

/* A symbol's row, with a binomial z of its move: samples are taken a
 * millisecond apart, so this says how far sampling alone could move a
 * share, not how much two runs differ. */
static void cpu_symbol_row(FILE *f, const struct item_move *m,
			   const struct item_side *a,
			   const struct item_side *b)
{
	double pa = isnan(m->a) ? a->floor : m->a;
	double pb = isnan(m->b) ? b->floor : m->b;
	double se = sqrt(pa * (1 - pa) / a->samples +
			 pb * (1 - pb) / b->samples);
	double z = se > 0 ? m->move / se : NAN;

	put_item_name(f, strcmp(m->kind, "kernel") ? "cpu [.] " : "cpu [k] ",
		      m->name, "");
	put_share(f, m->a, a->floor);
	put_share(f, m->b, b->floor);
	fprintf(f, " %+7.2fpt  %s (z=%.1f, %.0f+%.0f samples)\n",
		m->move * 100,
		fabs(z) >= COMPARE_CPU_Z ? "beyond sampling noise" :
					   "within sampling noise",
		z, a->samples, b->samples);
}

/* A level's lock profile: its callers' waits in ms per second of the
 * span it covered, and the floor of the callers it did not keep,
 * against --lock-profile-top. */
static bool read_lock_profile(const struct item_list *il, const cJSON *root,
			      const cJSON *level, struct item_side *s)
{
	double top = json_num2(json_obj(root, "params"), "lock_profile",
			       "top");
	double offset_s, covered_s;

	s->items = json_arr(level, "lock_contention");
	s->samples = NAN;
	if (!s->items || !level_lock_span(root, level, &offset_s, &covered_s))
		return false;
	s->scale = 1e-6 / covered_s;
	s->floor = list_floor(il, s->items, s->scale, top);
	return true;
}

/* A wait in ms per second; for a caller a side did not keep, "<F ms/s"
 * (F its floor), or "none" when that side kept every caller it saw. */
static void put_wait_rate(FILE *f, double ms_per_s, double floor)
{
	char buf[40];

	if (isnan(ms_per_s) && floor == 0)
		snprintf(buf, sizeof(buf), "none");
	else if (isnan(ms_per_s))
		snprintf(buf, sizeof(buf), "<%.2f ms/s", floor);
	else
		snprintf(buf, sizeof(buf), "%.2f ms/s", ms_per_s);
	fprintf(f, " %15s", buf);
}

/* A caller's row: its lock type, A's and B's wait and the change. */
static void lock_caller_row(FILE *f, const struct item_move *m,
			    const struct item_side *a,
			    const struct item_side *b)
{
	char type[64];

	snprintf(type, sizeof(type), " (%s)", m->kind);
	put_item_name(f, "lock ", m->name, type);
	put_wait_rate(f, m->a, a->floor);
	put_wait_rate(f, m->b, b->floor);
	fprintf(f, " %+.2f ms/s\n", m->move);
}

/*
 * The lists shown under a level's jobs: the 3 symbols whose share of all
 * CPU samples moved most (--cpu-profile), and the 5 callers, with their
 * lock type, whose lock wait per second of profiled time did
 * (--lock-profile; per second, so that a profile of a slice of the
 * window compares with one of all of it).
 */
static const struct item_list cpu_symbols = {
	"symbol", "kind", "share", 1, 3, read_cpu_profile, cpu_symbol_row,
};
static const struct item_list lock_callers = {
	"caller", "type", "total_wait_ns", HUGE_VAL, 5, read_lock_profile,
	lock_caller_row,
};

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
	print_moves(f, &cpu_symbols, tot->root_a, la, tot->root_b, lb);
	print_moves(f, &lock_callers, tot->root_a, la, tot->root_b, lb);
}

bool compare_significant(double p, double pct, double noise_pct)
{
	return p < COMPARE_ALPHA && !isnan(pct) && fabs(pct) >= noise_pct;
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

void compare_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep compare A.json B.json [--fail-above PCT] [--noise PCT]\n"
		"\n"
		"Compares two saved results, B against A: for every level (matched\n"
		"by users; a repeated user count is matched in the order run) the\n"
		"jobs/min of A and B and the change in percent, then each job's\n"
		"ops/s (matched by name). Levels or jobs in only one file are\n"
		"listed as such. The header names each side's kernel, workfile and\n"
		"host; a warning says when the workfiles differ or a side's run did\n"
		"not complete.\n"
		"\n"
		"Verdict: when both levels carry repeat statistics (aimsweep run -r:\n"
		"levels[].repeats.jobs_per_min with n, mean and stddev, and the\n"
		"same for each job in levels[].repeats.jobs[]), the means are\n"
		"shown and compared: \"significant\" when Welch's t-test gives a\n"
		"two-sided p-value below %g and the change is at least --noise\n"
		"percent either way, else \"within noise\". The floor is there because\n"
		"repeats run in one process tree: their spread misses how much two\n"
		"separate runs differ, which is what A and B are (run -r's\n"
		"default, interleaved repeats spread over the run, miss less).\n"
		"Without repeats the verdict is \"no repeats: noise unknown\": one\n"
		"run per side says nothing about how much the number moves by\n"
		"itself.\n"
		"\n"
		"CPU profiles: at a level both results profiled (run --cpu-profile),\n"
		"the %zu symbols whose share of all CPU samples moved most, in\n"
		"percentage points (pt), marked [k] kernel or [.] user. A symbol\n"
		"a side did not keep is shown as below that side's smallest kept\n"
		"share, and counted at it. z is the change over its binomial\n"
		"standard error: \"beyond sampling noise\" from |z| %g, which says\n"
		"that sampling alone would hardly move the share that far, not\n"
		"that another run would not.\n"
		"\n"
		"Lock profiles: at a level both results profiled (run\n"
		"--lock-profile), the %zu callers, with their lock type, whose wait\n"
		"per second of profiled time moved most, in ms/s: A's, B's and the\n"
		"change. Per second, so that a profile of a slice of the window\n"
		"compares with one of all of it. A caller a side did not keep is\n"
		"shown as below that side's smallest kept rate and counted at it,\n"
		"or as none when that side kept every caller it saw.\n"
		"\n"
		"Options:\n"
		"  --fail-above PCT  exit 1 when a level's jobs/min dropped by more\n"
		"                    than PCT percent from A to B; only drops count,\n"
		"                    a rise never fails. A level ok in A that failed\n"
		"                    in B or is missing from it (B interrupted or\n"
		"                    shorter) counts as a drop; levels only in B\n"
		"                    and the jobs' rows do not count\n"
		"  --noise PCT       the smallest change called significant\n"
		"                    (default %g; lower it on a quiet machine)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Exit status: 0 compared (and no drop beyond --fail-above); 1 a\n"
		"level dropped beyond --fail-above; 2 bad usage, a file that\n"
		"cannot be read or is not a result.json this aimsweep reads, or\n"
		"output that cannot be written.\n",
		COMPARE_ALPHA, cpu_symbols.rows, COMPARE_CPU_Z,
		lock_callers.rows, COMPARE_NOISE_PCT);
}

static bool parse_percent(const char *s, double *out)
{
	char *end;
	double v;

	/* Decimal only: strtod() would also take "0x10", "inf" and "nan". */
	if (strspn(s, "0123456789.eE+-") != strlen(s))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < 0)
		return false;
	*out = v;
	return true;
}

int compare_main(int argc, char **argv)
{
	enum { OPT_FAIL_ABOVE = 256, OPT_NOISE };
	static const struct option opts[] = {
		{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
		{ "noise", required_argument, NULL, OPT_NOISE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct args args = { .cmd = "compare", .prefixed = true,
			     .longopts = opts, .usage = compare_usage };
	double fail_above = -1, noise = COMPARE_NOISE_PCT;
	cJSON *a = NULL, *b = NULL;
	char err[1024];
	int c, rc = EXIT_USAGE;

	while ((c = args_next(&args, argc, argv)) != ARGS_END) {
		if (c < 0)
			return args_status(c);
		if (c == OPT_FAIL_ABOVE && !parse_percent(optarg, &fail_above)) {
			msg_error("compare: --fail-above: '%s' is not a percentage (a number >= 0)",
				  optarg);
			return EXIT_USAGE;
		}
		if (c == OPT_NOISE && !parse_percent(optarg, &noise)) {
			msg_error("compare: --noise: '%s' is not a percentage (a number >= 0)",
				  optarg);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		return args_error(&args, "want two result.json files, got %d",
				  argc - optind);
	a = result_read(argv[optind], err, sizeof(err));
	if (!a) {
		msg_error("%s", err);
		goto out;
	}
	b = result_read(argv[optind + 1], err, sizeof(err));
	if (!b) {
		msg_error("%s", err);
		goto out;
	}
	rc = compare_print(stdout, a, argv[optind], b, argv[optind + 1],
			   fail_above, noise) ? EXIT_RUN_FAILED : EXIT_OK;
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
