/* driver/list.h: `aimsweep list`: the jobs and the shipped workfiles. */
#ifndef AIMSWEEP_LIST_H
#define AIMSWEEP_LIST_H

int list_main(int argc, char **argv);

#endif
