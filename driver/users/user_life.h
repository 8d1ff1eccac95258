/* driver/users/user_life.h: a user's life between levels, as a process forked by aimsweep-users or as a thread of the thread process. */
#ifndef AIMSWEEP_USER_LIFE_H
#define AIMSWEEP_USER_LIFE_H

#include <stdint.h>
#include <sys/types.h>

#include "driver/users/user_ctx.h"

/*
 * What a process that forks users sets up once, for each user to inherit
 * (aimsweep-users does it before its first fork, the thread process for
 * its threads): the users' process group pgid (0: a new one), terminal
 * signals and SIGPIPE ignored, SIGCHLD as the default. Each fork then
 * saves the system calls, and the page faults into the C library's code
 * that a new process's first call of each takes.
 */
void users_inherited_setup(pid_t pgid);

/* In a child the spawner just forked: becomes user `user`, which joins the
 * first level called after generation gen_seen and serves every level
 * that calls it until the driver says quit. */
void user_process_main(const struct user_ctx *ctx, unsigned int user,
		       uint32_t gen_seen) __attribute__((noreturn));

/*
 * Thread mode: in a child the pool just forked, the one process that
 * holds every user as a thread, so that users share one address space
 * (brk and mmap contend on its lock). It joins the users' group pgid,
 * and starts the threads each level after gen_seen needs, as the pool
 * forks processes in process mode; a thread that fails ends itself and
 * is started anew for the next level.
 */
void thread_proc_main(const struct user_ctx *ctx, pid_t pgid,
		      uint32_t gen_seen) __attribute__((noreturn));

#endif
