/* driver/output/plot_data.c: plot's data: a result's lines, panel by panel. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/output/plot.h"
#include "driver/output/plot_data.h"
#include "driver/output/plot_script.h"
#include "driver/output/result_read.h"
#include "driver/base/util.h"

/* A hostile file could name a million jobs or locks; a plot with more
 * lines than this per result is unreadable anyway. */
#define PLOT_MAX_NAMES 64
#define PLOT_MAX_LOCKS_SCANNED 256

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

/* The lines of a result's block idx in the jobs/min panel and, with the
 * ideal, in the jobs/min/user panel. */
static void levels_clauses(struct plot_data *d, const struct plot_result *r,
			   size_t idx, int color, double ideal)
{
	FILE *c;

	c = plot_script_clause(&d->panels[PANEL_JOBS]);
	fprintf(c, "dat index %zu using 1:2 with linespoints lc %d pt 7 title ",
		idx, color);
	plot_script_quote(c, r->label);

	c = plot_script_clause(&d->panels[PANEL_PER_USER]);
	fprintf(c, "dat index %zu using 1:3 with linespoints lc %d pt 7 title ",
		idx, color);
	plot_script_quote(c, r->label);
	if (isfinite(ideal)) {
		char buf[NUM_TEXT_LEN];

		/* Perfect scaling: every user as fast as at the first
		 * level. */
		c = plot_script_clause(&d->panels[PANEL_PER_USER]);
		fprintf(c, "dat index %zu using 1:(%s) with lines lc %d dt 2 title ",
			idx, num_text(buf, sizeof(buf), ideal), color);
		fputs("'ideal: '.", c);
		plot_script_quote(c, r->label);
	}
}

/* The result's line in the sys panel: the machine's sys% when measured,
 * else the users' own, marked so with mark_derived. */
static void sys_clause(struct plot_data *d, const struct plot_result *r,
		       size_t idx, int color, bool measured, bool mark_derived)
{
	FILE *c = plot_script_clause(&d->panels[PANEL_SYS]);

	fprintf(c, "dat index %zu using 1:4 with linespoints lc %d pt 7 title ",
		idx, color);
	plot_script_quote(c, r->label);
	if (!measured && mark_derived)
		fputs(".' (users'' sys time)'", c);
	if (measured)
		d->sys_measured++;
	else
		d->sys_derived++;
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
	FILE *f;

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

	levels_clauses(d, r, idx, color, ideal);
	if (any_sys)
		sys_clause(d, r, idx, color, measured, mark_derived);
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
	c = plot_script_clause(&d->panels[panel]);
	fprintf(c, "dat index %zu using 1:2 with linespoints lc %zu dt %d pt 7 title ",
		idx, color, dash);
	/* Without a label (one result) the title is the name alone. */
	if (r->label) {
		plot_script_quote(c, r->label);
		fputs(".': '.", c);
	}
	plot_script_quote(c, name);
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

/*
 * Where the series `name` is among the *n entries of v, each of `size`
 * bytes and starting with its name (name_len bytes): its index, or a
 * zeroed entry added at the end when it is new; -1 when it is new and v
 * holds PLOT_MAX_NAMES already. The lock and CPU symbol panels rank their
 * series by what each adds up over the levels, and draw the top ones.
 */
static long series_index(void *v, size_t *n, size_t size, size_t name_len,
			 const char *name)
{
	char *at = v;

	for (size_t k = 0; k < *n; k++, at += size)
		if (!strcmp(at, name))
			return (long)k;
	if (*n == PLOT_MAX_NAMES)
		return -1;
	memset(at, 0, size);
	snprintf(at, name_len, "%s", name);
	return (long)(*n)++;
}

struct lock_total {
	char name[LOCK_LABEL_LEN];	/* first: see series_index() */
	double wait_ns;
};
_Static_assert(offsetof(struct lock_total, name) == 0, "name first");

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
			long k;

			if (scanned++ >= PLOT_MAX_LOCKS_SCANNED)
				break;
			if (!name || isnan(w))
				continue;
			k = series_index(locks, &n_locks, sizeof(locks[0]),
					 sizeof(locks[0].name), name);
			if (k >= 0)
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
	char name[300];		/* first: see series_index() */
	double top_share;	/* at the level of the most users */
	double max_share;	/* at any level */
};
_Static_assert(offsetof(struct symbol_peak, name) == 0, "name first");

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
			long k;

			if (scanned++ >= PLOT_MAX_LOCKS_SCANNED)
				break;
			if (!name || isnan(share))
				continue;
			k = series_index(syms, &n_syms, sizeof(syms[0]),
					 sizeof(syms[0].name), name);
			if (k < 0)
				continue;
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

/* Every result's lines in every panel, one color per result; -1 when out
 * of memory. */
int plot_data_add_results(struct plot_data *d, const struct plot_result *res,
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
