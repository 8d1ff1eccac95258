/* driver/base/util.h: clocks, messages and small string helpers. */
#ifndef AIMSWEEP_UTIL_H
#define AIMSWEEP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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

/* CLOCK_MONOTONIC in ns. Inline: a user times one op in N with it, and
 * the clock's cost is what sets N. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Sleeps until the CLOCK_MONOTONIC deadline or until `*stop_flag` is set by
 * a signal handler; returns false when interrupted. */
bool sleep_until_ns(uint64_t deadline_ns, const volatile int *stop_flag);

/*
 * The driver's one way to fail (docs/architecture.md, "Rules the layers
 * keep"): a function returns 0 or -1 and says what failed, with what and
 * the errno text, in the buffer err[errlen] its caller passes. err_set()
 * writes the message; err_keep() writes it only into an empty buffer, for
 * a step that goes on after a failure, whose first one is the cause and
 * later ones its consequences. Both return -1, for "return err_set(...)".
 */
int err_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int err_keep(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int err_keepv(char *err, size_t errlen, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

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
