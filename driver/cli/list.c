/* driver/cli/list.c: what `aimsweep list` prints: jobs, shipped workfiles. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/params.h"
#include "driver/cli/paths.h"
#include "driver/cli/list.h"
#include "driver/base/util.h"
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

/* Whether a job before job_table[i] is of its family. */
static bool family_listed_before(size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!strcmp(job_table[k]->family, job_table[i]->family))
			return true;
	return false;
}

/* One line a job, as scripts read it: "  name family unit (xN): syscalls". */
static void print_job_line(FILE *f, const struct job *j)
{
	fprintf(f, "  %-17s %-8s %s ", j->name, j->family, j->unit);
	if (j->inner_ops_for)
		fprintf(f, "(x file blocks)");
	else
		fprintf(f, "(x%u)", j->inner_ops);
	fprintf(f, ": ");
	print_syscalls(f, j);
	fputc('\n', f);
}

/* -v: a job's name, family and what it does, then one labelled line for
 * each of its facts, under the description. */
static void print_job_block(FILE *f, const struct job *j)
{
	static const char indent[] = "                             ";

	fprintf(f, "  %-17s %-8s %s\n", j->name, j->family, j->summary);
	fprintf(f, "%sunits: %s\n", indent,
		j->units == JOB_UNITS_AIM7 ? "AIM7" : "micro");
	if (j->aim7_name)
		fprintf(f, "%sAIM7 1.1 name, also accepted: %s\n", indent,
			j->aim7_name);
	fprintf(f, "%sunit of an inner op: %s\n", indent, j->unit);
	if (j->inner_ops_for)
		fprintf(f, "%sinner ops per op: one per block of the user's file\n",
			indent);
	else
		fprintf(f, "%sinner ops per op: %u\n", indent, j->inner_ops);
	fprintf(f, "%ssyscalls per op: ", indent);
	print_syscalls(f, j);
	fputc('\n', f);
	if (j->setup)
		fprintf(f, "%sbefore each op, untimed: %s\n", indent, j->setup);
	if (j->deviation)
		fprintf(f, "%sdeviation from reaim: %s\n", indent, j->deviation);
	if (j->on_tmpfs)
		fprintf(f, "%son a tmpfs: %s\n", indent, j->on_tmpfs);
}

/*
 * The jobs in two groups, by what one op of them is, since jobs/min
 * means a different thing in each; within a group, family by family.
 * Job lines start with two spaces and the name, and nothing else in
 * `list jobs` does: scripts pick them out so.
 */
void list_jobs(FILE *f, bool verbose)
{
	static const struct {
		enum job_units units;
		const char *name;
		const char *op;
	} groups[] = {
		{ JOB_UNITS_MICRO, "micro",
		  "aimsweep's own: one op is one operation" },
		{ JOB_UNITS_AIM7, "AIM7",
		  "in AIM7 units: one op is the work of one AIM7 job, as reaim counts it" },
	};
	bool first = true;

	if (verbose)
		fprintf(f, "# jobs: name, family, what it does; then its units, AIM7 1.1's name where\n"
			   "# reaim's differs, unit of an inner op, inner ops per op, syscalls per op,\n"
			   "# untimed setup, deviation from reaim, what it cannot measure on a tmpfs\n");
	else
		fprintf(f, "# jobs: name, family, unit of an inner op (inner ops per op), syscalls per op\n");
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		size_t n = 0;

		for (size_t i = 0; i < job_table_len; i++)
			n += job_table[i]->units == groups[g].units;
		if (!n)
			continue;
		if (!first)
			fputc('\n', f);
		first = false;
		fprintf(f, "# %zu %s job%s, %s\n", n, groups[g].name,
			n == 1 ? "" : "s", groups[g].op);
		/* Families in the order the table first names them. */
		for (size_t i = 0; i < job_table_len; i++) {
			if (family_listed_before(i))
				continue;
			for (size_t k = i; k < job_table_len; k++) {
				const struct job *j = job_table[k];

				if (j->units != groups[g].units ||
				    strcmp(j->family, job_table[i]->family))
					continue;
				if (verbose)
					print_job_block(f, j);
				else
					print_job_line(f, j);
			}
		}
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

void list_workfiles(FILE *f)
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
