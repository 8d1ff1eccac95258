/* driver/capture/cpu_profile.c: --cpu-profile, where the CPUs' time goes in each level: runs perf record and perf report (cpu_report.c reads the report). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/capture/capture.h"
#include "driver/capture/cpu_profile.h"
#include "driver/capture/cpu_report.h"
#include "driver/capture/perf_record.h"
#include "driver/base/process.h"
#include "driver/measure/result.h"
#include "driver/base/util.h"

/* perf report resolves the symbols of a profile. */
#define PERF_REPORT_TIMEOUT_S 120.0
/* How long the test profile before the first level samples. */
#define CHECK_SLICE_S 0.1
/* A test profile that failed is taken once more, this long: on a machine
 * loaded far beyond its CPUs perf may not run at all in the first one's
 * tenth of a second, and record no sample for its report to show. */
#define CHECK_RETRY_SLICE_S 1.0
/*
 * The most one level's profile may take on disk (perf record
 * --max-size): a sample without call chain is some 40 bytes, so a 1 s
 * slice of a 256-CPU machine is some 10 MB, plus the machine's task and
 * memory maps. A profile that reaches it ends early and fails its level.
 */
#define PERF_MAX_SIZE "256M"

#define DATA_NAME "cpu-profile.data"
#define LOG_NAME "cpu-profile-record.log"
#define REPORT_NAME "cpu-profile.txt"

/* A level's CPU profile. Zeroed, it means "nothing started". */
struct cpu_capture {
	const struct run_params *params;	/* NULL: nothing to end */
	char dir[PATH_MAX];	/* the level's directory, absolute */
	char data[PATH_MAX];	/* perf record's output */
	/* perf record, and its timer that turns sampling off at t0 +
	 * slice_s. */
	struct perf_record perf;
	double slice_s;		/* how long sampling is on */
	bool started;
	uint64_t perf_cpu0_ns;	/* perf record's CPU time at t0 */
	/* The first failure, kept until write: it fails the level. */
	char error[REASON_LEN];
};

/* Keeps the first failure: later ones are usually its consequences. */
#define set_error(c, ...) err_keep((c)->error, sizeof((c)->error), __VA_ARGS__)

/*
 * The CPU time every thread of process pid has run, in ns (the first
 * field of each thread's schedstat: exact, where /proc/PID/stat counts
 * whole ticks). 0 when it cannot be read.
 */
static uint64_t process_cpu_ns(pid_t pid)
{
	char path[64], file[PATH_MAX];
	struct dirent *de;
	uint64_t sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned long long ns;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s/schedstat", path,
			 de->d_name);
		f = fopen(file, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* Why perf record could not start, and what would let it. */
static void launch_failed(const struct perf_record *r, int status,
			  char *err, size_t errlen)
{
	char said[320], st[48], now[32] = "";
	int paranoid = (int)process_read_long(
		"/proc/sys/kernel/perf_event_paranoid", INT_MIN);

	if (paranoid != INT_MIN)
		snprintf(now, sizeof(now), " (now %d)", paranoid);
	/* Root may do anything: then it is the kernel or perf, and perf's
	 * own words say which. */
	if (geteuid() == 0)
		snprintf(err, errlen,
			 "cpu profile: perf record -a -e cpu-clock failed (%s), as root; %s",
			 process_status_text(status, st, sizeof(st)),
			 perf_record_said(r, said, sizeof(said)));
	else
		snprintf(err, errlen,
			 "cpu profile: perf record -a -e cpu-clock failed (%s): sampling the whole machine needs root, or kernel.perf_event_paranoid%s lowered to 0 or below; %s",
			 process_status_text(status, st, sizeof(st)), now,
			 perf_record_said(r, said, sizeof(said)));
}

/*
 * Starts `perf record` on every CPU with the cpu-clock software event
 * (no PMU needed), writing c->data, with sampling off until "enable",
 * and waits until it is ready.
 */
static int perf_launch(struct cpu_capture *c, char *err, size_t errlen)
{
	struct perf_record *r = &c->perf;
	char freq[16];
	char *argv[] = {
		"perf", "record", "-e", "cpu-clock", "-F", freq, "-a",
		/* Sampling off until enabled: only the slice is profiled. */
		"-D", "-1", r->control,
		/* No copies of binaries into ~/.debug. */
		"-N",
		"--max-size=" PERF_MAX_SIZE,
		"-o", c->data, NULL
	};

	snprintf(freq, sizeof(freq), "%d", CPU_PROFILE_HZ);
	r->what = "cpu profile";
	r->cmd = "perf record";
	r->join_error = true;
	snprintf(r->log_path, sizeof(r->log_path), "%s/" LOG_NAME, c->dir);
	return perf_record_launch(r, argv, launch_failed, err, errlen);
}

/* Runs perf report on the profile into `report_path`; 0 when it exited
 * 0. */
static int perf_report(const char *data, const char *report_path,
		       char *err, size_t errlen)
{
	char st[48];
	char *argv[] = {
		"perf", "report", "-i", (char *)data, "--stdio",
		/* One line per symbol, with its sample count. */
		"--sort", "sym", "-n", NULL
	};
	pid_t pid;
	int fd, status;

	fd = open(report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		snprintf(err, errlen, "cpu profile: cannot create %s: %s",
			 report_path, strerror(errno));
		return -1;
	}
	pid = process_spawn(&(struct spawn_spec){
		.argv = argv, .out_fd = fd, .err_fd = fd,
	});
	close(fd);
	if (pid < 0) {
		snprintf(err, errlen, "cpu profile: cannot fork: %s",
			 strerror(errno));
		return -1;
	}
	if (process_wait(pid, NULL, PROCESS_INTERRUPTIBLE,
			 process_deadline_in(PERF_REPORT_TIMEOUT_S)) != 1) {
		process_end_group(&pid, 0, 0);
		if (run_interrupted)
			snprintf(err, errlen, "interrupted");
		else
			snprintf(err, errlen,
				 "cpu profile: perf report did not finish within %.0f s; killed it",
				 PERF_REPORT_TIMEOUT_S);
		return -1;
	}
	status = process_end_group(&pid, 0, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen,
			 "cpu profile: perf report failed (%s); its output is in %s",
			 process_status_text(status, st, sizeof(st)), report_path);
		return -1;
	}
	return 0;
}

/* Reads the report at path into prof; -1 with why in err when it is not
 * a report we can read. A report that makes no sense is no error here:
 * prof->rejected says why. */
static int read_report(const char *path, size_t top, struct cpu_profile *prof,
		       char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f)
		return err_set(err, errlen, "cpu profile: cannot read %s: %s",
			       path, strerror(errno));
	rc = cpu_report_parse(f, path, top, prof, err, errlen);
	fclose(f);
	return rc;
}

/* Removes what the check left in its directory, and the directory. */
static void check_cleanup(const char *dir)
{
	static const char *const names[] = {
		DATA_NAME, DATA_NAME ".old", LOG_NAME, REPORT_NAME,
	};
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* The same steps as a level's, for slice_s, in c->dir. */
static int check_steps(struct cpu_capture *c, double slice_s, char *err,
		       size_t errlen)
{
	char report[PATH_MAX + 32];
	struct cpu_profile prof;
	int rc;

	if (perf_launch(c, err, errlen))
		return -1;
	if (perf_record_try(&c->perf, slice_s,
			    "cpu profile: cannot enable perf's sampling", err,
			    errlen))
		return -1;
	snprintf(report, sizeof(report), "%s/" REPORT_NAME, c->dir);
	if (perf_report(c->data, report, err, errlen) ||
	    read_report(report, c->params->cpu_profile_top, &prof, err,
			errlen))
		return -1;
	rc = 0;
	if (prof.rejected[0]) {
		snprintf(err, errlen,
			 "cpu profile: perf report's output on a %.1f s test profile makes no sense: %s",
			 slice_s, prof.rejected);
		rc = -1;
	}
	free(prof.symbols);
	return rc;
}

static bool cpu_profile_wanted(const struct run_params *p)
{
	return p->cpu_profile;
}

/* Before the first level: a test profile, the way levels will take it. */
static int cpu_profile_check(const struct run_params *p, void **run,
			     char *err, size_t errlen)
{
	const double slices[] = { CHECK_SLICE_S, CHECK_RETRY_SLICE_S };
	struct cpu_capture c;
	char why[REASON_LEN + 64];
	int rc = -1;

	(void)run;
	for (size_t i = 0; rc && i < 2 && !run_interrupted; i++) {
		memset(&c, 0, sizeof(c));
		c.params = p;
		if (perf_record_check_dir("--cpu-profile", "cpu-check", c.dir,
					  sizeof(c.dir), err, errlen))
			return -1;
		snprintf(c.data, sizeof(c.data), "%s/" DATA_NAME, c.dir);
		rc = check_steps(&c, slices[i], why, sizeof(why));
		check_cleanup(c.dir);
	}
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
		return -1;
	}
	if (!rc)
		return 0;
	/* The level's words, said of the option. */
	perf_record_option_error("--cpu-profile", "cpu profile", why, err,
				 errlen);
	return -1;
}

/* While the level's users wait at the gate: perf record starts, its
 * sampling off, and is waited for. */
static int cpu_profile_prepare(struct level_capture *lc, void *run, void *st)
{
	const struct run_params *p = lc->params;
	struct cpu_capture *c = st;

	(void)run;
	c->params = p;
	/* First in capture.c's table, the slice starts at t0: one no
	 * longer than the window stays in it. */
	c->slice_s = fmin(p->cpu_profile_s, p->runtime_s);
	lc->slices_end_s = c->slice_s;
	snprintf(c->dir, sizeof(c->dir), "%s", lc->dir);
	if (!path_join(c->data, sizeof(c->data), c->dir, DATA_NAME)) {
		snprintf(lc->error, sizeof(lc->error), "%s: path too long",
			 c->dir);
		return -1;
	}
	return perf_launch(c, lc->error, sizeof(lc->error));
}

/* At t0. A failure is kept for write. */
static void cpu_profile_start(struct level_capture *lc, void *st)
{
	struct cpu_capture *c = st;
	uint64_t off_ns;

	(void)lc;
	if (!c->params || c->started || c->perf.pid <= 0)
		return;
	c->started = true;
	off_ns = process_deadline_in(c->slice_s);
	c->perf_cpu0_ns = process_cpu_ns(c->perf.pid);
	if (perf_record_command(&c->perf, "enable\n"))
		set_error(c, "cpu profile: cannot enable perf's sampling: %s",
			  strerror(errno));
	else if (perf_record_timer(&c->perf, 0, off_ns))
		set_error(c, "cpu profile: cannot fork the timer that ends it: %s",
			  strerror(errno));
}

/* perf record's cost over the window, into prof. */
static void note_cost(struct cpu_capture *c, const struct level_result *level,
		      struct cpu_profile *prof)
{
	uint64_t cpu1 = process_cpu_ns(c->perf.pid);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpu1 > c->perf_cpu0_ns)
		prof->profiler_cpu_s = (double)(cpu1 - c->perf_cpu0_ns) / 1e9;
	if (level->window_s > 0 && cpus > 0)
		prof->profiler_cpu_pct = 100.0 * prof->profiler_cpu_s /
					 (level->window_s * (double)cpus);
}

/* The time the samples stand for: every CPU is sampled CPU_PROFILE_HZ
 * times a second, idle ones too (in the idle task). */
static double sampled_s(const struct cpu_profile *prof)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus > 0 ? (double)prof->samples /
			  ((double)CPU_PROFILE_HZ * (double)cpus) : 0;
}

/*
 * After the level's users have parked: stops perf and, when `report` (the
 * level is ok so far), reads its profile into level->cpu_prof. -1 with
 * the reason in err when anything failed: the level fails with it.
 */
static int cpu_profile_finish(struct cpu_capture *c,
			      struct level_result *level, bool report,
			      char *err, size_t errlen)
{
	char report_path[PATH_MAX + 32], why[REASON_LEN];
	struct cpu_profile prof;
	int status;

	if (!c->params)
		return 0;
	memset(&prof, 0, sizeof(prof));
	status = perf_record_timer_end(&c->perf);
	/* Killed: sampling stayed on past the window. */
	if (WIFSIGNALED(status) && !run_interrupted)
		set_error(c, "cpu profile: its timer did not end it within %.0f s of the window's end",
			  PERF_TIMER_EXIT_TIMEOUT_S);
	if (c->perf.pid > 0) {
		if (c->started)
			note_cost(c, level, &prof);
		if (perf_record_stop(&c->perf, why, sizeof(why)))
			set_error(c, "%s", why);
	}
	snprintf(report_path, sizeof(report_path), "%s/" REPORT_NAME, c->dir);
	if (report && c->started && !c->error[0]) {
		double cpu_s = prof.profiler_cpu_s, pct = prof.profiler_cpu_pct;

		if (perf_report(c->data, report_path, why, sizeof(why)) ||
		    read_report(report_path, c->params->cpu_profile_top,
				&prof, why, sizeof(why))) {
			set_error(c, "%s", why);
		} else {
			prof.offset_s = 0;
			prof.seconds = c->slice_s;
			prof.sampled_s = sampled_s(&prof);
			prof.profiler_cpu_s = cpu_s;
			prof.profiler_cpu_pct = pct;
			prof.disturbed = cpu_profile_disturbed(&prof);
			level->cpu_profiled = true;
			level->cpu_prof = prof;
		}
	}
	if (!c->params->keep_profiles)
		unlink(c->data);
	perf_record_close(&c->perf);
	c->params = NULL;
	if (!c->error[0])
		return 0;
	snprintf(err, errlen, "%s", c->error);
	return -1;
}

static void cpu_profile_write(struct level_capture *lc, void *st,
			      struct level_result *level)
{
	char err[REASON_LEN];

	if (cpu_profile_finish(st, level,
			       level->status == LEVEL_OK && !lc->error[0], err,
			       sizeof(err)))
		capture_error(lc, "%s", err);
}

/* Kills and reaps what the capture started and removes its profile. */
static void cpu_profile_abort(struct level_capture *lc, void *st)
{
	struct cpu_capture *c = st;

	(void)lc;
	if (!c->params)
		return;
	perf_record_abort(&c->perf);
	if (c->data[0])
		unlink(c->data);
	c->params = NULL;
}

/*
 * --cpu-profile. check proves, once before the first level, that perf is
 * here, may sample the whole machine, and prints a report cpu_report.c
 * reads (a 0.1 s profile in a temporary directory). At the gate `perf
 * record -a -e cpu-clock` starts with its sampling off and is waited for;
 * at t0 sampling goes on, and off again --cpu-profile-seconds later (a
 * timer process does that). After the users parked perf is stopped and,
 * when the level is ok so far, its report read into the level's
 * cpu_prof.
 */
const struct capture_ops cpu_profile_capture = {
	.name = "cpu-profile",
	.level_size = sizeof(struct cpu_capture),
	.wanted = cpu_profile_wanted,
	.check = cpu_profile_check,
	.prepare = cpu_profile_prepare,
	.start = cpu_profile_start,
	.write = cpu_profile_write,
	.abort = cpu_profile_abort,
};

bool cpu_profile_disturbed(const struct cpu_profile *prof)
{
	return prof->lost > 0 ||
	       prof->profiler_cpu_pct > CPU_PROFILE_DISTURB_PCT;
}
