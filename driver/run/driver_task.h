/* driver/run/driver_task.h: the driver's own task before the first level: its signals, its priority, its clock. */
#ifndef AIMSWEEP_DRIVER_TASK_H
#define AIMSWEEP_DRIVER_TASK_H

#include <stdint.h>

#include "driver/measure/run_record.h"

/* SIGINT, SIGTERM, SIGHUP and SIGQUIT set run_interrupted and cut the
 * driver's sleeps short; SIGPIPE is ignored. */
void driver_task_signals(void);

/* Real-time priority where the driver may take it; rec->driver_sched says
 * which it got. */
void driver_task_priority(struct run_record *rec);

/* What timing an op costs here, in ns: a typical pair of clock reads. */
uint64_t driver_task_timer_cost_ns(void);

#endif
