/* tests/unit_compare.c: loading result.json, report formats, compare stats. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/output/compare.h"
#include "driver/output/compare_stats.h"
#include "driver/output/plot.h"
#include "driver/output/report.h"
#include "driver/output/result_read.h"
#include "tests/test.h"

/* Two ok levels and a failed one, as aimsweep writes them (trimmed). */
static const char good_doc[] =
	"{\"schema_version\": 1, \"tool\": {\"name\": \"aimsweep\", \"version\": \"0.1.0\"},\n"
	" \"status\": \"failed\", \"started_at\": \"2026-11-30T10:00:00+0000\",\n"
	" \"host\": {\"hostname\": \"vm\", \"kernel_release\": \"6.1.0-test\", \"cpus_online\": 2},\n"
	" \"params\": {\"levels\": [1, 2, 4], \"runtime_s\": 1, \"warmup_s\": 0.5,\n"
	"  \"lock_profile\": {\"seconds\": 0.5}},\n"
	" \"mix\": {\"name\": \"syscall-mix\", \"jobs\": [{\"name\": \"creat\"}, {\"name\": \"brk\"}]},\n"
	" \"levels\": [\n"
	"  {\"users\": 1, \"status\": \"ok\", \"window_s\": 1.0, \"errors\": 0,\n"
	"   \"jobs_per_min\": 1000, \"jobs_per_min_per_user\": 1000, \"jti\": 100,\n"
	"   \"per_user_jobs_per_min\": {\"min\": 1000, \"median\": 1000, \"max\": 1000},\n"
	"   \"rusage\": {\"utime_s\": 0.1, \"stime_s\": 0.5},\n"
	"   \"jobs\": [{\"name\": \"creat\", \"ops_per_sec\": 10}, {\"name\": \"brk\", \"ops_per_sec\": 6.5}]},\n"
	"  {\"users\": 2, \"status\": \"ok\", \"window_s\": 1.0, \"errors\": 3,\n"
	"   \"jobs_per_min\": 1600, \"jobs_per_min_per_user\": 800, \"jti\": 90,\n"
	"   \"per_user_jobs_per_min\": {\"min\": 700, \"median\": 800, \"max\": 900},\n"
	"   \"rusage\": {\"utime_s\": 0.2, \"stime_s\": 1.5},\n"
	"   \"jobs\": [{\"name\": \"creat\", \"ops_per_sec\": 16, \"latency_ns\": {\"p99\": 5000}},\n"
	"            {\"name\": \"brk\", \"ops_per_sec\": 10.5}],\n"
	"   \"lock_contention\": [{\"name\": \"i_rwsem\", \"wait_total_ns\": 1e6}]},\n"
	"  {\"users\": 4, \"status\": \"failed\", \"reason\": \"user 3 (pid 9) said \\\"no\\\", then died\\nbadly\"}\n"
	" ],\n"
	" \"summary\": {\"levels_ok\": 2, \"levels_failed\": 1}}\n";

/* Every value a reader looks at has the wrong type. */
static const char hostile_doc[] =
	"{\"schema_version\": 1, \"tool\": [], \"status\": 5, \"host\": \"h\",\n"
	" \"params\": {\"levels\": {}, \"runtime_s\": \"1\"}, \"mix\": [1],\n"
	" \"levels\": [\n"
	"  {\"users\": 3, \"status\": \"ok\", \"jobs_per_min\": \"x\", \"jti\": null,\n"
	"   \"per_user_jobs_per_min\": [1], \"rusage\": \"r\", \"window_s\": 0,\n"
	"   \"cpu\": {\"sys_pct\": \"9\"}, \"repeats\": {\"jobs_per_min\": {\"n\": \"3\"}},\n"
	"   \"jobs\": [1, \"a\", {\"name\": 7}, {\"name\": \"j\", \"latency_ns\": [], \"ops_per_sec\": {}}],\n"
	"   \"lock_contention\": [1, {\"name\": 5}, {\"name\": \"l\", \"wait_total_ns\": \"x\"}]},\n"
	"  {\"users\": 0, \"status\": \"\", \"reason\": 5},\n"
	"  {\"users\": 3, \"status\": \"ok\", \"jobs_per_min\": 1e308, \"jobs_per_min_per_user\": -1e308,\n"
	"   \"repeats\": {\"jobs_per_min\": {\"n\": 2, \"mean\": 1, \"stddev\": -1}}, \"jobs\": {}}\n"
	" ]}\n";

static cJSON *parse(const char *doc, char *err, size_t len)
{
	err[0] = '\0';
	return result_parse(doc, strlen(doc), "t.json", err, len);
}

/* Output of one report format, in a malloc'd string. */
static char *report_text(const cJSON *root, enum report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		test_bail("open_memstream: %s", strerror(errno));
	report_print(f, root, fmt, "t.json");
	fclose(f);
	return buf;
}

static void test_parse_errors(void)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
		{ "", "t.json: not JSON: the file is empty" },
		{ "{\"schema_version\": 1,", "t.json: not JSON: " },
		{ "{\"schema_version\": 1, \"levels\": []} x", "t.json: not JSON: " },
		{ "[1]", "t.json: not an aimsweep result" },
		{ "{\"levels\": []}", "t.json: not an aimsweep result: no schema_version" },
		{ "{\"schema_version\": \"1\", \"levels\": []}", "schema_version is not a number" },
		{ "{\"schema_version\": 4, \"levels\": []}",
		  "t.json: schema_version 4 is not one this aimsweep reads (1 to 3)" },
		{ "{\"schema_version\": 0, \"levels\": []}",
		  "t.json: schema_version 0 is not one this aimsweep reads (1 to 3)" },
		{ "{\"schema_version\": 1.5, \"levels\": []}",
		  "t.json: schema_version 1.5 is not one this aimsweep reads (1 to 3)" },
		{ "{\"schema_version\": 5e100, \"levels\": []}",
		  "t.json: schema_version 5e+100 is not one this aimsweep reads (1 to 3)" },
		{ "{\"schema_version\": 1}", "t.json: no levels[]" },
		{ "{\"schema_version\": 1, \"levels\": {}}", "t.json: no levels[]" },
		{ "{\"schema_version\": 1, \"levels\": [1]}", "levels[0] is not an object" },
		{ "{\"schema_version\": 1, \"levels\": [{\"users\": \"1\", \"status\": \"ok\"}]}",
		  "levels[0].users is not a whole number" },
		{ "{\"schema_version\": 1, \"levels\": [{\"users\": 1.5, \"status\": \"ok\"}]}",
		  "levels[0].users is not a whole number" },
		{ "{\"schema_version\": 1, \"levels\": [{\"users\": -1, \"status\": \"ok\"}]}",
		  "levels[0].users is not a whole number" },
		{ "{\"schema_version\": 1, \"levels\": [{\"users\": 1e999, \"status\": \"ok\"}]}",
		  "levels[0].users is not a whole number" },
		{ "{\"schema_version\": 1, \"levels\": [{\"users\": 1, \"status\": \"ok\"}, {\"users\": 2}]}",
		  "levels[1].status is not a string" },
	};
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *root = parse(cases[i].doc, err, sizeof(err));

		if (!CHECK(root == NULL)) {
			cJSON_Delete(root);
			continue;
		}
		CHECK_STR_CONTAINS(err, cases[i].want);
		CHECK(!strncmp(err, "t.json: ", 8));
	}
	/* A NUL inside the text is refused, not silently cut short. */
	CHECK(!result_parse("{}\0{", 4, "t.json", err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "NUL byte");
	/* Line and column of a syntax error. */
	CHECK(!parse("{\n  \"a\": tru\n}", err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "line 2");
}

static void test_read_file(void)
{
	char path[] = "/tmp/unit_compare.XXXXXX", err[512];
	int fd = mkstemp(path);
	cJSON *root;

	if (fd < 0)
		test_bail("mkstemp: %s", strerror(errno));
	if (write(fd, good_doc, strlen(good_doc)) != (ssize_t)strlen(good_doc))
		test_bail("write %s: %s", path, strerror(errno));
	close(fd);
	root = result_read(path, err, sizeof(err));
	if (CHECK(root != NULL)) {
		CHECK_EQ_INT(cJSON_GetArraySize(result_levels(root)), 3);
		cJSON_Delete(root);
	}
	unlink(path);
	CHECK(!result_read(path, err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "cannot open: No such file or directory");
	CHECK(!strncmp(err, path, strlen(path)));
}

static void test_accessors(void)
{
	char err[512];
	cJSON *root = parse(hostile_doc, err, sizeof(err));
	const cJSON *l;

	if (!CHECK(root != NULL)) {
		printf("  %s\n", err);
		return;
	}
	l = cJSON_GetArrayItem(result_levels(root), 0);
	CHECK(isnan(json_num(l, "jobs_per_min")));	/* a string */
	CHECK(isnan(json_num(l, "jti")));		/* null */
	CHECK(isnan(json_num2(l, "rusage", "stime_s")));
	CHECK(isnan(json_num(l, "absent")));
	CHECK(isnan(json_num(NULL, "x")));
	CHECK(json_str(l, "jobs_per_min") != NULL);
	CHECK(json_str(l, "users") == NULL);
	CHECK(json_obj(l, "jobs") == NULL);		/* an array */
	CHECK(json_arr(l, "per_user_jobs_per_min") != NULL);
	CHECK_NEAR(level_users(l), 3, 0);
	CHECK(level_is_ok(l));
	l = cJSON_GetArrayItem(result_levels(root), 1);
	CHECK(!level_is_ok(l));
	CHECK_STR_EQ(level_reason(l), "no reason given");
	cJSON_Delete(root);
}

static void test_formats(void)
{
	char err[512], *s;
	cJSON *root = parse(good_doc, err, sizeof(err));

	if (!CHECK(root != NULL)) {
		printf("  %s\n", err);
		return;
	}
	s = report_text(root, REPORT_SIMPLE);
	CHECK_STR_EQ(s, "1 1000\n2 1600\n");
	free(s);

	s = report_text(root, REPORT_CSV);
	CHECK_STR_EQ(s,
		     "users,status,window_s,jobs_per_min,jobs_per_min_per_user,"
		     "user_min,user_median,user_max,jti,utime_s,stime_s,errors,reason\n"
		     "1,ok,1,1000,1000,1000,1000,1000,100,0.1,0.5,0,\n"
		     "2,ok,1,1600,800,700,800,900,90,0.2,1.5,3,\n"
		     "4,failed,,,,,,,,,,,\"user 3 (pid 9) said \"\"no\"\", then died\nbadly\"\n");
	free(s);

	s = report_text(root, REPORT_LKP);
	CHECK_STR_EQ(s,
		     "users.1.jobs_per_min: 1000\n"
		     "users.1.jobs_per_min_per_user: 1000\n"
		     "users.1.jti: 100\n"
		     "users.1.status: ok\n"
		     "users.2.jobs_per_min: 1600\n"
		     "users.2.jobs_per_min_per_user: 800\n"
		     "users.2.jti: 90\n"
		     /* 1 ms in 0.5 s; a hand-made entry names no type. */
		     "users.2.lock.i_rwsem.unknown.wait_ns_per_s: 2000000\n"
		     "users.2.status: ok\n"
		     "users.4.status: failed\n"
		     "max_jobs_per_min: 1600\n"
		     "max_jobs_per_min_users: 2\n"
		     "jti: 90\n");
	free(s);

	/* AIM7's multitask table: the first row right after the header
	 * (LKP's parser reads that line), cpu = utime + stime, and the
	 * failed level commented after the rows, on one line. */
	s = report_text(root, REPORT_AIM7);
	CHECK_STR_EQ(s,
		     "Tasks    jobs/min  jti  jobs/min/task      real       cpu\n"
		     "    1     1000.00  100      1000.0000      1.00      0.60\n"
		     "    2     1600.00   90       800.0000      1.00      1.70\n"
		     "# level 4 users failed: user 3 (pid 9) said \"no\", then died?badly\n");
	free(s);

	/* Std_dev from jti: 800 * (1 - 90/100) = 80; Percent, reaim's
	 * Std_dev Percent, 80 / 800 = 10%, so JTI = 100 - 10. The failed
	 * level's reason stays on one line. */
	s = report_text(root, REPORT_REAIM);
	CHECK_STR_CONTAINS(s, "\n2       1.00      1.50      0.20      1600.00       800.00        80.00        10.00    90\n");
	CHECK_STR_CONTAINS(s, "\n1       1.00      0.50      0.10      1000.00       1000.00       0.00         0.00     100\n");
	CHECK_STR_CONTAINS(s, "\n# level 4 users failed: user 3 (pid 9) said \"no\", then died?badly\n");
	CHECK_STR_CONTAINS(s, "\nMax Jobs per Minute 1600.00\n");
	free(s);

	s = report_text(root, REPORT_DEFAULT);
	CHECK_STR_CONTAINS(s, "# aimsweep 0.1.0: workfile syscall-mix (2 jobs), 3 levels");
	CHECK_STR_CONTAINS(s, "# host vm, Linux 6.1.0-test, 2 CPUs");
	CHECK_STR_CONTAINS(s, "      2         1600.0         800.0        700.0        800.0        900.0   90.0      0.20      1.50  ok (3 errors)\n");
	CHECK_STR_CONTAINS(s, "      4  FAILED: user 3");
	CHECK_STR_CONTAINS(s, "# 2 levels ok, 1 failed; peak 1600.0 jobs/min at 2 users\n");
	free(s);
	cJSON_Delete(root);
}

static void test_statistics(void)
{
	struct repeat_stats a = { 5, 1000, 10 }, b = { 5, 900, 10 };
	struct repeat_stats c = { 10, 50, 1 }, d = { 5, 52, 3 };
	struct repeat_stats one = { 1, 900, 0 };
	double t, df, p;

	/* Known values of Student's t: P(|T| > 1) = 1/2 for df = 1
	 * (Cauchy); 1 - 2/sqrt(6) for t = 2, df = 2; the 97.5% quantile
	 * for df = 10 is 2.228138852. */
	CHECK_NEAR(student_t_two_sided_p(1, 1), 0.5, 1e-12);
	CHECK_NEAR(student_t_two_sided_p(2, 2), 1 - 2 / sqrt(6), 1e-12);
	CHECK_NEAR(student_t_two_sided_p(-2, 2), 1 - 2 / sqrt(6), 1e-12);
	CHECK_NEAR(student_t_two_sided_p(2.228138852, 10), 0.05, 1e-8);
	CHECK_NEAR(student_t_two_sided_p(0, 30), 1, 1e-12);
	CHECK_NEAR(student_t_two_sided_p(1.959963985, 1e7), 0.05, 1e-6);
	CHECK(isnan(student_t_two_sided_p(1, 0)));

	p = welch_p_value(&a, &b, &t, &df);
	CHECK_NEAR(t, -100 / sqrt(40), 1e-9);
	CHECK_NEAR(df, 8, 1e-9);
	CHECK(p < 1e-5);
	/* Unequal variances: df from Welch-Satterthwaite,
	 * (0.1 + 1.8)^2 / (0.1^2 / 9 + 1.8^2 / 4). */
	p = welch_p_value(&c, &d, &t, &df);
	CHECK_NEAR(df, 3.61 / (0.01 / 9 + 3.24 / 4), 1e-9);
	CHECK_NEAR(t, 2 / sqrt(1.9), 1e-9);
	CHECK(p > COMPARE_ALPHA);
	CHECK(isnan(welch_p_value(&a, &one, &t, &df)));

	CHECK_NEAR(percent_change(1000, 900), -10, 1e-12);
	CHECK_NEAR(percent_change(900, 1000), 100.0 / 9, 1e-12);
	CHECK_NEAR(percent_change(0, 0), 0, 0);
	CHECK(isnan(percent_change(0, 5)));
}

/* compare_print() on two one-level documents: its regression verdict. */
static bool regressed(double a_jpm, double b_jpm, double fail_above)
{
	char doc_a[512], doc_b[512], err[256];
	cJSON *a, *b;
	bool r;
	FILE *null = fopen("/dev/null", "w");

	snprintf(doc_a, sizeof(doc_a),
		 "{\"schema_version\": 1, \"levels\": [{\"users\": 8, \"status\": \"ok\", \"jobs_per_min\": %g}]}",
		 a_jpm);
	snprintf(doc_b, sizeof(doc_b),
		 "{\"schema_version\": 1, \"levels\": [{\"users\": 8, \"status\": \"ok\", \"jobs_per_min\": %g}]}",
		 b_jpm);
	a = parse(doc_a, err, sizeof(err));
	b = parse(doc_b, err, sizeof(err));
	if (!a || !b || !null)
		test_bail("cannot set up compare: %s", err);
	r = compare_print(null, a, "a", b, "b", fail_above, COMPARE_NOISE_PCT);
	fclose(null);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return r;
}

static void test_noise_floor(void)
{
	CHECK(compare_significant(0.001, -10, 5));
	CHECK(compare_significant(0.001, 5, 5));	/* at the floor */
	CHECK(!compare_significant(0.001, 4.9, 5));	/* under it */
	CHECK(!compare_significant(0.001, -4.9, 5));
	CHECK(!compare_significant(0.2, -10, 5));	/* p too high */
	CHECK(compare_significant(0.001, 0.5, 0));	/* --noise 0 */
	CHECK(!compare_significant(0.001, NAN, 0));
}

static void test_fail_above(void)
{
	CHECK(regressed(1000, 900, 5));
	CHECK(!regressed(1000, 900, 10));	/* exactly 10%: not more */
	CHECK(!regressed(1000, 900, 20));
	CHECK(!regressed(1000, 2000, 0));	/* a rise never fails */
	CHECK(!regressed(1000, 900, -1));	/* no --fail-above */
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	if (!f || !buf)
		test_bail("cannot read %s: %s", path, strerror(errno));
	if (fread(buf, 1, 65535, f) == 0)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static void test_plot_script(void)
{
	char dir[] = "/tmp/unit_compare.XXXXXX", gp[64], dat[64], err[256];
	struct plot_result r[2];
	cJSON *root = parse(good_doc, err, sizeof(err));
	char *text;
	int panels;

	if (!CHECK(root != NULL) || !mkdtemp(dir))
		test_bail("cannot set up: %s", err);
	r[0] = (struct plot_result){ root, "run 'A'" };
	r[1] = (struct plot_result){ root, "B" };
	snprintf(gp, sizeof(gp), "%s/p.gp", dir);
	snprintf(dat, sizeof(dat), "%s/p.dat", dir);
	/* jobs/min, per user, p99, sys and locks. */
	panels = plot_write(r, 2, gp, dat, "p.dat", "p.svg", false, err,
			    sizeof(err));
	CHECK_EQ_INT(panels, 5);
	text = slurp(dat);
	/* users, jobs/min, jobs/min/user, sys% = stime / (window x 2 CPUs);
	 * the failed level 4 is left out. */
	CHECK_STR_CONTAINS(text, "\n1 1000 1000 25\n2 1600 800 75\n\n\n");
	CHECK(!strstr(text, "\n4 "));
	CHECK_STR_CONTAINS(text, "\n2 5\n");	/* p99 in us */
	/* 1 ms of lock wait in the 0.5 s the level profiled. */
	CHECK_STR_CONTAINS(text, "\n2 2\n");
	free(text);
	text = slurp(gp);
	CHECK_STR_CONTAINS(text, "set terminal svg size 1200,1350 dynamic\n");
	CHECK_STR_CONTAINS(text, "set output 'p.svg'\n");
	CHECK_STR_CONTAINS(text, "dat = 'p.dat'\n");
	CHECK_STR_CONTAINS(text, "set multiplot layout 3,2\n");
	CHECK_STR_CONTAINS(text, "using 1:(1000) with lines lc 1 dt 2 title 'ideal: '.'run ''A'''");
	CHECK_STR_CONTAINS(text, "title 'B'.': '.'creat'");
	CHECK_STR_CONTAINS(text, "title 'B'.': '.'i_rwsem'");
	CHECK_STR_CONTAINS(text, "set title 'users'' sys time % vs users'");
	free(text);
	unlink(gp);
	unlink(dat);
	rmdir(dir);
	cJSON_Delete(root);
}

/* Every printer on a document: must not crash, whatever it holds. */
static void run_all_printers(const cJSON *root, FILE *null)
{
	struct plot_result r[2] = { { root, "a" }, { root, "b'\"\x01\xff" } };
	struct stat st;
	char err[256];

	for (int fmt = REPORT_DEFAULT; fmt <= REPORT_LKP; fmt++)
		report_print(null, root, (enum report_format)fmt, "x");
	compare_print(null, root, "a", root, "b", 1, 0);
	/* To /dev/null, which must survive it: a plot with nothing in it
	 * removes its data file, and this runs as root in CI. */
	plot_write(r, 2, "/dev/null", "/dev/null", "p.dat", "p.svg", false,
		   err, sizeof(err));
	if (!CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)))
		test_bail("plot_write() removed /dev/null");
}

static void test_no_crash(void)
{
	static const char *const docs[] = { good_doc, hostile_doc };
	FILE *null = fopen("/dev/null", "w");
	size_t parsed = 0;
	char err[512];

	if (!null)
		test_bail("cannot open /dev/null: %s", strerror(errno));
	for (size_t d = 0; d < 2; d++) {
		const char *doc = docs[d];
		size_t len = strlen(doc);
		char *copy = malloc(len);

		if (!copy)
			test_bail("out of memory");
		/* Every prefix, and every byte replaced by a few others. */
		for (size_t cut = 0; cut <= len; cut++) {
			cJSON *root = result_parse(doc, cut, "t", err,
						   sizeof(err));

			if (root) {
				parsed++;
				run_all_printers(root, null);
				cJSON_Delete(root);
			}
		}
		for (size_t i = 0; i < len; i++) {
			static const char subst[] = "0\"[{}],:-e9";

			for (size_t k = 0; k < sizeof(subst) - 1; k++) {
				cJSON *root;

				memcpy(copy, doc, len);
				copy[i] = subst[k];
				root = result_parse(copy, len, "t", err,
						    sizeof(err));
				if (root) {
					parsed++;
					run_all_printers(root, null);
					cJSON_Delete(root);
				}
			}
		}
		free(copy);
	}
	/* Some mutants must have parsed, or the printers ran on nothing. */
	CHECK(parsed > 100);
	fclose(null);
}

int main(void)
{
	RUN_TEST(test_parse_errors);
	RUN_TEST(test_read_file);
	RUN_TEST(test_accessors);
	RUN_TEST(test_formats);
	RUN_TEST(test_statistics);
	RUN_TEST(test_noise_floor);
	RUN_TEST(test_fail_above);
	RUN_TEST(test_plot_script);
	RUN_TEST(test_no_crash);
	return test_done();
}
