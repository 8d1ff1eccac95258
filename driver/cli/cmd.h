/* driver/cli/cmd.h: a subcommand, as the command table in main.c lists it. */
#ifndef AIMSWEEP_CMD_H
#define AIMSWEEP_CMD_H

#include <stdio.h>

/*
 * One subcommand. Each driver/cli/cmd_NAME.c exports one, with its
 * options in a table of struct args_option (driver/base/args.h) from
 * which it parses argv and makes its --help; main.c's table lists them.
 */
struct cmd_entry {
	const char *name;
	const char *alias[2];	/* "--help" and the like */
	const char *synopsis;	/* its line of `aimsweep help` */
	const char *summary;
	/* `aimsweep NAME ...` with argv[0] NAME; returns the exit status. */
	int (*exec)(int argc, char **argv);
	void (*usage)(FILE *f);	/* NAME --help, aimsweep help NAME */
};

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_compare_entry;
extern const struct cmd_entry cmd_plot_entry;
extern const struct cmd_entry cmd_version_entry;

#endif
