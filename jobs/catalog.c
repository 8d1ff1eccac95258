/* jobs/catalog.c: the one table of every job aimsweep can run. */
#include <ctype.h>
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
	&job_creat_clo,
	&job_link_test,
	&job_dir_rtns_1,
	&job_disk_src,
	/* end file.c: AIM7 */
	/* disk.c */
	&job_disk_rr,
	&job_disk_rw,
	&job_disk_rd,
	&job_disk_wrt,
	&job_disk_cp,
	&job_disk_brr,
	&job_disk_brw,
	&job_disk_brd,
	&job_disk_bwrt,
	&job_disk_bcp,
	&job_sync_disk_rw,
	&job_sync_disk_wrt,
	&job_sync_disk_cp,
	&job_sync_disk_update,
	&job_disk_dio_rr,
	&job_disk_dio_rw,
	&job_disk_dio_rd,
	&job_disk_dio_wrt,
	&job_disk_dio_cp,
	/* end disk.c */
	/* mem.c: AIM7 */
	&job_brk_test,
	&job_page_test,
	&job_mem_rtns_1,
	&job_mem_rtns_2,
	&job_ram_copy,
	/* end mem.c: AIM7 */
	/* signal.c: AIM7 */
	&job_signal_test,
	&job_jmp_test,
	/* end signal.c: AIM7 */
	/* proc.c: AIM7 */
	&job_fork_test,
	&job_exec_test,
	&job_shell_rtns_1,
	&job_shell_rtns_2,
	&job_shell_rtns_3,
	/* end proc.c: AIM7 */
	/* ipc.c */
	&job_pipe_cpy,
	&job_stream_pipe,
	&job_dgram_pipe,
	&job_fifo_test,
	&job_shared_memory,
	/* end ipc.c */
	/* net.c */
	&job_tcp_test,
	&job_udp_test,
	/* end net.c */
	/* compute.c */
	&job_add_short,
	&job_add_int,
	&job_add_long,
	&job_add_float,
	&job_add_double,
	&job_mul_short,
	&job_mul_int,
	&job_mul_long,
	&job_mul_float,
	&job_mul_double,
	&job_div_short,
	&job_div_int,
	&job_div_long,
	&job_div_float,
	&job_div_double,
	&job_fun_cal,
	&job_fun_cal1,
	&job_fun_cal2,
	&job_fun_cal15,
	&job_sieve,
	&job_num_rtns_1,
	&job_new_raph,
	&job_trig_rtns,
	&job_series_1,
	&job_matrix_rtns,
	&job_array_rtns,
	&job_string_rtns,
	&job_sort_rtns_1,
	&job_misc_rtns_1,
	/* end compute.c */
};

const size_t job_table_len = sizeof(job_table) / sizeof(job_table[0]);

unsigned long job_inner_ops(const struct job *job, uint64_t file_size)
{
	return job->inner_ops_for ? job->inner_ops_for(file_size)
				  : job->inner_ops;
}

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
