/* driver/run/window.h: a level's measured window, t0 to t1, sampled every --interval. */
#ifndef AIMSWEEP_WINDOW_H
#define AIMSWEEP_WINDOW_H

#include <stdbool.h>
#include <sys/resource.h>

#include "driver/measure/result.h"
#include "driver/measure/sysview.h"
#include "driver/run/sweep.h"
#include "driver/users/pool.h"

/* The machine and the driver itself at t0. */
struct window_start {
	struct sysview sys;
	struct rusage self;
};

/* t0: the machine's and the driver's counters, then the users'. */
void window_open(struct sweep *s, const struct level_run *lr,
		 unsigned int users, struct window_start *w);

/*
 * The window, from t0 to t1 = t0 + runtime: every --interval the parent
 * adds up the counters and notes the elapsed time it really measured, and
 * samples the run queue, and looks at the users; the last sample is the
 * t1 snapshot. Returns false when a signal cut it short or a user failed.
 */
bool window_sample(struct sweep *s, struct level_run *lr, unsigned int users,
		   struct level_result *level, const char *tag);

/* After the window (window_sample()'s `ok`): latency stops, and a whole
 * window gets the machine's CPU and the driver's own cost. Returns ok. */
bool window_close(struct sweep *s, struct level_result *level,
		  const struct window_start *w, bool ok);

#endif
