/* driver/base/args.h: the getopt loop and option tables of subcommands. */
#ifndef AIMSWEEP_ARGS_H
#define AIMSWEEP_ARGS_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What args_next() returns besides an option. */
#define ARGS_END (-1)	/* no more options: argv[optind] is an operand */
#define ARGS_HELP (-2)	/* -h or --help: the usage went to stdout */
#define ARGS_BAD (-3)	/* an unknown option or a missing value, said so */

/*
 * A subcommand's command line. Every option whose val is below 256 is
 * also the short option of that letter; the short options are made from
 * longopts, so that each option is written once. run fills longopts from
 * its own table (driver/cli/options.c); args_parse() fills it from an
 * args_option table.
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

/*
 * One option of a subcommand other than run, as a row of its table: the
 * row drives getopt, the command's --help and the message for a bad
 * value. Every table ends in a zeroed row; -h/--help is added to each.
 */
struct args_option {
	const char *name;	/* --name */
	char letter;		/* -x, or 0 */
	const char *metavar;	/* its value in the help; NULL: a flag */
	const char *def;	/* the default, parsed as if given; or NULL */
	const char *help;	/* lines end in \n; the default is added */
	size_t offset;		/* its field in the command's options struct */
	/* Stores arg into the field; false with why ("'x' is not ..."),
	 * without the option's name. NULL: a flag sets a bool; a value
	 * a const char *, or a number when the row has a what. */
	bool (*parse)(const char *arg, void *field, char *why, size_t len);
	/* A number, in decimal, from min to max, into a double field:
	 * what names it in the message for a bad value ("'x' is not WHAT
	 * from MIN to MAX"), and the help shows the range. */
	const char *what;
	double min, max;
};

#define ARGS_FIELD(type, field) .offset = offsetof(type, field)

/* The most rows a table may have. */
#define ARGS_OPTIONS_MAX 16

/*
 * Sets every row's default in opts, then parses argv's options into it
 * through the rows (the usage is a's). Returns the index of the first
 * operand, or ARGS_HELP or ARGS_BAD after the help or a message:
 * "CMD: -x/--name: why" for a bad value.
 */
int args_parse(struct args *a, const struct args_option *rows, int argc,
	       char **argv, void *opts);
/* The rows' lines of CMD --help, -h/--help last, each help in a column
 * after the widest option. */
void args_options_help(FILE *f, const struct args_option *rows);

#endif
