/* driver/gate.h: futex waits and wakes on words in the shared arena. */
#ifndef AIMSWEEP_GATE_H
#define AIMSWEEP_GATE_H

#include <stdint.h>

/* Blocks while *word == 0; returns once the parent opened the gate. */
void gate_wait(uint32_t *word);
/* Sets *word to 1 and wakes every waiter. */
void gate_open(uint32_t *word);
/* Waits up to timeout_ns for *word to change from `seen`. */
void gate_wait_change(uint32_t *word, uint32_t seen, uint64_t timeout_ns);
/* Wakes one waiter of *word. */
void gate_wake_one(uint32_t *word);

#endif
