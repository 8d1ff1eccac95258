/* driver/users/spawn_state.h: what a process-mode user needs of the driver's run, written by the driver and read back by the users' program. */
#ifndef AIMSWEEP_SPAWN_STATE_H
#define AIMSWEEP_SPAWN_STATE_H

#include <stddef.h>

#include "driver/measure/arena.h"
#include "driver/users/user_ctx.h"
#include "driver/base/workfile.h"

/*
 * The users of process mode are forks of aimsweep-users, a program of
 * their own, not of the driver (see driver/users/spawner.c for why). They
 * read from the driver's state only what this image holds: a user's
 * context (driver/users/user_ctx.h), with the arena's layout, the mix,
 * the CPUs and the scratch directories it points to. A field a user
 * comes to read is added to struct user_ctx and to both sides here;
 * tests/unit_spawn_state.c holds the two to each other.
 */
struct spawn_image {
	struct user_ctx ctx;	/* points into the fields below */
	struct arena arena;	/* layout only: base, hdr and fd are unset */
	struct mix mix;		/* entries[] and the sizes; no path or name */
	int *cpus;		/* [ctx.n_cpus] */
	char **run_dirs;	/* [ctx.n_dirs] */
	char **shared_dirs;	/* [ctx.n_dirs], or NULL */
	char *libexec_dir;
	char *test_fault;
};

/* Bytes spawn_state_write() needs for ctx. */
size_t spawn_state_size(const struct user_ctx *ctx);
/* Writes ctx, and what it points to, into buf, of spawn_state_size()
 * bytes. */
void spawn_state_write(const struct user_ctx *ctx, void *buf);
/* Reads buf[len] into img, copying what it points to; 0, or -1 with
 * err[errlen] saying what is wrong. Free with spawn_image_free(). */
int spawn_state_read(const void *buf, size_t len, struct spawn_image *img,
		     char *err, size_t errlen);
void spawn_image_free(struct spawn_image *img);

#endif
