/* driver/measure/result.c: the run's levels as they accumulate; measure/verdicts.c judges them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "driver/measure/result.h"

void level_result_forget(struct level_result *level)
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
	level->capture_keys = NULL;
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
	level_result_forget(level);
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
	cJSON_Delete(level->capture_keys);
	level_result_forget(level);
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
