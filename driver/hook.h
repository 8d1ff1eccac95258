/* driver/hook.h: --hook: the user's command, run during each level's steady state. */
#ifndef AIMSWEEP_HOOK_H
#define AIMSWEEP_HOOK_H

#include "driver/result.h"

struct level_capture;

/* At t0: starts `/bin/sh -c HOOK` with the level in its environment
 * (AIMSWEEP_USERS, AIMSWEEP_LEVEL, AIMSWEEP_RUNTIME, AIMSWEEP_LEVEL_DIR)
 * and its output appended to c->dir/hook.out. */
void hook_start(struct level_capture *c);

/* At the level's end: ends the hook if it still runs (SIGTERM, then
 * SIGKILL) and records how it ended in the level; warns when it failed
 * by itself. */
void hook_finish(struct level_capture *c, struct level_result *level);

/* Ends the hook at once, for an interrupted level. */
void hook_abort(struct level_capture *c);

#endif
