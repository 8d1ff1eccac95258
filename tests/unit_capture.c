/* tests/unit_capture.c: unit tests of the parser of perf lock contention's report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture.h"
#include "tests/test.h"

#define HEADER " contended   total wait     max wait     avg wait         type   caller\n\n"

/* Parses text as if perf had written it; returns the parser's result. */
static int parse(const char *text, size_t top, struct lock_entry **e,
		 size_t *n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	if (!f)
		test_bail("fmemopen: %s", strerror(errno));
	rc = capture_parse_contention(f, top, e, n);
	fclose(f);
	return rc;
}

/* What perf 6.1 printed on this project's machine during a
 * creat-contention level of 4 users. */
static void test_perf_61_output(void)
{
	struct lock_entry *e;
	size_t n;

	CHECK_EQ_INT(parse(HEADER
			   "        80    420.65 ms     18.41 ms      5.26 ms      rwsem:W   __x64_sys_unlink+0x3b\n"
			   "        56    238.67 ms     17.93 ms      4.26 ms      rwsem:W   do_filp_open+0x106\n",
			   10, &e, &n), 0);
	if (!CHECK_EQ_U64(n, 2))
		return;
	CHECK_EQ_U64(e[0].contended, 80);
	CHECK_EQ_U64(e[0].total_wait_ns, 420650000);
	CHECK_EQ_U64(e[0].max_wait_ns, 18410000);
	CHECK_EQ_U64(e[0].avg_wait_ns, 5260000);
	CHECK_STR_EQ(e[0].type, "rwsem:W");
	CHECK_STR_EQ(e[0].caller, "__x64_sys_unlink+0x3b");
	CHECK_EQ_U64(e[1].contended, 56);
	CHECK_STR_EQ(e[1].caller, "do_filp_open+0x106");
	free(e);
}

/* perf prints whole nanoseconds below 1 us, else two decimals of us, ms,
 * s, m or h (the last two followed by a blank). */
static void test_units(void)
{
	struct lock_entry *e;
	size_t n;

	CHECK_EQ_INT(parse(HEADER
			   "         3    1.50 h        2.25 m      30.00 s   spinlock   a\n"
			   "         1       618 ns      999 ns       1.02 us   rwlock:R   b\n",
			   10, &e, &n), 0);
	if (!CHECK_EQ_U64(n, 2))
		return;
	CHECK_EQ_U64(e[0].total_wait_ns, 5400000000000ULL);
	CHECK_EQ_U64(e[0].max_wait_ns, 135000000000ULL);
	CHECK_EQ_U64(e[0].avg_wait_ns, 30000000000ULL);
	CHECK_EQ_U64(e[1].total_wait_ns, 618);
	CHECK_EQ_U64(e[1].max_wait_ns, 999);
	CHECK_EQ_U64(e[1].avg_wait_ns, 1020);
	CHECK_STR_EQ(e[1].type, "rwlock:R");
	free(e);
}

/* Anything that is not an entry is skipped: perf's warnings before the
 * header, its debug section after the entries, lines with a bad number
 * or an unknown unit. */
static void test_noise(void)
{
	struct lock_entry *e;
	size_t n;

	CHECK_EQ_INT(parse("Warning: 12 out of order events recorded.\n"
			   "        99    1.00 s       1.00 s       1.00 s   mutex   before_header\n"
			   HEADER
			   "        -5    1.00 ms      1.00 ms      1.00 ms  mutex   negative\n"
			   "         5    1.00 xs      1.00 ms      1.00 ms  mutex   bad_unit\n"
			   "         5    nan ms       1.00 ms      1.00 ms  mutex   nan\n"
			   "         5    1.00 ms      1.00 ms      mutex   short\n"
			   "        7x    1.00 ms      1.00 ms      1.00 ms  mutex   bad_count\n"
			   "         2    2.00 ms      1.00 ms      1.00 ms  mutex   good\n"
			   "\n=== output for debug===\n\n"
			   "bad: 1, total: 7\n"
			   "bad rate: 14.29 %\n",
			   10, &e, &n), 0);
	if (!CHECK_EQ_U64(n, 1))
		return;
	CHECK_STR_EQ(e[0].caller, "good");
	CHECK_EQ_U64(e[0].total_wait_ns, 2000000);
	free(e);
}

/* The top N by total wait, most first, whatever order perf used. */
static void test_top_sorted(void)
{
	struct lock_entry *e;
	size_t n;

	CHECK_EQ_INT(parse(HEADER
			   "  1  1.00 ms  1.00 ms  1.00 ms  mutex  one\n"
			   "  1  3.00 ms  3.00 ms  3.00 ms  mutex  three\n"
			   "  1  2.00 ms  2.00 ms  2.00 ms  mutex  two\n"
			   "  1  4.00 ms  4.00 ms  4.00 ms  mutex  four\n",
			   2, &e, &n), 0);
	if (!CHECK_EQ_U64(n, 2))
		return;
	CHECK_STR_EQ(e[0].caller, "four");
	CHECK_STR_EQ(e[1].caller, "three");
	free(e);
}

/* A missing caller is empty; one with blanks is kept whole; a long one
 * is cut to fit; a line longer than any entry is skipped whole. */
static void test_callers(void)
{
	char text[4096], longname[300];
	struct lock_entry *e;
	size_t n;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(text, sizeof(text), HEADER
		 "  4  4.00 ms  1.00 ms  1.00 ms  rwsem:R\n"
		 "  3  3.00 ms  1.00 ms  1.00 ms  mutex  [unknown] caller\t\n"
		 "  2  2.00 ms  1.00 ms  1.00 ms  mutex  %s\n"
		 "  1  1.00 ms  1.00 ms  1.00 ms  mutex  %s%s%s%s\n"
		 "  1  0.50 ms  1.00 ms  1.00 ms  mutex  after_long\n",
		 longname, longname, longname, longname, longname);
	CHECK_EQ_INT(parse(text, 10, &e, &n), 0);
	if (!CHECK_EQ_U64(n, 4))
		return;
	CHECK_STR_EQ(e[0].caller, "");
	CHECK_STR_EQ(e[0].type, "rwsem:R");
	CHECK_STR_EQ(e[1].caller, "[unknown] caller");
	CHECK_EQ_U64(strlen(e[2].caller), sizeof(e[2].caller) - 1);
	CHECK(!strncmp(e[2].caller, longname, sizeof(e[2].caller) - 1));
	CHECK_STR_EQ(e[3].caller, "after_long");
	free(e);
}

/* No entries is an empty list; no header is not perf's report. */
static void test_empty_and_foreign(void)
{
	struct lock_entry *e = (struct lock_entry *)1;
	size_t n = 99;

	CHECK_EQ_INT(parse(HEADER, 10, &e, &n), 0);
	CHECK_EQ_U64(n, 0);
	CHECK(e == NULL);
	CHECK_EQ_INT(parse("", 10, &e, &n), EBADMSG);
	CHECK_EQ_INT(parse(" contended   total wait     max wait     avg wait         type   lock address\n"
			   "  1  1.00 ms  1.00 ms  1.00 ms  mutex  one\n",
			   10, &e, &n), EBADMSG);
	CHECK_EQ_U64(n, 0);
	CHECK(e == NULL);
}

int main(void)
{
	RUN_TEST(test_perf_61_output);
	RUN_TEST(test_units);
	RUN_TEST(test_noise);
	RUN_TEST(test_top_sorted);
	RUN_TEST(test_callers);
	RUN_TEST(test_empty_and_foreign);
	return test_done();
}
