/* driver/base/args.c: the getopt loop and usage errors all subcommands share. */
#include <stdio.h>
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
