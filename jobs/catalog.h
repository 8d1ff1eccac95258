/* jobs/catalog.h: the declarations of every job's row, from job_list.h. */
#ifndef AIMSWEEP_CATALOG_H
#define AIMSWEEP_CATALOG_H

#include "jobs/job.h"

/* A family file includes this header, so that the compiler holds each row
 * it defines to its declaration here. */
#define JOB(id) extern const struct job job_##id;
#include "jobs/job_list.h"
#undef JOB

#endif
