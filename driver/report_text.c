/* driver/report_text.c: the default table as a run prints it, row by row. */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "driver/report_formats.h"
#include "driver/report_json.h"
#include "driver/report_text.h"
#include "driver/util.h"

/*
 * A run hands its results to the renderer of `aimsweep report` as the
 * JSON it writes, so that a row printed live and the same row printed
 * from result.json cannot drift apart.
 */

void report_text_header(FILE *f, const struct run_result *r,
			const char *json_path)
{
	cJSON *root = result_to_json(r);

	if (!root) {
		msg_error("out of memory");
		return;
	}
	report_default_header(f, root, json_path);
	cJSON_Delete(root);
	fflush(f);
}

void report_text_level(FILE *f, const struct run_result *r, size_t i)
{
	cJSON *level = level_to_json(&r->levels[i], r->params);

	if (!level) {
		msg_error("out of memory");
		return;
	}
	report_default_level(f, level);
	cJSON_Delete(level);
	fflush(f);
}

void report_text_summary(FILE *f, const struct run_result *r)
{
	cJSON *root = result_to_json(r);

	if (!root) {
		msg_error("out of memory");
		return;
	}
	report_default_summary(f, root);
	cJSON_Delete(root);
	fflush(f);
}
