/* driver/capture/lock_report.c: a level's lock report, built from call stacks by either lock collector. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture/lock_report.h"

static int by_total_wait(const void *a, const void *b)
{
	const struct lock_entry *x = a, *y = b;

	if (x->total_wait_ns != y->total_wait_ns)
		return x->total_wait_ns > y->total_wait_ns ? -1 : 1;
	if (x->contended != y->contended)
		return x->contended > y->contended ? -1 : 1;
	if (strcmp(x->caller, y->caller))
		return strcmp(x->caller, y->caller);
	return strcmp(x->type, y->type);
}

static int by_row_total_wait(const void *a, const void *b)
{
	const struct lock_row *x = a, *y = b;

	if (x->total_wait_ns != y->total_wait_ns)
		return x->total_wait_ns > y->total_wait_ns ? -1 : 1;
	return x->contended > y->contended ? -1 : x->contended < y->contended;
}

static struct lock_entry *find_entry(struct lock_report_builder *b,
				     const char *caller, const char *type)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->entries[i].caller, caller) &&
		    !strcmp(b->entries[i].type, type))
			return &b->entries[i];
	return NULL;
}

static struct lock_entry *new_entry(struct lock_report_builder *b,
				    const char *caller, const char *type,
				    const char *lock)
{
	struct lock_entry *e, *grown;

	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;

		grown = realloc(b->entries, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		b->entries = grown;
		b->cap = cap;
	}
	e = &b->entries[b->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->caller, sizeof(e->caller), "%s", caller);
	snprintf(e->type, sizeof(e->type), "%s", type);
	snprintf(e->lock, sizeof(e->lock), "%s", lock);
	return e;
}

int lock_report_add(struct lock_report_builder *b, const char *caller,
		    const char *type, const char *lock,
		    const struct lock_row *row)
{
	struct lock_entry *e = find_entry(b, caller, type);
	struct lock_row *rows;

	if (!e) {
		e = new_entry(b, caller, type, lock);
		if (!e)
			return -1;
	} else if (strcmp(e->lock, lock)) {
		e->lock[0] = '\0';
	}
	rows = realloc(e->rows, (e->n_rows + 1) * sizeof(*rows));
	if (!rows)
		return -1;
	e->rows = rows;
	e->rows[e->n_rows++] = *row;
	e->contended += row->contended;
	e->total_wait_ns += row->total_wait_ns;
	if (row->max_wait_ns > e->max_wait_ns)
		e->max_wait_ns = row->max_wait_ns;
	/* A lone row's own mean, which has none of our rounding; else the
	 * mean of the waits counted, without the time of those still
	 * going on at the window's end. */
	if (e->n_rows == 1) {
		e->avg_wait_ns = row->avg_wait_ns;
	} else {
		uint64_t open = 0;

		for (size_t i = 0; i < e->n_rows; i++)
			open += e->rows[i].open_wait_ns;
		e->avg_wait_ns = e->contended ? (e->total_wait_ns - open) /
						e->contended : 0;
	}
	return 0;
}

void lock_report_finish(struct lock_report_builder *b, size_t top,
			struct lock_report *out)
{
	struct lock_entry *v = b->entries;
	size_t n = b->n;

	for (size_t i = 0; i < n; i++)
		qsort(v[i].rows, v[i].n_rows, sizeof(v[i].rows[0]),
		      by_row_total_wait);
	if (n)
		qsort(v, n, sizeof(*v), by_total_wait);
	for (size_t i = top; i < n; i++)
		free(v[i].rows);
	if (n > top)
		n = top;
	if (!n) {
		free(v);
		v = NULL;
	}
	out->entries = v;
	out->n_entries = n;
	memset(b, 0, sizeof(*b));
}

void lock_report_discard(struct lock_report_builder *b)
{
	lock_entries_free(b->entries, b->n);
	memset(b, 0, sizeof(*b));
}
