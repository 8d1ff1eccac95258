/* driver/host.c: reads the machine's identity from uname and /proc. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "driver/host.h"

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], *colon;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			break;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

void host_probe(struct host_info *h)
{
	struct utsname u;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0) {
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
		snprintf(h->kernel_release, sizeof(h->kernel_release), "%s",
			 u.release);
		snprintf(h->kernel_version, sizeof(h->kernel_version), "%s",
			 u.version);
		snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
	}
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->cpus_online = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (pages > 0 && page > 0)
		h->memory_bytes = (uint64_t)pages * (uint64_t)page;
}
