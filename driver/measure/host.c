/* driver/measure/host.c: reads the machine's identity from uname and /proc. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "driver/measure/host.h"
#include "driver/base/process.h"

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

/* The first word of a one-line sysfs file, or "" when it cannot be read. */
static void read_sysfs_word(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, " \n")] = '\0';
	fclose(f);
}

/*
 * DAMON's kdamond threads, started from its sysfs interface or by the
 * damon_reclaim, damon_lru_sort and damon_stat modules. With
 * physical-address monitoring they walk the reverse maps of pages that
 * every user maps (the program's and libc's text, the arena's header,
 * the spawner's data) under the locks that fork, stack growth
 * and exit take, and thousands of users then wait on them. Read from sysfs,
 * a few small files, not from every process.
 */
unsigned int host_kdamonds(void)
{
	static const char *const modules[] = {
		"damon_reclaim", "damon_lru_sort", "damon_stat",
	};
	const char *admin = "/sys/kernel/mm/damon/admin/kdamonds";
	char path[128], word[16];
	unsigned int n = 0;
	long admin_n;

	snprintf(path, sizeof(path), "%s/nr_kdamonds", admin);
	admin_n = process_read_long(path, 0);
	for (long i = 0; i < admin_n && i < 64; i++) {
		snprintf(path, sizeof(path), "%s/%ld/state", admin, i);
		read_sysfs_word(path, word, sizeof(word));
		n += !strcmp(word, "on");
	}
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		snprintf(path, sizeof(path),
			 "/sys/module/%s/parameters/enabled", modules[i]);
		read_sysfs_word(path, word, sizeof(word));
		n += !strcmp(word, "Y");
	}
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
