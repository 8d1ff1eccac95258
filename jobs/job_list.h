/* jobs/job_list.h: every job aimsweep can run, one line each, in order. */

/*
 * JOB(id) stands for the row `const struct job job_<id>` that the job's
 * family file defines. Whoever includes this file defines JOB first:
 * catalog.h declares the rows, catalog.c lists them in job_table[]. The
 * order here is the table's, which `aimsweep list` prints. Adding a job is
 * its functions and row in its family file plus one line here.
 *
 * No include guard: each inclusion expands the list once more.
 */

/* aimsweep's own micro jobs, the core of the mission. */
JOB(creat)
JOB(unlink)
JOB(close)
JOB(brk)
JOB(kill)
JOB(getppid)

/* The AIM7 catalog, by family: file.c */
JOB(creat_clo)
JOB(link_test)
JOB(dir_rtns_1)
JOB(disk_src)
/* disk.c */
JOB(disk_rr)
JOB(disk_rw)
JOB(disk_rd)
JOB(disk_wrt)
JOB(disk_cp)
JOB(disk_brr)
JOB(disk_brw)
JOB(disk_brd)
JOB(disk_bwrt)
JOB(disk_bcp)
JOB(sync_disk_rw)
JOB(sync_disk_wrt)
JOB(sync_disk_cp)
JOB(sync_disk_update)
JOB(disk_dio_rr)
JOB(disk_dio_rw)
JOB(disk_dio_rd)
JOB(disk_dio_wrt)
JOB(disk_dio_cp)
/* mem.c */
JOB(brk_test)
JOB(page_test)
JOB(mem_rtns_1)
JOB(mem_rtns_2)
JOB(ram_copy)
/* signal.c */
JOB(signal_test)
JOB(jmp_test)
/* proc.c */
JOB(fork_test)
JOB(exec_test)
JOB(shell_rtns_1)
JOB(shell_rtns_2)
JOB(shell_rtns_3)
/* ipc.c */
JOB(pipe_cpy)
JOB(stream_pipe)
JOB(dgram_pipe)
JOB(fifo_test)
JOB(shared_memory)
/* net.c */
JOB(tcp_test)
JOB(udp_test)
/* compute.c */
JOB(add_short)
JOB(add_int)
JOB(add_long)
JOB(add_float)
JOB(add_double)
JOB(mul_short)
JOB(mul_int)
JOB(mul_long)
JOB(mul_float)
JOB(mul_double)
JOB(div_short)
JOB(div_int)
JOB(div_long)
JOB(div_float)
JOB(div_double)
JOB(fun_cal)
JOB(fun_cal1)
JOB(fun_cal2)
JOB(fun_cal15)
JOB(sieve)
JOB(num_rtns_1)
JOB(new_raph)
JOB(trig_rtns)
JOB(series_1)
JOB(matrix_rtns)
JOB(array_rtns)
JOB(string_rtns)
JOB(sort_rtns_1)
JOB(misc_rtns_1)
