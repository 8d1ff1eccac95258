/* driver/users/user_level.h: one level as a user runs it: its jobs set up, the gate, the loop, the tear-down, parking. */
#ifndef AIMSWEEP_USER_LEVEL_H
#define AIMSWEEP_USER_LEVEL_H

#include <stddef.h>
#include <stdint.h>

#include "driver/users/user_ctx.h"
#include "driver/users/user_loop.h"

/* Bytes of loop state each user keeps in its arena slot for this mix:
 * its entries, then its job order. */
size_t users_loop_bytes(const struct mix *mix);

/*
 * One level in user `user`, called to generation gen: wait at the gate,
 * set the jobs up, yield until every user is set up, run until the stop
 * word names this level, tear the jobs down, park. entries is the loop
 * state in the user's slot (arena_loop_state()).
 */
void user_run_level(const struct user_ctx *ctx, unsigned int user,
		    uint32_t gen, struct user_entry *entries);

/* Ends the user with `code` and the reason in its slot: a process
 * exits; a user thread tears its jobs down, tells the driver, and ends
 * itself alone. */
void user_fail(struct user_slot *slot, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* In a user thread, before its first level: its failures end the thread,
 * and are counted in hdr; entries are what it tears down then. */
void user_thread_enter(struct arena_header *hdr, struct user_entry *entries,
		       size_t n_entries);
/* Tells the driver that a user thread failed: its slot says how. */
void user_thread_failed(struct arena_header *hdr);

#endif
