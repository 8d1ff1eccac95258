/* driver/cli/list.h: what `aimsweep list` prints: jobs, shipped workfiles. */
#ifndef AIMSWEEP_LIST_H
#define AIMSWEEP_LIST_H

#include <stdbool.h>
#include <stdio.h>

/* The jobs, micro then AIM7, family by family: a line each, or with
 * verbose a block of their facts. */
void list_jobs(FILE *f, bool verbose);
/* The workfiles of each directory a name is looked up in, in that
 * order, with their titles. */
void list_workfiles(FILE *f);

#endif
