/* tests/unit_workfile.c: unit tests of the AIM7 workfile parser. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/base/workfile.h"
#include "jobs/job.h"
#include "tests/test.h"

/* The path in-memory texts are parsed under; errors start with it. */
#define WF "t.wf"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)

/* The fixed parts of the parser's messages. */
#define ERR_SHAPE \
	"expected '<weight> <job>' or a FILESIZE, POOLSIZE or LAYOUT directive, got "
#define ERR_SIZE "(want a size like 10K, 5M or 1G, at most 1T)"
#define ERR_NO_JOBS \
	WF ": no jobs: a workfile needs at least one '<weight> <job>' line"
#define ERR_MEAN "? (aimsweep list jobs)"
#define ERR_ALL " (aimsweep list jobs shows them all)"
#define ERR_ZERO " is 0 (comment the line out to drop the job)"
#define ERR_WEIGHT " (want a whole number from 1 to 100000)"
#define ERR_LIMIT " is above the limit of 100000"

static char tmp_dir[PATH_MAX];

/* True when the mix holds nothing, as it must after a failed parse. */
static bool mix_is_empty(const struct mix *m)
{
	return !m->entries && !m->n_entries && !m->path && !m->name &&
	       !m->total_weight && !m->file_size_set && !m->pool_size_set &&
	       m->layout == LAYOUT_UNSET;
}

/* Parses `len` bytes of text that must fail with exactly `want`. */
static bool check_parse_error(const char *file, int line, const char *text,
			      size_t len, const char *want)
{
	char err[1024] = "";
	struct mix mix;
	bool ok;
	int rc;

	/* Garbage in the mix beforehand: the parser must not trust it. */
	memset(&mix, 0x5a, sizeof(mix));
	rc = workfile_parse(WF, text, len, &mix, err, sizeof(err));
	ok = rc == -1 && !strcmp(err, want) && mix_is_empty(&mix);
	test_report(ok, file, line,
		    "parse error mismatch (rc %d, mix %s):\n"
		    "  text: \"%.200s\"\n  got:  \"%s\"\n  want: \"%s\"",
		    rc, mix_is_empty(&mix) ? "empty" : "NOT empty", text, err,
		    want);
	if (rc == 0)
		mix_free(&mix);
	return ok;
}

#define CHECK_PARSE_ERROR(text, want) \
	check_parse_error(__FILE__, __LINE__, (text), strlen(text), (want))
#define CHECK_PARSE_ERROR_LEN(text, len, want) \
	check_parse_error(__FILE__, __LINE__, (text), (len), (want))

/* Parses text that must be accepted; the caller frees the mix. */
static bool check_parse_ok(const char *file, int line, const char *text,
			   size_t len, struct mix *mix)
{
	char err[1024] = "";
	int rc;

	rc = workfile_parse(WF, text, len, mix, err, sizeof(err));
	return test_report(rc == 0, file, line,
			   "workfile_parse failed: %s\n  text: \"%.300s\"",
			   err, text);
}

#define PARSE_OK(text, mix) \
	check_parse_ok(__FILE__, __LINE__, (text), strlen(text), (mix))

/* Checks entry i of a mix: job name, summed weight and first line. */
static bool check_entry(const char *file, int line, const struct mix *m,
			size_t i, const char *name, unsigned int weight,
			unsigned int first_line)
{
	const struct mix_entry *e = i < m->n_entries ? &m->entries[i] : NULL;
	bool ok = e && e->job && !strcmp(e->job->name, name) &&
		  e->job == job_find(name) && e->weight == weight &&
		  e->line == first_line;

	return test_report(ok, file, line,
			   "entry %zu: got %s weight %u line %u, want %s weight %u line %u",
			   i, e && e->job ? e->job->name : "(none)",
			   e ? e->weight : 0, e ? e->line : 0, name, weight,
			   first_line);
}

#define CHECK_ENTRY(m, i, name, weight, first_line)			\
	check_entry(__FILE__, __LINE__, (m), (i), (name), (weight),	\
		    (first_line))

/* Writes a file in the test's temporary directory; returns its path. */
static const char *write_tmp(const char *name, const char *data, size_t len)
{
	static char path[PATH_MAX + 64];
	size_t done = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		test_bail("cannot create %s: %s", path, strerror(errno));
	while (done < len) {
		n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			test_bail("cannot write %s: %s", path, strerror(errno));
		done += (size_t)n;
	}
	if (close(fd))
		test_bail("cannot close %s: %s", path, strerror(errno));
	return path;
}

/* Loads a file that must fail with exactly `want`. */
static bool check_load_error(const char *file, int line, const char *path,
			     const char *want)
{
	char err[1024] = "";
	struct mix mix;
	bool ok;
	int rc;

	memset(&mix, 0x5a, sizeof(mix));
	rc = workfile_load(path, &mix, err, sizeof(err));
	ok = rc == -1 && !strcmp(err, want) && mix_is_empty(&mix);
	test_report(ok, file, line,
		    "load error mismatch (rc %d, mix %s):\n"
		    "  got:  \"%s\"\n  want: \"%s\"",
		    rc, mix_is_empty(&mix) ? "empty" : "NOT empty", err, want);
	if (rc == 0)
		mix_free(&mix);
	return ok;
}

#define CHECK_LOAD_ERROR(path, want) \
	check_load_error(__FILE__, __LINE__, (path), (want))

/* Loads path as uid 65534, in a child; true when it fails with want. */
static bool load_error_as_nobody(const char *path, const char *want)
{
	char err[PATH_MAX + 256] = "";
	struct mix mix;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		test_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		if (!workfile_load(path, &mix, err, sizeof(err)))
			_exit(3);
		if (strcmp(err, want)) {
			fprintf(stderr, "as uid 65534: got \"%s\", want \"%s\"\n",
				err, want);
			_exit(1);
		}
		_exit(0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* A text of exactly `len` bytes: one job line, then comment lines of 99
 * '#' and a newline, the last one cut to fit. */
static char *big_text(size_t len)
{
	static const char job[] = "10 creat\n";
	char *t = malloc(len + 1);
	size_t i;

	if (!t)
		test_bail("out of memory");
	memcpy(t, job, sizeof(job) - 1);
	i = sizeof(job) - 1;
	while (i < len) {
		size_t n = len - i < 100 ? len - i : 100;

		memset(t + i, '#', n);
		t[i + n - 1] = '\n';
		i += n;
	}
	t[len] = '\0';
	return t;
}

static void test_accepts_simple(void)
{
	struct mix mix;

	if (!PARSE_OK("10 creat\n20 unlink\n", &mix))
		return;
	CHECK_EQ_U64(mix.n_entries, 2);
	CHECK_ENTRY(&mix, 0, "creat", 10, 1);
	CHECK_ENTRY(&mix, 1, "unlink", 20, 2);
	CHECK_EQ_U64(mix.total_weight, 30);
	CHECK_STR_EQ(mix.path, WF);
	CHECK_STR_EQ(mix.name, WF);
	CHECK(!mix.file_size_set);
	CHECK(!mix.pool_size_set);
	CHECK_EQ_INT(mix.layout, LAYOUT_UNSET);
	mix_free(&mix);
	CHECK(mix_is_empty(&mix));
}

static void test_name_is_basename(void)
{
	static const char text[] = "1 kill\n";
	char err[256] = "";
	struct mix mix;

	if (!CHECK_EQ_INT(workfile_parse("some/dir/mixes.wf", text,
					 strlen(text), &mix, err,
					 sizeof(err)), 0))
		return;
	CHECK_STR_EQ(mix.path, "some/dir/mixes.wf");
	CHECK_STR_EQ(mix.name, "mixes.wf");
	mix_free(&mix);
}

static void test_comments_and_blanks(void)
{
	static const char text[] =
		"# a comment on the first line\n"	/* 1 */
		"\n"					/* 2 */
		"   \t  \n"				/* 3 */
		"   # an indented comment\n"		/* 4 */
		"10 creat # an inline comment\n"	/* 5 */
		"20 unlink#no space before it\n"	/* 6 */
		"\t5\tclose\t\n"			/* 7 */
		"  3   brk   \n"			/* 8 */
		"#\n"					/* 9 */
		"# 99 kill: a job in a comment does not count\n" /* 10 */
		"1 getppid";				/* 11, no newline */
	struct mix mix;

	if (!PARSE_OK(text, &mix))
		return;
	CHECK_EQ_U64(mix.n_entries, 5);
	CHECK_ENTRY(&mix, 0, "creat", 10, 5);
	CHECK_ENTRY(&mix, 1, "unlink", 20, 6);
	CHECK_ENTRY(&mix, 2, "close", 5, 7);
	CHECK_ENTRY(&mix, 3, "brk", 3, 8);
	CHECK_ENTRY(&mix, 4, "getppid", 1, 11);
	CHECK_EQ_U64(mix.total_weight, 39);
	mix_free(&mix);
}

static void test_crlf(void)
{
	static const char text[] =
		"# written on Windows\r\n"
		"10 creat\r\n"
		"\r\n"
		"20 unlink # inline\r\n"
		"FILESIZE 10k\r\n"
		"LAYOUT shared\r\n"
		"5 kill\r\n";
	struct mix mix;

	if (!PARSE_OK(text, &mix))
		return;
	CHECK_EQ_U64(mix.n_entries, 3);
	CHECK_ENTRY(&mix, 0, "creat", 10, 2);
	CHECK_ENTRY(&mix, 1, "unlink", 20, 4);
	CHECK_ENTRY(&mix, 2, "kill", 5, 7);
	CHECK(mix.file_size_set);
	CHECK_EQ_U64(mix.file_size, 10 * KIB);
	CHECK_EQ_INT(mix.layout, LAYOUT_SHARED);
	mix_free(&mix);
}

static void test_leading_zeros(void)
{
	struct mix mix;

	if (!PARSE_OK("05 kill\n007 brk\n0000000000000000000000001 close\n",
		      &mix))
		return;
	CHECK_EQ_U64(mix.n_entries, 3);
	CHECK_ENTRY(&mix, 0, "kill", 5, 1);
	CHECK_ENTRY(&mix, 1, "brk", 7, 2);
	CHECK_ENTRY(&mix, 2, "close", 1, 3);
	mix_free(&mix);
}

/* The parser reads `len` bytes and never looks for a terminating NUL. */
static void test_respects_len(void)
{
	static const char text[] = "10 creat\n5 no_such_job_here\n";
	char err[256] = "";
	struct mix mix;

	if (!CHECK_EQ_INT(workfile_parse(WF, text, strlen("10 creat\n"),
					 &mix, err, sizeof(err)), 0))
		return;
	CHECK_EQ_U64(mix.n_entries, 1);
	CHECK_ENTRY(&mix, 0, "creat", 10, 1);
	mix_free(&mix);
}

static void test_job_twice(void)
{
	struct mix mix;

	if (!PARSE_OK("10 creat\n5 unlink\n# again:\n7 creat\n1 unlink\n",
		      &mix))
		return;
	CHECK_EQ_U64(mix.n_entries, 2);
	CHECK_ENTRY(&mix, 0, "creat", 17, 1);
	CHECK_ENTRY(&mix, 1, "unlink", 6, 2);
	CHECK_EQ_U64(mix.total_weight, 23);
	mix_free(&mix);
}

/* AIM7 1.1 names the test creat-clo, reaim creat_clo: a workfile may use
 * either, as LKP's aim7 jobs do, and both are the one job. */
static void test_aim7_names(void)
{
	static const char lkp[] = "FILESIZE: 1M\nPOOLSIZE: 10M\n10 creat-clo\n";
	struct mix mix;

	if (PARSE_OK(lkp, &mix)) {
		CHECK_EQ_U64(mix.n_entries, 1);
		CHECK_ENTRY(&mix, 0, "creat_clo", 10, 3);
		CHECK(job_find("creat-clo") == job_find("creat_clo"));
		mix_free(&mix);
	}
	if (PARSE_OK("10 creat-clo\n5 creat_clo\n", &mix)) {
		CHECK_EQ_U64(mix.n_entries, 1);
		CHECK_ENTRY(&mix, 0, "creat_clo", 15, 1);
		mix_free(&mix);
	}
	/* Every alias is its own: no job's alias is another job's name. */
	for (size_t i = 0; i < job_table_len; i++) {
		const char *alias = job_table[i]->aim7_name;

		if (alias && !CHECK(job_find(alias) == job_table[i]))
			test_note("alias %s of %s finds another job", alias,
				  job_table[i]->name);
	}
}

static void test_max_weights(void)
{
	char text[2048], line[64];
	struct mix mix;

	/* One line at the limit. */
	snprintf(text, sizeof(text), "%d creat\n", WORKFILE_MAX_WEIGHT);
	if (PARSE_OK(text, &mix)) {
		CHECK_ENTRY(&mix, 0, "creat", WORKFILE_MAX_WEIGHT, 1);
		mix_free(&mix);
	}
	/* Lines that add up to exactly the total limit. */
	text[0] = '\0';
	for (int i = 0; i < WORKFILE_MAX_TOTAL_WEIGHT / WORKFILE_MAX_WEIGHT;
	     i++) {
		snprintf(line, sizeof(line), "%d creat\n", WORKFILE_MAX_WEIGHT);
		strcat(text, line);
	}
	if (PARSE_OK(text, &mix)) {
		CHECK_EQ_U64(mix.n_entries, 1);
		CHECK_EQ_U64(mix.total_weight, WORKFILE_MAX_TOTAL_WEIGHT);
		mix_free(&mix);
	}
}

static void test_directives(void)
{
	struct mix mix;

	if (PARSE_OK("FILESIZE: 5M\n10 creat\n", &mix)) {
		CHECK(mix.file_size_set);
		CHECK_EQ_U64(mix.file_size, 5 * MIB);
		CHECK(!mix.pool_size_set);
		CHECK_EQ_U64(mix.n_entries, 1);
		mix_free(&mix);
	}
	if (PARSE_OK("10 creat\nFILESIZE 10k\n", &mix)) {
		CHECK(mix.file_size_set);
		CHECK_EQ_U64(mix.file_size, 10 * KIB);
		mix_free(&mix);
	}
	if (PARSE_OK("POOLSIZE:1M\n10 creat\n", &mix)) {
		CHECK(mix.pool_size_set);
		CHECK_EQ_U64(mix.pool_size, MIB);
		CHECK(!mix.file_size_set);
		mix_free(&mix);
	}
	/* A bare number is kilobytes, as in AIM7. */
	if (PARSE_OK("FILESIZE 100\nPOOLSIZE\t2048\n10 creat\n", &mix)) {
		CHECK_EQ_U64(mix.file_size, 100 * KIB);
		CHECK_EQ_U64(mix.pool_size, 2048 * KIB);
		mix_free(&mix);
	}
	/* A pool of 0 is AIM7's "no pool". */
	if (PARSE_OK("  POOLSIZE 0   # no pool\n\tFILESIZE:\t1G\n10 creat\n",
		     &mix)) {
		CHECK(mix.pool_size_set);
		CHECK_EQ_U64(mix.pool_size, 0);
		CHECK_EQ_U64(mix.file_size, GIB);
		mix_free(&mix);
	}
	if (PARSE_OK("LAYOUT shared\n10 creat\n", &mix)) {
		CHECK_EQ_INT(mix.layout, LAYOUT_SHARED);
		mix_free(&mix);
	}
	if (PARSE_OK("10 creat\nLAYOUT: per-user # one dir each\n", &mix)) {
		CHECK_EQ_INT(mix.layout, LAYOUT_PER_USER);
		mix_free(&mix);
	}
	if (PARSE_OK("LAYOUT:shared\n10 creat\n", &mix)) {
		CHECK_EQ_INT(mix.layout, LAYOUT_SHARED);
		mix_free(&mix);
	}
}

static void test_parse_size(void)
{
	static const struct {
		const char *s;
		uint64_t bytes;
	} good[] = {
		{ "0", 0 },
		{ "1", KIB },
		{ "100", 100 * KIB },
		{ "10k", 10 * KIB },
		{ "10K", 10 * KIB },
		{ "10KB", 10 * KIB },
		{ "10kb", 10 * KIB },
		{ "5M", 5 * MIB },
		{ "5m", 5 * MIB },
		{ "5MB", 5 * MIB },
		{ "1G", GIB },
		{ "1g", GIB },
		{ "007M", 7 * MIB },
		{ "1024G", WORKFILE_MAX_SIZE },
		{ "1048576M", WORKFILE_MAX_SIZE },
		{ "1073741824", WORKFILE_MAX_SIZE },
	};
	static const char *const bad[] = {
		"", "K", "M", "-1", "+1", " 10K", "10 K", "10K ", "1.5M",
		"10X", "10B", "10KBB", "10Kx", "1T", "0x10", "1025G",
		"1048577M", "1073741825", "18446744073709551616",
		"99999999999999999999999", "99999999999999999999999999999999K",
	};
	uint64_t bytes;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		bytes = UINT64_C(12345);
		if (CHECK(workfile_parse_size(good[i].s, &bytes)))
			test_report(bytes == good[i].bytes, __FILE__, __LINE__,
				    "size '%s': got %" PRIu64 ", want %" PRIu64,
				    good[i].s, bytes, good[i].bytes);
		else
			test_note("size '%s' was refused", good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bytes = UINT64_C(12345);
		test_report(!workfile_parse_size(bad[i], &bytes) &&
			    bytes == UINT64_C(12345), __FILE__, __LINE__,
			    "size '%s' was accepted (or its output touched)",
			    bad[i]);
	}
}

static void test_layout_parse(void)
{
	enum scratch_layout l = LAYOUT_UNSET;

	CHECK(layout_parse("shared", &l));
	CHECK_EQ_INT(l, LAYOUT_SHARED);
	CHECK(layout_parse("per-user", &l));
	CHECK_EQ_INT(l, LAYOUT_PER_USER);
	l = LAYOUT_UNSET;
	CHECK(!layout_parse("", &l));
	CHECK(!layout_parse("SHARED", &l));
	CHECK(!layout_parse("per_user", &l));
	CHECK(!layout_parse("shared ", &l));
	CHECK(!layout_parse("private", &l));
	CHECK_EQ_INT(l, LAYOUT_UNSET);
	CHECK_STR_EQ(layout_name(LAYOUT_SHARED), "shared");
	CHECK_STR_EQ(layout_name(LAYOUT_PER_USER), "per-user");
}

static void test_error_unknown_job(void)
{
	char err[512] = "";
	struct mix mix;

	CHECK_PARSE_ERROR("10 unlnk\n",
		WF ":1: unknown job 'unlnk'; did you mean 'unlink'" ERR_MEAN);
	CHECK_PARSE_ERROR("10 getppd\n",
		WF ":1: unknown job 'getppd'; did you mean 'getppid'" ERR_MEAN);
	/* The line number counts comments, blank lines and good lines. */
	CHECK_PARSE_ERROR("# c\n\n10 creat\n5 unlnk\n1 kill\n",
		WF ":4: unknown job 'unlnk'; did you mean 'unlink'" ERR_MEAN);
	/* Nothing is near this one, whatever jobs the catalog grows. */
	CHECK_PARSE_ERROR("10 qqqqqqqqqqqqqqqqqqqqqqqq\n",
		WF ":1: unknown job 'qqqqqqqqqqqqqqqqqqqqqqqq'" ERR_ALL);
	/* Job names are case-sensitive, as in AIM7. */
	if (CHECK_EQ_INT(workfile_parse(WF, "10 CREAT\n", 9, &mix, err,
					sizeof(err)), -1))
		CHECK_STR_CONTAINS(err, WF ":1: unknown job 'CREAT'");
	else
		mix_free(&mix);

	/* A typo is held against both spellings of a job, and the nearer
	 * one is suggested. */
	CHECK_PARSE_ERROR("10 creat_cl\n", WF ":1: unknown job 'creat_cl'; "
			  "did you mean 'creat_clo'" ERR_MEAN);
	CHECK_PARSE_ERROR("10 creat-cl\n", WF ":1: unknown job 'creat-cl'; "
			  "did you mean 'creat-clo'" ERR_MEAN);
}

static void test_error_weights(void)
{
	char text[128], want[512];

	/* ERR_WEIGHT and ERR_LIMIT spell the limit out. */
	CHECK_EQ_INT(WORKFILE_MAX_WEIGHT, 100000);
	CHECK_PARSE_ERROR("0 creat\n", WF ":1: weight of 'creat'" ERR_ZERO);
	CHECK_PARSE_ERROR("10 unlink\n000 creat\n",
			  WF ":2: weight of 'creat'" ERR_ZERO);
	CHECK_PARSE_ERROR("-5 creat\n", WF ":1: bad weight '-5'" ERR_WEIGHT);
	CHECK_PARSE_ERROR("+5 creat\n", WF ":1: bad weight '+5'" ERR_WEIGHT);
	CHECK_PARSE_ERROR("ten creat\n", WF ":1: bad weight 'ten'" ERR_WEIGHT);
	CHECK_PARSE_ERROR("1.5 creat\n", WF ":1: bad weight '1.5'" ERR_WEIGHT);
	CHECK_PARSE_ERROR("5x creat\n", WF ":1: bad weight '5x'" ERR_WEIGHT);
	CHECK_PARSE_ERROR("0x10 creat\n",
			  WF ":1: bad weight '0x10'" ERR_WEIGHT);
	/* The job is named second: "creat 10" is the classic swap. */
	CHECK_PARSE_ERROR("creat 10\n", WF ":1: bad weight 'creat'" ERR_WEIGHT);

	snprintf(text, sizeof(text), "%d creat\n", WORKFILE_MAX_WEIGHT + 1);
	snprintf(want, sizeof(want),
		 WF ":1: weight %d is above the limit of %d",
		 WORKFILE_MAX_WEIGHT + 1, WORKFILE_MAX_WEIGHT);
	CHECK_PARSE_ERROR(text, want);
	CHECK_PARSE_ERROR("99999999999999999999999 creat\n",
			  WF ":1: weight 99999999999999999999999" ERR_LIMIT);
	CHECK_PARSE_ERROR("18446744073709551616 creat\n",
			  WF ":1: weight 18446744073709551616" ERR_LIMIT);
}

static void test_error_total_weight(void)
{
	char text[2048], want[256], line[64];
	int lines = WORKFILE_MAX_TOTAL_WEIGHT / WORKFILE_MAX_WEIGHT;

	/* Exactly at the limit (see test_max_weights), then one more. */
	text[0] = '\0';
	for (int i = 0; i < lines; i++) {
		snprintf(line, sizeof(line), "%d %s\n", WORKFILE_MAX_WEIGHT,
			 i % 2 ? "creat" : "unlink");
		strcat(text, line);
	}
	strcat(text, "1 kill\n");
	snprintf(want, sizeof(want),
		 WF ":%d: the weights add up to more than %d", lines + 1,
		 WORKFILE_MAX_TOTAL_WEIGHT);
	CHECK_PARSE_ERROR(text, want);
}

static void test_error_line_shape(void)
{
	CHECK_PARSE_ERROR("creat\n", WF ":1: " ERR_SHAPE "'creat'");
	CHECK_PARSE_ERROR("10 creat\n  10  \n", WF ":2: " ERR_SHAPE "'10'");
	CHECK_PARSE_ERROR("10 creat now\n",
			  WF ":1: " ERR_SHAPE "'10 creat now'");
	CHECK_PARSE_ERROR("10 creat 20 unlink # two on a line\n",
			  WF ":1: " ERR_SHAPE "'10 creat 20 unlink'");
	/* reaim.config lines are not workfile lines: two words make a job
	 * line, so the first is taken for a weight. */
	CHECK_PARSE_ERROR("10 creat\nDISKDIR /tmp/diskdir\n",
			  WF ":2: bad weight 'DISKDIR'" ERR_WEIGHT);
	CHECK_PARSE_ERROR("10 creat\nSTARTUSERS 2 3\n",
			  WF ":2: " ERR_SHAPE "'STARTUSERS 2 3'");
	/* A directive needs a blank or a colon after its name. */
	CHECK_PARSE_ERROR("FILESIZE10k\n10 creat\n",
			  WF ":1: " ERR_SHAPE "'FILESIZE10k'");
}

static void test_error_directives(void)
{
	CHECK_PARSE_ERROR("FILESIZE 10X\n10 creat\n",
			  WF ":1: bad FILESIZE '10X' " ERR_SIZE);
	CHECK_PARSE_ERROR("FILESIZE: 2T\n10 creat\n",
			  WF ":1: bad FILESIZE '2T' " ERR_SIZE);
	CHECK_PARSE_ERROR("FILESIZE 1025G\n10 creat\n",
			  WF ":1: bad FILESIZE '1025G' " ERR_SIZE);
	CHECK_PARSE_ERROR("10 creat\nPOOLSIZE -1\n",
			  WF ":2: bad POOLSIZE '-1' " ERR_SIZE);
	CHECK_PARSE_ERROR("POOLSIZE:abc\n10 creat\n",
			  WF ":1: bad POOLSIZE 'abc' " ERR_SIZE);
	CHECK_PARSE_ERROR("POOLSIZE 1.5M\n10 creat\n",
			  WF ":1: bad POOLSIZE '1.5M' " ERR_SIZE);
	CHECK_PARSE_ERROR("FILESIZE 10 K\n10 creat\n",
			  WF ":1: FILESIZE takes one value, not '10 K'");
	CHECK_PARSE_ERROR("LAYOUT shared per-user\n10 creat\n",
		WF ":1: LAYOUT takes one value, not 'shared per-user'");

	CHECK_PARSE_ERROR("FILESIZE\n10 creat\n",
			  WF ":1: FILESIZE needs a value");
	CHECK_PARSE_ERROR("10 creat\nPOOLSIZE:\n",
			  WF ":2: POOLSIZE needs a value");
	CHECK_PARSE_ERROR("10 creat\nPOOLSIZE: \t \r\n",
			  WF ":2: POOLSIZE needs a value");
	CHECK_PARSE_ERROR("LAYOUT   # shared, one day\n10 creat\n",
			  WF ":1: LAYOUT needs a value");

	CHECK_PARSE_ERROR("LAYOUT private\n10 creat\n",
		WF ":1: bad LAYOUT 'private' (want shared or per-user)");
	CHECK_PARSE_ERROR("10 creat\nLAYOUT: Shared\n",
		WF ":2: bad LAYOUT 'Shared' (want shared or per-user)");
}

static void test_error_no_jobs(void)
{
	CHECK_PARSE_ERROR_LEN("", 0, ERR_NO_JOBS);
	CHECK_PARSE_ERROR("\n\n\n", ERR_NO_JOBS);
	CHECK_PARSE_ERROR("# only\n  # comments\n", ERR_NO_JOBS);
	CHECK_PARSE_ERROR("\r\n# CRLF comments\r\n", ERR_NO_JOBS);
	CHECK_PARSE_ERROR("FILESIZE 10k\nPOOLSIZE 1M\nLAYOUT shared\n",
			  ERR_NO_JOBS);
	CHECK_PARSE_ERROR("# 10 creat\n", ERR_NO_JOBS);
}

static void test_error_binary(void)
{
	static const char nul_mid[] = "10 creat\n\0\n5 kill\n";
	static const char nul_first[] = "\0x";
	static const char nul_in_comment[] = "10 creat # \0 x\n";

	CHECK_PARSE_ERROR_LEN(nul_mid, sizeof(nul_mid) - 1,
			      WF ": holds NUL bytes: not a text workfile");
	CHECK_PARSE_ERROR_LEN(nul_first, sizeof(nul_first) - 1,
			      WF ": holds NUL bytes: not a text workfile");
	CHECK_PARSE_ERROR_LEN(nul_in_comment, sizeof(nul_in_comment) - 1,
			      WF ": holds NUL bytes: not a text workfile");
}

static void test_error_long_line(void)
{
	/* Lines of up to 4095 characters are read; longer ones refused. */
	enum { LIMIT = 4095 };
	char *text = malloc(3 * LIMIT);
	char want[256];
	struct mix mix;
	size_t i;

	if (!text)
		test_bail("out of memory");

	/* A job line padded with blanks to exactly the limit. */
	strcpy(text, "10 creat");
	i = strlen(text);
	memset(text + i, ' ', LIMIT - i);
	strcpy(text + LIMIT, "\n");
	if (PARSE_OK(text, &mix)) {
		CHECK_ENTRY(&mix, 0, "creat", 10, 1);
		mix_free(&mix);
	}

	/* A comment of exactly the limit, last in the file, no newline. */
	strcpy(text, "10 creat\n");
	i = strlen(text);
	memset(text + i, '#', LIMIT);
	text[i + LIMIT] = '\0';
	if (PARSE_OK(text, &mix))
		mix_free(&mix);

	/* One character more, on line 2. */
	strcpy(text, "10 creat\n");
	i = strlen(text);
	memset(text + i, '#', LIMIT + 1);
	strcpy(text + i + LIMIT + 1, "\n5 kill\n");
	snprintf(want, sizeof(want),
		 WF ":2: line longer than %d characters", LIMIT);
	CHECK_PARSE_ERROR(text, want);
	free(text);
}

static void test_error_too_big(void)
{
	char want[256], *text;
	struct mix mix;

	text = big_text(WORKFILE_MAX_BYTES);
	if (PARSE_OK(text, &mix)) {
		CHECK_EQ_U64(mix.n_entries, 1);
		mix_free(&mix);
	}
	free(text);

	text = big_text(WORKFILE_MAX_BYTES + 1);
	snprintf(want, sizeof(want),
		 WF ": is %d bytes; a workfile is at most %d",
		 WORKFILE_MAX_BYTES + 1, WORKFILE_MAX_BYTES);
	CHECK_PARSE_ERROR(text, want);
	free(text);
}

/* A mix that failed must not need freeing, but freeing it is harmless. */
static void test_error_leaves_nothing(void)
{
	static const char text[] = "10 creat\n10 unlink\n10 close\n0 kill\n";
	char err[256] = "";
	struct mix mix;

	CHECK_EQ_INT(workfile_parse(WF, text, strlen(text), &mix, err,
				    sizeof(err)), -1);
	CHECK(mix_is_empty(&mix));
	mix_free(&mix);
	CHECK(mix_is_empty(&mix));
}

/* A short error buffer gets a truncated, terminated message. */
static void test_error_short_buffer(void)
{
	static const char text[] = "10 unlnk\n";
	char err[12];
	struct mix mix;

	memset(err, 'x', sizeof(err));
	CHECK_EQ_INT(workfile_parse(WF, text, strlen(text), &mix, err,
				    sizeof(err)), -1);
	CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	CHECK_STR_EQ(err, "t.wf:1: unk");
}

static void test_load_ok(void)
{
	static const char text[] = "# a file\nFILESIZE 10k\n10 creat\n5 kill\n";
	char err[1024] = "";
	const char *path = write_tmp("mix.wf", text, strlen(text));
	struct mix mix;

	if (!CHECK_EQ_INT(workfile_load(path, &mix, err, sizeof(err)), 0)) {
		test_note("workfile_load: %s", err);
		return;
	}
	CHECK_STR_EQ(mix.path, path);
	CHECK_STR_EQ(mix.name, "mix.wf");
	CHECK_EQ_U64(mix.n_entries, 2);
	CHECK_ENTRY(&mix, 0, "creat", 10, 3);
	CHECK_ENTRY(&mix, 1, "kill", 5, 4);
	CHECK_EQ_U64(mix.file_size, 10 * KIB);
	mix_free(&mix);
	unlink(path);
}

static void test_load_errors(void)
{
	static const char bad_line[] = "10 creat\n10 creat now\n";
	static const char binary[] = "10 creat\n\0\0\0\n";
	char path[PATH_MAX + 64], want[PATH_MAX + 256], *text;
	const char *p;

	/* Missing. */
	snprintf(path, sizeof(path), "%s/no-such-workfile", tmp_dir);
	snprintf(want, sizeof(want),
		 "%s: cannot open workfile: No such file or directory", path);
	CHECK_LOAD_ERROR(path, want);

	/* A directory. */
	snprintf(want, sizeof(want), "%s: not a regular file", tmp_dir);
	CHECK_LOAD_ERROR(tmp_dir, want);

	/* Empty. */
	p = write_tmp("empty.wf", "", 0);
	snprintf(want, sizeof(want),
		 "%s: no jobs: a workfile needs at least one '<weight> <job>' line",
		 p);
	CHECK_LOAD_ERROR(p, want);
	unlink(p);

	/* A parse error names the file and the line. */
	p = write_tmp("bad.wf", bad_line, strlen(bad_line));
	snprintf(want, sizeof(want), "%s:2: " ERR_SHAPE "'10 creat now'", p);
	CHECK_LOAD_ERROR(p, want);
	unlink(p);

	/* Binary. */
	p = write_tmp("binary.wf", binary, sizeof(binary) - 1);
	snprintf(want, sizeof(want), "%s: holds NUL bytes: not a text workfile",
		 p);
	CHECK_LOAD_ERROR(p, want);
	unlink(p);

	/* Too big: refused before it is read. */
	text = big_text(WORKFILE_MAX_BYTES + 1);
	p = write_tmp("big.wf", text, WORKFILE_MAX_BYTES + 1);
	snprintf(want, sizeof(want),
		 "%s: is %d bytes; a workfile is at most %d",
		 p, WORKFILE_MAX_BYTES + 1, WORKFILE_MAX_BYTES);
	CHECK_LOAD_ERROR(p, want);
	unlink(p);
	free(text);

	/* Unreadable; root reads anything, so as root the load is made by a
	 * child that has become uid 65534. */
	p = write_tmp("secret.wf", "10 creat\n", 9);
	if (CHECK(chmod(p, 0) == 0)) {
		snprintf(want, sizeof(want),
			 "%s: cannot open workfile: Permission denied", p);
		if (geteuid() != 0)
			CHECK_LOAD_ERROR(p, want);
		else
			CHECK(load_error_as_nobody(p, want));
	}
	unlink(p);
}

/*
 * A FIFO is not a workfile either, and must be refused at once: opening
 * one for reading blocks until a writer comes, which may be never. The
 * load runs in a child with an alarm so that a hang fails the test
 * instead of hanging it.
 */
static void test_load_fifo(void)
{
	char path[PATH_MAX + 64], want[PATH_MAX + 128], got[PATH_MAX + 256];
	size_t len = 0;
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/fifo.wf", tmp_dir);
	if (mkfifo(path, 0600)) {
		test_note("cannot make a FIFO (%s): skipping the FIFO case",
			  strerror(errno));
		return;
	}
	if (pipe(pfd))
		test_bail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		test_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		char err[PATH_MAX + 128] = "";
		struct mix mix;
		int rc;

		close(pfd[0]);
		alarm(5);
		rc = workfile_load(path, &mix, err, sizeof(err));
		if (rc == 0)
			mix_free(&mix);
		dprintf(pfd[1], "%d %s", rc, err);
		_exit(0);
	}
	close(pfd[1]);
	while (len < sizeof(got) - 1) {
		n = read(pfd[0], got + len, sizeof(got) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	got[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	test_report(WIFEXITED(status), __FILE__, __LINE__,
		    "workfile_load on a FIFO with no writer did not return within 5 s (%s)",
		    WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) :
		    "exited");
	snprintf(want, sizeof(want), "-1 %s: not a regular file", path);
	if (WIFEXITED(status))
		CHECK_STR_EQ(got, want);
	unlink(path);
}

/*
 * An independent, simpler reading of an AIM7 workfile: the sum of the
 * weights on "<weight> <job>" lines and the number of distinct jobs.
 */
static bool count_workfile(const char *path, uint64_t *total,
			   size_t *distinct)
{
	char line[512], names[256][64], name[64];
	unsigned int weight;
	size_t n = 0, i;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	*total = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' ||
		    sscanf(line, "%u %63s", &weight, name) != 2)
			continue;
		*total += weight;
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], name))
				break;
		if (i == n && n < sizeof(names) / sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%s", name);
	}
	fclose(f);
	*distinct = n;
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in dir that start with prefix (all but dot files when ""),
 * sorted, for a stable order of output. */
static size_t list_dir(const char *dir, const char *prefix, char ***names)
{
	struct dirent *de;
	size_t n = 0, cap = 0;
	char **v = NULL;
	DIR *d = opendir(dir);

	*names = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				test_bail("out of memory");
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			test_bail("out of memory");
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), name_cmp);
	*names = v;
	return n;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Every reaim workfile parses, once the catalog has all of its jobs. */
static void test_reference_workfiles(void)
{
	const char *ref = getenv("AIMSWEEP_REFERENCE");
	char dir[PATH_MAX], path[PATH_MAX + 256], err[1024];
	size_t n, parsed = 0, distinct = 0;
	struct stat st;
	uint64_t total = 0;
	struct mix mix;
	char **names;

	if (!ref || !*ref) {
		test_note("AIMSWEEP_REFERENCE is not set: skipping the reaim workfiles");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/aim7-workfiles", ref);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		test_note("no directory %s: skipping the reaim workfiles", dir);
		return;
	}
	n = list_dir(dir, "workfile.", &names);
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		err[0] = '\0';
		/* Every test of every reaim workfile is in the catalog: an
		 * unknown job is a failure like any other. */
		if (workfile_load(path, &mix, err, sizeof(err))) {
			test_report(false, __FILE__, __LINE__,
				    "reference workfile does not parse: %s",
				    err);
			continue;
		}
		parsed++;
		CHECK(mix.n_entries > 0);
		if (CHECK(count_workfile(path, &total, &distinct))) {
			test_report(mix.total_weight == total &&
				    mix.n_entries == distinct,
				    __FILE__, __LINE__,
				    "%s: %zu jobs, total weight %" PRIu64 "; a plain reading gives %zu and %" PRIu64,
				    names[i], mix.n_entries, mix.total_weight,
				    distinct, total);
		}
		/* The one uncommented directive in the reference set. */
		if (!strcmp(names[i], "workfile.aim9")) {
			CHECK(mix.file_size_set);
			CHECK_EQ_U64(mix.file_size, 5 * MIB);
		}
		mix_free(&mix);
	}
	test_note("%zu of %zu reaim workfiles parsed", parsed, n);
	free_names(names, n);
}

/* Every workfile aimsweep ships parses. */
static void test_shipped_workfiles(void)
{
	const char *dir = getenv("AIMSWEEP_WORKFILES");
	char path[PATH_MAX + 256], err[1024];
	bool have_default = false;
	struct mix mix;
	char **names;
	size_t n;

	if (!dir || !*dir) {
		test_note("AIMSWEEP_WORKFILES is not set: skipping the shipped workfiles");
		return;
	}
	n = list_dir(dir, "", &names);
	if (!test_report(n > 0, __FILE__, __LINE__,
			 "no workfiles in %s", dir))
		return;
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		err[0] = '\0';
		if (!test_report(!workfile_load(path, &mix, err, sizeof(err)),
				 __FILE__, __LINE__,
				 "shipped workfile does not parse: %s", err))
			continue;
		CHECK(mix.n_entries > 0);
		CHECK(mix.total_weight > 0);
		CHECK_STR_EQ(mix.name, names[i]);
		if (!strcmp(names[i], "syscall-mix"))
			have_default = true;
		mix_free(&mix);
	}
	/* The default workfile of `aimsweep run`. */
	CHECK(have_default);
	free_names(names, n);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmp_dir, sizeof(tmp_dir), "%s/aimsweep-unit-workfile.XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(tmp_dir))
		test_bail("cannot create a temporary directory %s: %s",
			  tmp_dir, strerror(errno));

	RUN_TEST(test_accepts_simple);
	RUN_TEST(test_name_is_basename);
	RUN_TEST(test_comments_and_blanks);
	RUN_TEST(test_crlf);
	RUN_TEST(test_leading_zeros);
	RUN_TEST(test_respects_len);
	RUN_TEST(test_job_twice);
	RUN_TEST(test_aim7_names);
	RUN_TEST(test_max_weights);
	RUN_TEST(test_directives);
	RUN_TEST(test_parse_size);
	RUN_TEST(test_layout_parse);
	RUN_TEST(test_error_unknown_job);
	RUN_TEST(test_error_weights);
	RUN_TEST(test_error_total_weight);
	RUN_TEST(test_error_line_shape);
	RUN_TEST(test_error_directives);
	RUN_TEST(test_error_no_jobs);
	RUN_TEST(test_error_binary);
	RUN_TEST(test_error_long_line);
	RUN_TEST(test_error_too_big);
	RUN_TEST(test_error_leaves_nothing);
	RUN_TEST(test_error_short_buffer);
	RUN_TEST(test_load_ok);
	RUN_TEST(test_load_errors);
	RUN_TEST(test_load_fifo);
	RUN_TEST(test_reference_workfiles);
	RUN_TEST(test_shipped_workfiles);

	if (rmdir(tmp_dir))
		test_note("cannot remove %s: %s", tmp_dir, strerror(errno));
	return test_done();
}
