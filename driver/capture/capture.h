/* driver/capture/capture.h: a level's captures in its steady state, each an ops table, and the steps that run them all in order. */
#ifndef AIMSWEEP_CAPTURE_H
#define AIMSWEEP_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/base/params.h"
#include "driver/measure/result.h"

struct capture_run;

/*
 * What every capture of a level shares. run/level.c keeps it zeroed until
 * capture_prepare(); zeroed, it means "nothing started", so
 * capture_finish() and capture_abort() are always safe.
 */
struct level_capture {
	const struct run_params *params;	/* NULL: nothing to capture */
	unsigned int users;
	size_t level_index;	/* 0-based */
	char dir[PATH_MAX];	/* the level's directory, absolute */
	uint64_t t0_ns;		/* the window's start, CLOCK_MONOTONIC */
	uint64_t t1_ns;		/* its end; 0 until capture_stop() */
	/*
	 * From t0, where the slices of the profiles before this one in
	 * capture.c's table end: a profile that is on for a slice of the
	 * window takes its slice after theirs, in prepare, and moves this
	 * to its own slice's end.
	 */
	double slices_end_s;
	char error[REASON_LEN];	/* the first failure; it fails the level */
	/* capture.c's own: the run's captures, and each one's state for
	 * the level, in table order; NULL for one not asked for, or not
	 * prepared because one before it failed. */
	struct capture_run *run;
	void **states;
	bool started;		/* capture_start() ran */
};

/*
 * One kind of capture, like fio's ioengine_ops: capture.c calls its steps
 * for every level that wanted() it. A step it does not need is NULL.
 * Steps that run during or after the window record a failure with
 * capture_error(); it fails the level at capture_finish().
 */
struct capture_ops {
	const char *name;	/* "cpu-profile", "lock-profile", "hook" */
	/* Bytes of the capture's own state for one level, zeroed before
	 * prepare and freed after write or abort. */
	size_t level_size;
	bool (*wanted)(const struct run_params *p);
	/*
	 * Once before the first level. -1 refuses the run (exit 2) with
	 * what failed and how to fix it in err. *run may keep what the run
	 * learnt (which method the capture chose, and why), for every
	 * prepare and for release at the run's end.
	 */
	int (*check)(const struct run_params *p, void **run, char *err,
		     size_t errlen);
	/* Users wait at the gate: starts what must run before t0. run is
	 * what check kept (keep it in st for later steps). -1 with the
	 * reason in c->error: the level fails with it, and write or abort
	 * still follows. */
	int (*prepare)(struct level_capture *c, void *run, void *st);
	/* At t0 (c->t0_ns). */
	void (*start)(struct level_capture *c, void *st);
	/* At t1 (c->t1_ns), after the machine's counters at t1 are read;
	 * only for a window that reached t1. */
	void (*stop)(struct level_capture *c, void *st);
	/* After the users parked and the level's status is settled: ends
	 * what runs and reads the results into level; a capture's own
	 * result.json keys go into capture_result_object(). */
	void (*write)(struct level_capture *c, void *st,
		      struct level_result *level);
	/* Instead of write (or after it, when a signal came during it):
	 * kills and reaps what runs, removes what is no result. */
	void (*abort)(struct level_capture *c, void *st);
	/* At the run's end, what check kept. */
	void (*release)(void *run);
};

/* True when the run asked for any per-level capture. */
bool capture_wanted(const struct run_params *p);

/* Records a failure of c's capture; the first one is kept, as later ones
 * are usually its consequences. It fails the level at capture_finish(). */
void capture_error(struct level_capture *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Opens c->dir/name for the output of one of the capture's children,
 * appended to or truncated, with its path in path[len]; when it cannot,
 * records "WHAT: cannot create PATH: ERROR" and returns -1. */
int capture_output_file(struct level_capture *c, const char *what,
			const char *name, bool append, char *path, size_t len);

/*
 * For a capture's write: a new empty object under `key` among the
 * level's capture keys (level->capture_keys, made when first needed),
 * for the capture to fill. result.json gets it as it is, as the level's
 * key `key`: a name of the capture's own, in results/SCHEMA.md, that no
 * other key of a level has. NULL when key is taken already or memory is
 * short, recorded with capture_error() (the level fails).
 */
struct cJSON *capture_result_object(struct level_capture *c,
				    struct level_result *level,
				    const char *key);

/*
 * Once before the first level, when capture_wanted(): each capture asked
 * for proves that it can work here, the way levels will. 0 with the run's
 * captures in *run, or -1 with what failed and how to fix it in err.
 */
int capture_check(const struct run_params *p, struct capture_run **run,
		  char *err, size_t errlen);

/* At the run's end: releases what the checks kept. NULL is fine. */
void capture_run_free(struct capture_run *run);

/*
 * Called while the level's users wait at the gate (after
 * pool_wait_ready(), before pool_release()). Makes level_dir (0755) and
 * prepares each capture in order. Does nothing when run is NULL (no
 * capture was asked for). -1 with the reason in err: the level fails with
 * it; call capture_abort() or capture_finish() anyway.
 */
int capture_prepare(struct level_capture *c, struct capture_run *run,
		    unsigned int users, size_t level_index,
		    const char *level_dir, char *err, size_t errlen);

/* Right after the t0 snapshot, which was taken at t0_ns. */
void capture_start(struct level_capture *c, uint64_t t0_ns);

/* Right after the window's end was read, at t1_ns (the t1 snapshot): only
 * for a window that reached it. */
void capture_stop(struct level_capture *c, uint64_t t1_ns);

/*
 * After pool_level_end() and after the level's status is settled (the
 * collector has run): ends everything the captures started and reads
 * their results into level. A capture that failed turns an ok level into
 * a failed one, with the reason.
 */
void capture_finish(struct level_capture *c, struct level_result *level);

/* Instead of capture_finish(), for an interrupted level: kills and reaps
 * every process the captures started and removes their profiles. */
void capture_abort(struct level_capture *c);

#endif
