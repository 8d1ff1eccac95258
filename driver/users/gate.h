/* driver/users/gate.h: futex waits and wakes on words in the shared arena. */
#ifndef AIMSWEEP_GATE_H
#define AIMSWEEP_GATE_H

#include <stdint.h>

/* Waits while *word == seen, at most timeout_ns (0: no limit). Returns on
 * a change, a wake-up, the timeout or a signal; callers re-check. */
void gate_wait_change(uint32_t *word, uint32_t seen, uint64_t timeout_ns);
/* Wakes every waiter of *word (after the caller changed it). */
void gate_wake_all(uint32_t *word);
/* Wakes one waiter of *word. */
void gate_wake_one(uint32_t *word);

#endif
