/* driver/output/plot_script.c: plot's gnuplot script: panels, quoting. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "driver/output/plot_script.h"

/* Length of the UTF-8 sequence at s, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* The second byte's range excludes overlong forms, surrogates and
	 * code points past U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A gnuplot single-quoted string, in which nothing is interpreted but ''
 * for a quote. Control characters and bytes that are not UTF-8 become
 * '?': a label comes from a file or the command line, and the SVG it
 * ends up in must stay well-formed XML.
 */
void plot_script_quote(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "?");

	fputc('\'', f);
	while (*p) {
		size_t n;

		if (*p == '\'') {
			fputs("''", f);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			fputc('?', f);
			p++;
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else if ((n = utf8_len(p))) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputc('?', f);
			p++;
		}
	}
	fputc('\'', f);
}

/* Whether plot_script_quote() prints s unchanged (but for doubled quotes). */
bool plot_script_literal(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80 ? 1 : utf8_len(p);

		if (!n || *p < 0x20 || *p == 0x7f)
			return false;
		p += n;
	}
	return true;
}

/* Starts the next clause of a panel's plot command. */
FILE *plot_script_clause(struct panel *p)
{
	if (p->n++)
		fputs(", \\\n     ", p->clauses);
	return p->clauses;
}

void plot_script_write(FILE *gp, const struct plot_data *d, size_t n_results,
		       const char *gp_name, const char *out_name, bool png)
{
	size_t active = 0, rows, cols;

	for (int i = 0; i < N_PANELS; i++)
		active += d->panels[i].n > 0;
	cols = active > 1 ? 2 : 1;
	rows = (active + cols - 1) / cols;
	fprintf(gp, "# %s: aimsweep plot of %zu result%s; redraw with `gnuplot %s` in this directory.\n",
		gp_name, n_results, n_results == 1 ? "" : "s", gp_name);
	if (png) {
		fprintf(gp,
			"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			"\tset terminal pngcairo size 1200,%zu\n"
			"} else {\n"
			"\tset terminal png size 1200,%zu\n"
			"}\n", rows > 2 ? rows * 450 : 900,
			rows > 2 ? rows * 450 : 900);
	} else {
		fprintf(gp, "set terminal svg size 1200,%zu dynamic\n",
			rows > 2 ? rows * 450 : 900);
	}
	/* Job names like creat_clo would turn into subscripts otherwise. */
	fputs("set termoption noenhanced\n", gp);
	fputs("set output ", gp);
	plot_script_quote(gp, out_name);
	fputs("\ndat = ", gp);
	plot_script_quote(gp, d->dat_name);
	/* gnuplot overestimates how wide a key of long titles is (a lock's
	 * "release workfile: caller+0x3b"), warns that it cannot fit them
	 * under a half-width panel, and the warning reached the run's
	 * output; narrowed by 8 characters they fit and it stays quiet. */
	fputs("\nset datafile missing '?'\n"
	      "set grid\n"
	      "set key below width -8\n"
	      "set xlabel 'users'\n", gp);
	/* Doubling ramps (1,2,4,...,64) bunch up at the left on a linear
	 * axis; 100..1000 by 100 reads better linear. */
	if (d->geometric && d->min_users >= 1 &&
	    d->max_users / d->min_users >= 4)
		fputs("set logscale x 2\n", gp);
	fprintf(gp, "set multiplot layout %zu,%zu\n", rows, cols);
	for (int i = 0; i < N_PANELS; i++) {
		const struct panel *p = &d->panels[i];

		if (!p->n)
			continue;
		fputs("\nset title ", gp);
		plot_script_quote(gp, p->title);
		fputs("\nset ylabel ", gp);
		plot_script_quote(gp, p->ylabel);
		fputc('\n', gp);
		if (p->yformat) {
			fputs("set format y ", gp);
			plot_script_quote(gp, p->yformat);
			fputc('\n', gp);
		} else {
			fputs("set format y '% h'\n", gp);
		}
		fprintf(gp, "set key font '%s' maxcols %s\n",
			p->small_key ? ",9" : "", p->small_key ? "1" : "auto");
		if (p->logy)
			fputs("set logscale y\nset yrange [*:*]\n", gp);
		else
			fputs("unset logscale y\nset yrange [0:*]\n", gp);
		fprintf(gp, "plot %.*s\n", (int)p->len, p->text);
	}
	fputs("\nunset multiplot\n", gp);
}

int plot_script_panels_init(struct plot_data *d)
{
	static const struct panel proto[N_PANELS] = {
		[PANEL_JOBS] = { "jobs/min vs users", "jobs/min", "%.1s%c" },
		[PANEL_PER_USER] = { "jobs/min per user vs users (dashed: ideal)",
				     "jobs/min/user", "%.1s%c" },
		[PANEL_P99] = { "p99 latency per job vs users",
				"p99 latency (us)", NULL, true },
		[PANEL_SYS] = { "machine sys % vs users (/proc/stat)",
				"sys %", NULL },
		[PANEL_LOCKS] = { "top lock callers: wait per second profiled vs users",
				  "lock wait (ms per s profiled, all waiters)",
				  NULL, .small_key = true },
		[PANEL_CPU] = { "top kernel symbols: share of all CPU samples vs users",
				"% of CPU samples (perf, all CPUs)", NULL,
				.small_key = true },
	};

	int rc = 0;

	for (int i = 0; i < N_PANELS; i++) {
		d->panels[i] = proto[i];
		d->panels[i].clauses = open_memstream(&d->panels[i].text,
						      &d->panels[i].len);
		if (!d->panels[i].clauses)
			rc = -1;
	}
	return rc;
}
