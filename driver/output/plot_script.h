/* driver/output/plot_script.h: plot's gnuplot script: panels, quoting. */
#ifndef AIMSWEEP_PLOT_SCRIPT_H
#define AIMSWEEP_PLOT_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum panel_id {
	PANEL_JOBS,
	PANEL_PER_USER,
	PANEL_P99,
	PANEL_SYS,
	PANEL_LOCKS,
	PANEL_CPU,
	N_PANELS,
};

struct panel {
	const char *title;
	const char *ylabel;
	const char *yformat;	/* NULL: gnuplot's own */
	bool logy;
	/* A key of long titles in a smaller font: at the default size two
	 * such keys side by side run into each other. One column: two of
	 * short titles ran into the axis label above them. */
	bool small_key;
	FILE *clauses;		/* the plot command's clauses, in memory */
	char *text;
	size_t len;
	size_t n;		/* clauses so far */
};

struct plot_data {
	FILE *dat;
	const char *dat_name;
	size_t next_index;	/* the gnuplot index of the next block */
	size_t sys_measured, sys_derived;
	double min_users, max_users;
	bool geometric;		/* each result's levels at least double */
	struct panel panels[N_PANELS];
};

/* The panels, each with an empty plot command in memory; -1 when out of
 * memory (a panel's clauses are then NULL). */
int plot_script_panels_init(struct plot_data *d);
/* Starts the next clause of a panel's plot command. */
FILE *plot_script_clause(struct panel *p);
/* s as a gnuplot string in single quotes. */
void plot_script_quote(FILE *f, const char *s);
/* Whether plot_script_quote() prints s unchanged (apart from doubled
 * quotes). */
bool plot_script_literal(const char *s);
/* The script, named gp_name, that draws d's panels with a clause to
 * out_name, as PNG or SVG. */
void plot_script_write(FILE *gp, const struct plot_data *d, size_t n_results,
		       const char *gp_name, const char *out_name, bool png);

#endif
