/* driver/base/util.c: clocks, messages and small string helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/base/util.h"

int err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int err_keepv(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (!err[0])
		vsnprintf(err, errlen, fmt, ap);
	return -1;
}

int err_keep(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_keepv(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

bool sleep_until_ns(uint64_t deadline_ns, const volatile int *stop_flag)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NSEC_PER_SEC),
	};

	/* The handlers are installed without SA_RESTART, so a signal ends
	 * the sleep with EINTR and the flag is looked at right away. */
	while (!(stop_flag && *stop_flag)) {
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					 NULL);
		if (rc == 0)
			return true;
		if (rc != EINTR)
			return true;
	}
	return false;
}

static void msg_emit(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static bool progress_on;	/* see progress_init() */
static bool progress_shown;	/* a progress line is on it now */

/*
 * On when standard error is a terminal and standard output goes to that
 * terminal or to a file: through a pipe (| tee), the rows would reach the
 * screen later than the progress line, and be glued to it.
 */
void progress_init(void)
{
	const char *term = getenv("TERM");
	struct stat st;

	progress_on = isatty(STDERR_FILENO) &&
		      !(term && !strcmp(term, "dumb")) &&
		      (isatty(STDOUT_FILENO) ||
		       (!fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode)));
}

void progress_show(const char *fmt, ...)
{
	struct winsize ws;
	char buf[160];
	va_list ap;

	if (!progress_on)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* One row of the terminal: a wrapped line would only lose its last
	 * row to the erase. */
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 1 &&
	    (size_t)ws.ws_col - 1 < sizeof(buf))
		buf[ws.ws_col - 1] = '\0';
	/* Back to the start of the line, erase it, write the new one. */
	fprintf(stderr, "\r\033[K%s", buf);
	fflush(stderr);
	progress_shown = true;
}

void progress_clear(void)
{
	if (!progress_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	progress_shown = false;
}

static void msg_emit(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	progress_clear();
	fprintf(stderr, "aimsweep: %s%s\n", prefix, buf);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_emit("", fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_emit("warning: ", fmt, ap);
	va_end(ap);
}

void msg_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_emit("", fmt, ap);
	va_end(ap);
}

bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

const char *errno_name(int err)
{
	static __thread char buf[16];
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

bool path_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n >= 0 && (size_t)n < len;
}

void levels_describe(char *buf, size_t len, const unsigned int *users,
		     size_t n)
{
	bool steps = n >= 3 && users[1] > users[0];

	/* Counts are at most a million: a fall never wraps to the step. */
	for (size_t i = 2; steps && i < n; i++)
		steps = users[i] - users[i - 1] == users[1] - users[0];
	if (n == 1)
		snprintf(buf, len, "1 level of %u user%s", users[0],
			 users[0] == 1 ? "" : "s");
	else if (steps)
		snprintf(buf, len, "%zu levels, users %u..%u by %u", n,
			 users[0], users[n - 1], users[1] - users[0]);
	else
		snprintf(buf, len, "%zu levels", n);
}
