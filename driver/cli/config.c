/* driver/cli/config.c: reaim's configuration file (-c), read as reaim reads it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cli/config.h"
#include "driver/cli/options.h"
#include "driver/base/util.h"
#include "driver/base/workfile.h"

/* reaim keys that have no meaning here: accepted, said to be ignored. */
static const char *const ignored_keys[] = {
	"JOBS", "VERBOSE", "CROSSOVER", "BRIEF",
};

/* The keys read, for messages: "FILESIZE, POOLSIZE, ... or DISKDIR". */
static void known_keys(char *buf, size_t len)
{
	const char *last = NULL;
	size_t k;

	k = (size_t)snprintf(buf, len, "FILESIZE, POOLSIZE");
	for (size_t i = 0; i < n_run_options && k < len; i++) {
		if (!run_options[i].config_key)
			continue;
		if (last)
			k += (size_t)snprintf(buf + k, len - k, ", %s", last);
		last = run_options[i].config_key;
	}
	if (last && k < len)
		snprintf(buf + k, len - k, " or %s", last);
}

/* "FILE:LINE: KEY: why" when value is not what the key's option takes. */
static int option_value(const struct run_option *o, const char *value,
			struct run_params *p, const char *where,
			const char *key, char *err, size_t errlen)
{
	char why[512];

	if (run_option_parse(o, value, p, why, sizeof(why)))
		return 0;
	snprintf(err, errlen, "%s: %s: %s", where, key, why);
	return -1;
}

/* Checks the value as the option would take it, after the settings
 * before it (into check: a 17th DISKDIR is refused as a 17th -d is),
 * and keeps it. */
static int add_setting(struct config *c, struct run_params *check,
		       const struct run_option *o, const char *value,
		       unsigned int line, const char *where, char *err,
		       size_t errlen)
{
	struct config_setting *s;

	if (option_value(o, value, check, where, o->config_key, err, errlen))
		return -1;
	s = realloc(c->settings, (c->n_settings + 1) * sizeof(*s));
	if (s)
		c->settings = s;
	if (!s || !(s[c->n_settings].value = strdup(value))) {
		snprintf(err, errlen, "%s: out of memory", where);
		return -1;
	}
	s[c->n_settings].option = o;
	s[c->n_settings++].line = line;
	return 0;
}

static int read_key(struct config *c, struct run_params *check,
		    const char *key, const char *value, const char *path,
		    unsigned int line, char *err, size_t errlen)
{
	const struct run_option *o = run_option_for_config_key(key);
	char where[4096 + 32], keys[256];
	bool known = false;

	snprintf(where, sizeof(where), "%s:%u", path, line);
	if (!strcmp(key, "FILESIZE") || !strcmp(key, "POOLSIZE")) {
		bool file = key[0] == 'F';

		if (!workfile_parse_size(value, file ? &c->file_size
						     : &c->pool_size)) {
			snprintf(err, errlen, "%s: bad %s '%s' (want a size like 10K, 5M or 1G)",
				 where, key, value);
			return -1;
		}
		*(file ? &c->file_size_set : &c->pool_size_set) = true;
		return 0;
	}
	if (o)
		return add_setting(c, check, o, value, line, where, err,
				   errlen);
	for (size_t i = 0; i < sizeof(ignored_keys) / sizeof(ignored_keys[0]);
	     i++)
		known |= !strcmp(key, ignored_keys[i]);
	if (!known) {
		known_keys(keys, sizeof(keys));
		snprintf(err, errlen, "%s: unknown key '%s' (want %s)", where,
			 key, keys);
		return -1;
	}
	msg_warn("%s: %s is a reaim setting aimsweep does not use; ignored",
		 where, key);
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
	/* The values read so far, as the options take them. */
	struct run_params *check = calloc(1, sizeof(*check));
	char buf[4096], *key, *value, *end;
	unsigned int line = 0;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (!check) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
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
		if (read_key(c, check, key, value, path, line, err, errlen))
			goto out;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read config: %s", path,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(check->levels);
	free(check);
	if (rc)
		config_free(c);
	return rc;
}

int config_apply(const struct config *c, const char *path,
		 struct run_params *p, const bool *given, char *err,
		 size_t errlen)
{
	for (size_t i = 0; i < c->n_settings; i++) {
		const struct config_setting *s = &c->settings[i];
		char where[4096 + 32];

		if (given[s->option - run_options])
			continue;
		snprintf(where, sizeof(where), "%s:%u", path, s->line);
		if (option_value(s->option, s->value, p, where,
				 s->option->config_key, err, errlen))
			return -1;
	}
	return 0;
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->n_settings; i++)
		free(c->settings[i].value);
	free(c->settings);
	c->settings = NULL;
	c->n_settings = 0;
}
