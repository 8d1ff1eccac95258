/* jobs/mem.c: address-space jobs (brk). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jobs/catalog.h"

struct brk_state {
	uintptr_t base;		/* the break this job returns to */
	uintptr_t step;		/* how far one op grows the heap */
};

/* The raw syscall, not sbrk(): glibc's malloc keeps its own idea of the
 * break, and this job always gives back exactly what it took. */
static uintptr_t sys_brk(uintptr_t addr)
{
	return (uintptr_t)syscall(SYS_brk, addr);
}

static int brk_init(const struct job_ctx *ctx, void **state)
{
	struct brk_state *st = malloc(sizeof(*st));

	(void)ctx;
	if (!st)
		return ENOMEM;
	st->step = (uintptr_t)sysconf(_SC_PAGESIZE);
	st->base = sys_brk(0);
	*state = st;
	return 0;
}

/* One op grows the heap by a page and shrinks it back: the kernel extends
 * the heap mapping, then unmaps the page again. */
static int brk_run(void *state)
{
	struct brk_state *st = state;

	if (sys_brk(st->base + st->step) != st->base + st->step)
		return ENOMEM;
	if (sys_brk(st->base) != st->base)
		return ENOMEM;
	return 0;
}

static void brk_fini(void *state)
{
	free(state);
}

const struct job job_brk = {
	.name = "brk",
	.family = "mem",
	.unit = "Heap Grow and Shrink Pairs",
	.inner_ops = 1,
	.summary = "grow the heap by one page with brk() and shrink it back",
	.syscalls = (const struct job_syscall[]){ { "brk", 2 }, { NULL, 0 } },
	.init = brk_init,
	.run = brk_run,
	.fini = brk_fini,
};
