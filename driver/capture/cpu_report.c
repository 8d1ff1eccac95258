/* driver/capture/cpu_report.c: reads the text of perf report into a level's CPU profile, and judges whether it makes sense. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture/cpu_report.h"
#include "driver/base/util.h"

/* perf prints shares with two decimals; a line whose share differs from
 * its samples' by more than twice that rounding is not what perf counted. */
#define SHARE_SLACK_PCT 0.01

/* One symbol line, as read, before lines of one name are merged. */
struct report_line {
	double pct;		/* perf's share, in percent */
	uint64_t samples;
};

struct report_state {
	bool header;		/* the column header was seen */
	bool have_count;	/* "# Samples: 2K of event" */
	uint64_t count;		/* its number, */
	uint64_t count_unit;	/* in units of this many samples */
	struct report_line *lines;	/* every line with samples */
	size_t n_lines, cap_lines;
	struct cpu_symbol *syms;
	size_t n_syms, cap_syms;
	struct cpu_profile *out;
};

/* "# Samples: 2K of event 'cpu-clock'": perf divides counts above 1000
 * by 1000, as often as it takes, and marks each division K, M, G. */
static void read_count(const char *s, struct report_state *st)
{
	static const char units[] = " KMG";
	uint64_t mult = 1;
	const char *u;
	char *end;

	if (strncmp(s, "# Samples: ", 11) || !(s[11] >= '0' && s[11] <= '9'))
		return;
	errno = 0;
	st->count = strtoull(s + 11, &end, 10);
	if (errno)
		return;
	u = *end ? strchr(units, *end) : NULL;
	if (!u)
		return;
	for (const char *k = units; k < u; k++)
		mult *= 1000;
	/* "2K of event", or "512  of event" with a blank for no unit. */
	if (strncmp(end + 1, " of event", 9))
		return;
	st->count_unit = mult;
	st->have_count = true;
}

/* The '#' lines: counts before the column header, and the header. */
static void read_comment(char *line, struct report_state *st)
{
	static const char *const header[] = { "#", "Overhead", "Samples",
					      "Symbol" };
	unsigned long long lost;
	char *save = NULL, *w;
	size_t n = 0;

	if (st->header)
		return;
	if (sscanf(line, "# Total Lost Samples: %llu", &lost) == 1) {
		st->out->lost = lost;
		return;
	}
	read_count(line, st);
	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n >= sizeof(header) / sizeof(header[0]) ||
		    strcmp(w, header[n]))
			return;
		n++;
	}
	st->header = n == sizeof(header) / sizeof(header[0]);
}

/* "0x16df89": an address perf found no symbol for. */
static bool is_address(const char *name)
{
	return !strncmp(name, "0x", 2) && name[2] &&
	       strspn(name + 2, "0123456789abcdef") == strlen(name + 2);
}

/* v, an array of n elements of `size` bytes with room for *cap, with
 * room for one more: v itself, or v grown (*cap updated), or NULL when
 * it cannot grow (v is left as it was). */
static void *room_for_one(void *v, size_t n, size_t *cap, size_t size)
{
	size_t want = *cap ? *cap * 2 : 64;

	if (n < *cap)
		return v;
	v = realloc(v, want * size);
	if (v)
		*cap = want;
	return v;
}

static int add_line(struct report_state *st, double pct, uint64_t samples)
{
	struct report_line *v = room_for_one(st->lines, st->n_lines,
					     &st->cap_lines, sizeof(*v));

	if (!v)
		return -1;
	st->lines = v;
	st->lines[st->n_lines++] = (struct report_line){ pct, samples };
	return 0;
}

/* Adds samples to the symbol of that name and mark, made when new. */
static int add_symbol(struct report_state *st, const char *name,
		      bool kernel, uint64_t samples)
{
	struct cpu_symbol *s = NULL;

	for (size_t i = 0; i < st->n_syms && !s; i++)
		if (st->syms[i].kernel == kernel &&
		    !strcmp(st->syms[i].name, name))
			s = &st->syms[i];
	if (!s) {
		s = room_for_one(st->syms, st->n_syms, &st->cap_syms,
				 sizeof(*s));
		if (!s)
			return -1;
		st->syms = s;
		s = &st->syms[st->n_syms++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->kernel = kernel;
	}
	s->samples += samples;
	return 0;
}

/* "    17.09%           361  [k] find_get_block_common"; -1 when out of
 * memory, 0 when the line is read or dropped. */
static int read_symbol_line(char *line, struct report_state *st)
{
	char *p = line, *end, *name;
	uint64_t samples;
	double pct;
	bool kernel;
	size_t len;
	int rc;

	p += strspn(p, " \t");
	errno = 0;
	pct = strtod(p, &end);
	if (errno || end == p || *end != '%' || !(pct >= 0 && pct <= 100) ||
	    !(*p >= '0' && *p <= '9'))
		goto dropped;
	p = end + 1;
	p += strspn(p, " \t");
	len = strspn(p, "0123456789");
	if (!len || !strchr(" \t", p[len]))
		goto dropped;
	p[len] = '\0';
	if (!parse_u64(p, UINT64_MAX / 2, &samples) || !samples)
		goto dropped;
	rc = add_line(st, pct, samples);
	if (rc)
		return rc;
	p += len + 1;
	p += strspn(p, " \t");
	/* Samples that count, in a line we cannot keep: a mark other than
	 * [k] and [.] (guest or hypervisor code), or no name. */
	if (!strncmp(p, "[k] ", 4))
		kernel = true;
	else if (!strncmp(p, "[.] ", 4))
		kernel = false;
	else
		goto dropped;
	name = p + 4;
	name += strspn(name, " \t");
	len = strlen(name);
	while (len && strchr(" \t\r\n", name[len - 1]))
		name[--len] = '\0';
	if (!len)
		goto dropped;
	return add_symbol(st, is_address(name) ? "[unknown]" : name, kernel,
			  samples);
dropped:
	st->out->rows_dropped++;
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct cpu_symbol *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->kernel != y->kernel)
		return x->kernel ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Why the lines read make no sense together, into out->rejected; empty
 * when they do. */
static void judge(struct report_state *st, uint64_t total)
{
	struct cpu_profile *out = st->out;

	if (!total) {
		snprintf(out->rejected, sizeof(out->rejected),
			 "no samples");
		return;
	}
	if (!st->have_count) {
		snprintf(out->rejected, sizeof(out->rejected),
			 "no sample count in its header");
		return;
	}
	if (total / st->count_unit != st->count) {
		snprintf(out->rejected, sizeof(out->rejected),
			 "its header counts %" PRIu64 " x %" PRIu64 " samples, its lines %" PRIu64,
			 st->count, st->count_unit, total);
		return;
	}
	for (size_t i = 0; i < st->n_lines; i++) {
		double want = 100.0 * (double)st->lines[i].samples /
			      (double)total;

		if (fabs(st->lines[i].pct - want) > SHARE_SLACK_PCT) {
			snprintf(out->rejected, sizeof(out->rejected),
				 "a line of %" PRIu64 " samples says %.2f%%, but they are %.3f%% of the %" PRIu64 " its lines add up to",
				 st->lines[i].samples, st->lines[i].pct, want,
				 total);
			return;
		}
	}
}

int cpu_report_parse(FILE *f, const char *path, size_t top,
		     struct cpu_profile *out, char *err, size_t errlen)
{
	struct report_state st = { .out = out };
	uint64_t total = 0;
	char line[1024];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (!rc && fgets(line, sizeof(line), f)) {
		/* A line longer than the buffer is not one perf would
		 * print for a symbol we can name: skip the rest of it. */
		if (!strchr(line, '\n') && !feof(f)) {
			int ch;

			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			if (st.header)
				out->rows_dropped++;
			continue;
		}
		if (line[0] == '#')
			read_comment(line, &st);
		else if (st.header && line[strspn(line, " \t\r\n")])
			rc = read_symbol_line(line, &st);
	}
	if (rc)
		err_set(err, errlen, "cpu profile: cannot read %s: %s", path,
			strerror(ENOMEM));
	else if (!st.header)
		rc = err_set(err, errlen,
			     "cpu profile: %s lacks the header '# Overhead Samples Symbol' of perf 6.1's report",
			     path);
	if (rc) {
		free(st.lines);
		free(st.syms);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	for (size_t i = 0; i < st.n_lines; i++)
		total += st.lines[i].samples;
	out->samples = total;
	judge(&st, total);
	free(st.lines);
	if (out->rejected[0]) {
		/* Nothing of it is shown: every line counts as dropped. */
		out->rows_dropped += st.n_lines;
		free(st.syms);
		return 0;
	}
	if (st.n_syms)
		qsort(st.syms, st.n_syms, sizeof(*st.syms), by_samples);
	if (st.n_syms > top)
		st.n_syms = top;
	for (size_t i = 0; i < st.n_syms; i++)
		st.syms[i].share = (double)st.syms[i].samples / (double)total;
	if (!st.n_syms) {
		free(st.syms);
		st.syms = NULL;
	}
	out->symbols = st.syms;
	out->n_symbols = st.n_syms;
	return 0;
}
