/* driver/measure/sysview.c: the machine's CPU split, context switches and run queue from /proc/stat. */
#include <stdio.h>
#include <string.h>

#include "driver/measure/sysview.h"

const char *const cpu_field_names[CPU_FIELDS] = {
	"user", "nice", "sys", "idle", "iowait", "irq", "softirq", "steal",
};

void sysview_read(struct sysview *v)
{
	char line[512];
	FILE *f = fopen("/proc/stat", "re");
	int cpu_fields = 0;

	memset(v, 0, sizeof(*v));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long c[CPU_FIELDS] = { 0 }, n;

		if (!strncmp(line, "cpu ", 4)) {
			cpu_fields = sscanf(line + 4,
					    "%llu %llu %llu %llu %llu %llu %llu %llu",
					    &c[0], &c[1], &c[2], &c[3], &c[4],
					    &c[5], &c[6], &c[7]);
			for (int i = 0; i < CPU_FIELDS; i++)
				v->cpu[i] = c[i];
		} else if (sscanf(line, "ctxt %llu", &n) == 1) {
			v->ctxt = n;
		} else if (sscanf(line, "procs_running %llu", &n) == 1) {
			v->procs_running = (unsigned int)n;
		}
	}
	fclose(f);
	/* Kernels older than 2.6.11 have no steal field; 4 is the least. */
	v->valid = cpu_fields >= 4;
}

bool sysview_delta(const struct sysview *a, const struct sysview *b,
		   struct sysview_delta *d)
{
	uint64_t total = 0;

	memset(d, 0, sizeof(*d));
	if (!a->valid || !b->valid)
		return false;
	for (int i = 0; i < CPU_FIELDS; i++)
		total += b->cpu[i] - a->cpu[i];
	for (int i = 0; i < CPU_FIELDS && total; i++)
		d->pct[i] = 100.0 * (double)(b->cpu[i] - a->cpu[i]) /
			    (double)total;
	d->context_switches = b->ctxt - a->ctxt;
	return true;
}
