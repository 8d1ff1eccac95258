/* tests/fuzz/fuzz_config.c: libFuzzer target for the reaim.config reader (-c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/config.h"

/* What a read config promises the run; a broken promise is a crash. */
static void check_config(const struct config *c)
{
	if (c->n_diskdirs > CONFIG_MAX_DISKDIRS)
		abort();
	for (size_t i = 0; i < c->n_diskdirs; i++)
		if (!c->diskdirs[i] || !c->diskdirs[i][0])
			abort();
	if ((c->start_set && (!c->start_users || c->start_users > 1000000)) ||
	    (c->end_set && (!c->end_users || c->end_users > 1000000)) ||
	    (c->increment_set && (!c->increment || c->increment > 1000000)))
		abort();
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
