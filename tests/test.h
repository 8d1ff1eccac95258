/* tests/test.h: a tiny assertion helper shared by the C unit tests. */
#ifndef AIMSWEEP_TEST_H
#define AIMSWEEP_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Each unit test is one program: a main() that runs test functions with
 * RUN_TEST() and returns test_done(). A failing check prints where it is
 * and what it saw, and the test function goes on, so that one run shows
 * every failure. Exit codes are automake's: 0 pass, 1 fail, 77 skip,
 * 99 hard error (the test could not even set itself up).
 */
#define TEST_EXIT_PASS 0
#define TEST_EXIT_FAIL 1
#define TEST_EXIT_SKIP 77
#define TEST_EXIT_ERROR 99

static unsigned int test_checks;	/* every check made, over all tests */
static unsigned int test_check_failures; /* failed checks, over all tests */
static unsigned int test_passed, test_failed;

static inline bool test_report(bool ok, const char *file, int line,
			       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Counts one check; on failure prints "file:line: " and the message. */
static inline bool test_report(bool ok, const char *file, int line,
			       const char *fmt, ...)
{
	va_list ap;

	test_checks++;
	if (ok)
		return true;
	test_check_failures++;
	printf("%s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return false;
}

/* A note that is neither a pass nor a failure, e.g. why a part is skipped. */
static inline void test_note(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline void test_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* The test cannot go on at all (no temp dir, no memory): exit 99. */
static inline void test_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static inline void test_bail(const char *fmt, ...)
{
	va_list ap;

	printf("ERROR: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(TEST_EXIT_ERROR);
}

static inline bool test_near(double got, double want, double eps)
{
	return fabs(got - want) <= eps;
}

static inline bool test_contains(const char *hay, const char *needle)
{
	return hay && needle && strstr(hay, needle);
}

/* Every CHECK evaluates to true when it passed, so that a test can skip
 * checks that would only repeat a failure (a NULL pointer, say). */
#define CHECK(cond)							\
	test_report(!!(cond), __FILE__, __LINE__, "CHECK(%s) failed", #cond)

#define CHECK_EQ_U64(got, want) ({					\
	uint64_t got_ = (uint64_t)(got), want_ = (uint64_t)(want);	\
	test_report(got_ == want_, __FILE__, __LINE__,			\
		    "%s == %s failed: got %" PRIu64 ", want %" PRIu64,	\
		    #got, #want, got_, want_);				\
})

#define CHECK_EQ_INT(got, want) ({					\
	long long got_ = (long long)(got), want_ = (long long)(want);	\
	test_report(got_ == want_, __FILE__, __LINE__,			\
		    "%s == %s failed: got %lld, want %lld",		\
		    #got, #want, got_, want_);				\
})

#define CHECK_NEAR(got, want, eps) ({					\
	double got_ = (double)(got), want_ = (double)(want);		\
	double eps_ = (double)(eps);					\
	test_report(test_near(got_, want_, eps_), __FILE__, __LINE__,	\
		    "%s == %s failed: got %.17g, want %.17g (+-%g)",	\
		    #got, #want, got_, want_, eps_);			\
})

#define CHECK_STR_EQ(got, want) ({					\
	const char *got_ = (got), *want_ = (want);			\
	test_report(got_ && want_ && !strcmp(got_, want_),		\
		    __FILE__, __LINE__,					\
		    "%s == %s failed:\n  got:  \"%s\"\n  want: \"%s\"",	\
		    #got, #want, got_ ? got_ : "(null)",		\
		    want_ ? want_ : "(null)");				\
})

#define CHECK_STR_CONTAINS(hay, needle) ({				\
	const char *hay_ = (hay), *needle_ = (needle);			\
	test_report(test_contains(hay_, needle_), __FILE__, __LINE__,	\
		    "%s does not contain %s:\n  text: \"%s\"\n  want: \"%s\"", \
		    #hay, #needle, hay_ ? hay_ : "(null)",		\
		    needle_ ? needle_ : "(null)");			\
})

/* Runs one test function and prints "PASS name" or "FAIL name". */
#define RUN_TEST(fn) test_run(fn, #fn)

static inline void test_run(void (*fn)(void), const char *name)
{
	unsigned int before = test_check_failures;

	fn();
	if (test_check_failures == before) {
		test_passed++;
		printf("PASS %s\n", name);
	} else {
		test_failed++;
		printf("FAIL %s\n", name);
	}
	fflush(stdout);
}

/* Prints the closing lines (the last one is read by CI) and gives the
 * exit status for main() to return. */
static inline int test_done(void)
{
	printf("# %u checks, %u failed\n", test_checks, test_check_failures);
	printf("%u passed, %u failed\n", test_passed, test_failed);
	fflush(stdout);
	if (test_passed + test_failed == 0)
		return TEST_EXIT_ERROR;
	return test_failed ? TEST_EXIT_FAIL : TEST_EXIT_PASS;
}

#endif
