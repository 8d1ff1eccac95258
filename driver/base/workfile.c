/* driver/base/workfile.c: reads AIM7 workfiles ("<weight> <job>" lines). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/base/util.h"
#include "driver/base/workfile.h"

struct parser {
	const char *path;
	unsigned int line;
	char *err;
	size_t errlen;
	struct mix *mix;
	size_t cap;
};

static int parse_error(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int parse_error(struct parser *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* The message quotes workfile text: a control character in it must
	 * not reach the terminal (an escape sequence could rewrite it). */
	for (char *c = what; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (p->line)
		snprintf(p->err, p->errlen, "%s:%u: %s", p->path, p->line, what);
	else
		snprintf(p->err, p->errlen, "%s: %s", p->path, what);
	return -1;
}

bool workfile_parse_size(const char *s, uint64_t *bytes)
{
	char digits[32];
	size_t n = strspn(s, "0123456789");
	uint64_t v, unit;

	if (n == 0 || n >= sizeof(digits))
		return false;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (!parse_u64(digits, WORKFILE_MAX_SIZE, &v))
		return false;
	switch (s[n]) {
	case '\0':
	case 'k':
	case 'K':
		unit = 1024;
		break;
	case 'm':
	case 'M':
		unit = 1024 * 1024;
		break;
	case 'g':
	case 'G':
		unit = 1024 * 1024 * 1024;
		break;
	default:
		return false;
	}
	if (s[n] && s[n + 1] && strcasecmp(s + n + 1, "b"))
		return false;
	if (v > WORKFILE_MAX_SIZE / unit)
		return false;
	*bytes = v * unit;
	return true;
}

const char *layout_name(enum scratch_layout layout)
{
	return layout == LAYOUT_SHARED ? "shared" : "per-user";
}

bool layout_parse(const char *s, enum scratch_layout *layout)
{
	if (!strcmp(s, "shared"))
		*layout = LAYOUT_SHARED;
	else if (!strcmp(s, "per-user"))
		*layout = LAYOUT_PER_USER;
	else
		return false;
	return true;
}

/* Splits a line into at most 3 blank-separated words; returns the count,
 * 3 meaning "3 or more". */
static int split_words(char *s, char *words[3])
{
	int n = 0;

	while (n < 3) {
		s += strspn(s, " \t");
		if (!*s)
			break;
		words[n++] = s;
		s += strcspn(s, " \t");
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* "FILESIZE 10K", "FILESIZE: 10K" or "FILESIZE:10K". Returns 1 when the
 * line was a directive, 0 when not, -1 on error. */
static int parse_directive(struct parser *p, char *line)
{
	static const char *const keys[] = { "FILESIZE", "POOLSIZE", "LAYOUT" };
	char *arg, *words[3];
	size_t klen;
	int key = -1, n;

	for (int i = 0; i < 3; i++) {
		klen = strlen(keys[i]);
		if (!strncmp(line, keys[i], klen) &&
		    (line[klen] == ':' || line[klen] == ' ' ||
		     line[klen] == '\t' || line[klen] == '\0')) {
			key = i;
			break;
		}
	}
	if (key < 0)
		return 0;
	arg = line + klen;
	if (*arg == ':')
		arg++;
	n = split_words(arg, words);
	if (n == 0)
		return parse_error(p, "%s needs a value", keys[key]);
	if (n > 1)
		return parse_error(p, "%s takes one value, not '%s %s'",
				   keys[key], words[0], words[1]);
	switch (key) {
	case 0:
	case 1: {
		uint64_t bytes;

		if (!workfile_parse_size(words[0], &bytes))
			return parse_error(p,
				"bad %s '%s' (want a size like 10K, 5M or 1G, at most 1T)",
				keys[key], words[0]);
		if (key == 0) {
			p->mix->file_size = bytes;
			p->mix->file_size_set = true;
		} else {
			p->mix->pool_size = bytes;
			p->mix->pool_size_set = true;
		}
		break;
	}
	case 2:
		if (!layout_parse(words[0], &p->mix->layout))
			return parse_error(p,
				"bad LAYOUT '%s' (want shared or per-user)",
				words[0]);
		break;
	}
	return 1;
}

static int add_job(struct parser *p, const struct job *job, unsigned int weight)
{
	struct mix *mix = p->mix;
	struct mix_entry *e;

	/* A job listed twice runs with the sum of its weights, once in the
	 * results: reaim's own workfiles do this (string_rtns in alltests). */
	for (size_t i = 0; i < mix->n_entries; i++) {
		if (mix->entries[i].job == job) {
			mix->entries[i].weight += weight;
			goto total;
		}
	}
	if (mix->n_entries == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;

		e = realloc(mix->entries, cap * sizeof(*e));
		if (!e)
			return parse_error(p, "out of memory");
		mix->entries = e;
		p->cap = cap;
	}
	e = &mix->entries[mix->n_entries++];
	e->job = job;
	e->weight = weight;
	e->line = p->line;
total:
	mix->total_weight += weight;
	if (mix->total_weight > WORKFILE_MAX_TOTAL_WEIGHT)
		return parse_error(p, "the weights add up to more than %d",
				   WORKFILE_MAX_TOTAL_WEIGHT);
	return 0;
}

static int parse_line(struct parser *p, char *line)
{
	char *words[3], *hash, copy[128];
	const struct job *job;
	const char *near;
	uint64_t weight;
	int n, rc;

	/* '#' starts a comment anywhere; blank lines are ignored. */
	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	line += strspn(line, " \t\r");
	n = (int)strlen(line);
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' ||
			 line[n - 1] == '\r'))
		line[--n] = '\0';
	if (!*line)
		return 0;

	rc = parse_directive(p, line);
	if (rc)
		return rc < 0 ? -1 : 0;

	snprintf(copy, sizeof(copy), "%s", line);
	n = split_words(line, words);
	if (n != 2)
		return parse_error(p,
			"expected '<weight> <job>' or a FILESIZE, POOLSIZE or LAYOUT directive, got '%s'",
			copy);
	if (!parse_u64(words[0], WORKFILE_MAX_WEIGHT, &weight)) {
		if (strspn(words[0], "0123456789") == strlen(words[0]))
			return parse_error(p, "weight %s is above the limit of %d",
					   words[0], WORKFILE_MAX_WEIGHT);
		return parse_error(p, "bad weight '%s' (want a whole number from 1 to %d)",
				   words[0], WORKFILE_MAX_WEIGHT);
	}
	if (weight == 0)
		return parse_error(p, "weight of '%s' is 0 (comment the line out to drop the job)",
				   words[1]);
	job = job_find(words[1]);
	if (!job) {
		near = job_nearest(words[1]);
		if (near)
			return parse_error(p, "unknown job '%s'; did you mean '%s'? (aimsweep list jobs)",
					   words[1], near);
		return parse_error(p, "unknown job '%s' (aimsweep list jobs shows them all)",
				   words[1]);
	}
	return add_job(p, job, (unsigned int)weight);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int workfile_parse(const char *path, const char *text, size_t len,
		   struct mix *mix, char *err, size_t errlen)
{
	struct parser p = { .path = path, .err = err, .errlen = errlen,
			    .mix = mix };
	const char *line, *end = text + len, *nl;
	char buf[4096];
	size_t n;

	memset(mix, 0, sizeof(*mix));
	if (len > WORKFILE_MAX_BYTES) {
		parse_error(&p, "is %zu bytes; a workfile is at most %d",
			    len, WORKFILE_MAX_BYTES);
		return -1;
	}
	if (memchr(text, '\0', len)) {
		parse_error(&p, "holds NUL bytes: not a text workfile");
		return -1;
	}
	/* A UTF-8 byte order mark is not part of the first line. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		text += 3;
	for (line = text; line < end; line = nl + 1) {
		p.line++;
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		n = (size_t)(nl - line);
		if (n && line[n - 1] == '\r')
			n--;
		if (n >= sizeof(buf)) {
			parse_error(&p, "line longer than %zu characters",
				    sizeof(buf) - 1);
			goto fail;
		}
		memcpy(buf, line, n);
		buf[n] = '\0';
		if (parse_line(&p, buf))
			goto fail;
		if (nl == end)
			break;
	}
	p.line = 0;
	if (!mix->n_entries) {
		parse_error(&p, "no jobs: a workfile needs at least one '<weight> <job>' line");
		goto fail;
	}
	mix->path = strdup(path);
	mix->name = strdup(base_name(path));
	if (!mix->path || !mix->name) {
		parse_error(&p, "out of memory");
		goto fail;
	}
	return 0;
fail:
	mix_free(mix);
	return -1;
}

int workfile_load(const char *path, struct mix *mix, char *err, size_t errlen)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, rc = -1;

	memset(mix, 0, sizeof(*mix));
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; the
	 * regular-file check below then refuses it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open workfile: %s", path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size > WORKFILE_MAX_BYTES) {
		snprintf(err, errlen, "%s: is %lld bytes; a workfile is at most %d",
			 path, (long long)st.st_size, WORKFILE_MAX_BYTES);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (len < (size_t)st.st_size) {
		n = read(fd, text + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: cannot read workfile: %s",
				 path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = workfile_parse(path, text, len, mix, err, errlen);
out:
	free(text);
	close(fd);
	return rc;
}

uint64_t mix_file_size(const struct mix *mix, unsigned int users)
{
	return mix->file_size + (users ? mix->pool_size / users : 0);
}

bool mix_uses_dir(const struct mix *mix)
{
	for (size_t e = 0; e < mix->n_entries; e++)
		if (mix->entries[e].job->uses_dir)
			return true;
	return false;
}

void mix_free(struct mix *mix)
{
	free(mix->entries);
	free(mix->path);
	free(mix->name);
	memset(mix, 0, sizeof(*mix));
}
