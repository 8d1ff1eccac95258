/* tests/fuzz/fuzz_config.c: libFuzzer target for the reaim.config reader (-c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cli/config.h"
#include "driver/cli/options.h"

/* What a read config promises the run: every setting is an option's,
 * and the options take them all. A broken promise is a crash. */
static void check_config(const struct config *c)
{
	bool given[RUN_OPTIONS_MAX] = { false };
	struct run_params *p = calloc(1, sizeof(*p));
	char err[512];

	for (size_t i = 0; i < c->n_settings; i++)
		if (!c->settings[i].option ||
		    !c->settings[i].option->config_key ||
		    !c->settings[i].value[0])
			abort();
	if (!p)
		abort();
	run_options_defaults(p);
	if (config_apply(c, "fuzz", p, given, err, sizeof(err)) ||
	    !p->start_users || p->start_users > MAX_USERS ||
	    !p->end_users || p->end_users > MAX_USERS ||
	    p->increment > MAX_USERS || p->n_scratch > MAX_SCRATCH_DIRS)
		abort();
	free(p);
}

/* Reads data as a config file; returns config_read()'s verdict. */
static int read_config(const uint8_t *data, size_t size, struct config *c,
		       char *err, size_t errlen)
{
	/* fmemopen() wants a buffer of at least one byte. */
	static const uint8_t none[1];
	FILE *f = fmemopen((void *)(size ? data : none), size ? size : 1, "r");
	int rc;

	if (!f)
		abort();
	if (!size)
		fgetc(f);
	rc = config_read(f, "fuzz", c, err, errlen);
	fclose(f);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], small[8];
	struct config c, again;
	int rc, rc2;

	rc = read_config(data, size, &c, err, sizeof(err));
	if (rc == 0) {
		check_config(&c);
		config_free(&c);
	} else if (rc != -1 || !memchr(err, '\0', sizeof(err)) ||
		   strncmp(err, "fuzz", 4)) {
		abort();
	}
	/* A short message buffer changes the message, never the verdict. */
	rc2 = read_config(data, size, &again, small, sizeof(small));
	if (rc2 != rc || (rc2 && !memchr(small, '\0', sizeof(small))))
		abort();
	if (!rc2)
		config_free(&again);
	return 0;
}
