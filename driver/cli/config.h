/* driver/cli/config.h: reaim's configuration file (-c), read as reaim reads it. */
#ifndef AIMSWEEP_CONFIG_H
#define AIMSWEEP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct run_option;
struct run_params;

/* A key that stands for a run option (its row's config_key), and its
 * value, checked as the option checks it. */
struct config_setting {
	const struct run_option *option;
	char *value;
	unsigned int line;
};

struct config {
	uint64_t file_size, pool_size;	/* bytes */
	bool file_size_set, pool_size_set;
	struct config_setting *settings;	/* in the file's order */
	size_t n_settings;
};

/*
 * Reads a reaim.config: "KEY value" lines and # comments. FILESIZE and
 * POOLSIZE (sizes as in workfiles) are the workfile's; the keys of the
 * run options' rows (driver/cli/options.c: STARTUSERS, DISKDIR...) are that
 * option's values; reaim's other keys (JOBS, VERBOSE, CROSSOVER, BRIEF)
 * are accepted and reported as ignored. Returns 0, or -1 with
 * "file:line: message" in err.
 */
int config_load(const char *path, struct config *c, char *err, size_t errlen);
/* The same from an open stream, path naming it in messages. */
int config_read(FILE *f, const char *path, struct config *c, char *err,
		size_t errlen);
/*
 * Sets the options c's keys stand for into p, in the file's order, but
 * for those the command line gave: given[] is indexed as run_options[].
 * Returns 0, or -1 with "file:line: message" in err.
 */
int config_apply(const struct config *c, const char *path,
		 struct run_params *p, const bool *given, char *err,
		 size_t errlen);
void config_free(struct config *c);

#endif
