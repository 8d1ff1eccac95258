/* driver/cli/options.h: the options of `aimsweep run`, one descriptor each. */
#ifndef AIMSWEEP_OPTIONS_H
#define AIMSWEEP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "driver/base/params.h"

/* The table has at most this many rows (checked when it is compiled). */
#define RUN_OPTIONS_MAX 64

/* What an option's value is, and so how it is parsed, checked, shown in
 * the help and recorded in result.json. */
enum opt_kind {
	OPT_USERS,	/* unsigned int: a number of users, min to max */
	OPT_UINT,	/* unsigned int, min to max */
	OPT_U64,	/* uint64_t, any; recorded as a decimal string */
	OPT_DOUBLE,	/* double, min to max */
	OPT_SECONDS,	/* double: a time in seconds, min to max */
	OPT_STRING,	/* const char *: the argument itself */
	OPT_FLAG,	/* bool, no argument: given, it is !def */
	OPT_CHOICE,	/* bool or enum: the value of the word given */
	OPT_CUSTOM,	/* parsed and recorded by the row's functions */
	OPT_HELP,	/* -h: the usage */
};

/* A word an OPT_CHOICE option takes, and the value it stands for. */
struct opt_choice {
	const char *name;
	int value;
};

/* In a row's flags. */
#define OPTF_JSON_IF_SET 0x1	/* recorded only when not 0 or NULL */

/*
 * One option of `aimsweep run`: everything getopt, --help, the defaults,
 * the range checks, reaim.config's keys and result.json's params know of
 * it. A row without a name is no option: the driver fills its field, and
 * the row only says where result.json records it.
 */
struct run_option {
	const char *name;	/* --name */
	char letter;		/* -x, or 0 */
	enum opt_kind kind;
	size_t offset, size;	/* its field in run_params: RUN_FIELD() */
	const char *metavar;	/* its argument in the help; NULL: kind's */
	double def;		/* the default of a number or a flag */
	const char *def_str;	/* ... of a string, or a choice's word */
	const char *def_note;	/* the default in words, when no value */
	double min, max;	/* a number's range; max OPT_NO_MAX: none */
	const char *what;	/* "a count": a bad value is not this */
	const struct opt_choice *choices; /* OPT_CHOICE; ends with NULL */
	const char *needs;	/* the flag option this one needs, by name */
	const char *help;	/* lines end in \n; no default, no range */
	const char *config_key;	/* its reaim.config key (-c), or NULL */
	const char *json;	/* its key in params; "a.b": b in object a */
	unsigned int flags;	/* OPTF_* */
	/* Own parsing: false with why it is wrong ("'x' is not ...") in
	 * why, without the option's name. */
	bool (*parse)(const struct run_option *o, const char *arg,
		      struct run_params *p, char *why, size_t len);
	/* Own recording into params; false when out of memory. */
	bool (*to_json)(const struct run_option *o,
			const struct run_params *p, cJSON *params);
};

#define RUN_FIELD(f) \
	.offset = offsetof(struct run_params, f), \
	.size = sizeof(((struct run_params *)0)->f)

/* A max at least this large is printed as "at least min". */
#define OPT_NO_MAX 1e18

extern const struct run_option run_options[];
extern const size_t n_run_options;

/* Zeroes p and sets every row's default. */
void run_options_defaults(struct run_params *p);
/* The row of --name, or of a reaim.config key; NULL if there is none. */
const struct run_option *run_option_named(const char *name);
const struct run_option *run_option_for_config_key(const char *key);
/* "-s/--start" or "--levels": how messages name the option. */
void run_option_label(const struct run_option *o, char *buf, size_t len);
/* Parses arg (NULL for a flag) into p's field; false with why in why. */
bool run_option_parse(const struct run_option *o, const char *arg,
		      struct run_params *p, char *why, size_t len);
/* The options' lines of `aimsweep run --help`, defaults and ranges made
 * from the rows. */
void run_options_help(FILE *f);
/* Records every row that has a json key into params, in table order;
 * -1 when out of memory. */
int run_options_json(cJSON *params, const struct run_params *p);

#endif
