/* driver/users/gate.c: the start gate and the other futex words users and the driver wait on. */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/base/util.h"

/* Not FUTEX_PRIVATE_FLAG: the words live in a MAP_SHARED mapping that
 * several processes wait on. */
static long futex(uint32_t *word, int op, uint32_t val,
		  const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

void gate_wait_change(uint32_t *word, uint32_t seen, uint64_t timeout_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(timeout_ns % NSEC_PER_SEC),
	};

	if (__atomic_load_n(word, __ATOMIC_ACQUIRE) == seen)
		futex(word, FUTEX_WAIT, seen, timeout_ns ? &ts : NULL);
}

void gate_wake_all(uint32_t *word)
{
	futex(word, FUTEX_WAKE, INT_MAX, NULL);
}

void gate_wake_one(uint32_t *word)
{
	futex(word, FUTEX_WAKE, 1, NULL);
}
