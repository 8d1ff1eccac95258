/* jobs/catalog.h: the job rows each family file defines, for the table. */
#ifndef AIMSWEEP_CATALOG_H
#define AIMSWEEP_CATALOG_H

#include "jobs/job.h"

/* file.c */
extern const struct job job_creat;
extern const struct job job_unlink;
extern const struct job job_close;
/* file.c: AIM7 */
extern const struct job job_creat_clo;
extern const struct job job_link_test;
extern const struct job job_dir_rtns_1;
extern const struct job job_disk_src;
/* end file.c: AIM7 */
/* disk.c */
extern const struct job job_disk_rr;
extern const struct job job_disk_rw;
extern const struct job job_disk_rd;
extern const struct job job_disk_wrt;
extern const struct job job_disk_cp;
extern const struct job job_disk_brr;
extern const struct job job_disk_brw;
extern const struct job job_disk_brd;
extern const struct job job_disk_bwrt;
extern const struct job job_disk_bcp;
extern const struct job job_sync_disk_rw;
extern const struct job job_sync_disk_wrt;
extern const struct job job_sync_disk_cp;
extern const struct job job_sync_disk_update;
extern const struct job job_disk_dio_rr;
extern const struct job job_disk_dio_rw;
extern const struct job job_disk_dio_rd;
extern const struct job job_disk_dio_wrt;
extern const struct job job_disk_dio_cp;
/* end disk.c */
/* mem.c */
extern const struct job job_brk;
/* mem.c: AIM7 */
extern const struct job job_brk_test;
extern const struct job job_page_test;
extern const struct job job_mem_rtns_1;
extern const struct job job_mem_rtns_2;
extern const struct job job_ram_copy;
/* end mem.c: AIM7 */
/* signal.c */
extern const struct job job_kill;
/* signal.c: AIM7 */
extern const struct job job_signal_test;
extern const struct job job_jmp_test;
/* end signal.c: AIM7 */
/* proc.c */
extern const struct job job_getppid;
/* proc.c: AIM7 */
extern const struct job job_fork_test;
extern const struct job job_exec_test;
extern const struct job job_shell_rtns_1;
extern const struct job job_shell_rtns_2;
extern const struct job job_shell_rtns_3;
/* end proc.c: AIM7 */
/* ipc.c */
extern const struct job job_pipe_cpy;
extern const struct job job_stream_pipe;
extern const struct job job_dgram_pipe;
extern const struct job job_fifo_test;
extern const struct job job_shared_memory;

/*
 * AIM7's pipe, socket-pair, FIFO, TCP and UDP jobs (ipc.c and net.c) run
 * one loop: write a message into their channel, read it back from the
 * other end, next message. The sizes cycle through AIM7's list of 40
 * (1 byte to 4 KiB), which shared_memory's copies follow as well.
 */
#define AIM7_MSG_MAX 4096

struct aim7_msgs {
	uint64_t *progress;	/* ctx->progress: one per message */
	unsigned int next;	/* the next message's place in the cycle */
	bool datagram;		/* a message must come in one read */
	unsigned char buf[AIM7_MSG_MAX];
};

void aim7_msgs_init(struct aim7_msgs *m, const struct job_ctx *ctx,
		    bool datagram);
/* The size of the next message, moving on in the cycle. */
size_t aim7_msg_size(struct aim7_msgs *m);
/* Passes count messages from wfd to rfd; 0 or a positive errno. */
int aim7_msgs_pass(struct aim7_msgs *m, int rfd, int wfd, unsigned int count);
/* end ipc.c */
/* net.c */
extern const struct job job_tcp_test;
extern const struct job job_udp_test;
/* end net.c */
/* compute.c */
extern const struct job job_add_short;
extern const struct job job_add_int;
extern const struct job job_add_long;
extern const struct job job_add_float;
extern const struct job job_add_double;
extern const struct job job_mul_short;
extern const struct job job_mul_int;
extern const struct job job_mul_long;
extern const struct job job_mul_float;
extern const struct job job_mul_double;
extern const struct job job_div_short;
extern const struct job job_div_int;
extern const struct job job_div_long;
extern const struct job job_div_float;
extern const struct job job_div_double;
extern const struct job job_fun_cal;
extern const struct job job_fun_cal1;
extern const struct job job_fun_cal2;
extern const struct job job_fun_cal15;
extern const struct job job_sieve;
extern const struct job job_num_rtns_1;
extern const struct job job_new_raph;
extern const struct job job_trig_rtns;
extern const struct job job_series_1;
extern const struct job job_matrix_rtns;
extern const struct job job_array_rtns;
extern const struct job job_string_rtns;
extern const struct job job_sort_rtns_1;
extern const struct job job_misc_rtns_1;
/* end compute.c */

#endif
