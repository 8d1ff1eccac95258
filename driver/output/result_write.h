/* driver/output/result_write.h: result.json, written with libcjson. */
#ifndef AIMSWEEP_RESULT_WRITE_H
#define AIMSWEEP_RESULT_WRITE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "driver/measure/result.h"

/* The whole document; the caller deletes it. NULL when out of memory. */
cJSON *result_to_json(const struct run_result *r);
/* One level as levels[] holds it; the caller deletes it. NULL when out of
 * memory. */
cJSON *level_to_json(const struct level_result *l,
		     const struct run_params *p);
/*
 * `doc` as a reader of result.json gets it: printed and parsed back. cJSON
 * prints 15 significant digits where they read back within rounding, so
 * a number may lose its last bits in the file; what a run prints from
 * this is what `aimsweep report` prints from the file, to the last digit.
 * Takes `doc` over (deletes it); NULL when it is NULL or memory is short.
 */
cJSON *json_read_back(cJSON *doc);
/* Writes result.json atomically: a temporary file in the same directory,
 * fsync, rename over the old one, fsync of the directory. */
int result_write(const struct run_result *r, const char *path, char *err,
		 size_t errlen);

#endif
