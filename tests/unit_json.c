/* tests/unit_json.c: unit tests of result.json, built from a hand-made run. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "driver/base/params.h"
#include "driver/capture/capture.h"
#include "driver/cli/options.h"
#include "driver/output/result_write.h"
#include "driver/measure/result.h"
#include "driver/base/workfile.h"
#include "jobs/job.h"
#include "tests/test.h"

#define EPS 1e-9

static char tmp_dir[PATH_MAX];

/* What the hand-made run points at; filled once by build_run(). */
static unsigned int run_levels[] = { 2, 4 };
static char run_workfile[] = "workfiles/hand-mix";
static char run_cmdline[] =
	"aimsweep run --levels 2,4 -t 10 workfiles/hand-mix";
static struct run_params run_params;
/* run_params as the command line makes them for result.json. */
static cJSON *run_params_doc;
static struct mix_entry run_entries[2];
static struct mix run_mix;
static char mix_path[] = "workfiles/hand-mix";
static char mix_name[] = "hand-mix";

/* Looks up a dotted path ("host.hostname") below o; NULL when absent. */
static const cJSON *get(const cJSON *o, const char *path)
{
	char key[128];
	const char *dot;
	size_t n;

	while (o && *path) {
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += n + (dot ? 1 : 0);
	}
	return o;
}

static bool check_json_str(const char *file, int line, const cJSON *o,
			   const char *path, const char *want)
{
	const cJSON *v = get(o, path);
	const char *got = cJSON_IsString(v) ? v->valuestring : NULL;

	return test_report(got && !strcmp(got, want), file, line,
			   "JSON %s: got %s%s%s, want \"%s\"", path,
			   got ? "\"" : "", got ? got : (v ? "a non-string" :
						       "nothing"),
			   got ? "\"" : "", want);
}

static bool check_json_num(const char *file, int line, const cJSON *o,
			   const char *path, double want)
{
	const cJSON *v = get(o, path);
	bool is_num = cJSON_IsNumber(v);
	double got = is_num ? v->valuedouble : 0;

	/* Relative tolerance: the numbers go through text and back. */
	return test_report(is_num && test_near(got, want,
					       EPS * (fabs(want) + 1)),
			   file, line, "JSON %s: got %s%.17g, want %.17g",
			   path, is_num ? "" : (v ? "a non-number " :
						"nothing "),
			   got, want);
}

static bool check_json_absent(const char *file, int line, const cJSON *o,
			      const char *path)
{
	return test_report(!get(o, path), file, line,
			   "JSON %s is present but must not be", path);
}

#define CHECK_JSON_STR(o, path, want) \
	check_json_str(__FILE__, __LINE__, (o), (path), (want))
#define CHECK_JSON_NUM(o, path, want) \
	check_json_num(__FILE__, __LINE__, (o), (path), (want))
#define CHECK_JSON_ABSENT(o, path) \
	check_json_absent(__FILE__, __LINE__, (o), (path))

/* Element i of the array at path, or NULL. */
static const cJSON *item(const cJSON *o, const char *path, int i)
{
	const cJSON *a = get(o, path);

	return cJSON_IsArray(a) ? cJSON_GetArrayItem(a, i) : NULL;
}

static int array_size(const cJSON *o, const char *path)
{
	const cJSON *a = get(o, path);

	return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
}

/* A level's job, with its jobs array on the heap as the collector makes
 * it (result_add_level takes it over). */
static struct job_result *alloc_jobs(size_t n)
{
	struct job_result *jobs = calloc(n, sizeof(*jobs));

	if (!jobs)
		test_bail("out of memory");
	return jobs;
}

static void add_level(struct run_result *r, struct level_result *l)
{
	if (result_add_level(r, l))
		test_bail("result_add_level: out of memory");
}

static void add_ok_level(struct run_result *r, unsigned int users,
			 double jobs_per_min)
{
	struct level_result l = {
		.users = users,
		.status = LEVEL_OK,
		.window_s = 10,
		.ops = (uint64_t)(jobs_per_min / 6),
		.jobs_per_min = jobs_per_min,
		.jobs_per_min_per_user = jobs_per_min / users,
	};

	add_level(r, &l);
}

static void add_failed_level(struct run_result *r, unsigned int users,
			     const char *reason)
{
	struct level_result l = {
		.users = users,
		.status = LEVEL_FAILED,
		/* Numbers a failed level may hold from its partial run;
		 * none of them may reach the document. */
		.window_s = 3.25,
		.ops = 999999,
		.jobs_per_min = 1e12,
		.jobs_per_min_per_user = 1e11,
	};

	snprintf(l.reason, sizeof(l.reason), "%s", reason);
	l.jobs = alloc_jobs(1);
	l.jobs[0] = (struct job_result){ .name = "getppid", .ops = 999999 };
	l.n_jobs = 1;
	add_level(r, &l);
}

/*
 * The run of the main test: two levels over a mix of getppid (30) and
 * brk (10). Level 0 (2 users) ran fine; level 1 (4 users) failed.
 */
static bool build_run(struct run_result *r)
{
	const struct job *getppid_job = job_find("getppid");
	const struct job *brk_job = job_find("brk");
	struct level_result l;

	if (!CHECK(getppid_job) || !CHECK(brk_job))
		return false;

	memset(r, 0, sizeof(*r));
	snprintf(r->host.hostname, sizeof(r->host.hostname), "testhost");
	snprintf(r->host.kernel_release, sizeof(r->host.kernel_release),
		 "6.1.0-test");
	snprintf(r->host.kernel_version, sizeof(r->host.kernel_version),
		 "#1 SMP PREEMPT_DYNAMIC");
	snprintf(r->host.machine, sizeof(r->host.machine), "x86_64");
	snprintf(r->host.cpu_model, sizeof(r->host.cpu_model),
		 "Test CPU \"quoted\" @ 3.00GHz");
	r->host.cpus_online = 8;
	r->host.memory_bytes = UINT64_C(17179869184);
	r->host.kdamonds = 1;

	run_params = (struct run_params){
		.levels = run_levels,
		.n_levels = 2,
		.levels_given = true,
		.runtime_s = 10,
		.warmup_s = 2,
		.grace_s = 5,
		.scratch_bases = { "/tmp" },
		.n_scratch = 1,
		.output_dir = "/tmp/results",
		/* Above 2^53: a JSON number would lose it. */
		.seed = UINT64_C(18446744073709551615),
		.seed_given = true,
		.layout = LAYOUT_SHARED,
		.workfile_path = run_workfile,
		.cmdline = run_cmdline,
	};
	r->params = &run_params;
	cJSON_Delete(run_params_doc);
	run_params_doc = cJSON_CreateObject();
	if (!run_params_doc || run_options_json(run_params_doc, &run_params))
		test_bail("run_options_json: out of memory");
	r->params_json = run_params_doc;
	r->record.driver_sched = "normal (no permission for SCHED_FIFO)";
	r->record.timer_ns = 40;

	run_entries[0] = (struct mix_entry){ .job = getppid_job, .weight = 30,
					     .line = 1 };
	run_entries[1] = (struct mix_entry){ .job = brk_job, .weight = 10,
					     .line = 2 };
	run_mix = (struct mix){
		.path = mix_path,
		.name = mix_name,
		.entries = run_entries,
		.n_entries = 2,
		.total_weight = 40,
		.file_size = 10240,
		.pool_size = 1048576,
		.file_size_set = true,
		.pool_size_set = true,
		.layout = LAYOUT_SHARED,
	};
	r->mix = &run_mix;
	snprintf(r->started_at, sizeof(r->started_at),
		 "2026-01-02T03:04:05+0000");
	r->status = RUN_FAILED;

	l = (struct level_result){
		.users = 2,
		.status = LEVEL_OK,
		.window_s = 10.004,
		.start_s = 0.125,
		.ops = 1000,
		.errors = 3,
		.jobs_per_min = 5997.6,
		.jobs_per_min_per_user = 2998.8,
		.user_min = 2900.5,
		.user_median = 2998.8,
		.user_max = 3097.1,
		.jti = 96.75,
		.rusage = {
			.utime_s = 1.5,
			.stime_s = 17.25,
			.nvcsw = 12,
			.nivcsw = 345,
			.minflt = 6789,
			.majflt = 1,
			.maxrss_kb = 2048,
		},
	};
	l.jobs = alloc_jobs(2);
	l.jobs[0] = (struct job_result){
		.name = "getppid", .weight = 30, .ops = 750,
		.ops_per_sec = 74.97,
	};
	l.jobs[1] = (struct job_result){
		.name = "brk", .weight = 10, .ops = 250, .errors = 3,
		.last_errno = ENOMEM, .skipped = true, .ops_per_sec = 24.99,
	};
	l.n_jobs = 2;
	add_level(r, &l);
	CHECK(!l.jobs);	/* taken over */

	add_failed_level(r, 4, "user 3 was killed by signal 9 (SIGKILL)");
	return true;
}

/* result_to_json, printed and parsed back, as a reader of the file sees
 * it. NULL (after a failed check) when any step fails. */
static cJSON *round_trip(const struct run_result *r)
{
	cJSON *doc = result_to_json(r), *back = NULL;
	char *text;

	if (!CHECK(doc))
		return NULL;
	text = cJSON_Print(doc);
	if (CHECK(text)) {
		back = cJSON_Parse(text);
		CHECK(back);
	}
	free(text);
	cJSON_Delete(doc);
	return back;
}

/* mix.jobs[i] against the job table row it came from. */
static void check_mix_job(const cJSON *root, int i, const struct job *j,
			  unsigned int weight)
{
	const cJSON *e = item(root, "mix.jobs", i), *sys;
	int n = 0;

	if (!CHECK(e))
		return;
	CHECK_JSON_STR(e, "name", j->name);
	CHECK_JSON_NUM(e, "weight", weight);
	CHECK_JSON_STR(e, "family", j->family);
	CHECK_JSON_STR(e, "unit", j->unit);
	CHECK_JSON_NUM(e, "inner_ops", j->inner_ops);
	if (j->setup)
		CHECK_JSON_STR(e, "setup_per_op", j->setup);
	else
		CHECK_JSON_ABSENT(e, "setup_per_op");
	sys = get(e, "syscalls_per_op");
	if (!CHECK(cJSON_IsArray(sys)))
		return;
	for (const struct job_syscall *s = j->syscalls; s && s->name; s++) {
		const cJSON *so = cJSON_GetArrayItem(sys, n++);

		if (!CHECK(so))
			break;
		CHECK_JSON_STR(so, "name", s->name);
		CHECK_JSON_NUM(so, "count", s->per_op);
	}
	CHECK_EQ_INT(cJSON_GetArraySize(sys), n);
	/* The jobs this test uses make at least one syscall per op. */
	CHECK(n > 0);
}

static void test_document(void)
{
	const cJSON *l0, *l1, *j;
	struct run_result r;
	cJSON *root;

	if (!build_run(&r))
		return;
	root = round_trip(&r);
	if (!root)
		goto out;

	CHECK_JSON_NUM(root, "schema_version", RESULT_SCHEMA_VERSION);
	CHECK_JSON_NUM(root, "schema_version", 3);
	CHECK_JSON_STR(root, "tool.name", "aimsweep");
	CHECK_JSON_STR(root, "tool.version", PACKAGE_VERSION);
	CHECK_JSON_STR(root, "status", "failed");
	CHECK_JSON_ABSENT(root, "interrupted_by");
	CHECK_JSON_STR(root, "started_at", "2026-01-02T03:04:05+0000");

	CHECK_JSON_STR(root, "host.hostname", "testhost");
	CHECK_JSON_STR(root, "host.kernel_release", "6.1.0-test");
	CHECK_JSON_STR(root, "host.kernel_version", "#1 SMP PREEMPT_DYNAMIC");
	CHECK_JSON_STR(root, "host.machine", "x86_64");
	CHECK_JSON_STR(root, "host.cpu_model", "Test CPU \"quoted\" @ 3.00GHz");
	CHECK_JSON_NUM(root, "host.cpus_online", 8);
	CHECK_JSON_NUM(root, "host.memory_bytes", 17179869184.0);
	CHECK_JSON_NUM(root, "host.kdamonds", 1);

	CHECK_JSON_STR(root, "params.workfile", "workfiles/hand-mix");
	if (CHECK_EQ_INT(array_size(root, "params.levels"), 2)) {
		const cJSON *a = item(root, "params.levels", 0);
		const cJSON *b = item(root, "params.levels", 1);

		CHECK(cJSON_IsNumber(a) && a->valuedouble == 2);
		CHECK(cJSON_IsNumber(b) && b->valuedouble == 4);
	}
	CHECK_JSON_NUM(root, "params.runtime_s", 10);
	CHECK_JSON_NUM(root, "params.warmup_s", 2);
	CHECK_JSON_NUM(root, "params.grace_s", 5);
	CHECK_JSON_STR(root, "params.seed", "18446744073709551615");
	CHECK_JSON_STR(root, "params.layout", "shared");
	if (CHECK_EQ_INT(array_size(root, "params.scratch_dirs"), 1)) {
		const cJSON *d = item(root, "params.scratch_dirs", 0);

		CHECK(cJSON_IsString(d) && !strcmp(d->valuestring, "/tmp"));
	}
	CHECK_JSON_ABSENT(root, "params.config");
	CHECK_JSON_STR(root, "params.output_dir", "/tmp/results");
	CHECK_JSON_STR(root, "params.cmdline", run_cmdline);
	/* What the run measured goes with the options, from the record. */
	CHECK_JSON_STR(root, "params.driver_scheduling",
		       "normal (no permission for SCHED_FIFO)");
	CHECK_JSON_ABSENT(root, "params.latency_sampling");

	CHECK_JSON_STR(root, "mix.name", "hand-mix");
	CHECK_JSON_NUM(root, "mix.file_size_bytes", 10240);
	CHECK_JSON_NUM(root, "mix.pool_size_bytes", 1048576);
	CHECK_JSON_NUM(root, "mix.total_weight", 40);
	if (CHECK_EQ_INT(array_size(root, "mix.jobs"), 2)) {
		check_mix_job(root, 0, job_find("getppid"), 30);
		check_mix_job(root, 1, job_find("brk"), 10);
	}

	if (!CHECK_EQ_INT(array_size(root, "levels"), 2))
		goto out;
	l0 = item(root, "levels", 0);
	CHECK_JSON_NUM(l0, "users", 2);
	CHECK_JSON_STR(l0, "status", "ok");
	CHECK_JSON_ABSENT(l0, "reason");
	CHECK_JSON_NUM(l0, "window_s", 10.004);
	CHECK_JSON_NUM(l0, "start_s", 0.125);
	CHECK_JSON_NUM(l0, "ops", 1000);
	CHECK_JSON_NUM(l0, "errors", 3);
	CHECK_JSON_NUM(l0, "jobs_per_min", 5997.6);
	CHECK_JSON_NUM(l0, "jobs_per_min_per_user", 2998.8);
	CHECK_JSON_NUM(l0, "per_user_jobs_per_min.min", 2900.5);
	CHECK_JSON_NUM(l0, "per_user_jobs_per_min.median", 2998.8);
	CHECK_JSON_NUM(l0, "per_user_jobs_per_min.max", 3097.1);
	CHECK_JSON_NUM(l0, "jti", 96.75);
	CHECK_JSON_NUM(l0, "rusage.utime_s", 1.5);
	CHECK_JSON_NUM(l0, "rusage.stime_s", 17.25);
	CHECK_JSON_NUM(l0, "rusage.voluntary_ctxsw", 12);
	CHECK_JSON_NUM(l0, "rusage.involuntary_ctxsw", 345);
	CHECK_JSON_NUM(l0, "rusage.minor_faults", 6789);
	CHECK_JSON_NUM(l0, "rusage.major_faults", 1);
	CHECK_JSON_NUM(l0, "rusage.max_rss_kb", 2048);
	if (CHECK_EQ_INT(array_size(l0, "jobs"), 2)) {
		j = item(l0, "jobs", 0);
		CHECK_JSON_STR(j, "name", "getppid");
		CHECK_JSON_NUM(j, "ops", 750);
		CHECK_JSON_NUM(j, "ops_per_sec", 74.97);
		CHECK_JSON_NUM(j, "errors", 0);
		CHECK_JSON_ABSENT(j, "last_errno");
		CHECK_JSON_ABSENT(j, "skipped");
		j = item(l0, "jobs", 1);
		CHECK_JSON_STR(j, "name", "brk");
		CHECK_JSON_NUM(j, "ops", 250);
		CHECK_JSON_NUM(j, "ops_per_sec", 24.99);
		CHECK_JSON_NUM(j, "errors", 3);
		CHECK_JSON_STR(j, "last_errno", "ENOMEM");
		CHECK(cJSON_IsTrue(get(j, "skipped")));
	}

	/* The failed level: who, why, and no numbers that could be read as
	 * a measurement. */
	l1 = item(root, "levels", 1);
	CHECK_JSON_NUM(l1, "users", 4);
	CHECK_JSON_STR(l1, "status", "failed");
	CHECK_JSON_STR(l1, "reason", "user 3 was killed by signal 9 (SIGKILL)");
	CHECK_JSON_ABSENT(l1, "jobs_per_min");
	CHECK_JSON_ABSENT(l1, "jobs_per_min_per_user");
	CHECK_JSON_ABSENT(l1, "ops");
	CHECK_JSON_ABSENT(l1, "window_s");
	CHECK_JSON_ABSENT(l1, "jti");
	CHECK_JSON_ABSENT(l1, "jobs");

	/* The peak ignores the failed level and its huge jobs/min. */
	CHECK_JSON_NUM(root, "summary.peak_jobs_per_min", 5997.6);
	CHECK_JSON_NUM(root, "summary.peak_users", 2);
	CHECK_JSON_NUM(root, "summary.levels_ok", 1);
	CHECK_JSON_NUM(root, "summary.levels_failed", 1);
out:
	cJSON_Delete(root);
	run_result_free(&r);
}

static void test_interrupted(void)
{
	struct run_result r;
	cJSON *root;

	if (!build_run(&r))
		return;
	r.status = RUN_INTERRUPTED;
	r.interrupted_by = SIGINT;
	root = round_trip(&r);
	if (root) {
		CHECK_JSON_STR(root, "status", "interrupted");
		CHECK_JSON_STR(root, "interrupted_by", "SIGINT");
		/* Every finished level is kept. */
		CHECK_EQ_INT(array_size(root, "levels"), 2);
		cJSON_Delete(root);
	}
	r.interrupted_by = SIGTERM;
	root = round_trip(&r);
	if (root) {
		CHECK_JSON_STR(root, "interrupted_by", "SIGTERM");
		cJSON_Delete(root);
	}
	r.status = RUN_COMPLETE;
	root = round_trip(&r);
	if (root) {
		CHECK_JSON_STR(root, "status", "complete");
		CHECK_JSON_ABSENT(root, "interrupted_by");
		cJSON_Delete(root);
	}
	r.status = RUN_RUNNING;
	root = round_trip(&r);
	if (root) {
		CHECK_JSON_STR(root, "status", "running");
		cJSON_Delete(root);
	}
	run_result_free(&r);
}

/* The peak is the best ok level, wherever it is in the sweep. */
static void test_summary_peak(void)
{
	struct run_result r;
	cJSON *root;

	if (!build_run(&r))
		return;
	run_result_free(&r);
	add_ok_level(&r, 2, 6000);
	add_ok_level(&r, 4, 9000);
	add_failed_level(&r, 8, "fork failed: Resource temporarily "
			 "unavailable");
	add_ok_level(&r, 16, 7000);
	root = round_trip(&r);
	if (root) {
		CHECK_EQ_INT(array_size(root, "levels"), 4);
		CHECK_JSON_NUM(root, "summary.peak_jobs_per_min", 9000);
		CHECK_JSON_NUM(root, "summary.peak_users", 4);
		CHECK_JSON_NUM(root, "summary.levels_ok", 3);
		CHECK_JSON_NUM(root, "summary.levels_failed", 1);
		cJSON_Delete(root);
	}
	run_result_free(&r);
}

/* A level with one lock entry of `lock` and the capture info `li`. */
static void add_lock_level(struct run_result *r, unsigned int users,
			   const char *lock,
			   const struct lock_capture_info *li)
{
	struct level_result l = {
		.users = users,
		.status = LEVEL_OK,
		.window_s = 10,
		.lock_profiled = true,
		.n_locks = 1,
		.lock_info = *li,
	};

	l.locks = calloc(1, sizeof(*l.locks));
	if (!l.locks)
		test_bail("out of memory");
	snprintf(l.locks[0].caller, sizeof(l.locks[0].caller), "f+0x1");
	snprintf(l.locks[0].type, sizeof(l.locks[0].type), "mutex");
	snprintf(l.locks[0].lock, sizeof(l.locks[0].lock), "%s", lock);
	add_level(r, &l);
}

/* perf's level has no lost counts; the collector's has them, each lost
 * wait once in lost_events (no begin, or no room in the sums: a begin
 * with no room is also an end without one); an entry names its lock
 * only when it has one. */
static void test_lock_profile(void)
{
	const struct lock_capture_info perf = {
		.method = "perf", .why = "perf lock record",
		.offset_s = 1, .covered_s = 2,
	};
	const struct lock_capture_info bpf = {
		.method = "bpf", .why = "in-kernel collector",
		.offset_s = 0, .covered_s = 10, .has_lost = true,
		.lost_no_begin = 1, .lost_tasks_full = 2,
		.lost_callers_full = 4, .stacks_unknown = 8,
	};
	const cJSON *l;
	struct run_result r;
	cJSON *root;

	if (!build_run(&r))
		return;
	run_result_free(&r);
	add_lock_level(&r, 2, "", &perf);
	add_lock_level(&r, 4, "rtnl_mutex", &bpf);
	root = round_trip(&r);
	l = item(root, "levels", 0);
	CHECK_JSON_STR(l, "lock_profile.method", "perf");
	CHECK_JSON_STR(l, "lock_profile.why", "perf lock record");
	CHECK_JSON_NUM(l, "lock_profile.offset_s", 1);
	CHECK_JSON_NUM(l, "lock_profile.covered_s", 2);
	CHECK_JSON_ABSENT(l, "lock_profile.lost_events");
	CHECK_JSON_ABSENT(l, "lock_profile.lost");
	CHECK_JSON_ABSENT(l, "lock_profile.stacks_unknown");
	CHECK_JSON_ABSENT(item(l, "lock_contention", 0), "lock");
	l = item(root, "levels", 1);
	CHECK_JSON_STR(l, "lock_profile.method", "bpf");
	CHECK_JSON_NUM(l, "lock_profile.covered_s", 10);
	CHECK_JSON_NUM(l, "lock_profile.lost_events", 5);	/* 1 + 4 */
	CHECK_JSON_NUM(l, "lock_profile.lost.no_begin", 1);
	CHECK_JSON_NUM(l, "lock_profile.lost.tasks_full", 2);
	CHECK_JSON_NUM(l, "lock_profile.lost.callers_full", 4);
	CHECK_JSON_NUM(l, "lock_profile.stacks_unknown", 8);
	CHECK_JSON_STR(item(l, "lock_contention", 0), "lock", "rtnl_mutex");
	cJSON_Delete(root);
	run_result_free(&r);
}

/* A level whose capture wrote keys of its own (capture_result_object()),
 * ok or failed: they come last, as they are; a key written twice fails
 * the level's capture, and the level frees them (ASan's leak check). */
static void add_capture_keys_level(struct run_result *r, unsigned int users,
				   enum level_status status)
{
	struct level_result l = {
		.users = users, .status = status, .window_s = 10,
		.hook_ran = true,
	};
	struct level_capture c = { 0 };
	cJSON *o = capture_result_object(&c, &l, "demo_capture");

	CHECK(o != NULL);
	CHECK(cJSON_AddNumberToObject(o, "users_seen", users) != NULL);
	CHECK(cJSON_AddStringToObject(o, "note", "as written") != NULL);
	CHECK_STR_EQ(c.error, "");
	CHECK(capture_result_object(&c, &l, "demo_capture") == NULL);
	CHECK_STR_EQ(c.error, "demo_capture: written twice in one level");
	add_level(r, &l);
	CHECK(l.capture_keys == NULL);	/* the run's copy owns them */
}

static void test_capture_keys(void)
{
	struct run_result r;
	const cJSON *l, *last;
	cJSON *root;

	if (!build_run(&r))
		return;
	run_result_free(&r);
	add_capture_keys_level(&r, 2, LEVEL_OK);
	add_capture_keys_level(&r, 4, LEVEL_FAILED);
	root = round_trip(&r);
	for (int i = 0; i < 2; i++) {
		l = item(root, "levels", i);
		CHECK_JSON_NUM(l, "demo_capture.users_seen", 2 << i);
		CHECK_JSON_STR(l, "demo_capture.note", "as written");
		CHECK(get(l, "hook.command") != NULL);
		last = l ? cJSON_GetArrayItem(l, cJSON_GetArraySize(l) - 1)
			 : NULL;
		CHECK(last && !strcmp(last->string, "demo_capture"));
	}
	cJSON_Delete(root);
	run_result_free(&r);
}

/* A capture's key that the level already has (here "hook") is not
 * written as a second "hook": the document is not made at all. */
static void test_capture_key_clash(void)
{
	struct level_result l = {
		.users = 2, .status = LEVEL_OK, .window_s = 10,
		.hook_ran = true,
	};
	struct run_params p = { .hook_cmd = "true" };
	struct level_capture c = { 0 };
	cJSON *o = capture_result_object(&c, &l, "hook");

	CHECK(o != NULL);
	CHECK(level_to_json(&l, &p) == NULL);
	l.hook_ran = false;	/* no fixed "hook" now: the key is written */
	o = level_to_json(&l, &p);
	CHECK(o && cJSON_IsObject(cJSON_GetObjectItem(o, "hook")));
	cJSON_Delete(o);
	level_result_free(&l);
}

/* No level ok (or none at all): no peak to report. */
static void test_summary_no_peak(void)
{
	struct run_result r;
	cJSON *root;

	if (!build_run(&r))
		return;
	run_result_free(&r);
	r.status = RUN_RUNNING;
	root = round_trip(&r);
	if (root) {
		CHECK(cJSON_IsArray(get(root, "levels")));
		CHECK_EQ_INT(array_size(root, "levels"), 0);
		CHECK_JSON_NUM(root, "summary.levels_ok", 0);
		CHECK_JSON_NUM(root, "summary.levels_failed", 0);
		CHECK_JSON_ABSENT(root, "summary.peak_jobs_per_min");
		CHECK_JSON_ABSENT(root, "summary.peak_users");
		cJSON_Delete(root);
	}
	add_failed_level(&r, 100, "users did not reach the gate");
	root = round_trip(&r);
	if (root) {
		CHECK_JSON_NUM(root, "summary.levels_ok", 0);
		CHECK_JSON_NUM(root, "summary.levels_failed", 1);
		CHECK_JSON_ABSENT(root, "summary.peak_jobs_per_min");
		CHECK_JSON_ABSENT(root, "summary.peak_users");
		cJSON_Delete(root);
	}
	run_result_free(&r);
}

/* Reads a whole (small) file; NULL when it cannot. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out;
	text = malloc((size_t)len + 1);
	if (!text)
		goto out;
	if (fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		text = NULL;
		goto out;
	}
	text[len] = '\0';
out:
	fclose(f);
	return text;
}

/* Entries of a directory other than . and .., and the first one's name. */
static int count_entries(const char *dir, char *first, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!n++)
			snprintf(first, len, "%s", de->d_name);
		else
			test_note("found in %s: %s", dir, de->d_name);
	}
	closedir(d);
	return n;
}

static void test_write(void)
{
	char path[PATH_MAX + 64], err[PATH_MAX + 256] = "", name[256] = "";
	struct run_result r;
	cJSON *root = NULL;
	struct stat st;
	char *text;

	if (!build_run(&r))
		return;
	snprintf(path, sizeof(path), "%s/result.json", tmp_dir);

	if (!CHECK_EQ_INT(result_write(&r, path, err, sizeof(err)), 0)) {
		test_note("result_write: %s", err);
		goto out;
	}
	if (CHECK(stat(path, &st) == 0)) {
		CHECK(S_ISREG(st.st_mode));
		CHECK_EQ_INT(st.st_mode & 0777, 0644);
	}
	text = read_text(path);
	if (CHECK(text)) {
		size_t len = strlen(text);

		CHECK(len > 0 && text[len - 1] == '\n');
		root = cJSON_Parse(text);
		CHECK(root);
		free(text);
	}
	CHECK_JSON_STR(root, "status", "failed");
	CHECK_JSON_NUM(root, "summary.peak_jobs_per_min", 5997.6);
	cJSON_Delete(root);
	root = NULL;
	/* Only result.json: the temporary file was renamed over it. */
	CHECK_EQ_INT(count_entries(tmp_dir, name, sizeof(name)), 1);
	CHECK_STR_EQ(name, "result.json");

	/* Rewritten after the next level: the new one replaces the old. */
	r.status = RUN_INTERRUPTED;
	r.interrupted_by = SIGINT;
	if (!CHECK_EQ_INT(result_write(&r, path, err, sizeof(err)), 0)) {
		test_note("result_write: %s", err);
		goto out;
	}
	text = read_text(path);
	if (CHECK(text)) {
		root = cJSON_Parse(text);
		CHECK(root);
		free(text);
	}
	CHECK_JSON_STR(root, "status", "interrupted");
	CHECK_JSON_STR(root, "interrupted_by", "SIGINT");
	CHECK_EQ_INT(array_size(root, "levels"), 2);
	cJSON_Delete(root);
	CHECK_EQ_INT(count_entries(tmp_dir, name, sizeof(name)), 1);
	CHECK_STR_EQ(name, "result.json");
out:
	unlink(path);
	run_result_free(&r);
}

static void test_write_missing_dir(void)
{
	char dir[PATH_MAX + 64], path[PATH_MAX + 128];
	char err[PATH_MAX + 256] = "", name[256] = "";
	struct run_result r;
	struct stat st;
	int rc;

	if (!build_run(&r))
		return;
	snprintf(dir, sizeof(dir), "%s/missing", tmp_dir);
	snprintf(path, sizeof(path), "%s/result.json", dir);
	rc = result_write(&r, path, err, sizeof(err));
	CHECK(rc != 0);
	CHECK_STR_CONTAINS(err, path);
	CHECK_STR_CONTAINS(err, strerror(ENOENT));
	CHECK(stat(path, &st) != 0);
	CHECK(stat(dir, &st) != 0);
	CHECK_EQ_INT(count_entries(tmp_dir, name, sizeof(name)), 0);
	run_result_free(&r);
}

/*
 * The rename fails (the target is a directory): the temporary file that
 * was already written must not be left behind.
 */
static void test_write_rename_fails(void)
{
	char path[PATH_MAX + 64], err[PATH_MAX + 256] = "", name[256] = "";
	struct run_result r;
	struct stat st;

	if (!build_run(&r))
		return;
	snprintf(path, sizeof(path), "%s/result.json", tmp_dir);
	if (mkdir(path, 0700))
		test_bail("mkdir %s: %s", path, strerror(errno));
	CHECK(result_write(&r, path, err, sizeof(err)) != 0);
	CHECK_STR_CONTAINS(err, path);
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_EQ_INT(count_entries(tmp_dir, name, sizeof(name)), 1);
	CHECK_STR_EQ(name, "result.json");
	rmdir(path);
	run_result_free(&r);
}

/* Writing into dir, which exists and which the caller cannot write to,
 * fails with EACCES. */
static void write_unwritable_dir(const char *dir)
{
	char path[PATH_MAX + 128], err[PATH_MAX + 256] = "";
	struct run_result r;

	if (!build_run(&r))
		return;
	snprintf(path, sizeof(path), "%s/result.json", dir);
	CHECK(result_write(&r, path, err, sizeof(err)) != 0);
	CHECK_STR_CONTAINS(err, path);
	CHECK_STR_CONTAINS(err, strerror(EACCES));
	run_result_free(&r);
}

/* A directory the user cannot write to. Root writes anywhere, so as root
 * the write is made by a child that has become uid 65534, in a directory
 * of root's that it can reach but not write. */
static void test_write_unwritable_dir(void)
{
	char dir[PATH_MAX + 64], name[256] = "";
	int status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/read-only", tmp_dir);
	if (geteuid() != 0) {
		if (mkdir(dir, 0500))
			test_bail("mkdir %s: %s", dir, strerror(errno));
		write_unwritable_dir(dir);
		/* Nothing half-written is left. */
		CHECK_EQ_INT(count_entries(dir, name, sizeof(name)), 0);
		rmdir(dir);
		return;
	}
	if (mkdir(dir, 0555) || chmod(tmp_dir, 0711))
		test_bail("mkdir %s: %s", dir, strerror(errno));
	pid = fork();
	if (pid < 0)
		test_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			fprintf(stderr, "cannot become uid 65534: %s\n",
				strerror(errno));
			_exit(2);
		}
		/* Only this case's checks decide the child's status. */
		test_check_failures = 0;
		write_unwritable_dir(dir);
		_exit(test_check_failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		test_bail("waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_INT(count_entries(dir, name, sizeof(name)), 0);
	chmod(tmp_dir, 0700);
	rmdir(dir);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmp_dir, sizeof(tmp_dir), "%s/aimsweep-unit-json.XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(tmp_dir))
		test_bail("cannot create a temporary directory %s: %s",
			  tmp_dir, strerror(errno));

	RUN_TEST(test_document);
	RUN_TEST(test_interrupted);
	RUN_TEST(test_summary_peak);
	RUN_TEST(test_summary_no_peak);
	RUN_TEST(test_lock_profile);
	RUN_TEST(test_capture_keys);
	RUN_TEST(test_capture_key_clash);
	RUN_TEST(test_write);
	RUN_TEST(test_write_missing_dir);
	RUN_TEST(test_write_rename_fails);
	RUN_TEST(test_write_unwritable_dir);

	cJSON_Delete(run_params_doc);
	if (rmdir(tmp_dir))
		test_note("cannot remove %s: %s", tmp_dir, strerror(errno));
	return test_done();
}
