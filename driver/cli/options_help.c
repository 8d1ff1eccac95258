/* driver/cli/options_help.c: `aimsweep run --help`'s option lines, made from the option table. */
#include <stdio.h>
#include <string.h>

#include "driver/cli/options.h"

/* The argument's name in the help: the row's, else the kind's. */
static void metavar_of(const struct run_option *o, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	if (o->metavar) {
		snprintf(buf, len, "%s", o->metavar);
	} else if (o->kind == OPT_CHOICE) {
		const struct opt_choice *c;

		for (c = o->choices; c->name && k < len; c++)
			k += (size_t)snprintf(buf + k, len - k, "%s%s",
					      k ? "|" : "", c->name);
	} else if (o->kind == OPT_SECONDS) {
		snprintf(buf, len, "SECONDS");
	} else if (o->kind == OPT_USERS || o->kind == OPT_UINT ||
		   o->kind == OPT_U64) {
		snprintf(buf, len, "N");
	} else if (o->kind != OPT_FLAG && o->kind != OPT_HELP) {
		snprintf(buf, len, "VALUE");
	}
}

/* "(1 to 1000000; default: 100; -c key: STARTUSERS)": what the help
 * says of a row besides its text, made from the row; empty when nothing. */
static void help_suffix(const struct run_option *o, char *buf, size_t len)
{
	bool number = o->kind == OPT_USERS || o->kind == OPT_UINT ||
		      o->kind == OPT_DOUBLE || o->kind == OPT_SECONDS;
	char range[64] = "", def[128] = "", key[64] = "";
	const char *parts[] = { range, def, key };
	size_t k = 0;

	if (number && o->max >= OPT_NO_MAX)
		snprintf(range, sizeof(range), "at least %.15g", o->min);
	else if (number)
		snprintf(range, sizeof(range), "%.15g to %.15g", o->min,
			 o->max);
	if (o->def_note)
		snprintf(def, sizeof(def), "default: %s", o->def_note);
	else if (number)
		snprintf(def, sizeof(def), "default: %.15g", o->def);
	else if (o->def_str)
		snprintf(def, sizeof(def), "default: %s", o->def_str);
	if (o->config_key)
		snprintf(key, sizeof(key), "-c key: %s", o->config_key);
	buf[0] = '\0';
	for (size_t i = 0; i < 3 && k < len; i++)
		if (*parts[i])
			k += (size_t)snprintf(buf + k, len - k, "%s%s",
					      k ? "; " : "(", parts[i]);
	if (k && k < len)
		snprintf(buf + k, len - k, ")");
}

/* The help of an option is in the columns from HELP_COLUMN to
 * HELP_WIDTH, filled word by word; the option itself is left of it, or
 * on a line of its own when it is too long. */
#define HELP_COLUMN 31
#define HELP_WIDTH 79

static void option_help(FILE *f, const struct run_option *o)
{
	const size_t width = HELP_WIDTH - HELP_COLUMN;
	char left[64], metavar[64], suffix[200], text[1024];
	const char *w = text;
	bool first = true;

	metavar_of(o, metavar, sizeof(metavar));
	snprintf(left, sizeof(left), "%c%c%c --%s%s%s",
		 o->letter ? '-' : ' ', o->letter ? o->letter : ' ',
		 o->letter ? ',' : ' ', o->name, *metavar ? " " : "", metavar);
	help_suffix(o, suffix, sizeof(suffix));
	snprintf(text, sizeof(text), "%s%s%s", o->help, *suffix ? " " : "",
		 suffix);
	if (strlen(left) > HELP_COLUMN - 3) {
		fprintf(f, "  %s\n", left);
		first = false;
	}
	while (*w) {
		size_t end = strlen(w);

		/* Break at the last space that fits, else after the word. */
		if (end > width) {
			end = width;
			while (end > 0 && w[end] != ' ')
				end--;
			if (!end)
				end = strcspn(w, " ");
		}
		fprintf(f, "  %-28s %.*s\n", first ? left : "", (int)end, w);
		first = false;
		w += end;
		w += strspn(w, " ");
	}
}

void run_options_help(FILE *f)
{
	for (size_t i = 0; i < n_run_options; i++)
		if (run_options[i].name)
			option_help(f, &run_options[i]);
}
