/* driver/cpu_profile.c: --cpu-profile, where the CPUs' time goes in each level: perf record and its report. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/capture.h"
#include "driver/cpu_profile.h"
#include "driver/process.h"
#include "driver/users.h"
#include "driver/util.h"

/* perf record starts in well under a second when idle; users wait at the
 * gate meanwhile, and a thousand of them slow it down. */
#define PERF_READY_TIMEOUT_S 60.0
/* After "stop", perf writes its header and exits. */
#define PERF_STOP_TIMEOUT_S 5.0
/* perf report resolves the symbols of a profile. */
#define PERF_REPORT_TIMEOUT_S 120.0
/* The timer turns sampling off inside the window; it may be late only
 * when the machine is starved. */
#define TIMER_EXIT_TIMEOUT_S 1.0
/* How long the test profile before the first level samples. */
#define CHECK_SLICE_S 0.1
/*
 * The most one level's profile may take on disk (perf record
 * --max-size): a sample without call chain is some 40 bytes, so a 1 s
 * slice of a 256-CPU machine is some 10 MB, plus the machine's task and
 * memory maps. A profile that reaches it ends early and fails its level.
 */
#define PERF_MAX_SIZE "256M"
/* perf prints shares with two decimals; a line whose share differs from
 * its samples' by more than twice that rounding is not what perf counted. */
#define SHARE_SLACK_PCT 0.01

#define DATA_NAME "cpu-profile.data"
#define LOG_NAME "cpu-profile-record.log"
#define REPORT_NAME "cpu-profile.txt"

static void set_error(struct cpu_capture *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keeps the first failure: later ones are usually its consequences. */
static void set_error(struct cpu_capture *c, const char *fmt, ...)
{
	va_list ap;

	if (c->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
}

/*
 * What perf said, for messages: the first line of its log that says
 * something. perf puts "Error:" on a line of its own, before what went
 * wrong; that line is joined to the next.
 */
static const char *perf_said(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[512], prefix[16] = "";

	snprintf(buf, len, "perf printed nothing");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[strspn(line, " \t")] ||
		    !strcmp(line, "Events disabled") ||
		    !strcmp(line, "Events enabled"))
			continue;
		if (!strcmp(line, "Error:") || !strcmp(line, "Warning:")) {
			snprintf(prefix, sizeof(prefix), "%s ", line);
			continue;
		}
		snprintf(buf, len, "perf said: %s%s", prefix, line);
		break;
	}
	fclose(f);
	return buf;
}

/* Sends perf record one of its --control commands ("enable\n", ...). */
static int perf_command(int ctl_fd, const char *cmd)
{
	return process_write_nosigpipe(ctl_fd, cmd, strlen(cmd));
}

/* Waits for perf's next "ack" until deadline_ns; -1 when perf is gone,
 * the time ran out or the run was interrupted. */
static int perf_wait_ack(int ack_fd, uint64_t deadline_ns)
{
	char buf[64];

	for (;;) {
		struct pollfd pfd = { .fd = ack_fd, .events = POLLIN };
		ssize_t n;
		int rc;

		if (now_ns() >= deadline_ns || run_interrupted)
			return -1;
		rc = poll(&pfd, 1, 100);
		if (rc < 0 && errno != EINTR)
			return -1;
		if (rc <= 0)
			continue;
		n = read(ack_fd, buf, sizeof(buf) - 1);
		if (n == 0)
			return -1;	/* perf exited */
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		buf[n] = '\0';
		if (strstr(buf, "ack"))
			return 0;
	}
}

static void close_fds(struct cpu_capture *c)
{
	if (!c->fds_open)
		return;
	close(c->ctl_fd);
	close(c->ack_fd);
	c->fds_open = false;
}

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
static void launch_failed(char *err, size_t errlen, int status,
			  const char *log_path)
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
			 perf_said(log_path, said, sizeof(said)));
	else
		snprintf(err, errlen,
			 "cpu profile: perf record -a -e cpu-clock failed (%s): sampling the whole machine needs root, or kernel.perf_event_paranoid%s lowered to 0 or below; %s",
			 process_status_text(status, st, sizeof(st)), now,
			 perf_said(log_path, said, sizeof(said)));
}

/*
 * Starts `perf record` on every CPU with the cpu-clock software event
 * (no PMU needed), writing c->data, with sampling off until
 * perf_command("enable\n"), and waits until it answers on its control
 * pipe, which it does once it is fully set up.
 */
static int perf_launch(struct cpu_capture *c, char *err, size_t errlen)
{
	char control[64], freq[16], log_path[PATH_MAX + 32];
	char *argv[] = {
		"perf", "record", "-e", "cpu-clock", "-F", freq, "-a",
		/* Sampling off until enabled: only the slice is profiled. */
		"-D", "-1", control,
		/* No copies of binaries into ~/.debug. */
		"-N",
		"--max-size=" PERF_MAX_SIZE,
		"-o", c->data, NULL
	};
	int ctl[2] = { -1, -1 }, ack[2] = { -1, -1 }, keep[2], log = -1;

	snprintf(freq, sizeof(freq), "%d", CPU_PROFILE_HZ);
	snprintf(log_path, sizeof(log_path), "%s/" LOG_NAME, c->dir);
	if (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)) {
		snprintf(err, errlen, "cpu profile: cannot create a pipe: %s",
			 strerror(errno));
		goto fail;
	}
	log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log < 0) {
		snprintf(err, errlen, "cpu profile: cannot create %s: %s",
			 log_path, strerror(errno));
		goto fail;
	}
	snprintf(control, sizeof(control), "--control=fd:%d,%d", ctl[0],
		 ack[1]);
	keep[0] = ctl[0];
	keep[1] = ack[1];
	c->perf_pid = process_spawn(&(struct spawn_spec){
		.argv = argv, .out_fd = log, .err_fd = log,
		.keep = keep, .n_keep = 2,
	});
	if (c->perf_pid < 0) {
		c->perf_pid = 0;
		snprintf(err, errlen, "cpu profile: cannot fork: %s",
			 strerror(errno));
		goto fail;
	}
	close(log);
	close(ctl[0]);
	close(ack[1]);
	c->ctl_fd = ctl[1];
	c->ack_fd = ack[0];
	c->fds_open = true;
	fcntl(c->ack_fd, F_SETFL, O_NONBLOCK);

	if (!perf_command(c->ctl_fd, "ping\n") &&
	    !perf_wait_ack(c->ack_fd, process_deadline_in(PERF_READY_TIMEOUT_S)))
		return 0;
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
		process_end_group(&c->perf_pid, 0, 0);
	} else if (process_wait(c->perf_pid, NULL, 0,
				process_deadline_in(1.0)) == 1) {
		/* Its pipe closed as it exited; it is reapable soon after. */
		launch_failed(err, errlen, process_end_group(&c->perf_pid, 0, 0),
			      log_path);
	} else {
		process_end_group(&c->perf_pid, 0, 0);
		snprintf(err, errlen,
			 "cpu profile: perf record was not ready after %.0f s (its output is in %s)",
			 PERF_READY_TIMEOUT_S, log_path);
	}
	close_fds(c);
	return -1;
fail:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (ack[i] >= 0)
			close(ack[i]);
	}
	if (log >= 0)
		close(log);
	return -1;
}

/*
 * Stops perf and reaps it; 0 when it wrote its profile and exited 0. A
 * perf that had exited before we stopped it cut its profile short (it
 * reached --max-size, or failed): that is an error too.
 */
static int perf_stop(struct cpu_capture *c, char *err, size_t errlen)
{
	char log_path[PATH_MAX + 32], said[320], st[48];
	bool early = process_has_exited(c->perf_pid);
	int status;

	snprintf(log_path, sizeof(log_path), "%s/" LOG_NAME, c->dir);
	if (!early)
		perf_command(c->ctl_fd, "stop\n");
	if (process_wait(c->perf_pid, NULL, PROCESS_INTERRUPTIBLE,
			 process_deadline_in(PERF_STOP_TIMEOUT_S)) != 1) {
		process_end_group(&c->perf_pid, 0, 0);
		close_fds(c);
		if (run_interrupted)
			snprintf(err, errlen, "interrupted");
		else
			snprintf(err, errlen,
				 "cpu profile: perf record did not stop within %.0f s; killed it (its output is in %s)",
				 PERF_STOP_TIMEOUT_S, log_path);
		return -1;
	}
	status = process_end_group(&c->perf_pid, 0, 0);
	close_fds(c);
	if (early || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "cpu profile: perf record %s (%s); %s",
			 early ? "ended before the profile did" : "failed",
			 process_status_text(status, st, sizeof(st)),
			 perf_said(log_path, said, sizeof(said)));
		return -1;
	}
	return 0;
}

/* A child of the driver that turns sampling off at off_ns: the driver
 * itself sleeps until t1 meanwhile. */
static void start_timer(struct cpu_capture *c, uint64_t off_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(off_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(off_ns % NSEC_PER_SEC),
	};
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0) {
		set_error(c, "cpu profile: cannot fork the timer that ends it: %s",
			  strerror(errno));
		return;
	}
	if (pid == 0) {
		process_child_setup(parent, SIGKILL);
		prctl(PR_SET_NAME, "aimsweep-timer");
		process_close_other_fds(&c->ctl_fd, 1);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		_exit(perf_command(c->ctl_fd, "disable\n") ? 1 : 0);
	}
	setpgid(pid, pid);
	c->timer_pid = pid;
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

	if (!f) {
		snprintf(err, errlen, "cpu profile: cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	rc = cpu_profile_parse(f, top, prof);
	fclose(f);
	if (rc == EBADMSG)
		snprintf(err, errlen,
			 "cpu profile: %s lacks the header '# Overhead Samples Symbol' of perf 6.1's report",
			 path);
	else if (rc)
		snprintf(err, errlen, "cpu profile: cannot read %s: %s", path,
			 strerror(rc));
	return rc ? -1 : 0;
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

/* The same steps as a level's, for CHECK_SLICE_S, in c->dir. */
static int check_steps(struct cpu_capture *c, char *err, size_t errlen)
{
	char report[PATH_MAX + 32];
	struct cpu_profile prof;
	int rc;

	if (perf_launch(c, err, errlen))
		return -1;
	if (perf_command(c->ctl_fd, "enable\n")) {
		snprintf(err, errlen, "cpu profile: cannot enable perf's sampling: %s",
			 strerror(errno));
		process_end_group(&c->perf_pid, 0, 0);
		close_fds(c);
		return -1;
	}
	sleep_until_ns(process_deadline_in(CHECK_SLICE_S), &run_interrupted);
	if (perf_stop(c, err, errlen))
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
			 CHECK_SLICE_S, prof.rejected);
		rc = -1;
	}
	free(prof.symbols);
	return rc;
}

int cpu_profile_check(const struct run_params *p, char *err, size_t errlen)
{
	static const char level_prefix[] = "cpu profile: ";
	struct cpu_capture c;
	const char *tmp = getenv("TMPDIR");
	char why[REASON_LEN + 64];
	const char *w = why;
	int rc;

	if (!p->cpu_profile)
		return 0;
	if (!process_in_path("perf")) {
		snprintf(err, errlen,
			 "--cpu-profile: perf not found in PATH: install linux-perf (Debian; linux-tools on Ubuntu, perf on Fedora)");
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.params = p;
	snprintf(c.dir, sizeof(c.dir), "%s/aimsweep-cpu-check.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c.dir)) {
		snprintf(err, errlen,
			 "--cpu-profile: cannot create a directory for perf's test profile in %s: %s",
			 tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return -1;
	}
	snprintf(c.data, sizeof(c.data), "%s/" DATA_NAME, c.dir);
	rc = check_steps(&c, why, sizeof(why));
	check_cleanup(c.dir);
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
		return -1;
	}
	if (!rc)
		return 0;
	/* The level's words, said of the option. */
	if (!strncmp(w, level_prefix, sizeof(level_prefix) - 1))
		w += sizeof(level_prefix) - 1;
	snprintf(err, errlen, "--cpu-profile: %s", w);
	return -1;
}

int cpu_profile_prepare(struct cpu_capture *c, const struct run_params *p,
			const char *level_dir, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->params = p;
	/* Sampling goes on at t0: a slice no longer than the window stays
	 * in it. */
	c->slice_s = fmin(p->cpu_profile_s, p->runtime_s);
	snprintf(c->dir, sizeof(c->dir), "%s", level_dir);
	if (!path_join(c->data, sizeof(c->data), c->dir, DATA_NAME)) {
		snprintf(err, errlen, "%s: path too long", c->dir);
		return -1;
	}
	return perf_launch(c, err, errlen);
}

void cpu_profile_start(struct cpu_capture *c)
{
	uint64_t off_ns;

	if (!c->params || c->started || c->perf_pid <= 0)
		return;
	c->started = true;
	off_ns = process_deadline_in(c->slice_s);
	c->perf_cpu0_ns = process_cpu_ns(c->perf_pid);
	if (perf_command(c->ctl_fd, "enable\n"))
		set_error(c, "cpu profile: cannot enable perf's sampling: %s",
			  strerror(errno));
	else
		start_timer(c, off_ns);
}

/* perf record's cost over the window, into prof. */
static void note_cost(struct cpu_capture *c, const struct level_result *level,
		      struct cpu_profile *prof)
{
	uint64_t cpu1 = process_cpu_ns(c->perf_pid);
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

int cpu_profile_finish(struct cpu_capture *c, struct level_result *level,
		       bool report, char *err, size_t errlen)
{
	char report_path[PATH_MAX + 32], why[REASON_LEN];
	struct cpu_profile prof;
	int status;

	if (!c->params)
		return 0;
	memset(&prof, 0, sizeof(prof));
	if (c->timer_pid > 0) {
		process_wait(c->timer_pid, NULL, PROCESS_INTERRUPTIBLE,
			     process_deadline_in(TIMER_EXIT_TIMEOUT_S));
		status = process_end_group(&c->timer_pid, 0, 0);
		/* Killed: sampling stayed on past the window. */
		if (WIFSIGNALED(status) && !run_interrupted)
			set_error(c, "cpu profile: its timer did not end it within %.0f s of the window's end",
				  TIMER_EXIT_TIMEOUT_S);
	}
	if (c->perf_pid > 0) {
		if (c->started)
			note_cost(c, level, &prof);
		if (perf_stop(c, why, sizeof(why)))
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
	close_fds(c);
	c->params = NULL;
	if (!c->error[0])
		return 0;
	snprintf(err, errlen, "%s", c->error);
	return -1;
}

void cpu_profile_abort(struct cpu_capture *c)
{
	if (!c->params)
		return;
	process_end_group(&c->timer_pid, 0, 0);
	process_end_group(&c->perf_pid, 0, 0);
	close_fds(c);
	if (c->data[0])
		unlink(c->data);
	c->params = NULL;
}

bool cpu_profile_disturbed(const struct cpu_profile *prof)
{
	return prof->lost > 0 ||
	       prof->profiler_cpu_pct > CPU_PROFILE_DISTURB_PCT;
}

/* ---- the report's parser ---- */

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

static int add_line(struct report_state *st, double pct, uint64_t samples)
{
	if (st->n_lines == st->cap_lines) {
		size_t cap = st->cap_lines ? st->cap_lines * 2 : 64;
		struct report_line *v = realloc(st->lines, cap * sizeof(*v));

		if (!v)
			return ENOMEM;
		st->lines = v;
		st->cap_lines = cap;
	}
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
		if (st->n_syms == st->cap_syms) {
			size_t cap = st->cap_syms ? st->cap_syms * 2 : 64;
			struct cpu_symbol *v = realloc(st->syms,
						       cap * sizeof(*v));

			if (!v)
				return ENOMEM;
			st->syms = v;
			st->cap_syms = cap;
		}
		s = &st->syms[st->n_syms++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->kernel = kernel;
	}
	s->samples += samples;
	return 0;
}

/* "    17.09%           361  [k] find_get_block_common". */
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

int cpu_profile_parse(FILE *f, size_t top, struct cpu_profile *out)
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
	if (!rc && !st.header)
		rc = EBADMSG;
	if (rc) {
		free(st.lines);
		free(st.syms);
		memset(out, 0, sizeof(*out));
		return rc;
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
