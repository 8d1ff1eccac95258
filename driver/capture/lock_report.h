/* driver/capture/lock_report.h: a level's lock report, built from call stacks by either lock collector: stacks merged by caller and lock type, the most waited-on kept. */
#ifndef AIMSWEEP_LOCK_REPORT_H
#define AIMSWEEP_LOCK_REPORT_H

#include <stddef.h>

#include "driver/measure/result.h"

/* A level's lock report as aimsweep keeps it. */
struct lock_report {
	struct lock_entry *entries;	/* malloc()ed, NULL when none */
	size_t n_entries;
	size_t dropped;		/* rows the collector could not have measured */
};

/* Entries being built; zeroed, it is empty. */
struct lock_report_builder {
	struct lock_entry *entries;
	size_t n, cap;
};

/*
 * Adds one call stack's waits (row) to the entry of its caller and lock
 * type, made when new. lock is the static lock's name, or "": an entry
 * keeps a name only while all its rows agree on it. 0, or -1 with errno
 * ENOMEM, as the allocations of docs/architecture.md's "One way to fail":
 * running out of memory is its only failure, and its caller names what
 * it was reading.
 */
int lock_report_add(struct lock_report_builder *b, const char *caller,
		    const char *type, const char *lock,
		    const struct lock_row *row);

/* Sorts every entry's rows and the entries by total wait, most first,
 * and keeps the top ones in out (whose dropped is left as it was). The
 * builder is empty afterwards. */
void lock_report_finish(struct lock_report_builder *b, size_t top,
			struct lock_report *out);

/* Frees what the builder holds. */
void lock_report_discard(struct lock_report_builder *b);

#endif
