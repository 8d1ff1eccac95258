/* jobs/decimal.h: a number written in decimal without the C library's
 * formatting, for names a job makes on every op. */
#ifndef AIMSWEEP_JOBS_DECIMAL_H
#define AIMSWEEP_JOBS_DECIMAL_H

#include <stddef.h>

/*
 * Writes v in decimal and a terminating NUL at dst, which has room for
 * `room` bytes (21 always suffice); returns the digits written, or 0 when
 * they do not fit (dst is then unchanged). Formatting a path with
 * snprintf() on every op cost the creat job 5.8% of its ops (15 of 15
 * paired 1 s runs): time spent in the C library, not the kernel.
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
