/* driver/measure/collector.c: turns two counter snapshots into a level result. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/measure/collector.h"
#include "driver/measure/stats.h"
#include "driver/base/util.h"

int snapshot_alloc(struct snapshot *s, unsigned int max_users,
		   size_t n_entries)
{
	size_t n = (size_t)max_users * n_entries;

	s->t_ns = 0;
	s->ops = calloc(n ? n : 1, sizeof(*s->ops));
	s->inner = calloc(n ? n : 1, sizeof(*s->inner));
	s->errors = calloc(n ? n : 1, sizeof(*s->errors));
	if (!s->ops || !s->inner || !s->errors) {
		snapshot_free(s);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void snapshot_free(struct snapshot *s)
{
	free(s->ops);
	free(s->inner);
	free(s->errors);
	s->ops = s->inner = s->errors = NULL;
}

void snapshot_take(struct snapshot *s, const struct arena *a,
		   unsigned int users)
{
	uint64_t before = now_ns();

	arena_snapshot(a, users, s->ops, s->inner, s->errors);
	s->t_ns = before + (now_ns() - before) / 2;
}

/* Progress ticks of one job of each AIM7 entry at this level's file
 * size, 0 for a micro entry, into per_job[n_entries]. */
static void aim7_inner_ops(const struct mix *mix, unsigned int users,
			   double *per_job)
{
	for (size_t e = 0; e < mix->n_entries; e++) {
		const struct job *job = mix->entries[e].job;

		per_job[e] = job->units == JOB_UNITS_AIM7 ?
			(double)job_inner_ops(job, mix_file_size(mix, users)) *
				JOB_PROGRESS_TICKS : 0;
	}
}

/* Counter i's jobs from t0 (NULL: from zero) to t1. A failed AIM7 op
 * takes back the inner operations it reported, so an op in flight at t0
 * that then failed can leave its user less than at t0: none, then. */
static double counter_jobs(const struct snapshot *t0,
			   const struct snapshot *t1, size_t i, double inner)
{
	double d;

	if (!inner)
		return (double)(t1->ops[i] - (t0 ? t0->ops[i] : 0));
	d = (double)t1->inner[i] - (t0 ? (double)t0->inner[i] : 0);
	return d > 0 ? d / inner : 0;
}

double snapshot_jobs(const struct snapshot *t0, const struct snapshot *t1,
		     const struct mix *mix, unsigned int users)
{
	size_t n = mix->n_entries;
	double *inner = calloc(n ? n : 1, sizeof(*inner)), total = 0;

	if (!inner)
		return NAN;
	aim7_inner_ops(mix, users, inner);
	for (unsigned int u = 0; u < users; u++)
		for (size_t e = 0; e < n; e++)
			total += counter_jobs(t0, t1, (size_t)u * n + e,
					      inner[e]);
	free(inner);
	return total;
}

/* Merges every user's histogram of each job; the users are parked, so
 * nothing writes them now. */
static void collect_latency(const struct arena *a, unsigned int users,
			    struct level_result *level)
{
	struct hist_window *w = malloc(sizeof(*w)), *one = malloc(sizeof(*one));

	if (!w || !one)
		goto out;
	for (size_t e = 0; e < level->n_jobs; e++) {
		struct job_result *j = &level->jobs[e];

		memset(w, 0, sizeof(*w));
		j->sample_every_min = UINT32_MAX;
		for (unsigned int u = 0; u < users; u++) {
			struct user_slot *slot = arena_slot(a, u);
			uint32_t every = slot->counters[e].sample_every;

			if (hist_sub(one, arena_hist(a, slot, e), NULL))
				continue;
			hist_add(w, one);
			if (every && every > j->sample_every_max)
				j->sample_every_max = every;
			if (every && every < j->sample_every_min)
				j->sample_every_min = every;
		}
		if (j->sample_every_min == UINT32_MAX)
			j->sample_every_min = 0;
		j->has_latency = true;
		j->lat_samples = w->count;
		j->lat_min_ns = w->min_ns;
		j->lat_p50_ns = hist_percentile(w, 50);
		j->lat_p90_ns = hist_percentile(w, 90);
		j->lat_p99_ns = hist_percentile(w, 99);
		j->lat_p999_ns = hist_percentile(w, 99.9);
		j->lat_max_ns = w->max_ns;
		j->lat_mean_ns = hist_mean(w);
	}
out:
	free(w);
	free(one);
}

int collector_level(const struct snapshot *t0, const struct snapshot *t1,
		    const struct arena *a, const struct mix *mix,
		    unsigned int users, struct level_result *level)
{
	size_t n = mix->n_entries;
	double *per_user, *inner, window_s;
	struct summary s;
	int rc;

	window_s = (double)(t1->t_ns - t0->t_ns) / NSEC_PER_SEC;
	level->window_s = window_s;
	level->jobs = calloc(n, sizeof(*level->jobs));
	per_user = calloc(users ? users : 1, sizeof(*per_user));
	inner = calloc(n ? n : 1, sizeof(*inner));
	if (!level->jobs || !per_user || !inner) {
		free(per_user);
		free(inner);
		errno = ENOMEM;
		return -1;
	}
	aim7_inner_ops(mix, users, inner);
	level->n_jobs = n;
	for (size_t e = 0; e < n; e++) {
		const struct job *job = mix->entries[e].job;

		level->jobs[e].name = job->name;
		level->jobs[e].unit = job->unit;
		level->jobs[e].weight = mix->entries[e].weight;
		level->jobs[e].inner_ops = job_inner_ops(job, mix_file_size(mix, users));
	}
	for (unsigned int u = 0; u < users; u++) {
		const struct user_slot *slot = arena_slot(a, u);
		double user_ops = 0;

		level->users_pinned += slot->cpu >= 0;
		for (size_t e = 0; e < n; e++) {
			size_t i = (size_t)u * n + e;
			double ops = counter_jobs(t0, t1, i, inner[e]);
			uint64_t errs = t1->errors[i] - t0->errors[i];
			struct job_result *j = &level->jobs[e];

			j->ops += ops;
			j->errors += errs;
			if (errs)
				j->last_errno = slot->counters[e].last_errno;
			if (slot->counters[e].skipped) {
				j->skipped = true;
				snprintf(j->skip_reason, sizeof(j->skip_reason),
					 "%s", a->skips[e].reason);
			}
			user_ops += ops;
		}
		level->ops += user_ops;
		per_user[u] = window_s > 0 ? user_ops * 60.0 / window_s : 0;
	}
	free(inner);
	if (a->hist_offset)
		collect_latency(a, users, level);
	for (size_t e = 0; e < n; e++) {
		struct job_result *j = &level->jobs[e];

		level->errors += j->errors;
		j->ops_per_sec = window_s > 0 ? j->ops / window_s : 0;
		j->inner_ops_per_sec = j->ops_per_sec * (double)j->inner_ops;
	}
	level->jobs_per_min = window_s > 0 ? level->ops * 60.0 / window_s : 0;
	level->jobs_per_min_per_user = users ? level->jobs_per_min / users : 0;
	rc = stats_summarize(per_user, users, &s);
	if (!rc) {
		level->user_min = s.min;
		level->user_p10 = stats_percentile(per_user, users, 10);
		level->user_median = s.median;
		level->user_p90 = stats_percentile(per_user, users, 90);
		level->user_max = s.max;
		level->user_stddev = s.stddev;
		level->user_cov = stats_cov(&s);
		level->jain = stats_jain(per_user, users);
		level->jti = stats_jti(&s);
	}
	free(per_user);
	return rc ? -1 : 0;
}
