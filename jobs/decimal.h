/* jobs/decimal.h: a number in decimal without printf, for names made per op. */
#ifndef AIMSWEEP_JOBS_DECIMAL_H
#define AIMSWEEP_JOBS_DECIMAL_H

#include <stddef.h>

/*
 * Writes v in decimal and a terminating NUL at dst, which has room for
 * `room` bytes (21 always suffice); returns the digits written, or 0 when
 * they do not fit (dst is then unchanged). Formatting a path with
 * snprintf() on every op would put C library time, not the kernel's, into
 * the ops of the file jobs, which exist to time the kernel.
 */
static inline size_t decimal_put(char *dst, size_t room, unsigned long v)
{
	char digits[24];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (n >= room)
		return 0;
	for (size_t i = 0; i < n; i++)
		dst[i] = digits[n - 1 - i];
	dst[n] = '\0';
	return n;
}

#endif
