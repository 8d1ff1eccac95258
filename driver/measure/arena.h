/* driver/measure/arena.h: the shared-memory arena of gate, stop flag and counters. */
#ifndef AIMSWEEP_ARENA_H
#define AIMSWEEP_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "driver/measure/histogram.h"
#include "jobs/job.h"

#define CACHE_LINE 64
#define USER_REASON_LEN 192

/*
 * Words the parent writes and every user reads, each on its own line.
 * Users live across levels; each level has a generation number, and the
 * gate and stop words hold the generation they were last opened or raised
 * for, so a stale word can never release or stop a new level. The pad
 * arrays fill each line to its end.
 */
struct arena_header {
	/* The level users are called to, its generation << 32 | its
	 * users: one word, so that a user reads the two together. */
	uint64_t called;
	uint32_t level_gen;	/* bumped to call users to a new level */
	uint32_t active_users;	/* users 0..active_users-1 take part */
	uint32_t quit;		/* 1: users exit at the next generation */
	char pad0[CACHE_LINE - sizeof(uint64_t) - 3 * sizeof(uint32_t)];
	uint32_t gate;		/* == level_gen: users start their loop */
	char pad1[CACHE_LINE - sizeof(uint32_t)];
	uint32_t stop;		/* == level_gen: users finish their op, park */
	char pad2[CACHE_LINE - sizeof(uint32_t)];
	uint32_t ready;		/* users at the gate */
	char pad3[CACHE_LINE - sizeof(uint32_t)];
	uint32_t parked;	/* users that finished the level */
	char pad4[CACHE_LINE - sizeof(uint32_t)];
	uint32_t passed;	/* users through the gate and set up */
	char pad5[CACHE_LINE - sizeof(uint32_t)];
	uint32_t all_through;	/* == level_gen: every user is through */
	char pad6[CACHE_LINE - sizeof(uint32_t)];
	uint32_t measuring;	/* == level_gen between t0 and t1 */
	char pad7[CACHE_LINE - sizeof(uint32_t)];
	/* Thread mode: bumped by each user thread that failed, after its
	 * slot's exit_code, so that the driver reads the slots only when a
	 * thread did fail. */
	uint32_t threads_failed;
	char pad8[CACHE_LINE - sizeof(uint32_t)];
} __attribute__((aligned(CACHE_LINE)));

/* What a user used during one level, from its own getrusage(). */
struct slot_rusage {
	int64_t utime_us;
	int64_t stime_us;
	int64_t nvcsw;
	int64_t nivcsw;
	int64_t minflt;
	int64_t majflt;
	int64_t maxrss_kb;
};

/* Why a mix entry was skipped: written once, by the first user to skip it. */
struct entry_skip {
	uint32_t claimed;
	char reason[USER_REASON_LEN - sizeof(uint32_t)];
};

/* One mix entry's counters in one user's slot; single writer. */
struct entry_counters {
	uint64_t ops;
	/* An AIM7 job's progress, in ticks, as job_progress() reports it:
	 * ops x inner ops x JOB_PROGRESS_TICKS at the end of each op, more
	 * in the middle of one. The driver counts the share of a job in
	 * flight from it. */
	uint64_t inner;
	uint64_t errors;
	int32_t last_errno;
	int32_t skipped;	/* init() said JOB_SKIPPED */
	uint32_t sample_every;	/* the latency sampling period it ended with */
	uint32_t pad;		/* alignment to 8 bytes, made explicit */
};

/* A user's slot: written only by that user, read by the parent. */
struct user_slot {
	int32_t pid;		/* process or thread id, set by the user */
	int32_t exit_code;	/* why the user gave up, see users.h */
	int32_t cpu;		/* pinned CPU read back; -1 none, -2 mismatch */
	uint32_t parked_gen;	/* the last generation it finished */
	uint64_t gate_passed_ns;	/* when it was through the gate, set up */
	struct slot_rusage rusage;	/* of the last level it finished */
	char reason[USER_REASON_LEN];	/* and in words */
	int32_t sysv_ids[JOB_SYSV_MAX];	/* see job_register_sysv() */
	uint8_t sysv_kinds[JOB_SYSV_MAX];
	int32_t sysv_pending_key;	/* see job_pending_sysv() */
	uint8_t sysv_pending_kind;
	struct entry_counters counters[];
};

struct arena {
	void *base;
	size_t size;
	size_t slot_stride;	/* bytes between slots, a cache-line multiple */
	size_t loop_offset;	/* of a slot's loop state */
	size_t hist_offset;	/* of a slot's histograms, 0 without latency */
	unsigned int max_users;
	size_t n_entries;
	struct arena_header *hdr;
	struct entry_skip *skips;	/* [n_entries] */
	int fd;			/* the memfd behind it; -1 once closed */
};

/* Where the user slots start: after the header and the skip reasons. */
static inline size_t arena_slots_offset(const struct arena *a)
{
	size_t skips = a->n_entries * sizeof(struct entry_skip);

	return sizeof(struct arena_header) +
	       (skips + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
}

/*
 * Each slot also holds loop_bytes of its user's own loop state, next to
 * its counters (see arena_loop_state()), and with latency one histogram
 * per entry, recorded by its user only while the window is open (the
 * measuring word). 0, or -1 with errno.
 */
int arena_create(struct arena *a, unsigned int max_users, size_t n_entries,
		 size_t loop_bytes, bool latency);
void arena_destroy(struct arena *a);
/* Closes the arena's file; the mapping stays. */
void arena_close_fd(struct arena *a);

/*
 * The process that forks users maps the arena anew from its layout (a's
 * size, stride and offsets, as the driver made it) and its file fd: the
 * header's pages, and behind them a reserve of address space, with no
 * access and no memory, where the slots are (arena_map_header()). Each
 * user maps the pages of its own slot into that reserve
 * (arena_attach_slot()). A page of the arena is then in the reverse map
 * of the driver and of one or two users, not of every user: a walk of it
 * (reclaim, a DAMON monitor) costs the same at any number of users. The
 * header's pages are in every user. Each returns 0, or -1 with errno.
 */
int arena_map_header(struct arena *a, int fd);
/* Where the arena's file may hold more than the arena: its size rounded
 * up to a page, for a mapping of its own (the spawner's channel). */
size_t arena_file_end(const struct arena *a);
int arena_attach_slot(struct arena *a, unsigned int user);
/* Clears the skip reasons and the first `users` slots for a new level;
 * only while those users are parked. */
void arena_reset_level(struct arena *a, unsigned int users);

static inline struct user_slot *arena_slot(const struct arena *a,
					   unsigned int user)
{
	return (struct user_slot *)((char *)a->base + arena_slots_offset(a) +
				    (size_t)user * a->slot_stride);
}

/* Copies every user's ops, inner and errors counts:
 * out[user * n_entries + e]. */
void arena_snapshot(const struct arena *a, unsigned int users, uint64_t *ops,
		    uint64_t *inner, uint64_t *errors);

/*
 * The state a user's measured loop reads on every op, which only that
 * user touches. It sits in the arena, beside the counters the loop
 * writes, and not on the heap: with page-table isolation and no PCID,
 * every system call empties the TLB, and each further memory region a
 * loop touches costs a page walk per op, a visible share of an op as
 * cheap as getppid.
 */
static inline void *arena_loop_state(const struct arena *a,
				     struct user_slot *slot)
{
	return (char *)slot + a->loop_offset;
}

/* A user's histogram of entry e; only when the arena has latency. */
static inline struct hist *arena_hist(const struct arena *a,
				      struct user_slot *slot, size_t e)
{
	return (struct hist *)((char *)slot + a->hist_offset) + e;
}

/* Bytes the arena needs; for checking a level against memory up front. */
size_t arena_size_for(unsigned int max_users, size_t n_entries,
		      size_t loop_bytes, bool latency);

#endif
