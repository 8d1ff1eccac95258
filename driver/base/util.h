/* driver/base/util.h: clocks, messages and small string helpers. */
#ifndef AIMSWEEP_UTIL_H
#define AIMSWEEP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_SEC 1000000000ULL

/* A macro's value as a string literal: a default in a --help line. */
#define STRINGIFY(x) STRINGIFY_TEXT(x)
#define STRINGIFY_TEXT(x) #x

/* Exit statuses, documented in aimsweep(1). */
enum {
	EXIT_OK = 0,
	EXIT_RUN_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_INTERRUPTED = 128,	/* plus the signal number */
};

uint64_t now_ns(void);		/* CLOCK_MONOTONIC */
/* Sleeps until the CLOCK_MONOTONIC deadline or until `*stop_flag` is set by
 * a signal handler; returns false when interrupted. */
bool sleep_until_ns(uint64_t deadline_ns, const volatile int *stop_flag);

void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The live progress line: one line on standard error, rewritten in place,
 * shown only when standard error is a terminal (and TERM is not "dumb").
 * Messages clear it before they print; whoever prints anything else to
 * the terminal (the table) calls progress_clear() first.
 */
void progress_init(void);
void progress_show(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_clear(void);

/* Parses a non-negative decimal integer that must fit in `max`; no sign,
 * no trailing garbage. Returns false on error. */
bool parse_u64(const char *s, uint64_t max, uint64_t *out);

const char *errno_name(int err);	/* "ENOSPC", or "E123" */

/* Writes "dir/name" into buf; false when it does not fit. */
bool path_join(char *buf, size_t len, const char *dir, const char *name);

/* A run's levels as its header names them, into buf: "1 level of 8 users",
 * "10 levels, users 100..1000 by 100" when they rise by one step, else
 * "4 levels". The table that `run` prints and `report` prints again
 * share it, so that both say the same. */
void levels_describe(char *buf, size_t len, const unsigned int *users,
		     size_t n);

#endif
