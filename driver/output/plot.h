/* driver/output/plot.h: `aimsweep plot`: a gnuplot script and data for results. */
#ifndef AIMSWEEP_PLOT_H
#define AIMSWEEP_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* How many locks per result the lock panel draws: the ones with the most
 * wait time over the run. */
#define PLOT_TOP_LOCKS 5

struct plot_result {
	const cJSON *root;	/* from result_parse() */
	const char *label;	/* the legend's name for this run */
};

/*
 * Writes `gp_path` (a gnuplot script) and `dat_path` (its data) for the
 * results, drawing to `out_name`, a name relative to the directory that
 * holds all three (gnuplot is run there, so that the script still works
 * when the directory moves); `png` picks the PNG terminal over SVG. The
 * script names the data file by `dat_name`, also relative to it.
 * Returns the number of panels, or -1 after a message in err.
 */
int plot_write(const struct plot_result *res, size_t n, const char *gp_path,
	       const char *dat_path, const char *dat_name,
	       const char *out_name, bool png, char *err, size_t errlen);

/*
 * Draws `out`, a FILE.svg or FILE.png path, from results in memory: writes
 * FILE.gp and FILE.dat next to it (plot_write()), then runs gnuplot there
 * when it is installed. Returns 0 when written (drawn, or gnuplot is
 * missing), -1 after a message.
 */
int plot_draw(const struct plot_result *res, size_t n, const char *out);

/* A result's name in the legend: "LABEL (kernel)" for a --label, else
 * "kernel workfile" (`path` when the file names no workfile). The caller
 * frees it; NULL when out of memory. */
char *plot_label(const cJSON *root, const char *label, const char *path);

void plot_usage(FILE *f);
/* `aimsweep plot` (argv[0] is "plot"); returns the exit status. */
int plot_main(int argc, char **argv);

#endif
