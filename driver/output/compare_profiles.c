/* driver/output/compare_profiles.c: compare's profile rows: what moved most. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/output/compare_profiles.h"
#include "driver/output/result_read.h"
#include "driver/base/util.h"

/* The most items of a side's level looked at; result.json keeps 20
 * symbols and 10 lock callers by default. */
#define COMPARE_SCANNED 256

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
 * The lists shown under a level's jobs: the symbols whose share of all
 * CPU samples moved most (--cpu-profile), and the callers, with their
 * lock type, whose lock wait per second of profiled time did
 * (--lock-profile; per second, so that a profile of a slice of the
 * window compares with one of all of it).
 */
static const struct item_list cpu_symbols = {
	"symbol", "kind", "share", 1, COMPARE_CPU_SYMBOL_ROWS,
	read_cpu_profile, cpu_symbol_row,
};
static const struct item_list lock_callers = {
	"caller", "type", "total_wait_ns", HUGE_VAL, COMPARE_LOCK_CALLER_ROWS,
	read_lock_profile, lock_caller_row,
};

void compare_print_profiles(FILE *f, const cJSON *root_a, const cJSON *la,
			    const cJSON *root_b, const cJSON *lb)
{
	print_moves(f, &cpu_symbols, root_a, la, root_b, lb);
	print_moves(f, &lock_callers, root_a, la, root_b, lb);
}
