/* driver/output/result_dir.c: the run's result directory and each level's directory in it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "driver/output/result_dir.h"
#include "driver/base/util.h"

/* mkdir -p: `-o results/kernel-a` must not need results/ made first.
 * Returns 0, or -1 with errno set. */
static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (!len) {
		errno = ENOENT;
		return -1;
	}
	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/* started_at in RFC 3339, whose offset needs the colon %z leaves out. */
static void stamp_started_at(struct run_result *r, const struct tm *tm)
{
	int n = (int)strftime(r->started_at, sizeof(r->started_at) - 1,
			      "%Y-%m-%dT%H:%M:%S%z", tm);

	if (n >= 5) {
		char *off = r->started_at + n - 2;

		memmove(off + 1, off, 3);
		*off = ':';
	}
}

int result_dir_create(struct result_dir *d, const char *output_dir,
		      struct run_result *r, char *err, size_t errlen)
{
	const char *name = r->mix->name;
	time_t now = time(NULL);
	char stamp[32];
	struct tm tm;
	int n;

	if (mkdir_parents(output_dir)) {
		snprintf(err, errlen, "cannot create output directory %s: %s",
			 output_dir, strerror(errno));
		return -1;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	stamp_started_at(r, &tm);
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			n = snprintf(d->path, sizeof(d->path), "%s/%s-%s",
				     output_dir, stamp, name);
		else
			n = snprintf(d->path, sizeof(d->path), "%s/%s-%s-%d",
				     output_dir, stamp, name, i);
		if (n < 0 || (size_t)n >= sizeof(d->path) - 16) {
			snprintf(err, errlen, "output directory %s: path too long",
				 output_dir);
			return -1;
		}
		if (mkdir(d->path, 0755) == 0)
			break;
		if (errno != EEXIST || i == 999) {
			snprintf(err, errlen, "cannot create %s: %s", d->path,
				 strerror(errno));
			return -1;
		}
	}
	if (!path_join(d->json_path, sizeof(d->json_path), d->path,
		       "result.json")) {
		snprintf(err, errlen, "output directory %s: path too long",
			 output_dir);
		return -1;
	}
	return 0;
}

void result_dir_level(const struct result_dir *d, const struct run_params *p,
		      unsigned int users, size_t index, unsigned int repeat,
		      char *dir, size_t len)
{
	unsigned int occurrence = 1;
	int n;

	for (size_t j = 0; j < index; j++)
		occurrence += p->levels[j] == users;
	n = snprintf(dir, len, "%s/level-%u", d->path, users);
	if (occurrence > 1)
		n += snprintf(dir + n, len - (size_t)n, ".%u", occurrence);
	if (p->repeat > 1)
		snprintf(dir + n, len - (size_t)n, "-r%u", repeat + 1);
}
