/* driver/output/plot.c: `aimsweep plot`: a gnuplot script and data for results. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/output/plot.h"
#include "driver/base/process.h"
#include "driver/output/result_read.h"
#include "driver/base/util.h"

/* A hostile file could name a million jobs or locks; a plot with more
 * lines than this per result is unreadable anyway. */
#define PLOT_MAX_NAMES 64
#define PLOT_MAX_LOCKS_SCANNED 256

enum panel_id {
	PANEL_JOBS,
	PANEL_PER_USER,
	PANEL_P99,
	PANEL_SYS,
	PANEL_LOCKS,
	PANEL_CPU,
	N_PANELS,
};

struct panel {
	const char *title;
	const char *ylabel;
	const char *yformat;	/* NULL: gnuplot's own */
	bool logy;
	/* A key of long titles in a smaller font: at the default size two
	 * such keys side by side run into each other. One column: two of
	 * short titles ran into the axis label above them. */
	bool small_key;
	FILE *clauses;		/* the plot command's clauses, in memory */
	char *text;
	size_t len;
	size_t n;		/* clauses so far */
};

struct plot_data {
	FILE *dat;
	const char *dat_name;
	size_t next_index;	/* the gnuplot index of the next block */
	size_t sys_measured, sys_derived;
	double min_users, max_users;
	bool geometric;		/* each result's levels at least double */
	struct panel panels[N_PANELS];
};

/* Length of the UTF-8 sequence at s, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* The second byte's range excludes overlong forms, surrogates and
	 * code points past U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A gnuplot single-quoted string, in which nothing is interpreted but ''
 * for a quote. Control characters and bytes that are not UTF-8 become
 * '?': a label comes from a file or the command line, and the SVG it
 * ends up in must stay well-formed XML.
 */
static void gp_quote(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "?");

	fputc('\'', f);
	while (*p) {
		size_t n;

		if (*p == '\'') {
			fputs("''", f);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			fputc('?', f);
			p++;
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else if ((n = utf8_len(p))) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputc('?', f);
			p++;
		}
	}
	fputc('\'', f);
}

/* Whether gp_quote() prints s unchanged (apart from doubled quotes). */
static bool gp_literal(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80 ? 1 : utf8_len(p);

		if (!n || *p < 0x20 || *p == 0x7f)
			return false;
		p += n;
	}
	return true;
}

/* A data column: the number, or gnuplot's missing mark "?". */
static void put_dat(FILE *f, double v)
{
	char buf[NUM_TEXT_LEN];

	fputc(' ', f);
	fputs(isfinite(v) ? num_text(buf, sizeof(buf), v) : "?", f);
}

/*
 * A level with no point (failed, or without the value) breaks the line
 * there rather than joining its neighbours as if it had been measured:
 * one blank line before the next row. Never two, which would end the
 * gnuplot index.
 */
static void put_gap(FILE *f, bool *gap)
{
	if (*gap)
		fputc('\n', f);
	*gap = false;
}

/* Starts the next clause of a panel's plot command. */
static FILE *clause(struct panel *p)
{
	if (p->n++)
		fputs(", \\\n     ", p->clauses);
	return p->clauses;
}

/* Appends rows (one "users value..." line each) as the data file's next
 * block; returns its gnuplot index. */
static size_t put_block(struct plot_data *d, const char *label,
			const char *what, const char *rows, size_t len)
{
	fprintf(d->dat, "# index %zu: %s of ", d->next_index, what);
	fput_safe(d->dat, label);
	fputc('\n', d->dat);
	fwrite(rows, 1, len, d->dat);
	/* Two blank lines end a block for gnuplot's `index`. */
	fputs("\n\n", d->dat);
	return d->next_index++;
}

static void note_users(struct plot_data *d, double users)
{
	if (users < d->min_users)
		d->min_users = users;
	if (users > d->max_users)
		d->max_users = users;
}

/* Whether the file has the machine's sys% (levels[].cpu.sys_pct) for
 * every ok level; else the users' own system time stands in for it. */
static bool has_machine_sys(const cJSON *root)
{
	const cJSON *l;

	cJSON_ArrayForEach(l, result_levels(root))
		if (level_is_ok(l) && isnan(json_num2(l, "cpu", "sys_pct")))
			return false;
	return true;
}

/* jobs/min, jobs/min/user and sys% per ok level: one block, three
 * panels. With mark_derived, a line of users' sys time says so in the
 * legend, because other lines show the machine's. */
static int plot_levels(struct plot_data *d, const struct plot_result *r,
		       int color, bool mark_derived)
{
	const cJSON *levels = result_levels(r->root), *l;
	double cpus = json_num2(r->root, "host", "cpus_online");
	double ideal = NAN, prev_users = 0;
	bool measured = has_machine_sys(r->root), any_sys = false, gap = false;
	size_t len = 0, nrows = 0, idx;
	char *rows = NULL;
	FILE *f, *c;

	f = open_memstream(&rows, &len);
	if (!f)
		return -1;
	cJSON_ArrayForEach(l, levels) {
		double users = level_users(l);
		double jpm = json_num(l, "jobs_per_min");
		double per_user = json_num(l, "jobs_per_min_per_user");
		double sys;

		if (!level_is_ok(l) || (isnan(jpm) && isnan(per_user))) {
			gap = nrows > 0;
			continue;
		}
		if (measured)
			sys = json_num2(l, "cpu", "sys_pct");
		else
			sys = json_num2(l, "rusage", "stime_s") /
			      (json_num(l, "window_s") * cpus) * 100.0;
		if (isnan(ideal))
			ideal = per_user;
		any_sys |= isfinite(sys);
		note_users(d, users);
		if (nrows && users < prev_users * 1.9)
			d->geometric = false;
		prev_users = users;
		put_gap(f, &gap);
		fprintf(f, "%.0f", users);
		put_dat(f, jpm);
		put_dat(f, per_user);
		put_dat(f, sys);
		fputc('\n', f);
		nrows++;
	}
	if (fclose(f))
		return -1;
	if (!nrows) {
		free(rows);
		return 0;
	}
	idx = put_block(d, r->label,
			"users, jobs/min, jobs/min/user, sys %", rows, len);
	free(rows);

	c = clause(&d->panels[PANEL_JOBS]);
	fprintf(c, "dat index %zu using 1:2 with linespoints lc %d pt 7 title ",
		idx, color);
	gp_quote(c, r->label);

	c = clause(&d->panels[PANEL_PER_USER]);
	fprintf(c, "dat index %zu using 1:3 with linespoints lc %d pt 7 title ",
		idx, color);
	gp_quote(c, r->label);
	if (isfinite(ideal)) {
		char buf[NUM_TEXT_LEN];

		/* Perfect scaling: every user as fast as at the first
		 * level. */
		c = clause(&d->panels[PANEL_PER_USER]);
		fprintf(c, "dat index %zu using 1:(%s) with lines lc %d dt 2 title ",
			idx, num_text(buf, sizeof(buf), ideal), color);
		fputs("'ideal: '.", c);
		gp_quote(c, r->label);
	}

	if (any_sys) {
		c = clause(&d->panels[PANEL_SYS]);
		fprintf(c, "dat index %zu using 1:4 with linespoints lc %d pt 7 title ",
			idx, color);
		gp_quote(c, r->label);
		if (!measured && mark_derived)
			fputs(".' (users'' sys time)'", c);
		if (measured)
			d->sys_measured++;
		else
			d->sys_derived++;
	}
	return 0;
}

static bool name_known(const char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The value an item of a level's array has for the series `name`, or
 * NAN when the item is another series' or has none; root and level are
 * the file and the level that hold it. With item NULL: the value of a
 * series that no item of the level names (0 where the level's list is
 * known to be whole), else NAN. */
typedef double (*series_value)(const cJSON *root, const cJSON *level,
			       const cJSON *item, const char *name);

static double job_p99_us(const cJSON *root, const cJSON *level,
			 const cJSON *job, const char *name)
{
	const char *n = json_str(job, "name");
	double p99 = json_num2(job, "latency_ns", "p99");

	(void)root;
	(void)level;
	return job && n && !strcmp(n, name) && isfinite(p99) ?
	       p99 / 1000.0 : NAN;
}

/* A lock entry's wait in ms per second its level's profile covered,
 * for the series `name` (a lock_entry_label()). */
static double lock_wait_ms_per_s(const cJSON *root, const cJSON *level,
				 const cJSON *e, const char *name)
{
	char buf[LOCK_LABEL_LEN];
	const char *n = e ? lock_entry_label(e, buf, sizeof(buf)) : NULL;
	const cJSON *kept = json_arr(level, "lock_contention");
	double top = json_num2(json_obj(root, "params"), "lock_profile",
			       "top");
	double offset_s, covered_s;

	if (!level_lock_span(root, level, &offset_s, &covered_s))
		return NAN;
	/* A level that kept fewer callers than it could kept them all: one
	 * it does not name did not wait there. */
	if (!e)
		return kept && cJSON_GetArraySize(kept) < top ? 0 : NAN;
	if (!n || strcmp(n, name))
		return NAN;
	return lock_entry_wait_ns(e) / covered_s / 1e6;
}

/* A level's array `path`: "jobs", or one object down,
 * "cpu_profile.symbols". */
static const cJSON *level_array(const cJSON *l, const char *path)
{
	const char *dot = strchr(path, '.');
	char parent[32];

	if (!dot)
		return json_arr(l, path);
	snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
	return json_arr(json_obj(l, parent), dot + 1);
}

/* An ok level's value for the series `name`: its first item's that has
 * one, else what value() says of a series the level does not name. */
static double level_value(const cJSON *root, const cJSON *l,
			  const char *array, series_value value,
			  const char *name)
{
	const cJSON *item;

	if (!level_is_ok(l))
		return NAN;
	cJSON_ArrayForEach(item, level_array(l, array)) {
		double v = value(root, l, item, name);

		if (!isnan(v))
			return v;
	}
	return value(root, l, NULL, name);
}

/*
 * One line of a per-name panel: for every ok level, the first item of
 * its `array` that has a value for `name`; a level without one breaks
 * the line. Writes the data block and the plot clause; nothing when no
 * level has a value. -1 when out of memory.
 */
static int plot_series(struct plot_data *d, const struct plot_result *r,
		       int dash, int panel, const char *array,
		       series_value value, const char *name, size_t color,
		       const char *what_prefix)
{
	const cJSON *l;
	size_t len = 0, nrows = 0, idx;
	char *rows = NULL, what[96];
	FILE *f = open_memstream(&rows, &len), *c;
	bool gap = false;

	if (!f)
		return -1;
	cJSON_ArrayForEach(l, result_levels(r->root)) {
		double v = level_value(r->root, l, array, value, name);

		if (isnan(v)) {
			gap = nrows > 0;
			continue;
		}
		put_gap(f, &gap);
		fprintf(f, "%.0f", level_users(l));
		put_dat(f, v);
		fputc('\n', f);
		nrows++;
	}
	if (fclose(f))
		return -1;
	if (!nrows) {
		free(rows);
		return 0;
	}
	snprintf(what, sizeof(what), "%s %zu", what_prefix, color);
	idx = put_block(d, r->label ? r->label : "the result", what, rows, len);
	free(rows);
	c = clause(&d->panels[panel]);
	fprintf(c, "dat index %zu using 1:2 with linespoints lc %zu dt %d pt 7 title ",
		idx, color, dash);
	/* Without a label (one result) the title is the name alone. */
	if (r->label) {
		gp_quote(c, r->label);
		fputs(".': '.", c);
	}
	gp_quote(c, name);
	return 0;
}

/* Each job's p99 latency (levels[].jobs[].latency_ns.p99) per ok level,
 * one line per job where the file has it. */
static int plot_job_p99(struct plot_data *d, const struct plot_result *r,
			int dash)
{
	const cJSON *levels = result_levels(r->root), *l, *j;
	const char *names[PLOT_MAX_NAMES];
	size_t n_names = 0;

	cJSON_ArrayForEach(l, levels) {
		if (!level_is_ok(l))
			continue;
		cJSON_ArrayForEach(j, json_arr(l, "jobs")) {
			const char *name = json_str(j, "name");

			if (name && n_names < PLOT_MAX_NAMES &&
			    isfinite(json_num2(j, "latency_ns", "p99")) &&
			    !name_known(names, n_names, name))
				names[n_names++] = name;
		}
	}
	for (size_t i = 0; i < n_names; i++)
		if (plot_series(d, r, dash, PANEL_P99, "jobs", job_p99_us,
				names[i], i + 1, "users, p99 latency us of job"))
			return -1;
	return 0;
}

struct lock_total {
	char name[LOCK_LABEL_LEN];
	double wait_ns;
};

static int cmp_lock_total(const void *x, const void *y)
{
	const struct lock_total *a = x, *b = y;

	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * The callers (with their lock type) that waited most over the whole run,
 * each as its wait per second of profiled time, level by level: a rate
 * reads the same whether a level's profile covered a slice of its window
 * or all of it.
 */
static int plot_locks(struct plot_data *d, const struct plot_result *r,
		      int dash)
{
	const cJSON *levels = result_levels(r->root), *l, *e;
	struct lock_total locks[PLOT_MAX_NAMES];
	size_t n_locks = 0;

	cJSON_ArrayForEach(l, levels) {
		size_t scanned = 0;

		if (!level_is_ok(l))
			continue;
		cJSON_ArrayForEach(e, json_arr(l, "lock_contention")) {
			char buf[LOCK_LABEL_LEN];
			const char *name = lock_entry_label(e, buf,
							    sizeof(buf));
			double w = lock_entry_wait_ns(e);
			size_t k;

			if (scanned++ >= PLOT_MAX_LOCKS_SCANNED)
				break;
			if (!name || isnan(w))
				continue;
			for (k = 0; k < n_locks; k++)
				if (!strcmp(locks[k].name, name))
					break;
			if (k == n_locks) {
				if (n_locks == PLOT_MAX_NAMES)
					continue;
				snprintf(locks[n_locks].name,
					 sizeof(locks[0].name), "%s", name);
				locks[n_locks++].wait_ns = 0;
			}
			locks[k].wait_ns += w;
		}
	}
	qsort(locks, n_locks, sizeof(locks[0]), cmp_lock_total);
	if (n_locks > PLOT_TOP_LOCKS)
		n_locks = PLOT_TOP_LOCKS;
	for (size_t i = 0; i < n_locks; i++)
		if (plot_series(d, r, dash, PANEL_LOCKS, "lock_contention",
				lock_wait_ms_per_s, locks[i].name, i + 1,
				"users, wait ms per s profiled of lock caller"))
			return -1;
	return 0;
}

/*
 * A cpu_profile.symbols[] item's series name, "[k] osq_lock", into buf;
 * NULL for user-space symbols and "[unknown]": the panel is the kernel's
 * (user space is every process's on the machine, and unresolved
 * addresses are no one function).
 */
static const char *symbol_series(const cJSON *e, char *buf, size_t len)
{
	const char *name = json_str(e, "symbol"), *kind = json_str(e, "kind");

	if (!name || !kind || strcmp(kind, "kernel") ||
	    !strcmp(name, "[unknown]"))
		return NULL;
	snprintf(buf, len, "[k] %s", name);
	return buf;
}

/* Its share of all samples in percent, for the series `name`. */
static double symbol_share_pct(const cJSON *root, const cJSON *level,
			       const cJSON *e, const char *name)
{
	char buf[300];
	const char *n = symbol_series(e, buf, sizeof(buf));
	double share = json_num(e, "share");

	(void)root;
	(void)level;
	return e && n && !strcmp(n, name) && share >= 0 && share <= 1 ?
		share * 100 : NAN;
}

struct symbol_peak {
	char name[300];
	double top_share;	/* at the level of the most users */
	double max_share;	/* at any level */
};

static int cmp_symbol_peak(const void *x, const void *y)
{
	const struct symbol_peak *a = x, *b = y;

	if (a->top_share != b->top_share)
		return a->top_share > b->top_share ? -1 : 1;
	if (a->max_share != b->max_share)
		return a->max_share > b->max_share ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The ok level with the most users that has a CPU profile (the last of
 * them on a tie), or NULL. */
static const cJSON *most_users_profiled(const cJSON *root)
{
	const cJSON *l, *best = NULL;

	cJSON_ArrayForEach(l, result_levels(root))
		if (level_is_ok(l) &&
		    cJSON_GetArraySize(level_array(l, "cpu_profile.symbols")) &&
		    (!best || level_users(l) >= level_users(best)))
			best = l;
	return best;
}

/* The share of all CPU samples of the kernel symbols that took the most
 * at the level of the most users (then at any level), per level:
 * levels[].cpu_profile.symbols[] = { symbol, kind, share, ... }. A symbol
 * is one line from level to level; a level where it was not among the
 * kept ones breaks its line. */
static int plot_cpu_symbols(struct plot_data *d, const struct plot_result *r,
			    int dash, bool alone)
{
	/* Symbol names are long ("__raw_callee_save___kvm_vcpu_is_preempted"):
	 * with the result's label before each, gnuplot finds the key too
	 * wide for half the picture and leaves it out. A lone result's
	 * label is in the other panels' keys. */
	struct plot_result unlabelled = { .root = r->root, .label = NULL };

	const cJSON *l, *e, *top = most_users_profiled(r->root);
	struct symbol_peak *syms = calloc(PLOT_MAX_NAMES, sizeof(*syms));
	size_t n_syms = 0;
	int rc = 0;

	if (!syms)
		return -1;
	cJSON_ArrayForEach(l, result_levels(r->root)) {
		size_t scanned = 0;

		if (!level_is_ok(l))
			continue;
		cJSON_ArrayForEach(e, level_array(l, "cpu_profile.symbols")) {
			char buf[300];
			const char *name = symbol_series(e, buf, sizeof(buf));
			double share = symbol_share_pct(r->root, l, e,
							name ? name : "");
			size_t k;

			if (scanned++ >= PLOT_MAX_LOCKS_SCANNED)
				break;
			if (!name || isnan(share))
				continue;
			for (k = 0; k < n_syms; k++)
				if (!strcmp(syms[k].name, name))
					break;
			if (k == n_syms) {
				if (n_syms == PLOT_MAX_NAMES)
					continue;
				snprintf(syms[n_syms++].name,
					 sizeof(syms[0].name), "%s", name);
			}
			if (l == top)
				syms[k].top_share = share;
			if (share > syms[k].max_share)
				syms[k].max_share = share;
		}
	}
	qsort(syms, n_syms, sizeof(syms[0]), cmp_symbol_peak);
	if (n_syms > PLOT_TOP_SYMBOLS)
		n_syms = PLOT_TOP_SYMBOLS;
	for (size_t i = 0; !rc && i < n_syms; i++)
		rc = plot_series(d, alone ? &unlabelled : r, dash, PANEL_CPU,
				 "cpu_profile.symbols",
				 symbol_share_pct, syms[i].name, i + 1,
				 "users, % of CPU samples of symbol");
	free(syms);
	return rc;
}

static void write_script(FILE *gp, struct plot_data *d, size_t n_results,
			 const char *gp_name, const char *out_name, bool png)
{
	size_t active = 0, rows, cols;

	for (int i = 0; i < N_PANELS; i++)
		active += d->panels[i].n > 0;
	cols = active > 1 ? 2 : 1;
	rows = (active + cols - 1) / cols;
	fprintf(gp, "# %s: aimsweep plot of %zu result%s; redraw with `gnuplot %s` in this directory.\n",
		gp_name, n_results, n_results == 1 ? "" : "s", gp_name);
	if (png) {
		fprintf(gp,
			"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			"\tset terminal pngcairo size 1200,%zu\n"
			"} else {\n"
			"\tset terminal png size 1200,%zu\n"
			"}\n", rows > 2 ? rows * 450 : 900,
			rows > 2 ? rows * 450 : 900);
	} else {
		fprintf(gp, "set terminal svg size 1200,%zu dynamic\n",
			rows > 2 ? rows * 450 : 900);
	}
	/* Job names like creat_clo would turn into subscripts otherwise. */
	fputs("set termoption noenhanced\n", gp);
	fputs("set output ", gp);
	gp_quote(gp, out_name);
	fputs("\ndat = ", gp);
	gp_quote(gp, d->dat_name);
	/* gnuplot overestimates how wide a key of long titles is (a lock's
	 * "release workfile: caller+0x3b"), warns that it cannot fit them
	 * under a half-width panel, and the warning reached the run's
	 * output; narrowed by 8 characters they fit and it stays quiet. */
	fputs("\nset datafile missing '?'\n"
	      "set grid\n"
	      "set key below width -8\n"
	      "set xlabel 'users'\n", gp);
	/* Doubling ramps (1,2,4,...,64) bunch up at the left on a linear
	 * axis; 100..1000 by 100 reads better linear. */
	if (d->geometric && d->min_users >= 1 &&
	    d->max_users / d->min_users >= 4)
		fputs("set logscale x 2\n", gp);
	fprintf(gp, "set multiplot layout %zu,%zu\n", rows, cols);
	for (int i = 0; i < N_PANELS; i++) {
		struct panel *p = &d->panels[i];

		if (!p->n)
			continue;
		fputs("\nset title ", gp);
		gp_quote(gp, p->title);
		fputs("\nset ylabel ", gp);
		gp_quote(gp, p->ylabel);
		fputc('\n', gp);
		if (p->yformat) {
			fputs("set format y ", gp);
			gp_quote(gp, p->yformat);
			fputc('\n', gp);
		} else {
			fputs("set format y '% h'\n", gp);
		}
		fprintf(gp, "set key font '%s' maxcols %s\n",
			p->small_key ? ",9" : "", p->small_key ? "1" : "auto");
		if (p->logy)
			fputs("set logscale y\nset yrange [*:*]\n", gp);
		else
			fputs("unset logscale y\nset yrange [0:*]\n", gp);
		fprintf(gp, "plot %.*s\n", (int)p->len, p->text);
	}
	fputs("\nunset multiplot\n", gp);
}

static void panels_init(struct plot_data *d)
{
	static const struct panel proto[N_PANELS] = {
		[PANEL_JOBS] = { "jobs/min vs users", "jobs/min", "%.1s%c" },
		[PANEL_PER_USER] = { "jobs/min per user vs users (dashed: ideal)",
				     "jobs/min/user", "%.1s%c" },
		[PANEL_P99] = { "p99 latency per job vs users",
				"p99 latency (us)", NULL, true },
		[PANEL_SYS] = { "machine sys % vs users (/proc/stat)",
				"sys %", NULL },
		[PANEL_LOCKS] = { "top lock callers: wait per second profiled vs users",
				  "lock wait (ms per s profiled, all waiters)",
				  NULL, .small_key = true },
		[PANEL_CPU] = { "top kernel symbols: share of all CPU samples vs users",
				"% of CPU samples (perf, all CPUs)", NULL,
				.small_key = true },
	};

	for (int i = 0; i < N_PANELS; i++) {
		d->panels[i] = proto[i];
		d->panels[i].clauses = open_memstream(&d->panels[i].text,
						      &d->panels[i].len);
	}
}

static bool has_ok_level(const cJSON *root)
{
	const cJSON *l;

	cJSON_ArrayForEach(l, result_levels(root))
		if (level_is_ok(l))
			return true;
	return false;
}

/* Every result's lines in every panel, one color per result; -1 when out
 * of memory. */
static int plot_results(struct plot_data *d, const struct plot_result *res,
			size_t n)
{
	size_t n_machine_sys = 0;

	for (size_t i = 0; i < n; i++)
		n_machine_sys += has_machine_sys(res[i].root);
	for (size_t i = 0; i < n; i++) {
		int color = (int)(i % 8) + 1;

		if (plot_levels(d, &res[i], color,
				n_machine_sys > 0 && n_machine_sys < n) ||
		    plot_job_p99(d, &res[i], color) ||
		    plot_locks(d, &res[i], color) ||
		    plot_cpu_symbols(d, &res[i], color, n == 1))
			return -1;
	}
	if (d->sys_derived) {
		/* rusage covers each user's whole life, not the window:
		 * say what the number is. */
		d->panels[PANEL_SYS].title = d->sys_measured ?
			"sys % vs users (marked: users' sys time)" :
			"users' sys time % vs users";
		d->panels[PANEL_SYS].ylabel = d->sys_measured ? "sys %" :
			"users' stime / (window x CPUs) %";
	}
	return 0;
}

int plot_write(const struct plot_result *res, size_t n, const char *gp_path,
	       const char *dat_path, const char *dat_name,
	       const char *out_name, bool png, char *err, size_t errlen)
{
	struct plot_data d = {
		.dat_name = dat_name,
		.min_users = INFINITY,
		.max_users = -INFINITY,
		.geometric = true,
	};
	const char *gp_name = strrchr(gp_path, '/');
	int active = 0, rc = -1;
	FILE *gp = NULL;

	gp_name = gp_name ? gp_name + 1 : gp_path;
	panels_init(&d);
	for (int i = 0; i < N_PANELS; i++) {
		if (!d.panels[i].clauses) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	d.dat = fopen(dat_path, "w");
	if (!d.dat) {
		snprintf(err, errlen, "cannot write %s: %s", dat_path,
			 strerror(errno));
		goto out;
	}
	fprintf(d.dat, "# %s: aimsweep plot data, read by the script next to it; failed levels are left out, a blank line breaks the line there.\n",
		dat_name);
	if (plot_results(&d, res, n)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int i = 0; i < N_PANELS; i++) {
		if (fflush(d.panels[i].clauses)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		active += d.panels[i].n > 0;
	}
	if (fclose(d.dat)) {
		d.dat = NULL;
		snprintf(err, errlen, "cannot write %s: %s", dat_path,
			 strerror(errno));
		goto out;
	}
	d.dat = NULL;
	if (!active) {
		struct stat st;

		/* Nothing to draw from it: leave nothing behind either; but
		 * only a file, never a device the data was sent to. */
		if (!stat(dat_path, &st) && S_ISREG(st.st_mode))
			unlink(dat_path);
		snprintf(err, errlen, "nothing to plot: no level is ok");
		goto out;
	}
	gp = fopen(gp_path, "w");
	if (!gp) {
		snprintf(err, errlen, "cannot write %s: %s", gp_path,
			 strerror(errno));
		goto out;
	}
	write_script(gp, &d, n, gp_name, out_name, png);
	if (fclose(gp)) {
		snprintf(err, errlen, "cannot write %s: %s", gp_path,
			 strerror(errno));
		goto out;
	}
	rc = active;
out:
	if (d.dat)
		fclose(d.dat);
	for (int i = 0; i < N_PANELS; i++) {
		if (d.panels[i].clauses)
			fclose(d.panels[i].clauses);
		free(d.panels[i].text);
	}
	return rc;
}

/* How long gnuplot may take: five panels of a long ramp take well under
 * a second; a gnuplot that hangs must not hang the end of a run. */
#define GNUPLOT_TIMEOUT_S 60

/* Copies what gnuplot said (kept in `log`) to standard error. */
static void show_gnuplot_log(FILE *log)
{
	char line[512];

	if (!log || fseek(log, 0, SEEK_SET))
		return;
	while (fgets(line, sizeof(line), log))
		fprintf(stderr, "gnuplot: %s%s", line,
			strchr(line, '\n') ? "" : "\n");
}

/*
 * Runs `gnuplot SCRIPT` in dir, without a shell. Returns its exit status,
 * or -1 after a message. What gnuplot writes to standard error is shown
 * only when it fails: a working script's warnings (an x range of one
 * level is "empty") are noise in a run's output. A script never needs the
 * terminal: gnuplot reads /dev/null, so that a `pause` in an edited copy
 * cannot hang us.
 */
static int run_gnuplot(const char *dir, const char *script)
{
	char *const argv[] = { "gnuplot", (char *)script, NULL };
	FILE *log = tmpfile();
	int status, got, rc = -1;
	pid_t pid;

	fflush(NULL);
	pid = process_spawn(&(struct spawn_spec){
		.argv = argv, .dir = dir, .out_fd = -1,
		.err_fd = log ? fileno(log) : -1,
	});
	if (pid < 0) {
		msg_error("plot: cannot fork gnuplot: %s", strerror(errno));
		if (log)
			fclose(log);
		return -1;
	}
	got = process_wait(pid, &status, PROCESS_REAP,
			   process_deadline_in(GNUPLOT_TIMEOUT_S));
	if (got == 0) {
		process_end_group(&pid, 0, 0);
		show_gnuplot_log(log);
		msg_error("plot: gnuplot did not finish within %d s; killed it",
			  GNUPLOT_TIMEOUT_S);
	} else if (got < 0) {
		msg_error("plot: waiting for gnuplot: %s", strerror(errno));
	} else if (WIFSIGNALED(status)) {
		show_gnuplot_log(log);
		msg_error("plot: gnuplot was killed by signal %d",
			  WTERMSIG(status));
	} else {
		rc = WEXITSTATUS(status);
		if (rc)
			show_gnuplot_log(log);
	}
	if (log)
		fclose(log);
	return rc;
}

/* FILE.svg -> FILE.gp and FILE.dat, with the directory and bare names. */
struct plot_paths {
	char *dir, *gp, *dat, *gp_name, *dat_name, *out_name;
};

static void plot_paths_free(struct plot_paths *p)
{
	free(p->dir);
	free(p->gp);
	free(p->dat);
	free(p->gp_name);
	free(p->dat_name);
	free(p->out_name);
}

/* "%.*s%s" of the first `len` bytes of s and suffix; NULL when out of
 * memory. */
static char *stem_with(const char *s, size_t len, const char *suffix)
{
	char *r;

	if (asprintf(&r, "%.*s%s", (int)len, s, suffix) < 0)
		return NULL;
	return r;
}

static int plot_paths_make(const char *out, struct plot_paths *p)
{
	const char *slash = strrchr(out, '/');
	const char *name = slash ? slash + 1 : out;
	size_t stem = strlen(out) - 4, name_stem = strlen(name) - 4;

	if (slash)
		p->dir = strndup(out, slash == out ? 1 : (size_t)(slash - out));
	else
		p->dir = strdup(".");
	p->gp = stem_with(out, stem, ".gp");
	p->dat = stem_with(out, stem, ".dat");
	p->gp_name = stem_with(name, name_stem, ".gp");
	p->dat_name = stem_with(name, name_stem, ".dat");
	p->out_name = strdup(name);
	return p->dir && p->gp && p->dat && p->gp_name && p->dat_name &&
	       p->out_name ? 0 : -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

bool plot_output_name_ok(const char *out)
{
	const char *name = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;

	if ((!ends_with(out, ".png") && !ends_with(out, ".svg")) ||
	    strlen(name) <= 4) {
		msg_error("plot: -o %s: the picture's name must end in .svg or .png",
			  out);
		return false;
	}
	if (!gp_literal(out)) {
		msg_error("plot: -o: the name has control characters or is not UTF-8; the script could not name it");
		return false;
	}
	return true;
}

char *plot_label(const cJSON *root, const char *label, const char *path)
{
	const char *kernel = json_str(json_obj(root, "host"),
				      "kernel_release") ?: "?";
	char *s;

	/* The kernel is in every legend: two runs of one kernel and
	 * workfile are told apart by --label, two kernels by this. */
	if (label ? asprintf(&s, "%s (%s)", label, kernel) < 0 :
	    asprintf(&s, "%s %s", kernel,
		     json_str(json_obj(root, "mix"), "name") ?: path) < 0)
		return NULL;
	return s;
}

int plot_draw(const struct plot_result *res, size_t n, const char *out)
{
	struct plot_paths paths = { 0 };
	char err[1024];
	int panels, status, rc = -1;

	if (!plot_output_name_ok(out))
		return -1;
	if (plot_paths_make(out, &paths)) {
		msg_error("plot: out of memory");
		goto out;
	}
	panels = plot_write(res, n, paths.gp, paths.dat, paths.dat_name,
			    paths.out_name, ends_with(out, ".png"), err,
			    sizeof(err));
	if (panels < 0) {
		msg_error("plot: %s", err);
		goto out;
	}
	if (!process_in_path("gnuplot")) {
		msg_error("plot: gnuplot is not installed, so %s was not drawn (Debian, Ubuntu: apt-get install gnuplot-nox); wrote %s and %s: run `gnuplot %s` in %s to draw it",
			  out, paths.gp, paths.dat, paths.gp_name, paths.dir);
		rc = 0;
		goto out;
	}
	/* A picture left from an earlier run must not pass for this one. */
	if (unlink(out) && errno != ENOENT) {
		msg_error("plot: cannot replace %s: %s", out, strerror(errno));
		goto out;
	}
	status = run_gnuplot(paths.dir, paths.gp_name);
	if (status != 0) {
		if (status > 0)
			msg_error("plot: gnuplot %s failed with status %d",
				  paths.gp, status);
		goto out;
	}
	/* On stderr: stdout may be a run's machine-readable output. */
	msg_info("wrote %s (%d panels; gnuplot script %s, data %s)", out,
		 panels, paths.gp, paths.dat);
	rc = 0;
out:
	plot_paths_free(&paths);
	return rc;
}

/* Frees what read_results() filled in. */
static void results_free(struct plot_result *res, size_t n)
{
	for (size_t i = 0; res && i < n; i++) {
		cJSON_Delete((cJSON *)res[i].root);
		free((char *)res[i].label);
	}
	free(res);
}

/* Each of the n files in paths[] with its legend: the i-th of the
 * n_labels --labels, else the file's own. NULL after a message. */
static struct plot_result *read_results(char **paths, size_t n,
					const char **labels, size_t n_labels)
{
	struct plot_result *res = calloc(n, sizeof(*res));
	char err[1024];

	if (!res) {
		msg_error("plot: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		res[i].root = result_read(paths[i], err, sizeof(err));
		if (!res[i].root) {
			msg_error("%s", err);
			goto fail;
		}
		if (!has_ok_level(res[i].root))
			msg_warn("plot: %s has no ok level, so it has no line",
				 paths[i]);
		res[i].label = plot_label(res[i].root,
					  i < n_labels ? labels[i] : NULL,
					  paths[i]);
		if (!res[i].label) {
			msg_error("plot: out of memory");
			goto fail;
		}
	}
	return res;
fail:
	results_free(res, n);
	return NULL;
}

int plot_files(char **paths, size_t n, const char **labels,
	       size_t n_labels, const char *out)
{
	struct plot_result *res;
	int rc = EXIT_RUN_FAILED;

	res = read_results(paths, n, labels, n_labels);
	if (res && !plot_draw(res, n, out))
		rc = EXIT_OK;
	results_free(res, n);
	return rc;
}
