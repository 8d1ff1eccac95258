/* driver/config.h: reaim's configuration file (-c), read as reaim reads it. */
#ifndef AIMSWEEP_CONFIG_H
#define AIMSWEEP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONFIG_MAX_DISKDIRS 16

struct config {
	uint64_t file_size, pool_size;	/* bytes */
	bool file_size_set, pool_size_set;
	unsigned int start_users, end_users, increment;
	bool start_set, end_set, increment_set;
	char *diskdirs[CONFIG_MAX_DISKDIRS];
	size_t n_diskdirs;
};

/*
 * Reads a reaim.config: "KEY value" lines and # comments. FILESIZE and
 * POOLSIZE (sizes as in workfiles), DISKDIR (repeatable: scratch
 * directories), STARTUSERS, ENDUSERS and INCREMENT (the ramp) are used;
 * reaim's other keys (JOBS, VERBOSE, CROSSOVER, BRIEF) are accepted and
 * reported as ignored. Returns 0, or -1 with "file:line: message" in err.
 */
int config_load(const char *path, struct config *c, char *err, size_t errlen);
/* The same from an open stream, path naming it in messages. */
int config_read(FILE *f, const char *path, struct config *c, char *err,
		size_t errlen);
void config_free(struct config *c);

#endif
