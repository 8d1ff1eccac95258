/* jobs/job.h: what a job is, what it gets from its user, and the job table. */
#ifndef AIMSWEEP_JOB_H
#define AIMSWEEP_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* init() returns this (instead of 0 or an errno) when the job cannot run
 * here for a reason that is not a failure, e.g. O_DIRECT refused by the
 * filesystem. The reason goes into ctx->reason. */
#define JOB_SKIPPED (-1)

/* The small program exec_test runs; built and installed with aimsweep. */
#define EXEC_CHILD_NAME "aimsweep-exec-child"

/* SysV IPC objects a job creates; see job_ctx.sysv_ids. */
enum job_sysv_kind {
	JOB_SYSV_SHM = 1,
	JOB_SYSV_SEM = 2,
	JOB_SYSV_MSG = 3,
};

#define JOB_SYSV_MAX 4

/* What a user hands to each job's init(): who it is and where to work. */
struct job_ctx {
	unsigned int user;	/* 0-based index of the user in its level */
	unsigned int users;	/* number of users in the level */
	const char *dir;	/* this user's file directory (may be shared) */
	const char *run_dir;	/* the run's private scratch directory */
	const char *libexec_dir; /* where EXEC_CHILD_NAME is (exec_test) */
	uint64_t file_size;	/* AIM7 FILESIZE + POOLSIZE / users, bytes */
	uint64_t seed;		/* per-user seed for anything random */
	bool threaded;		/* users are threads of one process */
	char *reason;		/* init() explains a failure or a skip here */
	size_t reason_len;
	/* Where job_register_sysv() records IPC objects, so that the driver
	 * removes them even when the user is killed before its fini(). */
	int32_t *sysv_ids;	/* [JOB_SYSV_MAX], id + 1, 0 when free */
	uint8_t *sysv_kinds;	/* [JOB_SYSV_MAX], enum job_sysv_kind */
	/* Where job_pending_sysv() records the key of an object the job is
	 * about to create, which covers a user killed before it registers
	 * the object's id. */
	int32_t *sysv_pending_key;	/* 0 (IPC_PRIVATE) when none */
	uint8_t *sysv_pending_kind;	/* enum job_sysv_kind */
	/* Where an AIM7 job counts its inner operations as it does them;
	 * see job_progress(). Never NULL. */
	uint64_t *progress;
};

/*
 * The two families of jobs, by what one op is. An AIM7 job's op is the
 * work of one AIM7 job (its repetition counts, syscall sequence, block
 * size and file size), so that jobs/min compares with AIM7 and reaim. A
 * micro job's op is one operation, aimsweep's own, held against a bare
 * loop of it.
 */
enum job_units {
	JOB_UNITS_MICRO = 0,
	JOB_UNITS_AIM7,
};

/* One syscall that one op makes, and how many times: per_op times, plus
 * per_inner times for each of the op's inner operations. */
struct job_syscall {
	const char *name;
	unsigned int per_op;
	unsigned int per_inner;
};

/*
 * One row of the job table. run() is one op: one invocation of the test as
 * AIM7 counts it, made of inner_ops operations of the kind `unit` names.
 * prepare(), when present, is the part of an op that is not the operation
 * itself (opening the descriptor a close op closes); the user calls it
 * right before run() and latency timing leaves it out. Throughput counts
 * whole ops, prepare included; `setup` says what it does.
 */
struct job {
	const char *name;
	/* AIM7 1.1's name for the test where reaim renamed it (creat-clo),
	 * or NULL: workfiles written for AIM7 1.1, as LKP's are, run as
	 * they are, and results record the job under `name`. */
	const char *aim7_name;
	const char *family;	/* file, disk, mem, signal, proc, ipc, net, compute */
	enum job_units units;
	/* Makes files in ctx->dir, which the user then creates before
	 * init(); a mix without such a job makes no per-user directory. */
	bool uses_dir;
	const char *unit;	/* what one inner op is, as AIM9 printed it */
	unsigned int inner_ops;	/* inner ops per op, unless inner_ops_for */
	/* When an op's size depends on the level (the disk jobs move the
	 * whole per-user file), its inner ops for that file size. */
	unsigned long (*inner_ops_for)(uint64_t file_size);
	const char *summary;	/* one line for `aimsweep list` */
	const struct job_syscall *syscalls; /* per op, NULL-name terminated */
	const char *setup;	/* what runs outside the timed part, or NULL */
	/* Where this AIM7 job knowingly does not do what reaim's does (a
	 * defect of reaim's kept out, AIM7's intent kept), or NULL. */
	const char *deviation;
	/* What the job cannot measure when its files are on a tmpfs (which
	 * has no device: O_DIRECT), or NULL; the run warns of it. */
	const char *on_tmpfs;
	int (*init)(const struct job_ctx *ctx, void **state);
	int (*prepare)(void *state);
	int (*run)(void *state);	/* 0 or a positive errno */
	void (*fini)(void *state);
};

/* The table, in jobs/catalog.c. */
extern const struct job *const job_table[];
extern const size_t job_table_len;

/* The job named `name` in reaim's spelling or in AIM7 1.1's, or NULL. */
const struct job *job_find(const char *name);
/* Inner operations of one op of `job` when a user's file is file_size. */
unsigned long job_inner_ops(const struct job *job, uint64_t file_size);
/* The job name (either spelling) closest to `name` by edit distance, for
 * "did you mean", or NULL when none is close enough to be a typo. */
const char *job_nearest(const char *name);

/*
 * An AIM7 job can last longer than a tenth of the window (at a thousand
 * users, seconds), so counting whole jobs at t0 and t1 would not measure
 * the window to 0.5%. Its run() therefore reports each inner operation
 * as it finishes it, n at a time, and the driver counts a job in flight
 * at t0 or t1 by the share of its inner operations done. The counter is
 * the user's own (one writer), in the arena the driver reads, and counts
 * ticks: JOB_PROGRESS_TICKS to an inner operation, so that a job whose
 * inner operations are few and long can report parts of one
 * (job_progress_ticks()). A successful op adds exactly job_inner_ops()
 * x JOB_PROGRESS_TICKS in all.
 */
#define JOB_PROGRESS_TICKS 2520UL	/* a multiple of 1 to 10, 12, 14, 15, 18, 20, 21 */

static inline void job_progress_ticks(uint64_t *progress, unsigned long ticks)
{
	__atomic_store_n(progress, *progress + ticks, __ATOMIC_RELAXED);
}

static inline void job_progress(uint64_t *progress, unsigned long n)
{
	job_progress_ticks(progress, n * JOB_PROGRESS_TICKS);
}

/* splitmix64: a small, fast generator, good enough to spread block
 * offsets, shuffle names and draw the compute jobs' inputs. */
static inline uint64_t job_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Compute jobs store results here so the compiler cannot drop the work. */
extern volatile uint64_t job_sink;

/* Helpers shared by job families (jobs/util.c). */
int job_set_reason(const struct job_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Records a SysV IPC object for removal by the driver after the level;
 * returns 0, or ENOSPC when the user already has JOB_SYSV_MAX. A job still
 * removes its objects in fini(); the record covers users that die. */
int job_register_sysv(const struct job_ctx *ctx, enum job_sysv_kind kind,
		      int id);
/* Records, before a job creates an object of `kind` under `key`, that it
 * is about to; key 0 (IPC_PRIVATE) drops the record, which the job does
 * only once the object's id is registered. The driver removes the object
 * of a user that died with a record left, if that user made it. */
void job_pending_sysv(const struct job_ctx *ctx, enum job_sysv_kind kind,
		      int32_t key);
/* Drops the record of an object the job has just removed itself, so that
 * a job that makes its objects in every op never runs out of records. */
void job_unregister_sysv(const struct job_ctx *ctx, int id);
/* A zeroed state of `size` bytes whose `uint64_t *progress` member, at
 * offset progress_at, is the user's counter (ctx->progress); NULL when out
 * of memory. JOB_STATE_NEW() takes the state's type. */
void *job_state_new(const struct job_ctx *ctx, size_t size,
		    size_t progress_at);
#define JOB_STATE_NEW(ctx, type) \
	((type *)job_state_new(ctx, sizeof(type), offsetof(type, progress)))
/* Fills buf with bytes from a xorshift generator seeded with seed. */
void job_fill_random(void *buf, size_t len, uint64_t seed);
int job_path(char *buf, size_t len, const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
