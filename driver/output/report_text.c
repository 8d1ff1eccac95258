/* driver/output/report_text.c: the default table as a run prints it, row by row. */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "driver/output/report.h"
#include "driver/output/result_write.h"
#include "driver/output/report_text.h"
#include "driver/base/util.h"

/*
 * One renderer draws the default table: report_default_*() of `aimsweep
 * report`. A run hands it the JSON it writes to result.json, read back
 * (json_read_back()), rather than its own structs: a row printed live and
 * the same row printed from the file then come from one function and one
 * set of numbers, to the last digit, and the table has a single reader,
 * the one that copes with the values an older file lacks.
 */

enum table_part {
	TABLE_HEADER,
	TABLE_LEVEL,
	TABLE_SUMMARY,
};

static void print_part(FILE *f, const struct run_result *r,
		       enum table_part part, size_t i, const char *json_path)
{
	/* A row needs only its level, which keeps a long ramp's rows cheap. */
	cJSON *doc = json_read_back(part == TABLE_LEVEL ?
				    level_to_json(&r->levels[i], r->params) :
				    result_to_json(r));

	if (!doc) {
		msg_error("out of memory");
		return;
	}
	if (part == TABLE_HEADER)
		report_default_header(f, doc, json_path);
	else if (part == TABLE_LEVEL)
		report_default_level(f, doc);
	else
		report_default_summary(f, doc);
	cJSON_Delete(doc);
	fflush(f);
}

void report_text_header(FILE *f, const struct run_result *r,
			const char *json_path)
{
	print_part(f, r, TABLE_HEADER, 0, json_path);
}

void report_text_level(FILE *f, const struct run_result *r, size_t i)
{
	print_part(f, r, TABLE_LEVEL, i, NULL);
}

void report_text_summary(FILE *f, const struct run_result *r)
{
	print_part(f, r, TABLE_SUMMARY, 0, NULL);
}
