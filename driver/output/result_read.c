/* driver/output/result_read.c: loads a saved result.json for report, compare, plot. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/output/result_read.h"
#include "driver/measure/result.h"

/* Users beyond 2^53 cannot be told apart as JSON numbers. */
#define USERS_MAX 9007199254740992.0

/* Line and column (both from 1) of offset `off` in buf. */
static void text_position(const char *buf, size_t off, size_t *line,
			  size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static bool whole_number(const cJSON *n, double min, double max)
{
	return cJSON_IsNumber(n) && isfinite(n->valuedouble) &&
	       n->valuedouble >= min && n->valuedouble <= max &&
	       n->valuedouble == floor(n->valuedouble);
}

/* The checks every reader relies on, so that none of them has to look at
 * the shape of the top of the tree again. */
static bool check_tree(const cJSON *root, const char *name, char *err,
		       size_t errlen)
{
	const cJSON *ver, *levels, *l;
	size_t i = 0;

	if (!cJSON_IsObject(root)) {
		snprintf(err, errlen,
			 "%s: not an aimsweep result: the top level is not a JSON object",
			 name);
		return false;
	}
	ver = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
	if (!ver) {
		snprintf(err, errlen,
			 "%s: not an aimsweep result: no schema_version", name);
		return false;
	}
	if (!cJSON_IsNumber(ver)) {
		snprintf(err, errlen, "%s: schema_version is not a number",
			 name);
		return false;
	}
	/* The range first: only then is the cast to int defined. */
	if (!(ver->valuedouble >= RESULT_SCHEMA_OLDEST &&
	      ver->valuedouble <= RESULT_SCHEMA_VERSION) ||
	    ver->valuedouble != (double)(int)ver->valuedouble) {
		snprintf(err, errlen,
			 "%s: schema_version %g is not one this aimsweep reads (%d to %d)",
			 name, ver->valuedouble, RESULT_SCHEMA_OLDEST,
			 RESULT_SCHEMA_VERSION);
		return false;
	}
	levels = cJSON_GetObjectItemCaseSensitive(root, "levels");
	if (!cJSON_IsArray(levels)) {
		snprintf(err, errlen, "%s: no levels[]", name);
		return false;
	}
	cJSON_ArrayForEach(l, levels) {
		if (!cJSON_IsObject(l)) {
			snprintf(err, errlen, "%s: levels[%zu] is not an object",
				 name, i);
			return false;
		}
		if (!whole_number(cJSON_GetObjectItemCaseSensitive(l, "users"),
				  0, USERS_MAX)) {
			snprintf(err, errlen,
				 "%s: levels[%zu].users is not a whole number of users",
				 name, i);
			return false;
		}
		if (!json_str(l, "status")) {
			snprintf(err, errlen,
				 "%s: levels[%zu].status is not a string", name,
				 i);
			return false;
		}
		i++;
	}
	return true;
}

cJSON *result_parse(const char *buf, size_t len, const char *name, char *err,
		    size_t errlen)
{
	const char *end = NULL;
	char *copy;
	cJSON *root;

	if (len == 0) {
		snprintf(err, errlen, "%s: not JSON: the file is empty", name);
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "%s: not JSON: it holds a NUL byte",
			 name);
		return NULL;
	}
	/* cJSON wants the terminating NUL inside the length to reject
	 * trailing garbage, so parse a terminated copy. */
	copy = malloc(len + 1);
	if (!copy) {
		snprintf(err, errlen, "%s: out of memory for %zu bytes", name,
			 len);
		return NULL;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 1);
	if (!root) {
		size_t off = len, line, col;

		if (end && end >= copy && end <= copy + len)
			off = (size_t)(end - copy);
		text_position(copy, off, &line, &col);
		if (off >= len)
			snprintf(err, errlen,
				 "%s: not JSON: it ends early or has trailing text (line %zu, column %zu)",
				 name, line, col);
		else
			snprintf(err, errlen,
				 "%s: not JSON: syntax error at line %zu, column %zu",
				 name, line, col);
		free(copy);
		return NULL;
	}
	free(copy);
	if (!check_tree(root, name, err, errlen)) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

cJSON *result_read(const char *path, char *err, size_t errlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	cJSON *root = NULL;
	int fd, rc = 0;

	if (!strcmp(path, "-"))
		fd = STDIN_FILENO;
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 strerror(errno));
		return NULL;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nbuf;

			if (cap >= RESULT_READ_MAX_BYTES) {
				snprintf(err, errlen,
					 "%s: larger than %u MiB: not a result.json",
					 path, RESULT_READ_MAX_BYTES >> 20);
				goto out;
			}
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno;
			snprintf(err, errlen, "%s: cannot read: %s", path,
				 strerror(rc));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	root = result_parse(buf, len, path, err, errlen);
out:
	if (fd != STDIN_FILENO)
		close(fd);
	free(buf);
	return root;
}

/* obj.key whatever its type; NULL when obj is not an object. */
static const cJSON *json_item(const cJSON *obj, const char *key)
{
	return cJSON_IsObject(obj) ?
	       cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

double json_num(const cJSON *obj, const char *key)
{
	const cJSON *n = json_item(obj, key);

	if (!cJSON_IsNumber(n) || !isfinite(n->valuedouble))
		return NAN;
	return n->valuedouble;
}

double json_num2(const cJSON *obj, const char *key1, const char *key2)
{
	return json_num(json_obj(obj, key1), key2);
}

const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *s = json_item(obj, key);

	return cJSON_IsString(s) ? s->valuestring : NULL;
}

const cJSON *json_obj(const cJSON *obj, const char *key)
{
	const cJSON *o = json_item(obj, key);

	return cJSON_IsObject(o) ? o : NULL;
}

const cJSON *json_arr(const cJSON *obj, const char *key)
{
	const cJSON *a = json_item(obj, key);

	return cJSON_IsArray(a) ? a : NULL;
}

const cJSON *result_levels(const cJSON *root)
{
	return json_arr(root, "levels");
}

double level_users(const cJSON *level)
{
	return json_num(level, "users");
}

bool level_is_ok(const cJSON *level)
{
	const char *s = json_str(level, "status");

	return s && !strcmp(s, "ok");
}

const char *level_reason(const cJSON *level)
{
	const char *s = json_str(level, "reason");

	return s && *s ? s : "no reason given";
}

bool level_lock_span(const cJSON *root, const cJSON *level,
		     double *offset_s, double *covered_s)
{
	const cJSON *lp = json_obj(level, "lock_profile");
	const cJSON *params = json_obj(root, "params");
	double cpu_s = json_num2(params, "cpu_profile", "seconds");
	double asked = json_num2(params, "lock_profile", "seconds");
	double window = json_num(level, "window_s");

	if (lp) {
		*offset_s = json_num(lp, "offset_s");
		*covered_s = json_num(lp, "covered_s");
	} else {
		*offset_s = isnan(cpu_s) ? 0 : cpu_s;
		*covered_s = isnan(asked) || isnan(window) ? NAN :
			     fmin(asked, window);
	}
	if (isnan(*offset_s) || !(*covered_s > 0)) {
		*offset_s = NAN;
		*covered_s = NAN;
		return false;
	}
	return true;
}

double lock_entry_wait_ns(const cJSON *e)
{
	double w = json_num(e, "total_wait_ns");

	if (isnan(w))
		w = json_num(e, "wait_total_ns");
	return w >= 0 ? w : NAN;
}

const char *lock_entry_caller(const cJSON *e)
{
	const char *s = json_str(e, "caller");

	return s ? s : json_str(e, "name");
}

const char *lock_entry_label(const cJSON *e, char *buf, size_t len)
{
	const char *caller = lock_entry_caller(e), *type = json_str(e, "type");

	if (!caller)
		return NULL;
	if (type && *type)
		snprintf(buf, len, "%s (%s)", caller, type);
	else
		snprintf(buf, len, "%s", caller);
	return buf;
}

char *num_text(char *buf, size_t len, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (!isfinite(v) || strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

void fput_safe(FILE *f, const char *s)
{
	if (!s)
		s = "?";
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}
