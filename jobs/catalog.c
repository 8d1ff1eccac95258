/* jobs/catalog.c: the one table of every job aimsweep can run. */
#include <string.h>

#include "jobs/catalog.h"

/* Adding a job: write its functions and row in its family's file, declare
 * the row in catalog.h, and list it here. */
const struct job *const job_table[] = {
	/* The native core jobs. */
	&job_creat,
	&job_unlink,
	&job_close,
	&job_brk,
	&job_kill,
	&job_getppid,
	/* The AIM7 catalog, by family. */
	/* file.c: AIM7 */
	/* end file.c: AIM7 */
	/* disk.c */
	/* end disk.c */
	/* mem.c: AIM7 */
	/* end mem.c: AIM7 */
	/* signal.c: AIM7 */
	/* end signal.c: AIM7 */
	/* proc.c: AIM7 */
	/* end proc.c: AIM7 */
	/* ipc.c */
	/* end ipc.c */
	/* net.c */
	/* end net.c */
	/* compute.c */
	/* end compute.c */
};

const size_t job_table_len = sizeof(job_table) / sizeof(job_table[0]);

const struct job *job_find(const char *name)
{
	for (size_t i = 0; i < job_table_len; i++)
		if (!strcmp(job_table[i]->name, name))
			return job_table[i];
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
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The closest name, if it is close enough to be a plausible typo. */
const struct job *job_nearest(const char *name)
{
	const struct job *best = NULL;
	size_t best_dist = (size_t)-1, dist, limit;

	for (size_t i = 0; i < job_table_len; i++) {
		dist = edit_distance(name, job_table[i]->name);
		if (dist < best_dist) {
			best_dist = dist;
			best = job_table[i];
		}
	}
	limit = strlen(name) / 3 + 1;
	return best_dist <= limit ? best : NULL;
}
