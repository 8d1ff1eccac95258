/* driver/measure/run_record.h: what a run measured about the machine and the driver itself, apart from the options it was given. */
#ifndef AIMSWEEP_RUN_RECORD_H
#define AIMSWEEP_RUN_RECORD_H

#include <stdint.h>

/*
 * The options (struct run_params) are fixed once parsed; what the run
 * learns as it starts goes here, and result.json records it beside the
 * options, in params (driver/output/result_write.c).
 */
struct run_record {
	/* What timing one op costs: two clock reads. Users choose their
	 * latency sampling period from it. */
	uint64_t timer_ns;
	/* How the driver came to be scheduled; NULL until it knows. */
	const char *driver_sched;
};

#endif
