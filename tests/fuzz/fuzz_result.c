/* tests/fuzz/fuzz_result.c: libFuzzer target for the result.json reader and what prints it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/output/compare.h"
#include "driver/output/report.h"
#include "driver/output/result_read.h"

static FILE *devnull;

/* What result_parse() promises about the tree it returns. */
static void check_tree(const cJSON *root)
{
	const cJSON *levels = result_levels(root), *level;
	char num[NUM_TEXT_LEN];

	if (!cJSON_IsObject(root) || !cJSON_IsArray(levels))
		abort();
	cJSON_ArrayForEach(level, levels) {
		double users = level_users(level);

		if (!isfinite(users) || users < 0 || users != floor(users))
			abort();
		if (!level_reason(level))
			abort();
		level_is_ok(level);
		/* Any value of any type must read as a number or NaN. */
		num_text(num, sizeof(num), json_num(level, "jobs_per_min"));
		num_text(num, sizeof(num), json_num2(level, "rusage", "stime_s"));
		fput_safe(devnull, json_str(level, "status"));
		json_arr(level, "jobs");
		json_obj(level, "per_user_jobs_per_min");
	}
	fput_safe(devnull, json_str(root, "status"));
	json_obj(root, "summary");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum report_format formats[] = {
		REPORT_DEFAULT, REPORT_SIMPLE, REPORT_JSON, REPORT_CSV,
		REPORT_AIM7, REPORT_REAIM, REPORT_LKP,
	};
	char err[512];
	cJSON *root;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		if (!devnull)
			abort();
	}
	/* The input is not NUL-terminated: the reader must honour size. */
	root = result_parse((const char *)data, size, "fuzz", err, sizeof(err));
	if (!root) {
		if (!memchr(err, '\0', sizeof(err)) || strncmp(err, "fuzz: ", 6))
			abort();
		return 0;
	}
	check_tree(root);
	/* Everything that reads a saved result must cope with whatever
	 * passed the checks: report in every format, compare with itself. */
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		report_print(devnull, root, formats[i], "fuzz");
	compare_print(devnull, root, "a", root, "b", 5.0, COMPARE_NOISE_PCT);
	cJSON_Delete(root);
	return 0;
}
