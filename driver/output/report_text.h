/* driver/output/report_text.h: the default table as a run prints it, row by row. */
#ifndef AIMSWEEP_REPORT_TEXT_H
#define AIMSWEEP_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "driver/measure/result.h"

void report_text_header(FILE *f, const struct run_result *r,
			const char *json_path);
/* The row of r->levels[i]. */
void report_text_level(FILE *f, const struct run_result *r, size_t i);
void report_text_summary(FILE *f, const struct run_result *r);

#endif
