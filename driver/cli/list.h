/* driver/cli/list.h: `aimsweep list`: the jobs and the shipped workfiles. */
#ifndef AIMSWEEP_LIST_H
#define AIMSWEEP_LIST_H

#include <stdio.h>

int list_main(int argc, char **argv);
void list_usage(FILE *f);

#endif
