/* tests/fuzz/fuzz_workfile.c: libFuzzer target for the workfile parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/workfile.h"

/* What a parsed mix promises its users; a broken promise is a crash. */
static void check_mix(const struct mix *mix)
{
	uint64_t total = 0;

	if (!mix->n_entries || !mix->entries || !mix->name)
		abort();
	for (size_t i = 0; i < mix->n_entries; i++) {
		const struct mix_entry *e = &mix->entries[i];

		/* A line's weight is at most WORKFILE_MAX_WEIGHT, but lines
		 * naming one job add up, to the total's limit. */
		if (!e->job || !e->job->name || !e->weight ||
		    e->weight > WORKFILE_MAX_TOTAL_WEIGHT || !e->line)
			abort();
		/* Lines naming the same job are merged into one entry. */
		for (size_t j = 0; j < i; j++)
			if (mix->entries[j].job == e->job)
				abort();
		total += e->weight;
	}
	if (total != mix->total_weight || total > WORKFILE_MAX_TOTAL_WEIGHT)
		abort();
	if ((mix->file_size_set && mix->file_size > WORKFILE_MAX_SIZE) ||
	    (mix->pool_size_set && mix->pool_size > WORKFILE_MAX_SIZE))
		abort();
}

/* The message is a terminated "fuzz..." string that fits its buffer. */
static void check_err(const char *err, size_t len)
{
	if (!memchr(err, '\0', len))
		abort();
	if (len > 4 && strncmp(err, "fuzz", 4))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The input is not NUL-terminated: the parser must honour size. */
	const char *text = (const char *)data;
	char err[512], small[8];
	struct mix mix, again;
	int rc, rc2;

	rc = workfile_parse("fuzz", text, size, &mix, err, sizeof(err));
	if (rc == 0) {
		check_mix(&mix);
	} else {
		if (rc != -1)
			abort();
		check_err(err, sizeof(err));
	}
	/* A short message buffer changes the message, never the verdict. */
	rc2 = workfile_parse("fuzz", text, size, &again, small, sizeof(small));
	if (rc2 != rc)
		abort();
	if (rc2)
		check_err(small, sizeof(small));
	else
		mix_free(&again);
	if (rc == 0)
		mix_free(&mix);
	return 0;
}
