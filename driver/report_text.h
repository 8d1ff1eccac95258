/* driver/report_text.h: the human-readable table on stdout. */
#ifndef AIMSWEEP_REPORT_TEXT_H
#define AIMSWEEP_REPORT_TEXT_H

#include <stdio.h>

#include "driver/result.h"

void report_text_header(FILE *f, const struct run_result *r,
			const char *json_path);
void report_text_level(FILE *f, const struct level_result *l);
void report_text_summary(FILE *f, const struct run_result *r);

#endif
