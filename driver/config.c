/* driver/config.c: reaim's configuration file (-c), read as reaim reads it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/config.h"
#include "driver/util.h"
#include "driver/workfile.h"

/* reaim keys that have no meaning here: accepted, said to be ignored. */
static const char *const ignored_keys[] = {
	"JOBS", "VERBOSE", "CROSSOVER", "BRIEF",
};

static int config_users(const char *path, unsigned int line, const char *key,
			const char *value, unsigned int *out, bool *set,
			char *err, size_t errlen)
{
	uint64_t v;

	if (!parse_u64(value, 1000000, &v) || v == 0) {
		snprintf(err, errlen, "%s:%u: %s '%s' is not a number of users from 1 to 1000000",
			 path, line, key, value);
		return -1;
	}
	*out = (unsigned int)v;
	*set = true;
	return 0;
}

int config_load(const char *path, struct config *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f) {
		memset(c, 0, sizeof(*c));
		snprintf(err, errlen, "%s: cannot open config: %s", path,
			 strerror(errno));
		return -1;
	}
	rc = config_read(f, path, c, err, errlen);
	fclose(f);
	return rc;
}

int config_read(FILE *f, const char *path, struct config *c, char *err,
		size_t errlen)
{
	char buf[4096], *key, *value, *end;
	unsigned int line = 0;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, line);
			goto out;
		}
		buf[strcspn(buf, "#\r\n")] = '\0';
		key = buf + strspn(buf, " \t");
		if (!*key)
			continue;
		value = key + strcspn(key, " \t:");
		if (*value)
			*value++ = '\0';
		value += strspn(value, " \t:");
		end = value + strlen(value);
		while (end > value && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (!*value) {
			snprintf(err, errlen, "%s:%u: %s needs a value", path,
				 line, key);
			goto out;
		}
		if (!strcmp(key, "FILESIZE") || !strcmp(key, "POOLSIZE")) {
			bool file = key[0] == 'F';

			if (!workfile_parse_size(value, file ? &c->file_size
							     : &c->pool_size)) {
				snprintf(err, errlen, "%s:%u: bad %s '%s' (want a size like 10K, 5M or 1G)",
					 path, line, key, value);
				goto out;
			}
			*(file ? &c->file_size_set : &c->pool_size_set) = true;
		} else if (!strcmp(key, "DISKDIR")) {
			if (c->n_diskdirs == CONFIG_MAX_DISKDIRS) {
				snprintf(err, errlen, "%s:%u: more than %d DISKDIR lines",
					 path, line, CONFIG_MAX_DISKDIRS);
				goto out;
			}
			c->diskdirs[c->n_diskdirs] = strdup(value);
			if (!c->diskdirs[c->n_diskdirs++]) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
		} else if (!strcmp(key, "STARTUSERS")) {
			if (config_users(path, line, key, value, &c->start_users,
					 &c->start_set, err, errlen))
				goto out;
		} else if (!strcmp(key, "ENDUSERS")) {
			if (config_users(path, line, key, value, &c->end_users,
					 &c->end_set, err, errlen))
				goto out;
		} else if (!strcmp(key, "INCREMENT")) {
			if (config_users(path, line, key, value, &c->increment,
					 &c->increment_set, err, errlen))
				goto out;
		} else {
			bool known = false;

			for (size_t i = 0; i < sizeof(ignored_keys) /
					       sizeof(ignored_keys[0]); i++)
				known |= !strcmp(key, ignored_keys[i]);
			if (!known) {
				snprintf(err, errlen, "%s:%u: unknown key '%s' (want FILESIZE, POOLSIZE, DISKDIR, STARTUSERS, ENDUSERS or INCREMENT)",
					 path, line, key);
				goto out;
			}
			msg_warn("%s:%u: %s is a reaim setting aimsweep does not use; ignored",
				 path, line, key);
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read config: %s", path,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc)
		config_free(c);
	return rc;
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->n_diskdirs; i++)
		free(c->diskdirs[i]);
	c->n_diskdirs = 0;
}
