/* driver/measure/sysview.h: the machine's CPU split, context switches and run queue from /proc/stat. */
#ifndef AIMSWEEP_SYSVIEW_H
#define AIMSWEEP_SYSVIEW_H

#include <stdbool.h>
#include <stdint.h>

enum {
	CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT, CPU_IRQ,
	CPU_SOFTIRQ, CPU_STEAL, CPU_FIELDS,
};

/* One reading of /proc/stat. */
struct sysview {
	uint64_t cpu[CPU_FIELDS];	/* all CPUs, in clock ticks */
	uint64_t ctxt;			/* context switches since boot */
	unsigned int procs_running;	/* runnable tasks now */
	bool valid;
};

/* What the machine did between two readings. */
struct sysview_delta {
	double pct[CPU_FIELDS];		/* share of all CPU time, % */
	uint64_t context_switches;
};

extern const char *const cpu_field_names[CPU_FIELDS];

/* Reads /proc/stat; v->valid is false where it cannot be read. */
void sysview_read(struct sysview *v);
/* b minus a; false when either reading is missing. */
bool sysview_delta(const struct sysview *a, const struct sysview *b,
		   struct sysview_delta *d);

#endif
