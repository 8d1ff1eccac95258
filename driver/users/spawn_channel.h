/* driver/users/spawn_channel.h: the memory the driver and its spawner (aimsweep-users) share, and no user. */
#ifndef AIMSWEEP_SPAWN_CHANNEL_H
#define AIMSWEEP_SPAWN_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The program process-mode users are forks of, beside aimsweep-exec-child. */
#define USERS_PROGRAM_NAME "aimsweep-users"

/*
 * The tail of the arena's file, past the arena, page-aligned: the driver
 * maps it, and so does the spawner, which marks it MADV_DONTFORK, so
 * that no user has it. It holds the channel below, then
 * pids[max_users], then the run's state (driver/users/spawn_state.h) at
 * state_offset.
 *
 * Start-up: the spawner reads the state, sets itself up and sets `ready`
 * to 1, or sets `start_err` to the errno of what failed (its exec among
 * them) and exits.
 *
 * Then one request at a time, for users first..first+count-1 to join the
 * levels after gen_seen. The spawner writes each one's pid, then
 * `forked`; when it is done, or told to stop, or a fork failed (err), it
 * sets `done` to the request's number.
 */
struct spawn_channel {
	uint32_t ready;
	int32_t start_err;
	uint64_t state_offset;
	uint64_t state_bytes;
	uint32_t req;		/* bumped by the driver for each request */
	uint32_t quit;		/* 1: the spawner exits */
	uint32_t stop;		/* 1: it forks no more users of this request */
	uint32_t first;
	uint32_t count;
	uint32_t gen_seen;
	uint32_t forked;	/* of this request, so far */
	int32_t err;		/* errno of the fork that failed, or 0 */
	uint32_t done;		/* == req once the spawner has answered */
	pid_t pids[];		/* [max_users], by user */
};

/* Where the state begins for max_users users. */
static inline size_t spawn_channel_state_offset(unsigned int max_users)
{
	size_t end = sizeof(struct spawn_channel) +
		     (size_t)max_users * sizeof(pid_t);

	return (end + 7) / 8 * 8;
}

#endif
