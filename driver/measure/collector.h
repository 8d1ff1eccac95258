/* driver/measure/collector.h: turns two counter snapshots into a level result. */
#ifndef AIMSWEEP_COLLECTOR_H
#define AIMSWEEP_COLLECTOR_H

#include <stdint.h>

#include "driver/measure/arena.h"
#include "driver/measure/result.h"
#include "driver/base/workfile.h"

struct snapshot {
	uint64_t t_ns;		/* CLOCK_MONOTONIC, middle of the copy */
	uint64_t *ops;		/* [users * n_entries] */
	uint64_t *inner;	/* an AIM7 job's inner operations */
	uint64_t *errors;
};

/* 0, or -1 with errno. */
int snapshot_alloc(struct snapshot *s, unsigned int max_users,
		   size_t n_entries);
void snapshot_free(struct snapshot *s);
/* Copies the counters; the timestamp is the middle of the copy, so a long
 * copy (many users) skews t0 and t1 alike. */
void snapshot_take(struct snapshot *s, const struct arena *a,
		   unsigned int users);

/*
 * The jobs done between two snapshots, all users and entries: a micro
 * job's by its ops; an AIM7 job's by its progress (job_progress()) over
 * that of one job, so that a job in flight at either end counts by its
 * share of the window. With t0 NULL, counted from zero.
 */
double snapshot_jobs(const struct snapshot *t0, const struct snapshot *t1,
		     const struct mix *mix, unsigned int users);

/* Fills the measured part of `level` (window, ops, throughput, per-user
 * spread, per-job counts) from t0 and t1; 0, or -1 with errno. */
int collector_level(const struct snapshot *t0, const struct snapshot *t1,
		    const struct arena *a, const struct mix *mix,
		    unsigned int users, struct level_result *level);

#endif
