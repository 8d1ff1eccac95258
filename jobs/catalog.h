/* jobs/catalog.h: the job rows each family file defines, for the table. */
#ifndef AIMSWEEP_CATALOG_H
#define AIMSWEEP_CATALOG_H

#include "jobs/job.h"

/* file.c */
extern const struct job job_creat;
extern const struct job job_unlink;
extern const struct job job_close;
/* mem.c */
extern const struct job job_brk;
/* signal.c */
extern const struct job job_kill;
/* proc.c */
extern const struct job job_getppid;

#endif
