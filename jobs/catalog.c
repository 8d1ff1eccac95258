/* jobs/catalog.c: the one table of every job aimsweep can run. */
#include <ctype.h>
#include <string.h>

#include "jobs/catalog.h"

/* The rows in job_list.h's order; adding a job is one line there. */
const struct job *const job_table[] = {
#define JOB(id) &job_##id,
#include "jobs/job_list.h"
#undef JOB
};

const size_t job_table_len = sizeof(job_table) / sizeof(job_table[0]);

unsigned long job_inner_ops(const struct job *job, uint64_t file_size)
{
	return job->inner_ops_for ? job->inner_ops_for(file_size)
				  : job->inner_ops;
}

const struct job *job_find(const char *name)
{
	for (size_t i = 0; i < job_table_len; i++) {
		const struct job *j = job_table[i];

		if (!strcmp(j->name, name) ||
		    (j->aim7_name && !strcmp(j->aim7_name, name)))
			return j;
	}
	return NULL;
}

/* Levenshtein distance, bounded to names of at most 63 characters. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64], prev, tmp;

	if (la > 63)
		la = 63;
	if (lb > 63)
		lb = 63;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			tmp = row[j];
			/* Case-blind: "CREAT" is a typo of "creat". */
			row[j] = prev + (tolower((unsigned char)a[i - 1]) !=
					 tolower((unsigned char)b[j - 1]));
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

/* Keeps `candidate` in *best when it is closer to `name` than *best is. */
static void keep_nearer(const char *name, const char *candidate,
			const char **best, size_t *best_dist)
{
	size_t dist;

	if (!candidate)
		return;
	dist = edit_distance(name, candidate);
	if (dist < *best_dist) {
		*best_dist = dist;
		*best = candidate;
	}
}

/* The closest name, if it is close enough to be a plausible typo. */
const char *job_nearest(const char *name)
{
	const char *best = NULL;
	size_t best_dist = (size_t)-1, limit;

	for (size_t i = 0; i < job_table_len; i++) {
		keep_nearer(name, job_table[i]->name, &best, &best_dist);
		keep_nearer(name, job_table[i]->aim7_name, &best, &best_dist);
	}
	limit = strlen(name) / 3 + 1;
	return best_dist <= limit ? best : NULL;
}
