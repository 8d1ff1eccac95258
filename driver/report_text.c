/* driver/report_text.c: the human-readable table on stdout. */
#include <stdio.h>

#include "driver/report_text.h"
#include "driver/util.h"

void report_text_header(FILE *f, const struct run_result *r,
			const char *json_path)
{
	const struct run_params *p = r->params;
	char levels[96];

	levels_describe(levels, sizeof(levels), p->levels, p->n_levels);
	fprintf(f, "# aimsweep %s: workfile %s (%zu job%s), %s, ",
		PACKAGE_VERSION, r->mix->name, r->mix->n_entries,
		r->mix->n_entries == 1 ? "" : "s", levels);
	fprintf(f, "%g s per level after %g s warm-up\n", p->runtime_s,
		p->warmup_s);
	fprintf(f, "# host %s, Linux %s, %u CPUs, %.1f GiB\n",
		r->host.hostname, r->host.kernel_release, r->host.cpus_online,
		(double)r->host.memory_bytes / (1024.0 * 1024 * 1024));
	fprintf(f, "# results %s\n", json_path);
	fprintf(f, "%7s %14s %13s %12s %12s %12s %6s %9s %9s  %s\n", "users",
		"jobs/min", "jobs/min/user", "user min", "user median",
		"user max", "JTI", "utime s", "stime s", "status");
	fflush(f);
}

void report_text_level(FILE *f, const struct level_result *l)
{
	if (l->status != LEVEL_OK) {
		fprintf(f, "%7u  FAILED: %s\n", l->users, l->reason);
		fflush(f);
		return;
	}
	fprintf(f, "%7u %14.1f %13.1f %12.1f %12.1f %12.1f %6.1f %9.2f %9.2f  %s",
		l->users, l->jobs_per_min, l->jobs_per_min_per_user,
		l->user_min, l->user_median, l->user_max, l->jti,
		l->rusage.utime_s, l->rusage.stime_s, "ok");
	if (l->errors)
		fprintf(f, " (%llu errors)", (unsigned long long)l->errors);
	fputc('\n', f);
	fflush(f);
}

void report_text_summary(FILE *f, const struct run_result *r)
{
	long peak = result_peak_level(r);
	size_t ok = 0;

	for (size_t i = 0; i < r->n_levels; i++)
		ok += r->levels[i].status == LEVEL_OK;
	fprintf(f, "# %zu level%s ok, %zu failed", ok, ok == 1 ? "" : "s",
		r->n_levels - ok);
	if (peak >= 0)
		fprintf(f, "; peak %.1f jobs/min at %u user%s",
			r->levels[peak].jobs_per_min, r->levels[peak].users,
			r->levels[peak].users == 1 ? "" : "s");
	if (r->status == RUN_INTERRUPTED)
		fprintf(f, "; interrupted");
	fputc('\n', f);
	fflush(f);
}
