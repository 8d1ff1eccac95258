/* driver/output/result_write.c: result.json, written with libcjson. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/output/result_write.h"
#include "driver/measure/stats.h"
#include "driver/measure/verdicts.h"
#include "driver/base/util.h"

/* Every cJSON call can fail for want of memory, and every cJSON_Add*
 * accepts a NULL parent; the builder notes any failure once, and a tree
 * with a failure is thrown away rather than written. */
struct builder {
	int failed;
};

static cJSON *add_num(struct builder *b, cJSON *o, const char *k, double v)
{
	cJSON *n = cJSON_AddNumberToObject(o, k, v);

	if (!n)
		b->failed = 1;
	return n;
}

static cJSON *add_str(struct builder *b, cJSON *o, const char *k,
		      const char *v)
{
	cJSON *n = cJSON_AddStringToObject(o, k, v ? v : "");

	if (!n)
		b->failed = 1;
	return n;
}

static cJSON *add_obj(struct builder *b, cJSON *o, const char *k)
{
	cJSON *n = cJSON_AddObjectToObject(o, k);

	if (!n)
		b->failed = 1;
	return n;
}

static cJSON *add_arr(struct builder *b, cJSON *o, const char *k)
{
	cJSON *n = cJSON_AddArrayToObject(o, k);

	if (!n)
		b->failed = 1;
	return n;
}

/* One number of a group that add_nums() adds in order. */
struct key_num {
	const char *key;
	double v;
};

static void add_nums(struct builder *b, cJSON *o, const struct key_num *kv,
		     size_t n)
{
	for (size_t i = 0; i < n; i++)
		add_num(b, o, kv[i].key, kv[i].v);
}

/* ADD_NUMS(b, o, { "key", value }, ...): the numbers into o, in order. */
#define ADD_NUMS(b, o, ...)						\
	add_nums(b, o, (const struct key_num[]){ __VA_ARGS__ },		\
		 sizeof((const struct key_num[]){ __VA_ARGS__ }) /	\
		 sizeof(struct key_num))

static cJSON *push_obj(struct builder *b, cJSON *arr)
{
	cJSON *n = cJSON_CreateObject();

	if (!n || !cJSON_AddItemToArray(arr, n)) {
		cJSON_Delete(n);
		b->failed = 1;
		return NULL;
	}
	return n;
}

static void push_str(struct builder *b, cJSON *arr, const char *v)
{
	cJSON *n = cJSON_CreateString(v);

	if (!n || !cJSON_AddItemToArray(arr, n)) {
		cJSON_Delete(n);
		b->failed = 1;
	}
}

static void add_host(struct builder *b, cJSON *root, const struct host_info *h)
{
	cJSON *o = add_obj(b, root, "host");

	add_str(b, o, "hostname", h->hostname);
	add_str(b, o, "kernel_release", h->kernel_release);
	add_str(b, o, "kernel_version", h->kernel_version);
	add_str(b, o, "machine", h->machine);
	add_str(b, o, "cpu_model", h->cpu_model);
	ADD_NUMS(b, o, { "cpus_online", h->cpus_online },
		 { "memory_bytes", (double)h->memory_bytes },
		 { "kdamonds", h->kdamonds });
}

/* What the run measured of itself, which the schema keeps in params:
 * the driver's scheduling, and the timer's cost in latency_sampling
 * (there only when latency is sampled). */
static void add_record(struct builder *b, cJSON *params,
		       const struct run_record *rec)
{
	cJSON *ls = cJSON_GetObjectItemCaseSensitive(params,
						     "latency_sampling");

	if (rec->driver_sched)
		add_str(b, params, "driver_scheduling", rec->driver_sched);
	if (ls)
		add_num(b, ls, "timer_ns", (double)rec->timer_ns);
}

/* What the run was asked to do, as the option table recorded it when
 * the options were parsed, and what it measured as it started. */
static void add_params(struct builder *b, cJSON *root,
		       const struct run_result *r)
{
	cJSON *o = r->params_json ? cJSON_Duplicate(r->params_json, true)
				  : cJSON_CreateObject();

	if (!o || !cJSON_AddItemToObject(root, "params", o)) {
		cJSON_Delete(o);
		b->failed = 1;
		return;
	}
	add_record(b, o, &r->record);
}

static void add_mix(struct builder *b, cJSON *root, const struct mix *m)
{
	cJSON *o = add_obj(b, root, "mix"), *jobs;

	add_str(b, o, "name", m->name);
	add_num(b, o, "file_size_bytes", (double)m->file_size);
	add_num(b, o, "pool_size_bytes", (double)m->pool_size);
	add_num(b, o, "total_weight", (double)m->total_weight);
	jobs = add_arr(b, o, "jobs");
	for (size_t i = 0; i < m->n_entries; i++) {
		const struct job *j = m->entries[i].job;
		cJSON *e = push_obj(b, jobs), *sys;

		add_str(b, e, "name", j->name);
		add_num(b, e, "weight", m->entries[i].weight);
		add_str(b, e, "family", j->family);
		add_str(b, e, "units",
			j->units == JOB_UNITS_AIM7 ? "aim7" : "micro");
		add_str(b, e, "unit", j->unit);
		/* Jobs whose op size follows the level give it per level. */
		if (!j->inner_ops_for)
			add_num(b, e, "inner_ops", j->inner_ops);
		sys = add_arr(b, e, "syscalls_per_op");
		for (const struct job_syscall *s = j->syscalls; s && s->name;
		     s++) {
			cJSON *so = push_obj(b, sys);

			add_str(b, so, "name", s->name);
			add_num(b, so, "count", s->per_op);
			if (s->per_inner)
				add_num(b, so, "per_inner_op", s->per_inner);
		}
		if (j->setup)
			add_str(b, e, "setup_per_op", j->setup);
	}
}

static void add_intervals(struct builder *b, cJSON *o,
			  const struct level_result *l)
{
	cJSON *arr = add_arr(b, o, "intervals");

	for (size_t i = 0; i < l->n_intervals; i++) {
		cJSON *io = push_obj(b, arr);

		add_num(b, io, "start_s", l->intervals[i].start_s);
		add_num(b, io, "elapsed_s", l->intervals[i].elapsed_s);
		add_num(b, io, "jobs_per_min", l->intervals[i].jobs_per_min);
	}
	add_num(b, o, "interval_stddev", l->interval_stddev);
	add_num(b, o, "interval_cov", l->interval_cov);
}

static void add_system(struct builder *b, cJSON *o,
		       const struct level_result *l)
{
	cJSON *cpu, *rq;
	char key[32];

	if (l->has_cpu) {
		cpu = add_obj(b, o, "cpu");
		for (int i = 0; i < CPU_FIELDS; i++) {
			snprintf(key, sizeof(key), "%s_pct", cpu_field_names[i]);
			add_num(b, cpu, key, l->cpu.pct[i]);
		}
		add_num(b, cpu, "context_switches",
			(double)l->cpu.context_switches);
		add_num(b, cpu, "context_switches_per_sec",
			l->window_s > 0 ? (double)l->cpu.context_switches /
						  l->window_s : 0);
	}
	rq = add_obj(b, o, "run_queue");
	add_num(b, rq, "min", l->run_queue_min);
	add_num(b, rq, "mean", l->run_queue_mean);
	add_num(b, rq, "max", l->run_queue_max);
}

/* `runs` (every repeat's value, in the order run) and `stats` (their
 * n, mean, stddev, min, max, cov, and 95% interval) into o. */
static void add_spread(struct builder *b, cJSON *o, const char *runs,
		       const char *stats, const double *v, size_t n,
		       size_t stride)
{
	cJSON *arr = add_arr(b, o, runs), *st;
	double *tmp = malloc(n * sizeof(*tmp));
	struct summary s;
	double low, high;

	if (!tmp) {
		b->failed = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		cJSON *x = cJSON_CreateNumber(v[i * stride]);

		tmp[i] = v[i * stride];
		if (!x || !cJSON_AddItemToArray(arr, x)) {
			cJSON_Delete(x);
			b->failed = 1;
		}
	}
	if (stats_summarize(tmp, n, &s)) {
		free(tmp);
		b->failed = 1;
		return;
	}
	free(tmp);
	st = add_obj(b, o, stats);
	ADD_NUMS(b, st, { "n", (double)n }, { "mean", s.mean },
		 { "stddev", s.stddev }, { "min", s.min }, { "max", s.max },
		 { "cov", stats_cov(&s) });
	if (!stats_ci95(&s, n, &low, &high)) {
		add_num(b, st, "ci95_low", low);
		add_num(b, st, "ci95_high", high);
	}
}

static void add_repeats(struct builder *b, cJSON *o,
			const struct level_result *l)
{
	cJSON *r = add_obj(b, o, "repeats"), *jobs;

	add_num(b, r, "n", (double)l->n_repeats);
	add_spread(b, r, "runs_jobs_per_min", "jobs_per_min", l->repeat_jpm,
		   l->n_repeats, 1);
	if (!l->repeat_job_ops)
		return;
	jobs = add_arr(b, r, "jobs");
	for (size_t j = 0; jobs && j < l->n_jobs; j++) {
		cJSON *x = cJSON_CreateObject();

		if (!x || !cJSON_AddItemToArray(jobs, x)) {
			cJSON_Delete(x);
			b->failed = 1;
			return;
		}
		add_str(b, x, "name", l->jobs[j].name);
		add_spread(b, x, "runs_ops_per_sec", "ops_per_sec",
			   l->repeat_job_ops + j, l->n_repeats, l->n_jobs);
	}
}

/* The report lines merged into one lock entry, with their call stacks. */
static void add_lock_rows(struct builder *b, cJSON *lo,
			  const struct lock_entry *e)
{
	cJSON *rows = add_arr(b, lo, "rows");

	for (size_t r = 0; r < e->n_rows; r++) {
		const struct lock_row *row = &e->rows[r];
		cJSON *ro = push_obj(b, rows), *stack;

		add_num(b, ro, "contended", (double)row->contended);
		add_num(b, ro, "total_wait_ns", (double)row->total_wait_ns);
		add_num(b, ro, "max_wait_ns", (double)row->max_wait_ns);
		add_num(b, ro, "avg_wait_ns", (double)row->avg_wait_ns);
		stack = add_arr(b, ro, "callstack");
		for (unsigned int k = 0; k < row->n_frames; k++)
			push_str(b, stack, row->frame[k]);
	}
}

static void add_bool(struct builder *b, cJSON *o, const char *k, bool v)
{
	if (!cJSON_AddBoolToObject(o, k, v))
		b->failed = 1;
}

/* --cpu-profile: the level's slice, its top symbols and its cost. */
static void add_cpu_profile(struct builder *b, cJSON *o,
			    const struct cpu_profile *cp)
{
	cJSON *co = add_obj(b, o, "cpu_profile"), *syms;

	add_num(b, co, "offset_s", cp->offset_s);
	add_num(b, co, "seconds", cp->seconds);
	add_num(b, co, "sampled_s", cp->sampled_s);
	add_num(b, co, "samples", (double)cp->samples);
	add_num(b, co, "lost_samples", (double)cp->lost);
	add_num(b, co, "rows_dropped", (double)cp->rows_dropped);
	if (cp->rejected[0])
		add_str(b, co, "rejected", cp->rejected);
	syms = add_arr(b, co, "symbols");
	for (size_t i = 0; i < cp->n_symbols; i++) {
		const struct cpu_symbol *s = &cp->symbols[i];
		cJSON *so = push_obj(b, syms);

		add_str(b, so, "symbol", s->name);
		add_str(b, so, "kind", s->kernel ? "kernel" : "user");
		add_num(b, so, "samples", (double)s->samples);
		add_num(b, so, "share", s->share);
	}
	add_num(b, co, "profiler_cpu_s", cp->profiler_cpu_s);
	add_num(b, co, "profiler_cpu_pct", cp->profiler_cpu_pct);
	add_bool(b, co, "disturbed", cp->disturbed);
}

/* --lock-profile: how the level's profile was taken and what it missed.
 * lost_events counts each lost wait once: a begin with no room in the
 * tasks map is lost as the end that finds no begin. */
static void add_lock_info(struct builder *b, cJSON *o,
			  const struct lock_capture_info *li)
{
	cJSON *lp = add_obj(b, o, "lock_profile"), *lost;

	add_str(b, lp, "method", li->method);
	add_str(b, lp, "why", li->why);
	ADD_NUMS(b, lp, { "offset_s", li->offset_s },
		 { "covered_s", li->covered_s });
	if (!li->has_lost)
		return;
	add_num(b, lp, "lost_events",
		(double)(li->lost_no_begin + li->lost_callers_full));
	lost = add_obj(b, lp, "lost");
	ADD_NUMS(b, lost, { "no_begin", (double)li->lost_no_begin },
		 { "tasks_full", (double)li->lost_tasks_full },
		 { "callers_full", (double)li->lost_callers_full });
	add_num(b, lp, "stacks_unknown", (double)li->stacks_unknown);
}

/* The keys captures wrote themselves, copied as they are, in the order
 * they were written. One the level already has (a capture that named
 * its key after a fixed one) fails the write rather than repeat a key. */
static void add_capture_keys(struct builder *b, cJSON *o,
			     const struct level_result *l)
{
	const cJSON *key;

	cJSON_ArrayForEach(key, l->capture_keys) {
		cJSON *copy;

		if (cJSON_HasObjectItem(o, key->string)) {
			b->failed = 1;
			continue;
		}
		copy = cJSON_Duplicate(key, true);

		if (!copy || !cJSON_AddItemToObject(o, key->string, copy)) {
			cJSON_Delete(copy);
			b->failed = 1;
		}
	}
}

/* --lock-profile and --hook, and the keys of the captures that write
 * their own: what the level's captures found. */
static void add_capture(struct builder *b, cJSON *o,
			const struct level_result *l,
			const struct run_params *p)
{
	if (l->lock_info.method)
		add_lock_info(b, o, &l->lock_info);
	if (l->lock_profiled) {
		cJSON *arr = add_arr(b, o, "lock_contention");

		for (size_t i = 0; i < l->n_locks; i++) {
			const struct lock_entry *e = &l->locks[i];
			cJSON *lo = push_obj(b, arr);

			add_str(b, lo, "caller", e->caller);
			add_str(b, lo, "type", e->type);
			if (e->lock[0])
				add_str(b, lo, "lock", e->lock);
			add_num(b, lo, "contended", (double)e->contended);
			add_num(b, lo, "total_wait_ns", (double)e->total_wait_ns);
			add_num(b, lo, "max_wait_ns", (double)e->max_wait_ns);
			add_num(b, lo, "avg_wait_ns", (double)e->avg_wait_ns);
			add_lock_rows(b, lo, e);
		}
		add_num(b, o, "lock_rows_dropped", (double)l->locks_dropped);
	}
	if (l->cpu_profiled)
		add_cpu_profile(b, o, &l->cpu_prof);
	if (l->hook_ran) {
		cJSON *h = add_obj(b, o, "hook");

		add_str(b, h, "command", p->hook_cmd);
		if (l->hook_signal) {
			char sig[16];

			snprintf(sig, sizeof(sig), "SIG%s",
				 sigabbrev_np(l->hook_signal) ?
				 sigabbrev_np(l->hook_signal) : "?");
			add_str(b, h, "signal", sig);
		} else {
			add_num(b, h, "exit_status", l->hook_status);
		}
		add_str(b, h, "output_dir", l->hook_dir);
	}
	add_capture_keys(b, o, l);
}

static void add_level(struct builder *b, cJSON *levels,
		      const struct level_result *l,
		      const struct run_params *p)
{
	cJSON *o = push_obj(b, levels), *pu, *ru, *jobs, *dr;

	add_num(b, o, "users", l->users);
	add_str(b, o, "status", l->status == LEVEL_OK ? "ok" : "failed");
	if (l->status != LEVEL_OK) {
		/* A failed level carries no throughput: nothing in it may be
		 * read as a result. What its hook did (and a lock profile,
		 * should one have been read) may explain the failure. */
		add_str(b, o, "reason", l->reason);
		add_capture(b, o, l, p);
		return;
	}
	add_num(b, o, "window_s", l->window_s);
	add_num(b, o, "start_s", l->start_s);
	add_num(b, o, "release_s", l->release_s);
	add_num(b, o, "stop_s", l->stop_s);
	dr = add_obj(b, o, "driver");
	add_num(b, dr, "cpu_pct", l->driver_cpu_pct);
	add_num(b, dr, "max_rss_kb", (double)l->driver_max_rss_kb);
	ADD_NUMS(b, o, { "ops", (double)l->ops },
		 { "errors", (double)l->errors },
		 { "jobs_per_min", l->jobs_per_min },
		 { "jobs_per_min_per_user", l->jobs_per_min_per_user },
		 { "efficiency", l->efficiency },
		 { "users_pinned", l->users_pinned });
	pu = add_obj(b, o, "per_user_jobs_per_min");
	ADD_NUMS(b, pu, { "min", l->user_min }, { "p10", l->user_p10 },
		 { "median", l->user_median }, { "p90", l->user_p90 },
		 { "max", l->user_max }, { "stddev", l->user_stddev },
		 { "cov", l->user_cov });
	ADD_NUMS(b, o, { "jain", l->jain }, { "jti", l->jti });
	add_intervals(b, o, l);
	add_system(b, o, l);
	if (l->n_repeats)
		add_repeats(b, o, l);
	ru = add_obj(b, o, "rusage");
	ADD_NUMS(b, ru, { "utime_s", l->rusage.utime_s },
		 { "stime_s", l->rusage.stime_s },
		 { "voluntary_ctxsw", (double)l->rusage.nvcsw },
		 { "involuntary_ctxsw", (double)l->rusage.nivcsw },
		 { "minor_faults", (double)l->rusage.minflt },
		 { "major_faults", (double)l->rusage.majflt },
		 { "max_rss_kb", (double)l->rusage.maxrss_kb });
	jobs = add_arr(b, o, "jobs");
	for (size_t i = 0; i < l->n_jobs; i++) {
		const struct job_result *j = &l->jobs[i];
		cJSON *jo = push_obj(b, jobs);

		add_str(b, jo, "name", j->name);
		add_num(b, jo, "ops", (double)j->ops);
		add_num(b, jo, "ops_per_sec", j->ops_per_sec);
		add_str(b, jo, "unit", j->unit);
		add_num(b, jo, "inner_ops", (double)j->inner_ops);
		add_num(b, jo, "inner_ops_per_sec", j->inner_ops_per_sec);
		add_num(b, jo, "errors", (double)j->errors);
		if (j->errors)
			add_str(b, jo, "last_errno", errno_name(j->last_errno));
		if (j->has_latency) {
			cJSON *lat = add_obj(b, jo, "latency_ns");

			ADD_NUMS(b, lat, { "samples", (double)j->lat_samples },
				 { "min", (double)j->lat_min_ns },
				 { "p50", (double)j->lat_p50_ns },
				 { "p90", (double)j->lat_p90_ns },
				 { "p99", (double)j->lat_p99_ns },
				 { "p999", (double)j->lat_p999_ns },
				 { "max", (double)j->lat_max_ns },
				 { "mean", j->lat_mean_ns },
				 { "sample_every_min", j->sample_every_min },
				 { "sample_every_max", j->sample_every_max });
		}
		if (j->skipped) {
			if (!cJSON_AddTrueToObject(jo, "skipped"))
				b->failed = 1;
			add_str(b, jo, "skip_reason", j->skip_reason);
		}
	}
	add_capture(b, o, l, p);
}

cJSON *level_to_json(const struct level_result *l,
		     const struct run_params *p)
{
	struct builder b = { 0 };
	cJSON *levels = cJSON_CreateArray(), *o = NULL;

	if (!levels)
		return NULL;
	add_level(&b, levels, l, p);
	if (!b.failed)
		o = cJSON_DetachItemFromArray(levels, 0);
	cJSON_Delete(levels);
	return o;
}

/* The knee and, with --stop-at-crossover, the crossover. */
static void add_knee(struct builder *b, cJSON *sum, const struct run_result *r)
{
	const struct run_params *p = r->params;
	long knee = verdicts_knee_level(r, p->knee);
	long crossed = verdicts_crossover_level(r, p->crossover);

	add_num(b, sum, "knee_threshold", p->knee);
	if (knee >= 0) {
		add_num(b, sum, "knee_users", r->levels[knee].users);
		add_num(b, sum, "knee_efficiency", r->levels[knee].efficiency);
	}
	if (p->crossover > 0) {
		add_num(b, sum, "crossover_threshold", p->crossover);
		if (crossed >= 0)
			add_num(b, sum, "crossover_users",
				r->levels[crossed].users);
	}
}

cJSON *result_to_json(const struct run_result *r)
{
	struct builder b = { 0 };
	cJSON *root = cJSON_CreateObject(), *tool, *levels, *sum;
	long peak;
	size_t ok = 0;

	if (!root)
		return NULL;
	add_num(&b, root, "schema_version", RESULT_SCHEMA_VERSION);
	tool = add_obj(&b, root, "tool");
	add_str(&b, tool, "name", "aimsweep");
	add_str(&b, tool, "version", PACKAGE_VERSION);
	add_str(&b, root, "status", run_status_name(r->status));
	if (r->status == RUN_INTERRUPTED) {
		char sig[16];

		snprintf(sig, sizeof(sig), "SIG%s",
			 sigabbrev_np(r->interrupted_by) ?
			 sigabbrev_np(r->interrupted_by) : "?");
		add_str(&b, root, "interrupted_by", sig);
	}
	add_str(&b, root, "started_at", r->started_at);
	add_host(&b, root, &r->host);
	add_params(&b, root, r);
	add_mix(&b, root, r->mix);
	levels = add_arr(&b, root, "levels");
	for (size_t i = 0; i < r->n_levels; i++) {
		add_level(&b, levels, &r->levels[i], r->params);
		ok += r->levels[i].status == LEVEL_OK;
	}
	sum = add_obj(&b, root, "summary");
	add_num(&b, sum, "levels_ok", (double)ok);
	add_num(&b, sum, "levels_failed", (double)(r->n_levels - ok));
	peak = verdicts_peak_level(r);
	if (peak >= 0) {
		add_num(&b, sum, "peak_jobs_per_min",
			r->levels[peak].jobs_per_min);
		add_num(&b, sum, "peak_users", r->levels[peak].users);
	}
	add_knee(&b, sum, r);
	if (b.failed) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

cJSON *json_read_back(cJSON *doc)
{
	char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
	cJSON *back = text ? cJSON_Parse(text) : NULL;

	cJSON_free(text);
	cJSON_Delete(doc);
	return back;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int result_write(const struct run_result *r, const char *path, char *err,
		 size_t errlen)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	cJSON *root = result_to_json(r);
	char *text = NULL;
	int fd = -1, rc = ENOMEM;

	if (!root || !(text = cJSON_Print(root))) {
		snprintf(err, errlen, "cannot build %s: out of memory", path);
		goto out;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >=
	    (int)sizeof(tmp)) {
		rc = ENAMETOOLONG;
		snprintf(err, errlen, "%s: path too long", path);
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(rc));
		goto out;
	}
	rc = write_all(fd, text, strlen(text));
	if (!rc)
		rc = write_all(fd, "\n", 1);
	if (!rc && fchmod(fd, 0644))
		rc = errno;
	if (!rc && fsync(fd))
		rc = errno;
	if (close(fd) && !rc)
		rc = errno;
	fd = -1;
	if (!rc && rename(tmp, path))
		rc = errno;
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(rc));
		unlink(tmp);
		goto out;
	}
	/* The rename is durable only once the directory is synced. */
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	rc = 0;
out:
	free(text);
	cJSON_Delete(root);
	return rc;
}
