/* driver/measure/host.h: what machine and kernel a run measured. */
#ifndef AIMSWEEP_HOST_H
#define AIMSWEEP_HOST_H

#include <stdint.h>

struct host_info {
	char hostname[65];
	char kernel_release[65];
	char kernel_version[65];
	char machine[65];
	char cpu_model[128];
	unsigned int cpus_online;
	uint64_t memory_bytes;
	unsigned int kdamonds;	/* DAMON monitor threads running */
};

void host_probe(struct host_info *h);
/* How many DAMON monitor threads (kdamond) run now, from sysfs. */
unsigned int host_kdamonds(void);

#endif
