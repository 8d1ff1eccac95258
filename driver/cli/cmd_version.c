/* driver/cli/cmd_version.c: `aimsweep version`, and how locks are profiled. */
#include <stdio.h>

#include "driver/base/util.h"
#include "driver/capture/lock_bpf.h"
#include "driver/cli/cmd.h"

static int version_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("aimsweep %s\n", PACKAGE_VERSION);
	if (lock_bpf_missing())
		printf("lock profile: perf lock record only (built without %s)\n",
		       lock_bpf_missing());
	else
		printf("lock profile: in-kernel collector (BPF), perf lock record as fallback\n");
	return EXIT_OK;
}

const struct cmd_entry cmd_version_entry = {
	.name = "version",
	.alias = { "--version" },
	.synopsis = "version",
	.summary = "show the version",
	.exec = version_exec,
};
