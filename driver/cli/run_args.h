/* driver/cli/run_args.h: the command line of `aimsweep run` and workfile lookup. */
#ifndef AIMSWEEP_CLI_H
#define AIMSWEEP_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "driver/base/params.h"
#include "driver/cli/config.h"

/* cli_parse_run() printed the help: exit 0 without running. */
#define CLI_HELP_SHOWN (-1)

/* Parses `run` options (argv[0] is "run") into p, and -c's file into
 * config, whose strings p may point into. Returns 0, CLI_HELP_SHOWN, or
 * EXIT_USAGE after a message. Free both with run_args_free(). */
int cli_parse_run(int argc, char **argv, struct run_params *p,
		  struct config *config);
void run_args_free(struct run_params *p, struct config *config);
void cli_run_usage(FILE *f);

#endif
