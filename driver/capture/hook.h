/* driver/capture/hook.h: --hook: the user's command, run during each level's steady state. */
#ifndef AIMSWEEP_HOOK_H
#define AIMSWEEP_HOOK_H

#include "driver/capture/capture.h"

/*
 * At t0: starts `/bin/sh -c HOOK` with the level in its environment
 * (AIMSWEEP_USERS, AIMSWEEP_LEVEL, AIMSWEEP_RUNTIME, AIMSWEEP_LEVEL_DIR)
 * and its output appended to the level's hook.out. At the level's end it
 * is ended if it still runs (SIGTERM, then SIGKILL), and how it ended is
 * recorded in the level, with a warning when it failed by itself.
 */
extern const struct capture_ops hook_capture;

#endif
