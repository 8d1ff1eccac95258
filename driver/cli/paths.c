/* driver/cli/paths.c: where aimsweep finds its workfiles and helper programs. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/cli/paths.h"
#include "driver/base/util.h"
#include "jobs/job.h"

static const char *exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return buf;
}

size_t workfile_dirs(char dirs[][4096], size_t max)
{
	const char *env = getenv("AIMSWEEP_WORKFILES");
	char exe[4096 - sizeof("/workfiles")];
	size_t n = 0;

	if (env && *env && n < max)
		snprintf(dirs[n++], 4096, "%s", env);
	/* Next to the binary: running from the build tree. */
	if (exe_dir(exe, sizeof(exe)) && n < max)
		snprintf(dirs[n++], 4096, "%s/workfiles", exe);
	if (n < max)
		snprintf(dirs[n++], 4096, "%s", WORKFILE_DIR);
	return n;
}

/* Helper programs sit next to the binary in the build tree, and in
 * $(pkglibexecdir) once installed. */
char *paths_libexec_dir(void)
{
	char exe[4096 - 64], path[4096];

	if (exe_dir(exe, sizeof(exe)) &&
	    path_join(path, sizeof(path), exe, EXEC_CHILD_NAME) &&
	    access(path, X_OK) == 0)
		return strdup(exe);
	return strdup(LIBEXEC_DIR);
}

static bool is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *workfile_resolve(const char *arg, char *err, size_t errlen)
{
	char dirs[PATHS_MAX_DIRS][4096], path[PATH_MAX + 8];
	size_t n, used = 0;

	/* A path, or a file of that name here, is taken as it is. */
	if (strchr(arg, '/') || is_regular(arg))
		return strdup(arg);
	n = workfile_dirs(dirs, PATHS_MAX_DIRS);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], arg);
		if (is_regular(path))
			return strdup(path);
	}
	used = (size_t)snprintf(err, errlen,
				"no workfile '%s' here or in the workfile directories (",
				arg);
	for (size_t i = 0; i < n && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s",
					 i ? ", " : "", dirs[i]);
	if (used < errlen)
		snprintf(err + used, errlen - used,
			 "); aimsweep list workfiles shows them");
	return NULL;
}
