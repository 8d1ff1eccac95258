/* driver/measure/limits.h: whether this machine allows the run's largest level, checked before the first one. */
#ifndef AIMSWEEP_LIMITS_H
#define AIMSWEEP_LIMITS_H

#include <stddef.h>

#include "driver/base/params.h"

/* The run's largest level, in users: what the limits are checked for,
 * and what the counters and the users' pool are sized for. */

/* Checks the levels against what this machine allows (kernel.pid_max,
 * kernel.threads-max, RLIMIT_NPROC, vm.max_map_count in thread mode, the
 * counters' memory), for a mix of n_entries whose users keep loop_bytes
 * each in the arena. 0 when every level can run, with a warning printed
 * when one can stall; -1 with the limit and how to raise it in err when
 * one cannot. */
int limits_check(const struct run_params *p, size_t n_entries,
		 size_t loop_bytes, char *err, size_t errlen);

#endif
