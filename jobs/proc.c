/* jobs/proc.c: process jobs (getppid, the null job). */
#include <unistd.h>

#include "jobs/catalog.h"

static int getppid_init(const struct job_ctx *ctx, void **state)
{
	(void)ctx;
	*state = NULL;
	return 0;
}

/* The cheapest syscall there is: what aimsweep reaches with this job, set
 * against a bare getppid() loop, is the harness's own overhead. */
static int getppid_run(void *state)
{
	(void)state;
	job_sink = (uint64_t)getppid();
	return 0;
}

const struct job job_getppid = {
	.name = "getppid",
	.family = "proc",
	.unit = "Null System Calls",
	.inner_ops = 1,
	.summary = "the null job: one getppid(), to measure the harness itself",
	.syscalls = (const struct job_syscall[]){ { "getppid", 1 }, { NULL, 0 } },
	.init = getppid_init,
	.run = getppid_run,
};
