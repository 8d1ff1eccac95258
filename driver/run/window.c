/* driver/run/window.c: a level's measured window, t0 to t1, sampled every --interval. */
#include <stdlib.h>

#include "driver/base/process.h"
#include "driver/base/util.h"
#include "driver/measure/stats.h"
#include "driver/run/window.h"

void window_open(struct sweep *s, const struct level_run *lr,
		 unsigned int users, struct window_start *w)
{
	sysview_read(&w->sys);
	getrusage(RUSAGE_SELF, &w->self);
	/* Latency is recorded for ops that end between t0 and t1, as
	 * closely as the flag can follow the two snapshots. */
	__atomic_store_n(&s->arena.hdr->measuring, lr->gen, __ATOMIC_RELEASE);
	snapshot_take(&s->t0, &s->arena, users);
}

/* The run queue at each sample: its least, mean and most. */
struct run_queue_tally {
	double sum;
	size_t n;
};

static void tally_run_queue(struct run_queue_tally *rq,
			    struct level_result *level)
{
	struct sysview v;

	sysview_read(&v);
	if (!v.valid)
		return;
	rq->sum += v.procs_running;
	rq->n++;
	if (v.procs_running < level->run_queue_min)
		level->run_queue_min = v.procs_running;
	if (v.procs_running > level->run_queue_max)
		level->run_queue_max = v.procs_running;
}

/* One interval, prev_t to t, of `ops` jobs; none when the array could not
 * be had, is full, or the clock did not move. */
static void add_interval(struct level_result *level, size_t cap, uint64_t t0,
			 uint64_t prev_t, uint64_t t, double ops)
{
	struct interval_sample *is;

	if (!level->intervals || level->n_intervals >= cap || t <= prev_t)
		return;
	is = &level->intervals[level->n_intervals++];
	is->start_s = (double)(prev_t - t0) / NSEC_PER_SEC;
	is->elapsed_s = (double)(t - prev_t) / NSEC_PER_SEC;
	is->jobs_per_min = ops * 60.0 / is->elapsed_s;
}

/* The window's run queue mean, and the spread of its intervals'
 * jobs/min. */
static void window_spread(struct level_result *level,
			  const struct run_queue_tally *rq)
{
	struct summary sum;
	double *jpm;

	level->run_queue_mean = rq->n ? rq->sum / (double)rq->n : 0;
	if (!rq->n)
		level->run_queue_min = 0;
	jpm = calloc(level->n_intervals + 1, sizeof(*jpm));
	if (!jpm)
		return;
	for (size_t i = 0; i < level->n_intervals; i++)
		jpm[i] = level->intervals[i].jobs_per_min;
	if (!stats_summarize(jpm, level->n_intervals, &sum)) {
		level->interval_stddev = sum.stddev;
		level->interval_cov = stats_cov(&sum);
	}
	free(jpm);
}

bool window_sample(struct sweep *s, struct level_run *lr, unsigned int users,
		   struct level_result *level, const char *tag)
{
	const struct run_params *p = s->params;
	uint64_t t0 = s->t0.t_ns;
	uint64_t t1 = t0 + (uint64_t)(p->runtime_s * NSEC_PER_SEC);
	uint64_t step = (uint64_t)(p->interval_s * NSEC_PER_SEC);
	uint64_t prev_t = t0;
	double prev_ops = 0;	/* jobs since t0 */
	size_t cap = (size_t)(p->runtime_s / p->interval_s) + 2;
	struct run_queue_tally rq = { 0 };

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
		tally_run_queue(&rq, level);
		add_interval(level, cap, t0, prev_t, t, ops - prev_ops);
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
		if (pool_check(&s->pool, lr))
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
	window_spread(level, &rq);
	return true;
}

static double cpu_s(const struct rusage *r)
{
	return (double)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) +
	       (double)(r->ru_utime.tv_usec + r->ru_stime.tv_usec) / 1e6;
}

bool window_close(struct sweep *s, struct level_result *level,
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
