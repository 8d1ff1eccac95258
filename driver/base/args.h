/* driver/base/args.h: the getopt loop and usage errors all subcommands share. */
#ifndef AIMSWEEP_ARGS_H
#define AIMSWEEP_ARGS_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* What args_next() returns besides an option. */
#define ARGS_END (-1)	/* no more options: argv[optind] is an operand */
#define ARGS_HELP (-2)	/* -h or --help: the usage went to stdout */
#define ARGS_BAD (-3)	/* an unknown option or a missing value, said so */

/*
 * A subcommand's options. Every option whose val is below 256 is also
 * the short option of that letter; the short options are made from
 * longopts, so that each option is written once.
 */
struct args {
	const char *cmd;	/* "run", "report"...: aimsweep CMD --help */
	bool prefixed;		/* messages start with "CMD: " */
	const struct option *longopts;	/* ends in a zeroed row */
	void (*usage)(FILE *f);	/* printed for 'h' */
	bool begun;		/* set by the first args_next() */
};

/*
 * The next option of argv, as getopt_long() gives it (optarg set), with
 * the reading restarted at argv[1] on the first call. Unknown options and
 * missing values are reported as "[CMD: ]unknown option -x (aimsweep CMD
 * --help)" and "[CMD: ]option -x needs a value (...)": ARGS_BAD.
 */
int args_next(struct args *a, int argc, char **argv);
/* The exit status for an args_next() result below ARGS_END: 0 after the
 * help, else EXIT_USAGE. */
int args_status(int c);
/* Prints "[CMD: ]MESSAGE (aimsweep CMD --help)"; returns EXIT_USAGE. */
int args_error(const struct args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int args_verror(const struct args *a, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
