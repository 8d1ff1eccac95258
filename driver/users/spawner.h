/* driver/users/spawner.h: the small process that forks the users of process mode for the driver. */
#ifndef AIMSWEEP_SPAWNER_H
#define AIMSWEEP_SPAWNER_H

#include <stdint.h>
#include <sys/types.h>

struct user_pool;

struct spawn_channel;

/* The driver's handle on its spawner; pid 0: none runs. */
struct spawner {
	pid_t pid;
	struct spawn_channel *ch;	/* shared with the spawner alone */
	size_t ch_bytes;
};

/*
 * Starts the spawner, aimsweep-users from pool->ctx.libexec_dir, the
 * leader of the users' process group, and waits until it is ready;
 * pool->spawner and pool->pgid are set. 0, or -1 with what failed in err
 * and errno the cause, for a caller that tells a limit from a failure:
 * EMFILE when the descriptor limit leaves it none to start with, ECHILD
 * when it ended without saying why (its message is on standard error).
 */
int spawner_start(struct user_pool *pool, char *err, size_t errlen);

/*
 * Has the spawner fork users first..first+count-1 of a level of `users`,
 * each joining the levels after gen_seen, and sets pool->pids[] of those
 * it forked. 0 when all were forked; -1 with why in err when a fork
 * failed (which user, the errno text and RLIMIT_NPROC), when the spawner
 * is gone or stuck, or when the run was interrupted.
 */
int spawner_fork(struct user_pool *pool, unsigned int first,
		 unsigned int count, unsigned int users, uint32_t gen_seen,
		 char *err, size_t errlen);

/* Lets go of a spawner that has been reaped. */
void spawner_forget(struct spawner *sp);

/* Tells the spawner to exit and reaps it by deadline_ns, SIGKILLing it
 * if it is not gone by then. */
void spawner_stop(struct spawner *sp, uint64_t deadline_ns);

#endif
