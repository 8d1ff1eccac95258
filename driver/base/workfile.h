/* driver/base/workfile.h: the job mix a workfile describes, and its parser. */
#ifndef AIMSWEEP_WORKFILE_H
#define AIMSWEEP_WORKFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobs/job.h"

#define WORKFILE_MAX_BYTES (1024 * 1024)
#define WORKFILE_MAX_WEIGHT 100000
#define WORKFILE_MAX_TOTAL_WEIGHT 1000000
#define WORKFILE_MAX_SIZE (UINT64_C(1) << 40)	/* FILESIZE, POOLSIZE */

enum scratch_layout {
	LAYOUT_UNSET = 0,
	LAYOUT_PER_USER,	/* each user works in a directory of its own */
	LAYOUT_SHARED,		/* all users work in one directory */
};

struct mix_entry {
	const struct job *job;
	unsigned int weight;	/* sum over every line that names the job */
	unsigned int line;	/* first line that names it */
};

struct mix {
	char *path;		/* as given, or as resolved from a name */
	char *name;		/* basename, used in result directory names */
	struct mix_entry *entries;
	size_t n_entries;
	uint64_t total_weight;
	uint64_t file_size;	/* bytes; valid when file_size_set */
	uint64_t pool_size;
	bool file_size_set;
	bool pool_size_set;
	enum scratch_layout layout;
};

/*
 * Parses workfile text. On error returns -1 and writes "path:line: what"
 * (or "path: what") into err. Errors are never partial: on failure the mix
 * holds nothing that needs freeing.
 */
int workfile_parse(const char *path, const char *text, size_t len,
		   struct mix *mix, char *err, size_t errlen);
/* Reads and parses a file; read errors are reported the same way. */
int workfile_load(const char *path, struct mix *mix, char *err, size_t errlen);
void mix_free(struct mix *mix);
/* AIM7's per-user disk file size at a level: FILESIZE + POOLSIZE/users. */
uint64_t mix_file_size(const struct mix *mix, unsigned int users);
/* True when a job of the mix makes files in the user's own directory. */
bool mix_uses_dir(const struct mix *mix);

/* Parses "10K", "5M", "1G", "100" (kilobytes): AIM7 sizes. */
bool workfile_parse_size(const char *s, uint64_t *bytes);

const char *layout_name(enum scratch_layout layout);
bool layout_parse(const char *s, enum scratch_layout *layout);

#endif
