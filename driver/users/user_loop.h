/* driver/users/user_loop.h: how the pool starts a user: as a process, or as a thread of the thread process. */
#ifndef AIMSWEEP_USER_LOOP_H
#define AIMSWEEP_USER_LOOP_H

#include <stdint.h>

#include "driver/users/users.h"

/*
 * What a process that forks users sets up once, for each user to inherit
 * (aimsweep-users does it before its first fork, the thread process for
 * its threads): the users' process group, terminal signals and SIGPIPE
 * ignored, SIGCHLD as the default. Each fork then saves the system calls,
 * and the page faults into the C library's code that a new process's
 * first call of each takes.
 */
void users_inherited_setup(struct user_pool *pool);

/* In a child the spawner just forked: becomes user `user`, which joins the
 * first level called after generation gen_seen and serves every level
 * that calls it until the driver says quit. */
void user_process_main(struct user_pool *pool, unsigned int user,
		       uint32_t gen_seen) __attribute__((noreturn));

/*
 * Thread mode: in a child the pool just forked, the one process that
 * holds every user as a thread, so that users share one address space
 * (brk and mmap contend on its lock). It starts the threads each level
 * after gen_seen needs, as the pool forks processes in process mode; a
 * thread that fails ends itself and is started anew for the next level.
 */
void thread_proc_main(struct user_pool *pool, uint32_t gen_seen)
	__attribute__((noreturn));

#endif
