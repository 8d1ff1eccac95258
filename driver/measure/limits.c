/* driver/measure/limits.c: whether this machine allows the run's largest level, checked before the first one. */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "driver/measure/arena.h"
#include "driver/measure/host.h"
#include "driver/measure/limits.h"
#include "driver/base/process.h"
#include "driver/base/util.h"

/* Tasks left free for the driver, the shell and whatever else runs. */
#define TASK_MARGIN 64L

/* Mappings left for the driver's own code, heap, arena and libraries. */
#define MAP_MARGIN 1024L

/* Above this many users, a running kdamond is worth a warning. */
#define KDAMOND_WARN_USERS 1000

/* Tasks on the system now, from /proc/loadavg's "running/total" field. */
static long tasks_now(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	long running, total = 0;
	double l1, l5, l15;

	if (!f)
		return 0;
	if (fscanf(f, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &running,
		   &total) != 5)
		total = 0;
	fclose(f);
	return total;
}

/* Whether `users` more tasks fit under the kernel's limit on tasks named
 * kernel.KEY, with `tasks` running: 0, or -1 with the value the level
 * needs in err. */
static int tasks_fit(unsigned int users, const char *key, long tasks,
		     char *err, size_t errlen)
{
	char path[64];
	long limit, need = (long)users + tasks + TASK_MARGIN;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", key);
	limit = process_read_long(path, -1);
	if (limit <= 0 || need <= limit)
		return 0;
	return err_set(err, errlen,
		       "a level of %u users is more than this machine allows: kernel.%s is %ld and %ld tasks exist, leaving %ld; raise it to at least %ld (sysctl -w kernel.%s=%ld)",
		       users, key, limit, tasks, limit - tasks - TASK_MARGIN,
		       need, key, need);
}

/*
 * With --mode thread every user is a thread of one process, which maps
 * for each: the thread's stack and its guard page, and the malloc arena
 * the thread gets of its own (see thread_proc_main()), its heap and the
 * reserved rest of it. vm.max_map_count must hold those four per user,
 * and the process's own mappings besides.
 */
#define MAPS_PER_THREAD 4L
static int maps_fit(const struct run_params *p, unsigned int users,
		    char *err, size_t errlen)
{
	long limit = process_read_long("/proc/sys/vm/max_map_count", -1);
	long need = MAPS_PER_THREAD * users + MAP_MARGIN;

	if (p->mode != MODE_THREAD || limit <= 0 || need <= limit)
		return 0;
	return err_set(err, errlen,
		       "a level of %u users is more than this machine allows in thread mode: vm.max_map_count is %ld mappings and the level needs %ld; raise it to at least %ld (sysctl -w vm.max_map_count=%ld)",
		       users, limit, need, need, need);
}

/*
 * What one user costs the machine's memory, the harness and a light mix
 * together, as `make bench` measures it (MemAvailable before a level of
 * thousands of syscall-mix users, less the lowest while it runs, a
 * user): a process's task, kernel stack and page tables, the pages it
 * copies from the driver and its stack; a thread's stack and task; each
 * user's share of the arena. Jobs that allocate more take it on top; the
 * check refuses only levels that could not even start. Half as much
 * again is kept as a margin.
 */
#define USER_BYTES_PROCESS (180L * 1024)
#define USER_BYTES_THREAD (56L * 1024)

/* MemAvailable from /proc/meminfo, in bytes; -1 when it cannot be read. */
static long long mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

/* Whether a level of `users` fits in the memory available now: 0, or -1
 * with what it needs in err. */
static int memory_fits(const struct run_params *p, unsigned int users,
		       size_t arena_bytes, char *err, size_t errlen)
{
	long long per_user = p->mode == MODE_THREAD ? USER_BYTES_THREAD :
						      USER_BYTES_PROCESS;
	long long avail = mem_available();
	long long need = (long long)users * per_user * 3 / 2 +
			 (long long)arena_bytes;

	if (avail < 0 || need <= avail)
		return 0;
	return err_set(err, errlen,
		       "a level of %u users needs about %lld MiB of memory (%lld KiB a user in %s mode and half as much again as a margin, and %zu MiB of counters) and %lld MiB is available (MemAvailable in /proc/meminfo); free memory or run fewer users",
		       users, need >> 20, per_user >> 10,
		       p->mode == MODE_THREAD ? "thread" : "process",
		       arena_bytes >> 20, avail >> 20);
}

int limits_check(const struct run_params *p, size_t n_entries,
		 size_t loop_bytes, char *err, size_t errlen)
{
	size_t arena_bytes;
	unsigned int max = params_max_users(p), procs, kdamonds;
	long tasks = tasks_now();
	struct rlimit rl;

	if (tasks_fit(max, "pid_max", tasks, err, errlen) ||
	    tasks_fit(max, "threads-max", tasks, err, errlen) ||
	    maps_fit(p, max, err, errlen))
		return -1;
	/* RLIMIT_NPROC counts every process of the user, the driver and, in
	 * process mode, the spawner among them; root is exempt. */
	procs = max + (p->mode == MODE_THREAD ? 1 : 2);
	if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && (rlim_t)procs > rl.rlim_cur)
		return err_set(err, errlen,
			       "a level of %u users is more than this machine allows: RLIMIT_NPROC (ulimit -u) is %llu processes; raise it to at least %u (ulimit -u %u)",
			       max, (unsigned long long)rl.rlim_cur, procs,
			       procs);
	arena_bytes = arena_size_for(max, n_entries, loop_bytes, p->latency);
	if (arena_bytes > SIZE_MAX / 4)
		return err_set(err, errlen,
			       "a level of %u users needs more counter memory than this machine can map",
			       max);
	if (memory_fits(p, max, arena_bytes, err, errlen))
		return -1;
	/* Not a limit, but it can stall such a level: see host_kdamonds(). */
	if (max > KDAMOND_WARN_USERS && (kdamonds = host_kdamonds()))
		msg_warn("DAMON is monitoring this machine's memory (%u kdamond thread%s): "
			 "its reverse-map walks hold locks that the %u users take to "
			 "fork and exit, which slows the start and end of a level "
			 "that large, as it would for any program (see SCHEDULING "
			 "in aimsweep(1)); host.kdamonds in result.json records it",
			 kdamonds, kdamonds == 1 ? "" : "s", max);
	return 0;
}
