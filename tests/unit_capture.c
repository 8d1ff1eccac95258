/* tests/unit_capture.c: unit tests of the parser of perf lock contention's report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/capture/perf_lock.h"
#include "tests/test.h"

#define HEADER " contended   total wait     max wait     avg wait         type   caller\n\n"

/* The dropped lines of the last parse(), and what it said when it
 * failed. */
static size_t dropped;
static char parse_err[256];

/* Parses text as if perf had written it for a capture of capture_ns;
 * returns the parser's result. */
static int parse_capture(const char *text, uint64_t capture_ns, size_t top,
			 struct lock_entry **e, size_t *n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct lock_report r;
	int rc;

	if (!f)
		test_bail("fmemopen: %s", strerror(errno));
	parse_err[0] = '\0';
	rc = capture_parse_contention(f, "report.txt", capture_ns, top, NULL,
				      &r, parse_err, sizeof(parse_err));
	fclose(f);
	*e = r.entries;
	*n = r.n_entries;
	dropped = r.dropped;
	return rc;
}

/* The same for a capture longer than any wait in the tests but one. */
static int parse(const char *text, size_t top, struct lock_entry **e,
		 size_t *n)
{
	return parse_capture(text, 0, top, e, n);
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
	lock_entries_free(e, n);
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
	lock_entries_free(e, n);
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
	lock_entries_free(e, n);
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
	lock_entries_free(e, n);
}

/* An entry's rows, its call stacks, are kept most total wait first
 * (on a tie, most waits first), whatever order perf printed them in. */
static void test_rows_sorted(void)
{
	struct lock_entry *e;
	size_t n;

	CHECK_EQ_INT(parse(HEADER
			   "   5  100.00 ms 50.00 ms 20.00 ms  rwsem:W  unlink\n"
			   "  21  100.00 ms  5.00 ms  4.76 ms  rwsem:W  unlink\n"
			   "\t\t\t0x1000  least\n"
			   "  54  420.00 ms  9.00 ms  7.77 ms  rwsem:W  unlink\n"
			   "\t\t\t0x2000  most\n"
			   "  33  200.00 ms  8.00 ms  6.06 ms  rwsem:W  unlink\n",
			   10, &e, &n), 0);
	if (!CHECK_EQ_U64(n, 1) || !CHECK_EQ_U64(e[0].n_rows, 4))
		goto out;
	CHECK_EQ_U64(e[0].rows[0].total_wait_ns, 420000000);
	CHECK_STR_EQ(e[0].rows[0].frame[0], "most");
	CHECK_EQ_U64(e[0].rows[1].total_wait_ns, 200000000);
	CHECK_EQ_U64(e[0].rows[2].contended, 21);
	CHECK_STR_EQ(e[0].rows[2].frame[0], "least");
	CHECK_EQ_U64(e[0].rows[3].contended, 5);
out:
	lock_entries_free(e, n);
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
	lock_entries_free(e, n);
}

/* With the kernel's symbols, a line's caller is its stack's first frame
 * outside the tracepoint's machinery and the lock and scheduler text, as
 * the in-kernel collector names it, and lines of one such caller merge;
 * a line without frames keeps perf's caller. */
static void test_callers_from_stack(void)
{
	static const char kallsyms[] =
		"0000000000001000 T path_openat\n"
		"0000000000001400 T do_filp_open\n"
		"0000000000001800 T __traceiter_contention_begin\n"
		"0000000000002000 T __lock_text_start\n"
		"0000000000002000 T down_write\n"
		"0000000000002800 T rwsem_down_write_slowpath\n"
		"0000000000003000 T __lock_text_end\n";
	static const char text[] = HEADER
		"  5  5.00 ms  2.00 ms  1.00 ms  rwsem:W  do_filp_open+0x106\n"
		"\t\t\t0x182f  __traceiter_contention_begin+0x2f\n"
		"\t\t\t0x2810  rwsem_down_write_slowpath+0x10\n"
		"\t\t\t0x2008  down_write+0x8\n"
		"\t\t\t0x14e3  path_openat+0x4e3\n"
		"\t\t\t0x1506  do_filp_open+0x106\n"
		"  1  1.00 ms  1.00 ms  1.00 ms  rwsem:W  path_openat+0x4e3\n"
		"  2  2.00 ms  1.00 ms  1.00 ms  rwsem:W  do_filp_open+0x106\n"
		"\t\t\t0x2810  rwsem_down_write_slowpath+0x10\n"
		"\t\t\t0x2008  down_write+0x8\n";
	char path[] = "/tmp/unit_capture.XXXXXX", err[256];
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct lock_report r;
	struct ksyms ks;
	int fd = mkstemp(path);

	if (fd < 0 || !f || write(fd, kallsyms, strlen(kallsyms)) !=
				    (ssize_t)strlen(kallsyms))
		test_bail("cannot write %s: %s", path, strerror(errno));
	close(fd);
	if (ksyms_load(&ks, path, err, sizeof(err)))
		test_bail("ksyms_load: %s", err);
	unlink(path);
	CHECK_EQ_INT(capture_parse_contention(f, "report.txt", 0, 10, &ks, &r,
					      err, sizeof(err)), 0);
	fclose(f);
	if (CHECK_EQ_U64(r.n_entries, 2)) {
		/* The first line named by its frame, merged with the
		 * second; the third, all lock code, keeps perf's caller. */
		CHECK_STR_EQ(r.entries[0].caller, "path_openat+0x4e3");
		CHECK_EQ_U64(r.entries[0].contended, 6);
		CHECK_EQ_U64(r.entries[0].n_rows, 2);
		CHECK_STR_EQ(r.entries[1].caller, "do_filp_open+0x106");
	}
	lock_entries_free(r.entries, r.n_entries);
	ksyms_free(&ks);
}

/* No entries is an empty list; no header is not perf's report. */
static void test_empty_and_foreign(void)
{
	struct lock_entry *e = (struct lock_entry *)1;
	size_t n = 99;

	CHECK_EQ_INT(parse(HEADER, 10, &e, &n), 0);
	CHECK_EQ_U64(n, 0);
	CHECK(e == NULL);
	CHECK_EQ_INT(parse("", 10, &e, &n), -1);
	CHECK_STR_EQ(parse_err,
		     "lock profile: report.txt lacks the header 'contended total wait max wait avg wait type caller' of perf 6.1's report");
	CHECK_EQ_INT(parse(" contended   total wait     max wait     avg wait         type   lock address\n"
			   "  1  1.00 ms  1.00 ms  1.00 ms  mutex  one\n",
			   10, &e, &n), -1);
	CHECK_STR_CONTAINS(parse_err, "lacks the header");
	CHECK_EQ_U64(n, 0);
	CHECK(e == NULL);
}

/* What perf printed in a failed CI run, at 4 users of creat-contention
 * with a 1 s capture: a begin/end pair it could not match, with no
 * contention counted and a wait as long as the capture, at the top; and
 * the same caller and type on several lines, each its own call stack. */
static void test_unpaired_and_duplicates(void)
{
	struct lock_entry *e;
	size_t n;

	CHECK_EQ_INT(parse_capture(
		"Looking at the vmlinux_path (8 entries long)\n"
		HEADER
		"         0      1.00 s       1.00 s       1.00 s      spinlock   irqentry_exit_to_user_mode+0x11f\n"
		"\t\t\t0xffffffff8226ed3e  __pv_queued_spin_lock_slowpath+0x10e\n"
		"        54    420.00 ms     18.00 ms      7.77 ms      rwsem:W   __x64_sys_unlink+0x3b\n"
		"\t\t\t0xffffffff8226a7fc  rwsem_down_write_slowpath+0x3cc\n"
		"\t\t\t0xffffffff8226abb6  down_write+0x66\n"
		"\t\t\t0xffffffff816f2fc0  do_unlinkat+0x160\n"
		"\t\t\t0x7f59a5008829  \n"
		"        40    300.00 ms      4.00 ms      7.50 ms      rwsem:W   do_filp_open+0x106\n"
		"        33    200.00 ms     25.00 ms      6.06 ms      rwsem:W   __x64_sys_unlink+0x3b\n"
		"\t\t\t0xffffffff8226a7fc  rwsem_down_write_slowpath+0x3cc\n"
		"         3    990.00 ms    960.00 ms    330.00 ms        mutex   stuck_for_the_capture\n"
		"        21    100.00 ms      5.00 ms      4.76 ms      rwsem:W   __x64_sys_unlink+0x3b\n"
		"         2     10.00 ms      9.00 ms      5.00 ms      rwsem:R   __x64_sys_unlink+0x3b\n"
		"\n=== output for debug===\n\nbad: 1, total: 7\n",
		1000000000, 10, &e, &n), 0);
	CHECK_EQ_U64(dropped, 2);
	if (!CHECK_EQ_U64(n, 3))
		return;
	/* One entry per caller and type: sums, the largest max, the mean. */
	CHECK_STR_EQ(e[0].caller, "__x64_sys_unlink+0x3b");
	CHECK_STR_EQ(e[0].type, "rwsem:W");
	CHECK_EQ_U64(e[0].contended, 108);
	CHECK_EQ_U64(e[0].total_wait_ns, 720000000);
	CHECK_EQ_U64(e[0].max_wait_ns, 25000000);
	CHECK_EQ_U64(e[0].avg_wait_ns, 720000000 / 108);
	if (CHECK_EQ_U64(e[0].n_rows, 3)) {
		CHECK_EQ_U64(e[0].rows[0].contended, 54);
		CHECK_EQ_U64(e[0].rows[1].contended, 33);
		CHECK_EQ_U64(e[0].rows[2].contended, 21);
		/* Each line's call stack stays with it; a frame without a
		 * symbol is its address. */
		CHECK_EQ_U64(e[0].rows[0].n_frames, 4);
		CHECK_STR_EQ(e[0].rows[0].frame[1], "down_write+0x66");
		CHECK_STR_EQ(e[0].rows[0].frame[3], "0x7f59a5008829");
		CHECK_EQ_U64(e[0].rows[1].n_frames, 1);
		CHECK_EQ_U64(e[0].rows[2].n_frames, 0);
	}
	CHECK_STR_EQ(e[1].caller, "do_filp_open+0x106");
	CHECK_EQ_U64(e[1].n_rows, 1);
	/* Another type of the same caller is another entry. */
	CHECK_STR_EQ(e[2].type, "rwsem:R");
	lock_entries_free(e, n);

	/* Without the capture's length only the uncounted line goes. */
	CHECK_EQ_INT(parse_capture(HEADER
		"         0      1.00 s       1.00 s       1.00 s      spinlock   a\n"
		"         3    990.00 ms    960.00 ms    330.00 ms        mutex   b\n",
		0, 10, &e, &n), 0);
	CHECK_EQ_U64(dropped, 1);
	CHECK_EQ_U64(n, 1);
	lock_entries_free(e, n);
}

/* Merging comes before the top N: the merged sum decides. */
static void test_top_after_merge(void)
{
	struct lock_entry *e;
	size_t n;

	CHECK_EQ_INT(parse(HEADER
			   "  1  3.00 ms  3.00 ms  3.00 ms  mutex  three\n"
			   "  1  2.00 ms  2.00 ms  2.00 ms  mutex  two\n"
			   "  1  2.00 ms  2.00 ms  2.00 ms  mutex  two\n"
			   "  1  1.00 ms  1.00 ms  1.00 ms  mutex  one\n",
			   1, &e, &n), 0);
	if (!CHECK_EQ_U64(n, 1))
		return;
	CHECK_STR_EQ(e[0].caller, "two");
	CHECK_EQ_U64(e[0].total_wait_ns, 4000000);
	lock_entries_free(e, n);
}

int main(void)
{
	RUN_TEST(test_unpaired_and_duplicates);
	RUN_TEST(test_top_after_merge);
	RUN_TEST(test_perf_61_output);
	RUN_TEST(test_units);
	RUN_TEST(test_noise);
	RUN_TEST(test_top_sorted);
	RUN_TEST(test_rows_sorted);
	RUN_TEST(test_callers);
	RUN_TEST(test_callers_from_stack);
	RUN_TEST(test_empty_and_foreign);
	return test_done();
}
