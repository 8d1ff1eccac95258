/* driver/measure/verdicts.c: the summary math on a run's levels: efficiency, crossover, knee, peak. */
#include <math.h>

#include "driver/measure/verdicts.h"

bool verdicts_scale_level(struct run_result *r, size_t index, double crossover)
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
	return verdicts_crossed(l, crossover);
}

bool verdicts_crossed(const struct level_result *l, double crossover)
{
	return crossover > 0 && l->status == LEVEL_OK &&
	       l->jobs_per_min_per_user < crossover;
}

long verdicts_knee_level(const struct run_result *r, double knee)
{
	for (size_t i = 0; i < r->n_levels; i++)
		if (r->levels[i].status == LEVEL_OK &&
		    r->levels[i].efficiency < knee)
			return (long)i;
	return -1;
}

long verdicts_crossover_level(const struct run_result *r, double crossover)
{
	for (size_t i = 0; i < r->n_levels; i++)
		if (verdicts_crossed(&r->levels[i], crossover))
			return (long)i;
	return -1;
}

bool verdicts_peak_offer(struct verdicts_peak *pk, size_t index, bool ok,
			 double jobs_per_min)
{
	/* Strictly more: of two equal levels the first stays the peak. */
	if (!ok || isnan(jobs_per_min) ||
	    (pk->index >= 0 && !(jobs_per_min > pk->jobs_per_min)))
		return false;
	pk->index = (long)index;
	pk->jobs_per_min = jobs_per_min;
	return true;
}

long verdicts_peak_level(const struct run_result *r)
{
	struct verdicts_peak pk = VERDICTS_PEAK_INIT;

	for (size_t i = 0; i < r->n_levels; i++)
		verdicts_peak_offer(&pk, i, r->levels[i].status == LEVEL_OK,
				    r->levels[i].jobs_per_min);
	return pk.index;
}
