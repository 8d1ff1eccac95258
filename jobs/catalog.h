/* jobs/catalog.h: the job rows each family file defines, for the table. */
#ifndef AIMSWEEP_CATALOG_H
#define AIMSWEEP_CATALOG_H

#include "jobs/job.h"

/* file.c */
extern const struct job job_creat;
extern const struct job job_unlink;
extern const struct job job_close;
/* file.c: AIM7 */
/* end file.c: AIM7 */
/* disk.c */
/* end disk.c */
/* mem.c */
extern const struct job job_brk;
/* mem.c: AIM7 */
/* end mem.c: AIM7 */
/* signal.c */
extern const struct job job_kill;
/* signal.c: AIM7 */
/* end signal.c: AIM7 */
/* proc.c */
extern const struct job job_getppid;
/* proc.c: AIM7 */
/* end proc.c: AIM7 */
/* ipc.c */
/* end ipc.c */
/* net.c */
/* end net.c */
/* compute.c */
/* end compute.c */

#endif
