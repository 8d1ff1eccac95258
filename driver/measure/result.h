/* driver/measure/result.h: what one run measured, level by level. */
#ifndef AIMSWEEP_RESULT_H
#define AIMSWEEP_RESULT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/measure/arena.h"
#include "driver/measure/host.h"
#include "driver/base/params.h"
#include "driver/measure/run_record.h"
#include "driver/measure/sysview.h"
#include "driver/base/workfile.h"

#define RESULT_SCHEMA_VERSION 3
/* The oldest version report, compare and plot still read: what they
 * show did not change from 1 to 2. */
#define RESULT_SCHEMA_OLDEST 1
#define REASON_LEN 512

struct job_result {
	const char *name;
	const char *unit;	/* what an inner op is */
	unsigned int weight;
	/* Jobs inside the window: an AIM7 job in flight at t0 or t1 counts
	 * by the share of its inner operations inside it. */
	double ops;
	uint64_t errors;	/* inside the window */
	int last_errno;		/* of the last error, 0 when none */
	unsigned long inner_ops; /* per op, at this level's file size */
	double inner_ops_per_sec;
	bool skipped;		/* the job could not run here */
	/* Latency of the timed ops inside the window, all users merged. */
	bool has_latency;
	uint64_t lat_samples;
	uint64_t lat_min_ns, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns,
		lat_max_ns;
	double lat_mean_ns;
	uint32_t sample_every_max;	/* the longest period a user used */
	uint32_t sample_every_min;
	char skip_reason[USER_REASON_LEN];
	double ops_per_sec;
};

/* Sums over the level's users, of what each used from just before the
 * gate to parking (its own getrusage()). */
struct rusage_sum {
	double utime_s;
	double stime_s;
	uint64_t nvcsw;		/* voluntary context switches */
	uint64_t nivcsw;	/* involuntary context switches */
	uint64_t minflt;
	uint64_t majflt;
	long maxrss_kb;		/* the largest user's */
};

enum level_status {
	LEVEL_OK,
	LEVEL_FAILED,
};

#define LOCK_FRAMES_MAX 16

/* One line of perf lock contention's report: the waits of one call stack
 * that ends in a caller, with that stack as `perf lock contention -v`
 * prints it, innermost frame first. */
struct lock_row {
	uint64_t contended;
	uint64_t total_wait_ns, max_wait_ns, avg_wait_ns;
	/* Of total_wait_ns, the in-kernel collector's waits still going
	 * on at the window's end: in the total, not in the count or the
	 * mean. Not written. */
	uint64_t open_wait_ns;
	unsigned int n_frames;
	char frame[LOCK_FRAMES_MAX][80];	/* "down_write+0x66" */
};

/* One caller's lock contention in a level's --lock-profile (perf lock
 * contention), over the profiled part of the window: every report line
 * of that caller and lock type merged, so that a lock is one entry from
 * level to level. */
struct lock_entry {
	char caller[128];	/* "__x64_sys_unlink+0x3b" */
	char type[32];		/* perf's name: "rwsem:W", "spinlock", ... */
	/* The lock's name when every wait was on one named static lock
	 * (kallsyms resolves its address), else empty. */
	char lock[64];
	uint64_t contended;	/* the rows' sum */
	uint64_t total_wait_ns;	/* the rows' sum */
	uint64_t max_wait_ns;	/* the rows' largest */
	uint64_t avg_wait_ns;	/* total / contended */
	struct lock_row *rows;	/* the report's lines, most total wait first */
	size_t n_rows;
};

/* How a level's lock profile was taken, and what it missed. */
struct lock_capture_info {
	const char *method;	/* "bpf" (in-kernel) or "perf" (perf lock) */
	char why[160];		/* why that method, a short sentence */
	double offset_s;	/* the profile began at t0 + offset_s */
	double covered_s;	/* and covered this long */
	/* The in-kernel collector counts what it could not record; perf
	 * does not, and has_lost is false for it. */
	bool has_lost;
	uint64_t lost_no_begin;	/* an end in the window without a begin */
	uint64_t lost_tasks_full;	/* a begin not stored: task map full */
	uint64_t lost_callers_full;	/* a wait not added: caller map full */
	/* Waits counted under caller "[unknown]" because the stack could
	 * not be taken: counted, not lost. */
	uint64_t stacks_unknown;
};

/* Frees entries[0..n-1] with their rows, and the array. */
void lock_entries_free(struct lock_entry *entries, size_t n);

/* One symbol of a level's --cpu-profile: every line of perf report's that
 * names it, so that a symbol is one entry from level to level. */
struct cpu_symbol {
	char name[128];		/* "osq_lock", or "[unknown]" */
	bool kernel;		/* perf's [k]; else user space, [.] */
	uint64_t samples;
	double share;		/* samples over all of the profile's */
};

/* A level's --cpu-profile (driver/capture/cpu_profile.c). */
struct cpu_profile {
	double offset_s;	/* sampling went on at t0 + offset_s */
	double seconds;		/* for this long */
	/* How long sampling was really on: samples / (Hz x online CPUs),
	 * as every CPU is sampled, idle or not. perf acts on "enable" and
	 * "disable" when it next runs, late on a loaded machine. */
	double sampled_s;
	uint64_t samples;	/* all of them, every symbol's */
	uint64_t lost;		/* samples perf says it lost */
	size_t rows_dropped;	/* report lines that could not be read */
	/* Non-empty: the report made no sense, and symbols is empty. */
	char rejected[160];
	struct cpu_symbol *symbols;	/* the most samples first */
	size_t n_symbols;
	/* perf record's own CPU time from t0 to the level's end, and that
	 * as a share of the window's CPU time (window_s x online CPUs). */
	double profiler_cpu_s;
	double profiler_cpu_pct;
	bool disturbed;		/* see cpu_profile_disturbed() */
};

struct cJSON;

struct level_result {
	unsigned int users;
	enum level_status status;
	char reason[REASON_LEN];	/* why it failed; empty when ok */
	double window_s;		/* t1 - t0, measured */
	double start_s;			/* first fork to all users at the gate */
	double release_s;		/* gate open to the last user through */
	double stop_s;			/* stop flag to the last user parked */
	/* The driver's own cost over the window (getrusage RUSAGE_SELF):
	 * CPU time as a share of one CPU, and its peak resident memory. */
	double driver_cpu_pct;
	long driver_max_rss_kb;
	double ops;			/* all jobs, inside the window */
	uint64_t errors;
	double jobs_per_min;
	double jobs_per_min_per_user;
	/* Per-user jobs/min across the level's users. */
	double user_min, user_p10, user_median, user_p90, user_max;
	double user_stddev, user_cov, jain, jti;
	struct rusage_sum rusage;
	struct job_result *jobs;
	size_t n_jobs;
	/* Throughput sampled every --interval inside the window. */
	struct interval_sample *intervals;
	size_t n_intervals;
	double interval_stddev, interval_cov;	/* of their jobs/min */
	/* The machine over the window (/proc/stat). */
	bool has_cpu;
	struct sysview_delta cpu;
	double run_queue_min, run_queue_mean, run_queue_max;
	/* --cpus: users whose affinity, read back inside them, was the one
	 * CPU they were given. */
	unsigned int users_pinned;
	/* Scaling against the first ok level: per-user throughput ratio. */
	double efficiency;
	/* -r: every repeat's jobs/min; the level's other numbers are those
	 * of the median repeat. */
	double *repeat_jpm;
	size_t n_repeats;
	/* -r: each repeat's ops/s of each job, repeat by repeat
	 * ([k * n_jobs + j], jobs in jobs[] order); NULL when not kept. */
	double *repeat_job_ops;
	/* --lock-profile: the top callers by total wait, most first. */
	bool lock_profiled;
	struct lock_entry *locks;
	size_t n_locks;
	/* Report lines perf could not have measured, left out of locks. */
	size_t locks_dropped;
	struct lock_capture_info lock_info;
	/* --cpu-profile: where the CPUs' time went in a slice of the
	 * window; cpu_prof.symbols is malloc()ed. */
	bool cpu_profiled;
	struct cpu_profile cpu_prof;
	/* --hook: how it ended (hook_signal, else exit hook_status), and
	 * the level directory it wrote hook.out in. */
	bool hook_ran;
	int hook_status;
	int hook_signal;
	char hook_dir[PATH_MAX];
	/*
	 * The keys a capture writes itself (capture_result_object()), each
	 * under a name of its own: result.json gets them as they are,
	 * after the keys above, with no knowledge of the capture. The
	 * level owns the object; NULL when no capture wrote one. Not read
	 * back from result.json.
	 */
	struct cJSON *capture_keys;
};

struct interval_sample {
	double start_s;		/* from t0 */
	double elapsed_s;	/* measured, not assumed */
	double jobs_per_min;
};

enum run_status {
	RUN_RUNNING,		/* written while levels are still to come */
	RUN_COMPLETE,
	RUN_FAILED,		/* finished, but a level failed */
	RUN_INTERRUPTED,	/* a signal ended it; see interrupted_by */
};

struct run_result {
	struct host_info host;
	const struct run_params *params;
	/* The params as result.json records them, made once from the option
	 * table when they were parsed (driver/cli/main.c); NULL: none. */
	const struct cJSON *params_json;
	struct run_record record;
	const struct mix *mix;
	char started_at[40];	/* ISO 8601, local time with offset */
	enum run_status status;
	int interrupted_by;	/* signal number */
	struct level_result *levels;
	size_t n_levels;
	size_t cap_levels;
};

/* Appends a copy of `level` (taking over its arrays and capture keys); 0,
 * or -1 with errno. */
int result_add_level(struct run_result *r, struct level_result *level);
/* Drops the level's arrays and capture keys without freeing them, for a
 * level whose copy owns them now. */
void level_result_forget(struct level_result *level);
void level_result_free(struct level_result *level);
void run_result_free(struct run_result *r);
const char *run_status_name(enum run_status s);

#endif
