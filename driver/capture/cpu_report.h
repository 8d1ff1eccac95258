/* driver/capture/cpu_report.h: reads the text of perf report into a level's CPU profile. */
#ifndef AIMSWEEP_CPU_REPORT_H
#define AIMSWEEP_CPU_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "driver/measure/result.h"

/*
 * Reads the text of `perf report --stdio --sort sym -n` (perf 6.1: '#'
 * lines with "Total Lost Samples: N", "Samples: 2K of event 'cpu-clock'"
 * and the column header "Overhead Samples Symbol", then a line per
 * symbol: "17.09%  361  [k] name"). Lines of one name and mark are merged
 * (perf prints a name once per binary that has it), unresolved addresses
 * ("[.] 0x16df89") are merged into "[unknown]" of their mark, and the
 * `top` symbols with the most samples kept, with their share of every
 * sample in the report. A line that cannot be read is dropped and counted
 * (its samples still count when they can be read; a mark other than [k]
 * and [.] is such a line). A report that makes no sense is rejected: no
 * samples, a count in the header that the lines do not add up to, or a
 * percentage that does not match its line's samples; out->rejected says
 * why and out has no symbols, and that is no error. Returns 0, or -1 with
 * why in err (naming the report as path) when the column header never
 * came (not the report we know) or memory ran out.
 */
int cpu_report_parse(FILE *f, const char *path, size_t top,
		     struct cpu_profile *out, char *err, size_t errlen);

#endif
