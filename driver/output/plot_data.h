/* driver/output/plot_data.h: plot's data: a result's lines, panel by panel. */
#ifndef AIMSWEEP_PLOT_DATA_H
#define AIMSWEEP_PLOT_DATA_H

#include <stddef.h>

#include "driver/output/plot.h"
#include "driver/output/plot_script.h"

/*
 * Every result's blocks into d's data file and its lines into d's
 * panels, one color per result; -1 when out of memory.
 */
int plot_data_add_results(struct plot_data *d, const struct plot_result *res,
			  size_t n);

#endif
