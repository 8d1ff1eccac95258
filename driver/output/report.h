/* driver/output/report.h: `aimsweep report`: result.json as text, CSV... */
#ifndef AIMSWEEP_REPORT_H
#define AIMSWEEP_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

enum report_format {
	REPORT_DEFAULT,		/* the table `aimsweep run` prints */
	REPORT_SIMPLE,		/* "users jobs_per_min", one ok level a line */
	REPORT_JSON,		/* the document, printed again */
	REPORT_CSV,		/* a header and one row per level */
	REPORT_AIM7,		/* AIM7's multitask table */
	REPORT_REAIM,		/* reaim's table */
	REPORT_LKP,		/* "key: value" lines */
};

/* The names report_format_parse() takes, for messages. */
#define REPORT_FORMAT_NAMES "default, simple, json, csv, aim7, reaim or lkp"

/* One of REPORT_FORMAT_NAMES; false otherwise. */
bool report_format_parse(const char *name, enum report_format *fmt);

/*
 * Prints the document `root` in `fmt`. `root` is a tree from
 * result_parse() or from result_to_json(): only its levels array's shape
 * is relied upon, every other value may be missing. `source` names the
 * file in the default format's header (NULL: no such line). Returns 0, or
 * -1 with errno ENOMEM when the JSON text could not be built; write errors
 * are left in ferror(f) for the caller.
 */
int report_print(FILE *f, const cJSON *root, enum report_format fmt,
		 const char *source);

/* The default table in pieces, so that a running sweep can print each
 * level's row as soon as the level ends. */
void report_default_header(FILE *f, const cJSON *root, const char *source);
void report_default_level(FILE *f, const cJSON *level);
void report_default_summary(FILE *f, const cJSON *root);

/* Prints the result.json at path ("-": standard input) in fmt to
 * standard output; returns the exit status, after a message if not 0. */
int report_file(const char *path, enum report_format fmt);

#endif
