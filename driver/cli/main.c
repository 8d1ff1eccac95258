/* driver/cli/main.c: aimsweep's entry point: the command table, and help. */
#include <stdio.h>
#include <string.h>

#include "driver/base/util.h"
#include "driver/cli/cmd.h"

static void main_usage(FILE *f);
static int help_exec(int argc, char **argv);

/* `aimsweep help` lists the others, so it lives with their table. */
static const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = { "--help", "-h" },
	.synopsis = "help [COMMAND]",
	.summary = "show this help, or COMMAND's",
	.exec = help_exec,
	.usage = main_usage,
};

/* The subcommands, in the order of `aimsweep help`; main() runs
 * argv[1]'s with argv[1] as its argv[0]. */
static const struct cmd_entry *const commands[] = {
	&cmd_run_entry,
	&cmd_list_entry,
	&cmd_report_entry,
	&cmd_compare_entry,
	&cmd_plot_entry,
	&cmd_help_entry,
	&cmd_version_entry,
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd_entry *command_named(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct cmd_entry *c = commands[i];

		if (!strcmp(name, c->name) ||
		    (c->alias[0] && !strcmp(name, c->alias[0])) ||
		    (c->alias[1] && !strcmp(name, c->alias[1])))
			return c;
	}
	return NULL;
}

static void main_usage(FILE *f)
{
	fprintf(f,
		"Usage: aimsweep COMMAND [options]\n"
		"\n"
		"A multi-process scalability driver modeled on AIM7: runs a\n"
		"weighted job mix with a rising number of users and reports\n"
		"throughput per user level.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct cmd_entry *c = commands[i];

		/* A long synopsis puts its summary on the next line. */
		if (strlen(c->synopsis) > 26)
			fprintf(f, "  %s\n  %-26s %s\n", c->synopsis, "",
				c->summary);
		else
			fprintf(f, "  %-26s %s\n", c->synopsis, c->summary);
	}
	fprintf(f,
		"\n"
		"See aimsweep(1) for the output, result.json and exit statuses.\n");
}

static int help_exec(int argc, char **argv)
{
	const struct cmd_entry *c = argc > 1 ? command_named(argv[1]) : NULL;

	if (c && c->usage)
		c->usage(stdout);
	else
		main_usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *c;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	c = command_named(argv[1]);
	if (!c) {
		msg_error("unknown command '%s' (aimsweep help)", argv[1]);
		return EXIT_USAGE;
	}
	return c->exec(argc - 1, argv + 1);
}
