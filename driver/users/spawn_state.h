/* driver/users/spawn_state.h: what a process-mode user needs of the driver's run, written by the driver and read back by the users' program. */
#ifndef AIMSWEEP_SPAWN_STATE_H
#define AIMSWEEP_SPAWN_STATE_H

#include <stddef.h>

#include "driver/measure/arena.h"
#include "driver/base/params.h"
#include "driver/users/users.h"
#include "driver/base/workfile.h"

/*
 * The users of process mode are forks of aimsweep-users, a program of
 * their own, not of the driver (see driver/users/spawner.c for why). They read
 * from the driver's state only what this image holds: the arena's
 * layout, the mix, the few run parameters a user acts on, and its
 * scratch directories. A field a user comes to read must be added here,
 * on both sides; tests/unit_spawn_state.c holds the two to each other.
 */
struct spawn_image {
	struct user_pool pool;
	struct arena arena;	/* layout only: base, hdr and fd are unset */
	struct mix mix;		/* entries[] and the sizes; no path or name */
	struct run_params params; /* seed, latency, timer_ns, test_fault,
				   * libexec_dir, cpus[] */
	const char *run_dirs[MAX_SCRATCH_DIRS];
	const char *shared_dirs[MAX_SCRATCH_DIRS];
};

/* Bytes spawn_state_write() needs for the pool's run. */
size_t spawn_state_size(const struct user_pool *pool);
/* Writes the pool's run into buf, of spawn_state_size() bytes. */
void spawn_state_write(const struct user_pool *pool, void *buf);
/* Reads buf[len] into img, copying what it points to; 0, or -1 with
 * err[errlen] saying what is wrong. Free with spawn_image_free(). */
int spawn_state_read(const void *buf, size_t len, struct spawn_image *img,
		     char *err, size_t errlen);
void spawn_image_free(struct spawn_image *img);

#endif
