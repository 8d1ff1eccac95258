/* driver/host.c: reads the machine's identity from uname and /proc. */
#include <dirent.h>
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

/*
 * DAMON's kdamond threads, started by its sysfs interface or by the
 * damon_reclaim and damon_lru_sort modules alike, are found by name. With
 * physical-address monitoring they walk the reverse map of anonymous
 * pages, under the lock that every process forked from one parent
 * shares; thousands of users then wait on it to fork, grow a stack or
 * exit.
 */
unsigned int host_kdamonds(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[64], comm[32];
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kdamond", 7))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
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
	h->kdamonds = host_kdamonds();
}
