/* driver/run/sweep.c: runs the levels of one `aimsweep run`, one after another. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver/measure/arena.h"
#include "driver/capture/capture.h"
#include "driver/measure/collector.h"
#include "driver/output/plot.h"
#include "driver/output/report.h"
#include "driver/output/result_write.h"
#include "driver/output/report_text.h"
#include "driver/base/scratch.h"
#include "driver/measure/stats.h"
#include "driver/measure/sysview.h"
#include "driver/run/sweep.h"
#include "driver/base/process.h"
#include "driver/users/pool.h"
#include "driver/users/user_level.h"
#include "driver/base/util.h"

struct sweep {
	const struct run_params *params;
	const struct mix *mix;
	struct arena arena;
	struct snapshot t0, t1;
	struct scratch scratch[MAX_SCRATCH_DIRS];
	size_t n_scratch;		/* created so far */
	struct user_pool pool;
	const char *run_dirs[MAX_SCRATCH_DIRS];
	const char *shared_dirs[MAX_SCRATCH_DIRS];
	char shared_paths[MAX_SCRATCH_DIRS][PATH_MAX];
	struct run_result result;
	struct capture_run *captures;	/* NULL: none asked for */
	char result_dir[PATH_MAX];
	char json_path[PATH_MAX];
};

static void on_signal(int signo)
{
	if (!run_interrupted)
		run_interrupted = signo;
}

static void install_signal_handlers(void)
{
	struct sigaction sa;
	sigset_t none;

	/*
	 * What a parent left ignored or blocked survives exec: with SIGCHLD
	 * ignored, users that die are reaped by the kernel unseen, and the
	 * driver would wait out its timeouts, then signal pids no longer
	 * its own; with SIGINT blocked, Ctrl-C would never reach it.
	 */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must cut the driver's sleeps short. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/* A closed stdout must not kill the driver before it cleans up. */
	signal(SIGPIPE, SIG_IGN);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * What timing an op costs: two clock reads, the typical (median) pair of
 * many back-to-back reads. Not the cheapest: under a hypervisor the
 * typical pair can cost twice the cheapest, and a sampling period chosen
 * from the cheapest would then spend twice its budget.
 */
static uint64_t timer_cost_ns(void)
{
	uint64_t d[255];

	for (size_t i = 0; i < 255; i++) {
		uint64_t a = now_ns(), b = now_ns();

		d[i] = b - a;
	}
	qsort(d, 255, sizeof(d[0]), cmp_u64);
	return d[127] ? 2 * d[127] : 1;
}

/*
 * The driver takes real-time priority where it may (root, CAP_SYS_NICE):
 * it sleeps nearly all the time, but when a snapshot or a sample is due
 * it must run then, not after a thousand busy users have had their turn
 * (reading /proc/stat took seconds at 1000 users without it). Users and
 * every other child start as ordinary tasks (SCHED_RESET_ON_FORK).
 */
static void driver_priority(struct run_record *rec)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0)
		rec->driver_sched = "SCHED_FIFO 1";
	else
		rec->driver_sched = "normal (no permission for SCHED_FIFO)";
}

static unsigned int max_level(const struct run_params *p)
{
	unsigned int max = 0;

	for (size_t i = 0; i < p->n_levels; i++)
		if (p->levels[i] > max)
			max = p->levels[i];
	return max;
}

/* mkdir -p: `-o results/kernel-a` must not need results/ made first.
 * Returns 0, or -1 with errno set. */
static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (!len) {
		errno = ENOENT;
		return -1;
	}
	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/* results/<date>-<workfile>, with -2, -3... if a run already took it. */
static int make_result_dir(struct sweep *s, char *err, size_t errlen)
{
	const char *out = s->params->output_dir;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (mkdir_parents(out)) {
		snprintf(err, errlen, "cannot create output directory %s: %s",
			 out, strerror(errno));
		return -1;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* RFC 3339: the offset needs its colon, which %z leaves out. */
	n = (int)strftime(s->result.started_at, sizeof(s->result.started_at) - 1,
			  "%Y-%m-%dT%H:%M:%S%z", &tm);
	if (n >= 5) {
		char *off = s->result.started_at + n - 2;

		memmove(off + 1, off, 3);
		*off = ':';
	}
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			n = snprintf(s->result_dir, sizeof(s->result_dir),
				     "%s/%s-%s", out, stamp, s->mix->name);
		else
			n = snprintf(s->result_dir, sizeof(s->result_dir),
				     "%s/%s-%s-%d", out, stamp, s->mix->name, i);
		if (n < 0 || (size_t)n >= sizeof(s->result_dir) - 16) {
			snprintf(err, errlen, "output directory %s: path too long",
				 out);
			return -1;
		}
		if (mkdir(s->result_dir, 0755) == 0)
			break;
		if (errno != EEXIST || i == 999) {
			snprintf(err, errlen, "cannot create %s: %s",
				 s->result_dir, strerror(errno));
			return -1;
		}
	}
	if (!path_join(s->json_path, sizeof(s->json_path), s->result_dir,
		       "result.json")) {
		snprintf(err, errlen, "output directory %s: path too long", out);
		return -1;
	}
	return 0;
}

static int write_result(struct sweep *s)
{
	char err[PATH_MAX + 128];

	if (result_write(&s->result, s->json_path, err, sizeof(err))) {
		msg_error("%s", err);
		return -1;
	}
	return 0;
}

/*
 * The window, from t0 to t1 = t0 + runtime: every --interval the parent
 * adds up the counters and notes the elapsed time it really measured, and
 * samples the run queue, and looks at the users; the last sample is the
 * t1 snapshot. Returns false when a signal cut it short or a user failed.
 */
static bool sample_window(struct sweep *s, struct level_run *lr,
			  unsigned int users, struct level_result *level,
			  const char *tag)
{
	const struct run_params *p = s->params;
	uint64_t t0 = s->t0.t_ns, t1 = t0 + (uint64_t)(p->runtime_s * NSEC_PER_SEC);
	uint64_t step = (uint64_t)(p->interval_s * NSEC_PER_SEC);
	uint64_t prev_t = t0;
	double prev_ops = 0;	/* jobs since t0 */
	size_t cap = (size_t)(p->runtime_s / p->interval_s) + 2;
	double rq_sum = 0, *jpm;
	struct sysview v;
	size_t rq_n = 0;
	struct summary sum;

	level->intervals = calloc(cap, sizeof(*level->intervals));
	level->run_queue_min = 1e300;
	for (uint64_t next = t0 + step; ; next += step) {
		uint64_t t;
		double ops;

		if (next > t1)
			next = t1;
		if (!sleep_until_ns(next, &run_interrupted))
			return false;
		/* Each sample is a snapshot, the last one at t1 itself, so
		 * that the intervals add up to the window's jobs; only the
		 * last one stays in t1. */
		snapshot_take(&s->t1, &s->arena, users);
		ops = snapshot_jobs(&s->t0, &s->t1, s->mix, users);
		t = s->t1.t_ns;
		sysview_read(&v);
		if (v.valid) {
			rq_sum += v.procs_running;
			rq_n++;
			if (v.procs_running < level->run_queue_min)
				level->run_queue_min = v.procs_running;
			if (v.procs_running > level->run_queue_max)
				level->run_queue_max = v.procs_running;
		}
		if (level->intervals && level->n_intervals < cap && t > prev_t) {
			struct interval_sample *is =
				&level->intervals[level->n_intervals++];

			is->start_s = (double)(prev_t - t0) / NSEC_PER_SEC;
			is->elapsed_s = (double)(t - prev_t) / NSEC_PER_SEC;
			is->jobs_per_min = (ops - prev_ops) * 60.0 /
					   is->elapsed_s;
		}
		prev_t = t;
		prev_ops = ops;
		if (next >= t1)
			break;
		/* A driver that overslept a tick takes one longer interval,
		 * not a burst of samples microseconds apart, in which users
		 * that store their counts once per sampling period would
		 * read as stopped or racing: the next sample is at least half
		 * a step away. */
		while (next + step < t + step / 2 && next + step < t1)
			next += step;
		/* A user that failed ends the level at the next sample, not
		 * after the whole window (up to an hour). */
		if (users_check(&s->pool, lr))
			return false;
		/* Not after t1: the terminal write could block, and the
		 * window's CPU and latency are still being counted. */
		if (t > t0)
			progress_show("%s: %.1f of %g s, %.1f jobs/min so far", tag,
				      (double)(t - t0) / NSEC_PER_SEC,
				      p->runtime_s,
				      ops * 60.0 * NSEC_PER_SEC /
					      (double)(t - t0));
	}
	level->run_queue_mean = rq_n ? rq_sum / (double)rq_n : 0;
	if (!rq_n)
		level->run_queue_min = 0;
	jpm = calloc(level->n_intervals + 1, sizeof(*jpm));
	if (jpm) {
		for (size_t i = 0; i < level->n_intervals; i++)
			jpm[i] = level->intervals[i].jobs_per_min;
		if (!stats_summarize(jpm, level->n_intervals, &sum)) {
			level->interval_stddev = sum.stddev;
			level->interval_cov = stats_cov(&sum);
		}
		free(jpm);
	}
	return true;
}

static double cpu_s(const struct rusage *r)
{
	return (double)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) +
	       (double)(r->ru_utime.tv_usec + r->ru_stime.tv_usec) / 1e6;
}

/* When the last user was through the gate and set up, t_gate at the
 * earliest; users that never came through (a failed level) are left out. */
static uint64_t last_through_ns(const struct arena *a, unsigned int users,
				uint64_t t_gate)
{
	uint64_t last = t_gate;

	for (unsigned int u = 0; u < users; u++) {
		uint64_t t = __atomic_load_n(&arena_slot(a, u)->gate_passed_ns,
					     __ATOMIC_RELAXED);

		if (t > last)
			last = t;
	}
	return last;
}

/* The warm-up until `deadline`, looking at the users every 100 ms: one
 * whose set-up failed ends the level then, not after the whole warm-up
 * (up to an hour). false on a failure or a signal. */
static bool warm_up(struct sweep *s, struct level_run *lr, uint64_t deadline)
{
	const uint64_t step = NSEC_PER_SEC / 10;

	for (uint64_t t = now_ns(); t < deadline; t = now_ns()) {
		if (!sleep_until_ns(deadline - t > step ? t + step : deadline,
				    &run_interrupted) ||
		    users_check(&s->pool, lr))
			return false;
	}
	return true;
}

/* --layout shared: the directory every user of the level works in. A
 * level that cannot have it fails, and so would every higher one. */
static int make_shared_dirs(struct sweep *s, struct level_result *level)
{
	for (size_t i = 0; s->pool.ctx.shared_dirs && i < s->n_scratch; i++) {
		if (mkdir(s->shared_dirs[i], 0700) && errno != EEXIST) {
			level->status = LEVEL_FAILED;
			snprintf(level->reason, sizeof(level->reason),
				 "cannot create %s: %s", s->shared_dirs[i],
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* "8 users", with -r ", repeat 2 of 3": the level in progress lines. */
static void level_tag(char *tag, size_t len, const struct run_params *p,
		      unsigned int users, unsigned int repeat)
{
	snprintf(tag, len, "%u user%s", users, users == 1 ? "" : "s");
	if (p->repeat > 1)
		snprintf(tag + strlen(tag), len - strlen(tag),
			 ", repeat %u of %u", repeat + 1, p->repeat);
}

/* The level's own directory, for the lock profile and the hook: level-8,
 * its second 8 (--levels 8,8) level-8.2, and with -r each repeat its own,
 * level-8-r1... */
static void level_dir_name(const struct sweep *s, unsigned int users,
			   size_t index, unsigned int repeat, char *dir,
			   size_t len)
{
	const struct run_params *p = s->params;
	unsigned int occurrence = 1;
	int n;

	for (size_t j = 0; j < index; j++)
		occurrence += p->levels[j] == users;
	n = snprintf(dir, len, "%s/level-%u", s->result_dir, users);
	if (occurrence > 1)
		n += snprintf(dir + n, len - (size_t)n, ".%u", occurrence);
	if (p->repeat > 1)
		snprintf(dir + n, len - (size_t)n, "-r%u", repeat + 1);
}

/*
 * From the gate's opening to t0. The window starts with every user set up
 * and in its loop, and each of them in it for at least half the warm-up:
 * at thousands of users, or with jobs that write files to set up, coming
 * through the gate (release_s) can take longer than the warm-up itself.
 * false on a failure or a signal.
 */
static bool settle(struct sweep *s, struct level_run *lr, unsigned int users,
		   uint64_t t_gate)
{
	uint64_t warmup = (uint64_t)(s->params->warmup_s * NSEC_PER_SEC);

	return warm_up(s, lr, t_gate + warmup) &&
	       !users_wait_through(&s->pool, lr) &&
	       warm_up(s, lr, last_through_ns(&s->arena, users, t_gate) +
				      warmup / 2);
}

/* The machine and the driver itself at t0. */
struct window_start {
	struct sysview sys;
	struct rusage self;
};

/* t0: the machine's and the driver's counters, then the users'. */
static void window_open(struct sweep *s, const struct level_run *lr,
			unsigned int users, struct window_start *w)
{
	sysview_read(&w->sys);
	getrusage(RUSAGE_SELF, &w->self);
	/* Latency is recorded for ops that end between t0 and t1, as
	 * closely as the flag can follow the two snapshots. */
	__atomic_store_n(&s->arena.hdr->measuring, lr->gen, __ATOMIC_RELEASE);
	snapshot_take(&s->t0, &s->arena, users);
}

/* After the window (sample_window()'s `ok`): latency stops, and a whole
 * window gets the machine's CPU and the driver's own cost. Returns ok. */
static bool window_close(struct sweep *s, struct level_result *level,
			 const struct window_start *w, bool ok)
{
	struct sysview sys1;
	struct rusage self1;

	__atomic_store_n(&s->arena.hdr->measuring, 0, __ATOMIC_RELEASE);
	if (!ok)
		return false;
	getrusage(RUSAGE_SELF, &self1);
	sysview_read(&sys1);
	level->has_cpu = sysview_delta(&w->sys, &sys1, &level->cpu);
	level->driver_cpu_pct = 100.0 * (cpu_s(&self1) - cpu_s(&w->self)) /
				((double)(s->t1.t_ns - s->t0.t_ns) /
				 NSEC_PER_SEC);
	level->driver_max_rss_kb = self1.ru_maxrss;
	return true;
}

/* With the users parked: the level failed (why, and how many users), or
 * its window's counters become its numbers. */
static void level_outcome(struct sweep *s, const struct level_run *lr,
			  unsigned int users, struct level_result *level,
			  bool measured, uint64_t t_gate, uint64_t t_stop)
{
	level->rusage = lr->rusage;
	if (measured) {
		level->release_s = (double)(last_through_ns(&s->arena, users,
							     t_gate) -
					    t_gate) / NSEC_PER_SEC;
		level->stop_s = (double)(now_ns() - t_stop) / NSEC_PER_SEC;
	}
	if (lr->failed) {
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "%s", lr->reason);
		if (lr->failures > 1) {
			size_t n = strlen(level->reason);

			snprintf(level->reason + n, sizeof(level->reason) - n,
				 " (and %u more user%s failed)",
				 lr->failures - 1, lr->failures == 2 ? "" : "s");
		}
	} else if (measured) {
		if (collector_level(&s->t0, &s->t1, &s->arena, s->mix, users,
				    level)) {
			level->status = LEVEL_FAILED;
			snprintf(level->reason, sizeof(level->reason),
				 "out of memory while collecting results");
		}
	}
}

/*
 * One level: call the users to it (forking those the pool lacks), wait
 * for all of them at the gate, open it, let the warm-up pass while they
 * set up and start their loops, snapshot at t0 and t1, stop, wait for
 * them to park. The window is timed by the parent alone, so users' start
 * and stop skew is not in it. Returns false when higher levels cannot
 * work either.
 */
static bool run_level(struct sweep *s, unsigned int users, size_t index,
		      unsigned int repeat, struct level_result *level)
{
	const struct run_params *p = s->params;
	struct level_capture cap = { 0 };
	char level_dir[PATH_MAX + 32], err[REASON_LEN], tag[64];
	struct level_run lr = { 0 };
	struct window_start w;
	uint64_t t_start, t_gate = 0, t_stop;
	bool measured = false;

	memset(level, 0, sizeof(*level));
	level->users = users;
	if (make_shared_dirs(s, level))
		return false;
	level_tag(tag, sizeof(tag), p, users, repeat);
	progress_show("%s: starting", tag);
	t_start = now_ns();
	if (users_level_begin(&s->pool, &lr, users) ||
	    users_wait_ready(&s->pool, &lr))
		goto stop;
	level->start_s = (double)(now_ns() - t_start) / NSEC_PER_SEC;
	level_dir_name(s, users, index, repeat, level_dir, sizeof(level_dir));
	if (capture_prepare(&cap, s->captures, users, index, level_dir, err,
			    sizeof(err))) {
		lr.failed = true;
		snprintf(lr.reason, sizeof(lr.reason), "%s", err);
		goto stop;
	}

	t_gate = now_ns();
	users_release(&s->pool, &lr);
	progress_show("%s: warm-up", tag);
	if (!settle(s, &lr, users, t_gate))
		goto stop;
	window_open(s, &lr, users, &w);
	capture_start(&cap, s->t0.t_ns);
	measured = window_close(s, level, &w,
				sample_window(s, &lr, users, level, tag));
	/* After the machine's and the driver's counters at t1 are read, so
	 * that what a capture does to end is outside the window. */
	if (measured)
		capture_stop(&cap, s->t1.t_ns);
stop:
	t_stop = now_ns();
	progress_show("%s: stopping", tag);
	users_stop(&s->pool, &lr);
	users_level_end(&s->pool, &lr, p->grace_s);
	level_outcome(s, &lr, users, level, measured, t_gate, t_stop);
	if (run_interrupted)
		capture_abort(&cap);
	else
		capture_finish(&cap, level);
	/* Parked users have removed their files (and keep their own
	 * directories for the next level); only a level in which users died
	 * can have left something. */
	for (size_t i = 0; level->status != LEVEL_OK && i < s->n_scratch; i++)
		if (scratch_clear(&s->scratch[i]))
			msg_warn("could not empty %s after the level",
				 s->scratch[i].dir);
	return !lr.end_ramp;
}

static int cmp_level_jpm(const void *a, const void *b)
{
	const struct level_result *x = a, *y = b;

	return (x->jobs_per_min > y->jobs_per_min) -
	       (x->jobs_per_min < y->jobs_per_min);
}

/*
 * Each repeat's ops/s of each job, [k * n_jobs + j], for compare's noise
 * per job. NULL when the repeats' jobs differ (they never should) or
 * memory is short: the level then has no per-job spread.
 */
static double *repeat_job_ops(const struct level_result *runs, unsigned int n)
{
	size_t jobs = runs[0].n_jobs;
	double *v;

	if (!jobs)
		return NULL;
	for (unsigned int k = 1; k < n; k++)
		if (runs[k].n_jobs != jobs)
			return NULL;
	v = calloc((size_t)n * jobs, sizeof(*v));
	for (unsigned int k = 0; v && k < n; k++)
		for (size_t j = 0; j < jobs; j++) {
			if (strcmp(runs[k].jobs[j].name, runs[0].jobs[j].name)) {
				free(v);
				return NULL;
			}
			if (runs[k].window_s > 0)
				v[k * jobs + j] = (double)runs[k].jobs[j].ops /
						  runs[k].window_s;
		}
	return v;
}

/*
 * A level run -r times in a row (--repeat-order consecutive). Its
 * numbers are those of the median repeat, a
 * real measurement rather than an average of several; every repeat's
 * jobs/min is kept for the spread. Any failed repeat fails the level.
 */
static bool run_repeats(struct sweep *s, unsigned int users, size_t index,
			struct level_result *level)
{
	unsigned int n = s->params->repeat;
	struct level_result *runs = calloc(n, sizeof(*runs));
	double *jpm = calloc(n, sizeof(*jpm));
	bool go_on = true;
	unsigned int done = 0;

	if (!runs || !jpm) {
		free(runs);
		free(jpm);
		memset(level, 0, sizeof(*level));
		level->users = users;
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "out of memory");
		return false;
	}
	for (; done < n; done++) {
		go_on = run_level(s, users, index, done, &runs[done]);
		if (runs[done].status != LEVEL_OK || run_interrupted) {
			done++;
			break;
		}
		jpm[done] = runs[done].jobs_per_min;
	}
	if (runs[done - 1].status != LEVEL_OK || run_interrupted) {
		/* The failed (or cut) repeat stands for the level. */
		*level = runs[done - 1];
		memset(&runs[done - 1], 0, sizeof(runs[0]));
		free(jpm);
	} else {
		double *jops = repeat_job_ops(runs, n);

		qsort(runs, n, sizeof(*runs), cmp_level_jpm);
		*level = runs[n / 2];
		memset(&runs[n / 2], 0, sizeof(runs[0]));
		level->repeat_jpm = jpm;
		level->n_repeats = n;
		level->repeat_job_ops = jops;
	}
	for (unsigned int i = 0; i < done; i++)
		level_result_free(&runs[i]);
	free(runs);
	return go_on;
}

/* -r N runs the ramp N times over. */
static bool interleaved(const struct run_params *p)
{
	return p->interleave && p->repeat > 1;
}

/* The default format is the table, printed as levels end; the others are
 * printed whole at the end, from result.json's contents. */
static bool live_table(const struct run_params *p)
{
	return !p->format || !strcmp(p->format, "default");
}

/* The run as result.json holds it, read back (json_read_back()); NULL
 * after a message when memory is short. */
static cJSON *saved_result(struct sweep *s)
{
	cJSON *doc = json_read_back(result_to_json(&s->result));

	if (!doc)
		msg_error("out of memory");
	return doc;
}

/* Prints the run in its -f format from its numbers as result.json holds
 * them, so that `report -f` of that file prints the same to the last
 * digit. */
static void print_format(struct sweep *s)
{
	cJSON *doc = saved_result(s);
	enum report_format fmt;

	if (doc && report_format_parse(s->params->format, &fmt)) {
		report_print(stdout, doc, fmt, s->json_path);
		fflush(stdout);
	} else if (doc) {
		msg_error("out of memory");
	}
	cJSON_Delete(doc);
}

/* plot.svg and plot.png beside result.json, when gnuplot is here, drawn
 * from the run's numbers as result.json holds them. */
static void draw_plots(struct sweep *s)
{
	static const char *const names[] = { "plot.svg", "plot.png" };
	struct plot_result res = { 0 };
	char out[PATH_MAX], *label = NULL;
	cJSON *doc;

	if (!process_in_path("gnuplot")) {
		msg_info("gnuplot is not installed, so no plot was drawn (apt-get install gnuplot-nox; then aimsweep plot %s)",
			 s->json_path);
		return;
	}
	doc = saved_result(s);
	if (doc)
		label = plot_label(doc, NULL, s->json_path);
	if (doc && !label)
		msg_error("plot: out of memory");
	res.root = doc;
	res.label = label;
	for (size_t i = 0; label && i < 2; i++) {
		if (!path_join(out, sizeof(out), s->result_dir, names[i]))
			break;
		/* Its messages are its own; a plot that fails does not fail
		 * the run, whose results are on disk already. */
		plot_draw(&res, 1, out);
	}
	free(label);
	cJSON_Delete(doc);
}

/*
 * -r N with the interleaved order (the default): the ramp run N times
 * over, so that each level's repeats are spread over the whole run
 * instead of coming one after another.
 *
 * runs[i * N + k] is level i's k-th repeat. result.levels[i] shows the
 * level as its repeats so far make it, the way run_repeats() does (the
 * median ok repeat, or the failed one), and shares that repeat's arrays
 * until the end; result.json is written after every repeat.
 */
struct rounds {
	struct level_result *runs;
	unsigned int *done;	/* repeats kept, a failed one included */
	unsigned int *shown;	/* the repeat result.levels[i] shares */
	bool *final;		/* in the table already */
};

/* The repeat at position n/2 when sorted by jobs/min: run_repeats()'s
 * choice. */
static unsigned int median_repeat(const double *jpm, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		unsigned int below = 0;

		for (unsigned int j = 0; j < n; j++)
			below += jpm[j] < jpm[k] || (j < k && jpm[j] == jpm[k]);
		if (below == n / 2)
			return k;
	}
	return 0;
}

/* Points result.levels[i] (appended when `add`) at level i's repeats so
 * far. */
static int rounds_show(struct sweep *s, struct rounds *rd, size_t i, bool add)
{
	unsigned int n = s->params->repeat, done = rd->done[i];
	const struct level_result *runs = &rd->runs[i * n];
	struct level_result view;
	double *jpm = NULL;

	if (runs[done - 1].status != LEVEL_OK) {
		rd->shown[i] = done - 1;
		view = runs[done - 1];
	} else {
		jpm = malloc(done * sizeof(*jpm));
		if (!jpm)
			return ENOMEM;
		for (unsigned int k = 0; k < done; k++)
			jpm[k] = runs[k].jobs_per_min;
		rd->shown[i] = median_repeat(jpm, done);
		view = runs[rd->shown[i]];
	}
	view.repeat_jpm = jpm;
	view.n_repeats = jpm ? done : 0;
	view.repeat_job_ops = jpm ? repeat_job_ops(runs, done) : NULL;
	if (add) {
		if (result_add_level(&s->result, &view)) {
			free(jpm);
			free(view.repeat_job_ops);
			return ENOMEM;
		}
		return 0;
	}
	free(s->result.levels[i].repeat_jpm);
	free(s->result.levels[i].repeat_job_ops);
	s->result.levels[i] = view;
	return 0;
}

/* Level i failed: its repeats stop there. */
static bool rounds_failed(const struct rounds *rd, size_t i, unsigned int n)
{
	return rd->done[i] && rd->runs[i * n + rd->done[i] - 1].status !=
				      LEVEL_OK;
}

/* Hands each shown repeat's arrays over to result.levels and frees the
 * other repeats. */
static void rounds_free(struct sweep *s, struct rounds *rd)
{
	unsigned int n = s->params->repeat;

	for (size_t i = 0; rd->runs && rd->done && rd->shown &&
			   i < s->params->n_levels; i++) {
		for (unsigned int k = 0; k < rd->done[i]; k++) {
			struct level_result *run = &rd->runs[i * n + k];

			if (i < s->result.n_levels && k == rd->shown[i]) {
				run->jobs = NULL;
				run->intervals = NULL;
				run->locks = NULL;
				run->cpu_prof.symbols = NULL;
			}
			level_result_free(run);
		}
	}
	free(rd->runs);
	free(rd->done);
	free(rd->shown);
	free(rd->final);
}

/* Runs the rounds; returns the run's exit status so far. */
static int run_interleaved(struct sweep *s)
{
	const struct run_params *p = s->params;
	unsigned int n = p->repeat;
	struct rounds rd = { 0 };
	size_t ramp = p->n_levels;	/* the levels each round runs */
	int status = EXIT_OK;
	bool stop = false;

	rd.runs = calloc(p->n_levels * n, sizeof(*rd.runs));
	rd.done = calloc(p->n_levels, sizeof(*rd.done));
	rd.shown = calloc(p->n_levels, sizeof(*rd.shown));
	rd.final = calloc(p->n_levels, sizeof(*rd.final));
	if (!rd.runs || !rd.done || !rd.shown || !rd.final) {
		msg_error("out of memory");
		rounds_free(s, &rd);
		return EXIT_RUN_FAILED;
	}
	for (unsigned int k = 0; k < n && !stop && !run_interrupted; k++) {
		msg_info("round %u of %u", k + 1, n);
		for (size_t i = 0; i < ramp && !run_interrupted; i++) {
			struct level_result *run = &rd.runs[i * n + k];
			bool go_on;

			/* A level that failed is not run again; its row
			 * comes in its turn in the last round. */
			if (rounds_failed(&rd, i, n)) {
				if (k == n - 1 && live_table(p)) {
					progress_clear();
					report_text_level(stdout, &s->result,
							  i);
					rd.final[i] = true;
				}
				continue;
			}
			go_on = run_level(s, p->levels[i], i, k, run);
			if (run_interrupted) {
				/* The repeat did not finish: not a result. */
				level_result_free(run);
				break;
			}
			rd.done[i]++;
			if (rounds_show(s, &rd, i, k == 0)) {
				msg_error("out of memory");
				status = EXIT_RUN_FAILED;
				stop = true;
				break;
			}
			/* A new median repeat of the first level changes
			 * every level's efficiency. (--stop-at-crossover
			 * makes the order consecutive: see cli.c.) */
			for (size_t j = 0; j < s->result.n_levels; j++)
				result_scale_level(&s->result, j,
						   p->crossover);
			if (run->status != LEVEL_OK)
				status = EXIT_RUN_FAILED;
			if (k == n - 1 && live_table(p)) {
				progress_clear();
				report_text_level(stdout, &s->result, i);
				rd.final[i] = true;
			}
			if (write_result(s)) {
				status = EXIT_RUN_FAILED;
				stop = true;
				break;
			}
			/* Higher levels would fail the same way; the lower
			 * ones go on with their rounds. */
			if (!go_on) {
				msg_error("stopping the ramp at %u users: higher levels would fail the same way",
					  p->levels[i]);
				ramp = i + 1;
			}
		}
		/* Levels the first round never reached are not in the ramp. */
		if (!k && ramp > s->result.n_levels)
			ramp = s->result.n_levels;
	}
	/* Levels the run left short of their repeats are shown as they
	 * are. */
	progress_clear();
	for (size_t i = 0; live_table(p) && i < s->result.n_levels; i++)
		if (!rd.final[i])
			report_text_level(stdout, &s->result, i);
	rounds_free(s, &rd);
	return status;
}

static void sweep_cleanup(struct sweep *s)
{
	users_pool_shutdown(&s->pool, s->params->grace_s);
	for (size_t i = 0; i < s->n_scratch; i++)
		if (scratch_remove(&s->scratch[i]))
			msg_error("could not remove scratch directory %s",
				  s->scratch[i].dir);
	snapshot_free(&s->t0);
	snapshot_free(&s->t1);
	capture_run_free(s->captures);
	arena_destroy(&s->arena);
	run_result_free(&s->result);
}

/* Counters for the largest level, perf's check, the scratch directories
 * and the users' pool: what every level needs. Returns the exit status,
 * EXIT_OK when the levels can run. */
static int sweep_setup(struct sweep *s)
{
	const struct run_params *p = s->params;
	unsigned int max_users = max_level(p);
	char err[PATH_MAX + 256];
	int rc;

	/* perf must be able to record before anything is created. */
	if (capture_wanted(p) &&
	    capture_check(p, &s->captures, err, sizeof(err))) {
		if (run_interrupted)
			return EXIT_INTERRUPTED + run_interrupted;
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < p->n_scratch; i++) {
		scratch_remove_stale(p->scratch_bases[i]);
		if (scratch_create(&s->scratch[i], p->scratch_bases[i], err,
				   sizeof(err))) {
			msg_error("%s", err);
			return EXIT_USAGE;
		}
		s->n_scratch++;
		s->run_dirs[i] = s->scratch[i].dir;
		path_join(s->shared_paths[i], sizeof(s->shared_paths[i]),
			  s->scratch[i].dir, "shared");
		s->shared_dirs[i] = s->shared_paths[i];
	}
	/* After the scratch directories: the arena's file is one more
	 * descriptor, held until the spawner has it. */
	rc = arena_create(&s->arena, max_users, s->mix->n_entries,
			  users_loop_bytes(s->mix), p->latency);
	if (rc)
		goto no_counters;
	/* The spawner is a fork of the driver until its exec: before the
	 * driver's arrays for N users, that copy is a small one. */
	rc = users_pool_start(&s->pool, &(struct pool_run){
		.arena = &s->arena, .mix = s->mix, .params = p,
		.record = &s->result.record, .run_dirs = s->run_dirs,
		.shared_dirs = s->shared_dirs, .n_dirs = s->n_scratch,
	}, err, sizeof(err));
	if (rc) {
		msg_error("%s", err);
		/* Too few descriptors is a limit of the run's, like one the
		 * driver itself meets in setting up. */
		return rc == EMFILE || rc == ENFILE ? EXIT_USAGE
						    : EXIT_RUN_FAILED;
	}
	rc = snapshot_alloc(&s->t0, max_users, s->mix->n_entries);
	if (!rc)
		rc = snapshot_alloc(&s->t1, max_users, s->mix->n_entries);
	if (rc)
		goto no_counters;
	/* Writing the empty result now proves the output directory works
	 * before any level runs. */
	if (make_result_dir(s, err, sizeof(err))) {
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	return write_result(s) ? EXIT_USAGE : EXIT_OK;
no_counters:
	msg_error("cannot allocate counters for %u users: %s", max_users,
		  strerror(rc));
	return EXIT_RUN_FAILED;
}

/* The levels one after another, each -r times in a row; returns the
 * run's exit status so far. */
static int run_consecutive(struct sweep *s)
{
	const struct run_params *p = s->params;
	int status = EXIT_OK;

	for (size_t i = 0; i < p->n_levels && !run_interrupted; i++) {
		struct level_result level;
		bool go_on, crossed;

		go_on = run_repeats(s, p->levels[i], i, &level);
		if (run_interrupted) {
			/* The level did not finish: it is not a result. */
			level_result_free(&level);
			break;
		}
		if (result_add_level(&s->result, &level)) {
			level_result_free(&level);
			msg_error("out of memory");
			return EXIT_RUN_FAILED;
		}
		crossed = result_scale_level(&s->result,
					     s->result.n_levels - 1,
					     p->crossover);
		progress_clear();
		if (live_table(p))
			report_text_level(stdout, &s->result,
					  s->result.n_levels - 1);
		if (level.status != LEVEL_OK)
			status = EXIT_RUN_FAILED;
		if (write_result(s))
			return EXIT_RUN_FAILED;
		if (!go_on) {
			msg_error("stopping the ramp: higher levels would fail the same way");
			break;
		}
		if (crossed) {
			msg_info("stopping the ramp at the crossover: %.1f jobs/min/user is below %g",
				 level.jobs_per_min_per_user, p->crossover);
			break;
		}
	}
	return status;
}

/* After the last level: result.json with the run's status, the summary
 * (or the whole -f output), the plots, and what an interruption kept.
 * Returns the run's exit status. */
static int sweep_finish(struct sweep *s, int status)
{
	const struct run_params *p = s->params;

	if (run_interrupted) {
		s->result.status = RUN_INTERRUPTED;
		s->result.interrupted_by = run_interrupted;
		status = EXIT_INTERRUPTED + run_interrupted;
	} else {
		s->result.status = status == EXIT_OK ? RUN_COMPLETE : RUN_FAILED;
	}
	if (write_result(s) && status == EXIT_OK)
		status = EXIT_RUN_FAILED;
	progress_clear();
	if (live_table(p))
		report_text_summary(stdout, &s->result);
	else
		print_format(s);
	/* An interrupted run ends now: whoever stopped it is waiting. */
	if (!p->no_plot && result_peak_level(&s->result) >= 0 &&
	    !run_interrupted)
		draw_plots(s);
	if (run_interrupted)
		msg_error(interleaved(p) ?
			  "interrupted by SIG%s: kept %zu levels, each with the repeats it finished, in %s" :
			  "interrupted by SIG%s: kept %zu finished levels in %s",
			  sigabbrev_np(run_interrupted), s->result.n_levels,
			  s->json_path);
	return status;
}

int sweep_run(const struct run_params *p, const struct mix *mix,
	      const struct cJSON *params_json)
{
	/* On the heap, not the stack: its scratch paths are over 200 KiB,
	 * more than a stack frame should hold. */
	struct sweep *s = calloc(1, sizeof(*s));
	int status;

	if (!s) {
		msg_error("out of memory");
		return EXIT_RUN_FAILED;
	}
	s->params = p;
	s->mix = mix;
	s->result.params = p;
	s->result.params_json = params_json;
	s->result.mix = mix;
	s->result.status = RUN_RUNNING;
	host_probe(&s->result.host);

	install_signal_handlers();
	s->result.record.timer_ns = timer_cost_ns();
	driver_priority(&s->result.record);
	status = sweep_setup(s);
	if (status == EXIT_OK) {
		progress_init();
		if (live_table(p))
			report_text_header(stdout, &s->result, s->json_path);
		if (interleaved(p))
			status = run_interleaved(s);
		else
			status = run_consecutive(s);
		status = sweep_finish(s, status);
	}
	sweep_cleanup(s);
	free(s);
	return status;
}
