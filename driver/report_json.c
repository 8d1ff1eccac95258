/* driver/report_json.c: result.json, written with libcjson. */
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

#include "driver/report_json.h"
#include "driver/util.h"

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

static void add_host(struct builder *b, cJSON *root, const struct host_info *h)
{
	cJSON *o = add_obj(b, root, "host");

	add_str(b, o, "hostname", h->hostname);
	add_str(b, o, "kernel_release", h->kernel_release);
	add_str(b, o, "kernel_version", h->kernel_version);
	add_str(b, o, "machine", h->machine);
	add_str(b, o, "cpu_model", h->cpu_model);
	add_num(b, o, "cpus_online", h->cpus_online);
	add_num(b, o, "memory_bytes", (double)h->memory_bytes);
}

static void add_params(struct builder *b, cJSON *root,
		       const struct run_params *p)
{
	cJSON *o = add_obj(b, root, "params"), *levels;
	char seed[32];

	add_str(b, o, "workfile", p->workfile_path);
	levels = add_arr(b, o, "levels");
	for (size_t i = 0; i < p->n_levels; i++) {
		cJSON *n = cJSON_CreateNumber(p->levels[i]);

		if (!n || !cJSON_AddItemToArray(levels, n)) {
			cJSON_Delete(n);
			b->failed = 1;
		}
	}
	add_num(b, o, "runtime_s", p->runtime_s);
	add_num(b, o, "warmup_s", p->warmup_s);
	add_num(b, o, "grace_s", p->grace_s);
	/* A string: JSON numbers lose 64-bit integers in most readers. */
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)p->seed);
	add_str(b, o, "seed", seed);
	add_str(b, o, "layout", layout_name(p->layout));
	add_str(b, o, "scratch_dir", p->scratch_base);
	add_str(b, o, "output_dir", p->output_dir);
	add_str(b, o, "cmdline", p->cmdline);
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

static void add_level(struct builder *b, cJSON *levels,
		      const struct level_result *l)
{
	cJSON *o = push_obj(b, levels), *pu, *ru, *jobs;

	add_num(b, o, "users", l->users);
	add_str(b, o, "status", l->status == LEVEL_OK ? "ok" : "failed");
	if (l->status != LEVEL_OK) {
		/* A failed level carries no throughput: nothing in it may be
		 * read as a result. */
		add_str(b, o, "reason", l->reason);
		return;
	}
	add_num(b, o, "window_s", l->window_s);
	add_num(b, o, "start_s", l->start_s);
	add_num(b, o, "ops", (double)l->ops);
	add_num(b, o, "errors", (double)l->errors);
	add_num(b, o, "jobs_per_min", l->jobs_per_min);
	add_num(b, o, "jobs_per_min_per_user", l->jobs_per_min_per_user);
	pu = add_obj(b, o, "per_user_jobs_per_min");
	add_num(b, pu, "min", l->user_min);
	add_num(b, pu, "median", l->user_median);
	add_num(b, pu, "max", l->user_max);
	add_num(b, o, "jti", l->jti);
	ru = add_obj(b, o, "rusage");
	add_num(b, ru, "utime_s", l->rusage.utime_s);
	add_num(b, ru, "stime_s", l->rusage.stime_s);
	add_num(b, ru, "voluntary_ctxsw", (double)l->rusage.nvcsw);
	add_num(b, ru, "involuntary_ctxsw", (double)l->rusage.nivcsw);
	add_num(b, ru, "minor_faults", (double)l->rusage.minflt);
	add_num(b, ru, "major_faults", (double)l->rusage.majflt);
	add_num(b, ru, "max_rss_kb", (double)l->rusage.maxrss_kb);
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
		if (j->skipped) {
			if (!cJSON_AddTrueToObject(jo, "skipped"))
				b->failed = 1;
			add_str(b, jo, "skip_reason", j->skip_reason);
		}
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
	add_params(&b, root, r->params);
	add_mix(&b, root, r->mix);
	levels = add_arr(&b, root, "levels");
	for (size_t i = 0; i < r->n_levels; i++) {
		add_level(&b, levels, &r->levels[i]);
		ok += r->levels[i].status == LEVEL_OK;
	}
	sum = add_obj(&b, root, "summary");
	add_num(&b, sum, "levels_ok", (double)ok);
	add_num(&b, sum, "levels_failed", (double)(r->n_levels - ok));
	peak = result_peak_level(r);
	if (peak >= 0) {
		add_num(&b, sum, "peak_jobs_per_min",
			r->levels[peak].jobs_per_min);
		add_num(&b, sum, "peak_users", r->levels[peak].users);
	}
	if (b.failed) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
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
