/* driver/measure/result.c: the run's levels as they accumulate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver/measure/result.h"

/* Drops the level's arrays without freeing them: their owner is now
 * another copy of it. */
static void level_forget_arrays(struct level_result *level)
{
	level->jobs = NULL;
	level->n_jobs = 0;
	level->intervals = NULL;
	level->n_intervals = 0;
	level->repeat_jpm = NULL;
	level->n_repeats = 0;
	level->repeat_job_ops = NULL;
	level->locks = NULL;
	level->n_locks = 0;
	level->cpu_prof.symbols = NULL;
	level->cpu_prof.n_symbols = 0;
}

int result_add_level(struct run_result *r, struct level_result *level)
{
	if (r->n_levels == r->cap_levels) {
		size_t cap = r->cap_levels ? r->cap_levels * 2 : 16;
		struct level_result *l = realloc(r->levels, cap * sizeof(*l));

		if (!l)
			return -1;
		r->levels = l;
		r->cap_levels = cap;
	}
	r->levels[r->n_levels++] = *level;
	level_forget_arrays(level);
	return 0;
}

void lock_entries_free(struct lock_entry *entries, size_t n)
{
	for (size_t i = 0; entries && i < n; i++)
		free(entries[i].rows);
	free(entries);
}

void level_result_free(struct level_result *level)
{
	free(level->jobs);
	free(level->intervals);
	free(level->repeat_jpm);
	free(level->repeat_job_ops);
	lock_entries_free(level->locks, level->n_locks);
	free(level->cpu_prof.symbols);
	level_forget_arrays(level);
}

void run_result_free(struct run_result *r)
{
	for (size_t i = 0; i < r->n_levels; i++)
		level_result_free(&r->levels[i]);
	free(r->levels);
	r->levels = NULL;
	r->n_levels = r->cap_levels = 0;
}

const char *run_status_name(enum run_status s)
{
	switch (s) {
	case RUN_RUNNING:
		return "running";
	case RUN_COMPLETE:
		return "complete";
	case RUN_FAILED:
		return "failed";
	case RUN_INTERRUPTED:
		return "interrupted";
	}
	return "unknown";
}

long result_peak_level(const struct run_result *r)
{
	long best = -1;

	for (size_t i = 0; i < r->n_levels; i++) {
		if (r->levels[i].status != LEVEL_OK)
			continue;
		if (best < 0 ||
		    r->levels[i].jobs_per_min > r->levels[best].jobs_per_min)
			best = (long)i;
	}
	return best;
}

bool result_scale_level(struct run_result *r, size_t index,
			double crossover)
{
	struct level_result *l = &r->levels[index];
	const struct level_result *first = NULL;

	for (size_t i = 0; i < r->n_levels && !first; i++)
		if (r->levels[i].status == LEVEL_OK)
			first = &r->levels[i];
	if (l->status != LEVEL_OK || !first)
		return false;
	l->efficiency = first->jobs_per_min_per_user > 0 ?
		l->jobs_per_min_per_user / first->jobs_per_min_per_user : 0;
	return result_crossed(l, crossover);
}

bool result_crossed(const struct level_result *l, double crossover)
{
	return crossover > 0 && l->status == LEVEL_OK &&
	       l->jobs_per_min_per_user < crossover;
}

long result_knee_level(const struct run_result *r, double knee)
{
	for (size_t i = 0; i < r->n_levels; i++)
		if (r->levels[i].status == LEVEL_OK &&
		    r->levels[i].efficiency < knee)
			return (long)i;
	return -1;
}

long result_crossover_level(const struct run_result *r, double crossover)
{
	for (size_t i = 0; i < r->n_levels; i++)
		if (result_crossed(&r->levels[i], crossover))
			return (long)i;
	return -1;
}
