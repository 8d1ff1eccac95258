/* driver/output/result_read.h: loads a saved result.json for report, compare, plot. */
#ifndef AIMSWEEP_RESULT_READ_H
#define AIMSWEEP_RESULT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* The largest result.json we agree to read; far above any real sweep. */
#define RESULT_READ_MAX_BYTES (256u << 20)

/*
 * Parses `len` bytes of `buf` (not necessarily NUL-terminated) as a
 * result.json named `name` in messages. On success the tree is returned
 * (free it with cJSON_Delete()), with these guarantees checked: the root
 * is an object, schema_version is 1 or 2, levels is an array whose elements
 * are objects, each with a whole-number `users` and a string `status`.
 * Everything else may be absent or of any type: read it only through the
 * accessors below. On failure NULL is returned and err holds
 * "NAME: what is wrong".
 */
cJSON *result_parse(const char *buf, size_t len, const char *name, char *err,
		    size_t errlen);

/* Reads and parses the file at `path` ("-" is standard input). On
 * failure err holds "PATH: what is wrong" (with the errno text when the
 * file could not be read). */
cJSON *result_read(const char *path, char *err, size_t errlen);

/* The accessors accept a NULL or non-object `obj` and never fail. */

/* obj.key as a finite number, else NaN (absent, null, a string, inf). */
double json_num(const cJSON *obj, const char *key);
/* obj.key1.key2, the same way: NaN unless both steps exist. */
double json_num2(const cJSON *obj, const char *key1, const char *key2);
/* obj.key as a string, else NULL. */
const char *json_str(const cJSON *obj, const char *key);
/* obj.key as an object (or array), else NULL. */
const cJSON *json_obj(const cJSON *obj, const char *key);
const cJSON *json_arr(const cJSON *obj, const char *key);

/* The checked levels array of a tree from result_parse(). */
const cJSON *result_levels(const cJSON *root);
/* A level's user count (checked by result_parse()). */
double level_users(const cJSON *level);
/* Whether the level says "status": "ok"; only those carry numbers. */
bool level_is_ok(const cJSON *level);
/* A failed level's reason, or a placeholder: never NULL. */
const char *level_reason(const cJSON *level);

/*
 * The span a level's lock profile covered: its lock_profile.offset_s and
 * covered_s; in a result written before levels had lock_profile, the
 * start from params (after the CPU profile's slice when there was one)
 * and covered_s the smaller of params.lock_profile.seconds and the
 * level's window_s. False, both NaN, when the file says neither.
 */
bool level_lock_span(const cJSON *root, const cJSON *level,
		     double *offset_s, double *covered_s);

/* A lock_contention[] entry's total wait in ns (total_wait_ns; hand-made
 * files may say wait_total_ns); NaN when it has none or a negative one. */
double lock_entry_wait_ns(const cJSON *e);

/* An entry's caller (or, in hand-made files, its name); NULL when none. */
const char *lock_entry_caller(const cJSON *e);

#define LOCK_LABEL_LEN 200
/* "caller (type)", or the caller alone when it has no type, into buf;
 * NULL when it has no caller. A caller and type is one lock entry from
 * level to level and from run to run. */
const char *lock_entry_label(const cJSON *e, char *buf, size_t len);

/* The shortest "%g" text that reads back as exactly v (15 to 17 digits),
 * so that numbers copied out of result.json keep their value; "nan" and
 * "inf" for those. Returns buf. */
char *num_text(char *buf, size_t len, double v);
#define NUM_TEXT_LEN 32

/* Prints a string from a result.json with control characters as '?': in
 * line-based output a newline would forge a line, and an escape sequence
 * would reach the terminal. NULL prints "?". */
void fput_safe(FILE *f, const char *s);

#endif
