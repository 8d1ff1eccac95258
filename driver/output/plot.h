/* driver/output/plot.h: draws results: writes script and data, runs gnuplot. */
#ifndef AIMSWEEP_PLOT_H
#define AIMSWEEP_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* How many locks per result the lock panel draws: the ones with the most
 * wait time over the run. */
#define PLOT_TOP_LOCKS 5
/* How many kernel symbols per result the CPU profile panel draws: those
 * with the largest share at the level of the most users, where the
 * contention that grows with users is most. As many as the lock panel's
 * locks: a sixth line's title no longer fits under the panel. */
#define PLOT_TOP_SYMBOLS 5

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

/* Whether `out` can name a picture: FILE.svg or FILE.png, in text the
 * script can quote. Says why not. */
bool plot_output_name_ok(const char *out);

/*
 * Reads the n result.json files at paths and draws them to out
 * (plot_draw()), the i-th with the i-th of the n_labels labels as its
 * legend (else its own, plot_label()). Returns the exit status: 0, or 1
 * after a message.
 */
int plot_files(char **paths, size_t n, const char **labels,
	       size_t n_labels, const char *out);

#endif
