/* driver/cli/paths.h: where aimsweep finds its workfiles and helper programs. */
#ifndef AIMSWEEP_PATHS_H
#define AIMSWEEP_PATHS_H

#include <stddef.h>

#define PATHS_MAX_DIRS 4

/* Finds a workfile by path or by name; returns a malloc'd path, or NULL
 * after writing what was searched into err. */
char *workfile_resolve(const char *arg, char *err, size_t errlen);
/* The directories `aimsweep list` and workfile_resolve() look in, in
 * order: $AIMSWEEP_WORKFILES, next to the binary, the installed ones.
 * Returns how many were written to dirs. */
size_t workfile_dirs(char dirs[][4096], size_t max);
/* The directory of aimsweep's helper programs; malloc'd. */
char *paths_libexec_dir(void);

#endif
