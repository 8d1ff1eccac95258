/* driver/list.c: `aimsweep list`: the jobs and the shipped workfiles. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cli.h"
#include "driver/paths.h"
#include "driver/list.h"
#include "driver/util.h"
#include "jobs/job.h"

/* "creat x1, close x1, pread64 x1 per inner op": one op's syscalls. */
static void print_syscalls(FILE *f, const struct job *j)
{
	const char *sep = "";

	for (const struct job_syscall *s = j->syscalls; s && s->name; s++) {
		fprintf(f, "%s%s", sep, s->name);
		if (s->per_op)
			fprintf(f, " x%u", s->per_op);
		if (s->per_op && s->per_inner)
			fprintf(f, " +");
		if (s->per_inner)
			fprintf(f, " x%u per inner op", s->per_inner);
		sep = ", ";
	}
	if (!*sep)
		fprintf(f, "none");
}

static void list_jobs(FILE *f, bool verbose)
{
	fprintf(f, "# jobs: name, family, unit of an inner op (inner ops per op), syscalls per op\n");
	for (size_t i = 0; i < job_table_len; i++) {
		const struct job *j = job_table[i];

		fprintf(f, "  %-17s %-8s %s ", j->name, j->family, j->unit);
		if (j->inner_ops_for)
			fprintf(f, "(x file blocks)");
		else
			fprintf(f, "(x%u)", j->inner_ops);
		fprintf(f, ": ");
		print_syscalls(f, j);
		fputc('\n', f);
		if (!verbose)
			continue;
		fprintf(f, "  %-17s %-8s %s\n", "", "", j->summary);
		if (j->setup)
			fprintf(f, "  %-17s %-8s before each op, untimed: %s\n",
				"", "", j->setup);
	}
}

/* The first comment line of a workfile says what it models. */
static void workfile_title(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[256];

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + strspn(line, " \t");

		if (*s != '#')
			break;
		s += 1 + strspn(s + 1, " \t");
		s[strcspn(s, "\r\n")] = '\0';
		if (*s) {
			snprintf(buf, len, "%s", s);
			break;
		}
	}
	fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_workfiles(FILE *f)
{
	char dirs[PATHS_MAX_DIRS][4096], path[8192], title[256];
	size_t n = workfile_dirs(dirs, PATHS_MAX_DIRS), shown = 0;

	/* In lookup order: a name resolves to the first directory that has
	 * it (after the current directory). */
	for (size_t i = 0; i < n; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;
		char *names[256];
		size_t count = 0;

		if (!d)
			continue;
		while ((de = readdir(d)) && count < 256) {
			if (de->d_name[0] == '.' || strchr(de->d_name, '~') ||
			    !strcmp(de->d_name, "Makefile"))
				continue;
			names[count] = strdup(de->d_name);
			if (names[count])
				count++;
		}
		closedir(d);
		if (!count)
			continue;
		qsort(names, count, sizeof(names[0]), cmp_str);
		fprintf(f, "# workfiles in %s (aimsweep run NAME)\n", dirs[i]);
		for (size_t k = 0; k < count; k++) {
			snprintf(path, sizeof(path), "%s/%s", dirs[i], names[k]);
			workfile_title(path, title, sizeof(title));
			fprintf(f, "  %-18s %s%s\n", names[k], title,
				!strcmp(names[k], DEFAULT_WORKFILE) ?
				" (default)" : "");
			free(names[k]);
		}
		shown++;
	}
	if (!shown)
		fprintf(f, "# no workfile directory found\n");
}

int list_main(int argc, char **argv)
{
	bool verbose = false;
	const char *what = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: aimsweep list [jobs|workfiles] [-v]\n"
			       "Lists the jobs (name, family, the unit of an inner op and how\n"
			       "many one op makes, the syscalls one op makes; -v adds what a\n"
			       "job does and its untimed setup) and the shipped workfiles.\n");
			return EXIT_OK;
		} else if (!what && (!strcmp(argv[i], "jobs") ||
				     !strcmp(argv[i], "workfiles")))
			what = argv[i];
		else {
			msg_error("list: unknown argument '%s' (want jobs, workfiles or -v)",
				  argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!what || !strcmp(what, "jobs"))
		list_jobs(stdout, verbose);
	if (!what)
		putchar('\n');
	if (!what || !strcmp(what, "workfiles"))
		list_workfiles(stdout);
	return EXIT_OK;
}
