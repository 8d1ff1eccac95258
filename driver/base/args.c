/* driver/base/args.c: the getopt loop and option tables of subcommands. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/args.h"
#include "driver/base/util.h"

/* ":" first, so that a missing value returns ':' rather than '?'. */
static void short_options(const struct option *longopts, char *buf,
			  size_t len)
{
	size_t n = 0;

	buf[n++] = ':';
	for (const struct option *o = longopts; o->name; o++) {
		if (o->val <= 0 || o->val >= 256 || n + 3 >= len)
			continue;
		buf[n++] = (char)o->val;
		if (o->has_arg == required_argument)
			buf[n++] = ':';
	}
	buf[n] = '\0';
}

int args_next(struct args *a, int argc, char **argv)
{
	char shortopts[2 + 2 * 128];
	int c, before;

	if (!a->begun) {
		/* 0, not 1: glibc then forgets an earlier command line. */
		optind = 0;
		opterr = 0;
		a->begun = true;
	}
	short_options(a->longopts, shortopts, sizeof(shortopts));
	before = optind;
	c = getopt_long(argc, argv, shortopts, a->longopts, NULL);
	if (c == 'h' && a->usage) {
		a->usage(stdout);
		return ARGS_HELP;
	}
	if (c == ':') {
		args_error(a, "option %s needs a value", argv[optind - 1]);
		return ARGS_BAD;
	}
	if (c == '?') {
		/* A long option is named as written ("--help=x"); a letter
		 * of "-abc" by itself, the rest of that word not yet read
		 * (optind not moved on) or read. */
		if (!optopt || (optind != before &&
				!strncmp(argv[optind - 1], "--", 2)))
			args_error(a, "unknown option %s", argv[optind - 1]);
		else
			args_error(a, "unknown option -%c", optopt);
		return ARGS_BAD;
	}
	return c;
}

int args_status(int c)
{
	return c == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
}

int args_verror(const struct args *a, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	msg_error("%s%s%s (aimsweep %s --help)", a->prefixed ? a->cmd : "",
		  a->prefixed ? ": " : "", buf, a->cmd);
	return EXIT_USAGE;
}

int args_error(const struct args *a, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = args_verror(a, fmt, ap);
	va_end(ap);
	return rc;
}

/* What -h/--help is in every table, after the command's own rows. */
static const struct args_option help_row = {
	.name = "help", .letter = 'h', .help = "show this help\n",
};

/* "-f/--format" or "--noise": how a message names the option. */
static void option_label(const struct args_option *o, char *buf, size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c/--%s", o->letter, o->name);
	else
		snprintf(buf, len, "--%s", o->name);
}

/* A row with a what: arg, in decimal, from the row's min to its max.
 * Only digits, a point, signs and an exponent: strtod() would also take
 * "0x10", "inf" and "nan". */
static bool parse_number(const struct args_option *o, const char *arg,
			 void *field, char *why, size_t len)
{
	const char *allowed = "0123456789.eE+-";
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!*arg || strspn(arg, allowed) != strlen(arg) || *end || errno ||
	    !isfinite(v) || v < o->min || v > o->max) {
		snprintf(why, len, "'%s' is not %s from %g to %g", arg,
			 o->what, o->min, o->max);
		return false;
	}
	*(double *)field = v;
	return true;
}

/* arg into the row's field of opts; false after a message. */
static bool set_option(const struct args *a, const struct args_option *o,
		       const char *arg, void *opts)
{
	void *field = (char *)opts + o->offset;
	char why[512], label[64];

	if (!o->parse && !o->what) {
		if (o->metavar)
			*(const char **)field = arg;
		else
			*(bool *)field = true;
		return true;
	}
	if (o->parse ? o->parse(arg, field, why, sizeof(why)) :
		       parse_number(o, arg, field, why, sizeof(why)))
		return true;
	option_label(o, label, sizeof(label));
	msg_error("%s%s%s: %s", a->prefixed ? a->cmd : "",
		  a->prefixed ? ": " : "", label, why);
	return false;
}

/* getopt's table from the rows: a row's letter is its val, else 256 and
 * its index; then -h/--help. */
static void make_longopts(const struct args_option *rows,
			  struct option *longopts)
{
	size_t i;

	for (i = 0; rows[i].name && i < ARGS_OPTIONS_MAX; i++)
		longopts[i] = (struct option){
			rows[i].name,
			rows[i].metavar ? required_argument : no_argument,
			NULL, rows[i].letter ? rows[i].letter : 256 + (int)i };
	longopts[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	memset(&longopts[i], 0, sizeof(longopts[i]));
}

static const struct args_option *row_of(const struct args_option *rows,
					int c)
{
	if (c >= 256)
		return &rows[c - 256];
	for (const struct args_option *o = rows; o->name; o++)
		if (o->letter == c)
			return o;
	return NULL;
}

int args_parse(struct args *a, const struct args_option *rows, int argc,
	       char **argv, void *opts)
{
	struct option longopts[ARGS_OPTIONS_MAX + 2];
	int c;

	for (const struct args_option *o = rows; o->name; o++)
		if (o->def && !set_option(a, o, o->def, opts))
			return ARGS_BAD;
	make_longopts(rows, longopts);
	a->longopts = longopts;
	while ((c = args_next(a, argc, argv)) != ARGS_END) {
		if (c < 0)
			break;
		if (!set_option(a, row_of(rows, c), optarg, opts)) {
			c = ARGS_BAD;
			break;
		}
	}
	/* The table was on this stack: a must not keep it. */
	a->longopts = NULL;
	return c == ARGS_END ? optind : c;
}

/* "-f, --format FORMAT" or "--noise PCT": the row's left column. */
static int option_left(const struct args_option *o, char *buf, size_t len)
{
	char letter[8] = "";

	if (o->letter)
		snprintf(letter, sizeof(letter), "-%c, ", o->letter);
	return snprintf(buf, len, "%s--%s%s%s", letter, o->name,
			o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

/* The row's help, a line at a time, in the column after width; the
 * default, when it has one, ends its last line. */
static void option_help(FILE *f, const struct args_option *o, int width)
{
	const char *line = o->help;
	char left[64];

	option_left(o, left, sizeof(left));
	while (*line) {
		int n = (int)strcspn(line, "\n");
		bool last = !line[n] || !line[n + 1];

		fprintf(f, "  %-*s  %.*s", width, left, n, line);
		if (last && o->what && o->def)
			fprintf(f, " (%g to %g; default: %s)", o->min, o->max,
				o->def);
		else if (last && o->what)
			fprintf(f, " (%g to %g)", o->min, o->max);
		else if (last && o->def)
			fprintf(f, " (default: %s)", o->def);
		fputc('\n', f);
		left[0] = '\0';
		line += n + (line[n] == '\n');
	}
}

void args_options_help(FILE *f, const struct args_option *rows)
{
	char left[64];
	int width = option_left(&help_row, left, sizeof(left));

	for (const struct args_option *o = rows; o->name; o++) {
		int w = option_left(o, left, sizeof(left));

		if (w > width)
			width = w;
	}
	for (const struct args_option *o = rows; o->name; o++)
		option_help(f, o, width);
	option_help(f, &help_row, width);
}
