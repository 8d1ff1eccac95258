/* driver/perf_lock.c: a level's lock profile: `perf lock record` over a slice of the window, and its report read into the level. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/capture.h"
#include "driver/perf_lock.h"
#include "driver/process.h"
#include "driver/util.h"

/* perf lock record takes a fraction of a second to start on an idle
 * machine, and the users wait at the gate meanwhile: the limit is
 * generous, for a machine that is busy with a thousand of them. */
#define PERF_READY_TIMEOUT_S 60.0
/* After "stop", perf writes its header and exits. */
#define PERF_STOP_TIMEOUT_S 5.0
/* perf lock contention reads a profile, at about a megabyte a second. */
#define PERF_REPORT_TIMEOUT_S 120.0
/* The timer turns perf's events off before t1; it may be late only when
 * the machine is starved. */
#define TIMER_EXIT_TIMEOUT_S 1.0
/*
 * The most one level's profile may take on disk (perf record --max-size).
 * A 1 s profile of a contended mix takes a fraction of a megabyte (about
 * 0.1 MB of it is the system's task and kernel maps, the rest one record
 * per contended acquisition); the limit is a thousand times that, for
 * long profiles on big machines. A profile that reaches it ends early and
 * fails its level. Profiles are deleted after each level unless
 * --keep-profiles, so one at a time is on disk.
 */
#define PERF_MAX_SIZE "256M"

#define PERF_DATA_NAME "perf.data"
#define PERF_LOG_NAME "perf-record.log"
#define REPORT_NAME "lock-contention.txt"

/* The header perf lock contention prints for the fields we ask for. */
static const char *const report_header[] = {
	"contended", "total", "wait", "max", "wait", "avg", "wait", "type",
	"caller",
};

/* "perf said: " and the first line of its log that says something, for
 * error messages; its own progress notes are skipped. */
static const char *log_excerpt(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[512];

	snprintf(buf, len, "perf printed nothing");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[strspn(line, " \t")] ||
		    !strcmp(line, "Events disabled") ||
		    !strcmp(line, "Events enabled"))
			continue;
		snprintf(buf, len, "perf said: %s", line);
		break;
	}
	fclose(f);
	return buf;
}

/* Sends perf record one of its --control commands ("enable\n", ...). */
static int perf_command(struct level_capture *c, const char *cmd)
{
	return process_write_nosigpipe(c->perf_ctl_fd, cmd, strlen(cmd));
}

/* Waits for perf's next "ack" until deadline_ns; -1 when perf is gone,
 * the time ran out or the run was interrupted. */
static int perf_wait_ack(struct level_capture *c, uint64_t deadline_ns)
{
	char buf[64];

	for (;;) {
		struct pollfd pfd = { .fd = c->perf_ack_fd, .events = POLLIN };
		uint64_t now = now_ns();
		ssize_t n;
		int rc;

		if (now >= deadline_ns || run_interrupted)
			return -1;
		rc = poll(&pfd, 1, 100);
		if (rc < 0 && errno != EINTR)
			return -1;
		if (rc <= 0)
			continue;
		n = read(c->perf_ack_fd, buf, sizeof(buf) - 1);
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

static void perf_close_fds(struct level_capture *c)
{
	if (!c->perf_fds_open)
		return;
	close(c->perf_ctl_fd);
	close(c->perf_ack_fd);
	c->perf_fds_open = false;
}

/* The advice for a perf that cannot record lock events. */
static void perf_failed_message(char *err, size_t errlen, const char *what,
				const char *log_path)
{
	char excerpt[256];
	long paranoid = process_read_long("/proc/sys/kernel/perf_event_paranoid",
					  LONG_MIN);
	char now[32] = "";

	if (paranoid != LONG_MIN)
		snprintf(now, sizeof(now), " (now %ld)", paranoid);
	/* Root already has every permission: then it is the kernel or
	 * perf, and perf's own words say which. */
	if (geteuid() == 0)
		snprintf(err, errlen,
			 "%s, as root: the kernel needs the lock:contention_begin tracepoint (Linux 5.19 or later, tracefs mounted) and a perf that knows `perf lock record`; %s",
			 what, log_excerpt(log_path, excerpt, sizeof(excerpt)));
	else
		snprintf(err, errlen,
			 "%s: run as root, or lower kernel.perf_event_paranoid%s to -1 and make /sys/kernel/tracing readable; the kernel needs the lock:contention_begin tracepoint (Linux 5.19 or later); %s",
			 what, now,
			 log_excerpt(log_path, excerpt, sizeof(excerpt)));
}

/* Why perf did not answer at its start; it is ended and reaped. */
static void perf_not_ready(struct level_capture *c, const char *log_path,
			   char *err, size_t errlen)
{
	char what[128], st[48];
	int status;

	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
		process_end_group(&c->perf_pid, 0, 0);
	} else if (process_wait(c->perf_pid, NULL, 0,
				process_deadline_in(1.0)) == 1) {
		/* Its pipe closed as it exited; it is reapable soon after. */
		status = process_end_group(&c->perf_pid, 0, 0);
		snprintf(what, sizeof(what),
			 "lock profile: perf lock record failed (%s)",
			 process_status_text(status, st, sizeof(st)));
		perf_failed_message(err, errlen, what, log_path);
	} else {
		process_end_group(&c->perf_pid, 0, 0);
		snprintf(err, errlen,
			 "lock profile: perf lock record was not ready after %.0f s (its output is in %s)",
			 PERF_READY_TIMEOUT_S, log_path);
	}
	perf_close_fds(c);
}

/*
 * Starts `perf lock record` on the whole system, writing c->perf_data,
 * with its events off until perf_command("enable\n"), and waits until it
 * answers on its control pipe, which it does once it is fully set up.
 */
static int perf_launch(struct level_capture *c, char *err, size_t errlen)
{
	char control[64], log_path[PATH_MAX + 32];
	char *argv[] = {
		"perf", "lock", "record",
		/* Events off until enabled: only the window is profiled. */
		"-D", "-1", control,
		/* No copies of binaries into ~/.debug. */
		"-N",
		"--max-size=" PERF_MAX_SIZE,
		"-a", "-o", c->perf_data, NULL
	};
	int ctl[2] = { -1, -1 }, ack[2] = { -1, -1 }, keep[2], log = -1;

	if (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)) {
		snprintf(err, errlen, "lock profile: cannot create a pipe: %s",
			 strerror(errno));
		goto fail;
	}
	log = process_output_file(c->dir, PERF_LOG_NAME, false, log_path,
				  sizeof(log_path));
	if (log < 0) {
		snprintf(err, errlen, "lock profile: cannot create %s: %s",
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
		snprintf(err, errlen, "lock profile: cannot fork: %s",
			 strerror(errno));
		goto fail;
	}
	close(log);
	close(ctl[0]);
	close(ack[1]);
	c->perf_ctl_fd = ctl[1];
	c->perf_ack_fd = ack[0];
	c->perf_fds_open = true;
	fcntl(c->perf_ack_fd, F_SETFL, O_NONBLOCK);

	if (!perf_command(c, "ping\n") &&
	    !perf_wait_ack(c, process_deadline_in(PERF_READY_TIMEOUT_S)))
		return 0;
	perf_not_ready(c, log_path, err, errlen);
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
static int perf_stop(struct level_capture *c, char *err, size_t errlen)
{
	char log_path[PATH_MAX + 32], excerpt[256], st[48];
	bool early = process_has_exited(c->perf_pid);
	int status;

	snprintf(log_path, sizeof(log_path), "%s/" PERF_LOG_NAME, c->dir);
	if (!early)
		perf_command(c, "stop\n");
	if (process_wait(c->perf_pid, NULL, PROCESS_INTERRUPTIBLE,
			 process_deadline_in(PERF_STOP_TIMEOUT_S)) != 1) {
		process_end_group(&c->perf_pid, 0, 0);
		perf_close_fds(c);
		if (run_interrupted)
			snprintf(err, errlen, "interrupted");
		else
			snprintf(err, errlen,
				 "lock profile: perf lock record did not stop within %.0f s; killed it (its output is in %s)",
				 PERF_STOP_TIMEOUT_S, log_path);
		return -1;
	}
	status = process_end_group(&c->perf_pid, 0, 0);
	perf_close_fds(c);
	if (early || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "lock profile: perf lock record %s (%s); %s",
			 early ? "ended before the profile did" : "failed",
			 process_status_text(status, st, sizeof(st)),
			 log_excerpt(log_path, excerpt, sizeof(excerpt)));
		return -1;
	}
	return 0;
}

/* Makes c's profile path in c->dir; -1 with err when it does not fit. */
static int perf_data_path(struct level_capture *c, char *err, size_t errlen)
{
	if (path_join(c->perf_data, sizeof(c->perf_data), c->dir,
		      PERF_DATA_NAME))
		return 0;
	snprintf(err, errlen, "%s: path too long", c->dir);
	return -1;
}

/* The check's own profile: the same steps as a level's (start, enable
 * for 0.1 s, stop), in c->dir. */
static int perf_check_profile(struct level_capture *c, char *err,
			      size_t errlen)
{
	struct stat st;

	if (perf_data_path(c, err, errlen) || perf_launch(c, err, errlen))
		return -1;
	if (perf_command(c, "enable\n")) {
		snprintf(err, errlen, "perf lock record: cannot enable its events: %s",
			 strerror(errno));
		process_end_group(&c->perf_pid, 0, 0);
		perf_close_fds(c);
		return -1;
	}
	sleep_until_ns(process_deadline_in(0.1), &run_interrupted);
	if (perf_stop(c, err, errlen))
		return -1;
	if (stat(c->perf_data, &st) || st.st_size == 0) {
		snprintf(err, errlen,
			 "perf lock record exited 0 but wrote no %s", c->perf_data);
		return -1;
	}
	return 0;
}

int perf_lock_check(const struct run_params *p, char *err, size_t errlen)
{
	static const char level_prefix[] = "lock profile: ";
	struct level_capture c;
	const char *tmp = getenv("TMPDIR");
	char why[REASON_LEN + 64], path[PATH_MAX + 32];
	const char *w = why;
	int rc;

	if (!process_in_path("perf")) {
		snprintf(err, errlen,
			 "--lock-profile: perf not found in PATH: install linux-perf (Debian; linux-tools on Ubuntu, perf on Fedora)");
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.params = p;
	snprintf(c.dir, sizeof(c.dir), "%s/aimsweep-perf-check.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c.dir)) {
		snprintf(err, errlen,
			 "--lock-profile: cannot create a directory for perf's test profile in %s: %s",
			 tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return -1;
	}
	rc = perf_check_profile(&c, err, errlen);
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
	} else if (rc) {
		/* The level's words, as the option's. */
		snprintf(why, sizeof(why), "%s", err);
		if (!strncmp(w, level_prefix, sizeof(level_prefix) - 1))
			w += sizeof(level_prefix) - 1;
		snprintf(err, errlen, "--lock-profile: %s", w);
	}
	unlink(c.perf_data);
	snprintf(path, sizeof(path), "%s.old", c.perf_data);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" PERF_LOG_NAME, c.dir);
	unlink(path);
	rmdir(c.dir);
	return rc;
}

int perf_lock_prepare(struct level_capture *c, char *err, size_t errlen)
{
	const struct run_params *p = c->params;

	/* Events go on at t0, or after the CPU profile's slice, which comes
	 * first: a profile no longer than what is left of the window stays
	 * in it (cli.c sees that both fit). */
	if (p->cpu_profile)
		c->profile_offset_s = c->cpu.slice_s;
	c->profile_s = fmin(p->lock_profile_s,
			    p->runtime_s - c->profile_offset_s);
	if (perf_data_path(c, err, errlen))
		return -1;
	return perf_launch(c, err, errlen);
}

/* Sleeps until the CLOCK_MONOTONIC time at_ns. */
static void sleep_until_abs(uint64_t at_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(at_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(at_ns % NSEC_PER_SEC),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
			       NULL) == EINTR)
		;
}

/* A child of the driver that turns perf's events on at on_ns (unless 0:
 * they are on already) and off at off_ns: the driver itself sleeps until
 * t1 meanwhile. It exits 2 when perf would not turn them on. */
static void start_timer(struct level_capture *c, uint64_t on_ns,
			uint64_t off_ns)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0) {
		capture_error(c, "lock profile: cannot fork the timer that ends it: %s",
			      strerror(errno));
		return;
	}
	if (pid == 0) {
		process_child_setup(parent, SIGKILL);
		prctl(PR_SET_NAME, "aimsweep-timer");
		process_close_other_fds(&c->perf_ctl_fd, 1);
		if (on_ns) {
			sleep_until_abs(on_ns);
			if (perf_command(c, "enable\n"))
				_exit(2);
		}
		sleep_until_abs(off_ns);
		_exit(perf_command(c, "disable\n") ? 1 : 0);
	}
	setpgid(pid, pid);
	c->timer_pid = pid;
}

/* At t0: the events go on now, or after the CPU profile's slice. */
void perf_lock_start(struct level_capture *c)
{
	uint64_t on_ns = 0, off_ns;

	if (c->perf_pid <= 0)
		return;
	if (c->profile_offset_s > 0) {
		on_ns = process_deadline_in(c->profile_offset_s);
		off_ns = on_ns + (uint64_t)(c->profile_s * NSEC_PER_SEC);
		start_timer(c, on_ns, off_ns);
		return;
	}
	off_ns = process_deadline_in(c->profile_s);
	if (perf_command(c, "enable\n"))
		capture_error(c, "lock profile: cannot enable perf's events: %s",
			      strerror(errno));
	else
		start_timer(c, 0, off_ns);
}

/* Unit multipliers of perf's times: "%.2f ms", or "%llu ns" below 1 us. */
static double unit_ns(const char *unit)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].ns;
	return 0;
}

static bool parse_time(const char *value, const char *unit, uint64_t *ns)
{
	double mult = unit_ns(unit), v;
	char *end;

	if (!mult || !(*value >= '0' && *value <= '9'))
		return false;
	errno = 0;
	v = strtod(value, &end);
	if (errno || *end || !isfinite(v) || v * mult >= 1.8e19)
		return false;
	*ns = (uint64_t)llround(v * mult);
	return true;
}

/* An entry has eight words and the caller; so has the header. */
#define MAX_WORDS 9

/* Splits line into blank-separated words, at most max: the last is the
 * rest of the line, trimmed, as a caller may hold blanks. */
static size_t split_words(char *line, char **word, size_t max)
{
	size_t n = 0;
	char *s = line;

	while (n < max) {
		s += strspn(s, " \t\r\n");
		if (!*s)
			break;
		word[n++] = s;
		if (n == max) {
			size_t len = strlen(s);

			while (len && strchr(" \t\r\n", s[len - 1]))
				s[--len] = '\0';
			break;
		}
		s += strcspn(s, " \t\r\n");
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static bool is_header(char **word, size_t n)
{
	if (n != sizeof(report_header) / sizeof(report_header[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(word[i], report_header[i]))
			return false;
	return true;
}

/* One report line as read, before lines of one caller are merged. */
struct report_line {
	char caller[sizeof(((struct lock_entry *)0)->caller)];
	char type[sizeof(((struct lock_entry *)0)->type)];
	struct lock_row row;
};

/* contended, total, max and avg wait (a value and a unit each), type,
 * and the caller, which may be missing. */
static bool parse_entry(char **word, size_t n, struct report_line *e)
{
	if (n < MAX_WORDS - 1)
		return false;
	if (!parse_u64(word[0], UINT64_MAX, &e->row.contended) ||
	    !parse_time(word[1], word[2], &e->row.total_wait_ns) ||
	    !parse_time(word[3], word[4], &e->row.max_wait_ns) ||
	    !parse_time(word[5], word[6], &e->row.avg_wait_ns))
		return false;
	snprintf(e->type, sizeof(e->type), "%s", word[7]);
	snprintf(e->caller, sizeof(e->caller), "%s",
		 n == MAX_WORDS ? word[8] : "");
	return true;
}

/* With -v, perf prints each entry's call stack under it, a frame a line:
 * blanks, the address, and the symbol when it has one. */
static bool parse_frame(char *line, struct lock_row *row)
{
	char *word[2];
	size_t n;

	const char *s = line + strspn(line, " \t");
	size_t hex;

	if (s == line || strncmp(s, "0x", 2))
		return false;
	hex = strspn(s + 2, "0123456789abcdef");
	if (!hex || !strchr(" \t\r\n", s[2 + hex]))
		return false;
	n = split_words(line, word, 2);
	if (row->n_frames < LOCK_FRAMES_MAX)
		snprintf(row->frame[row->n_frames++], sizeof(row->frame[0]),
			 "%s", n == 2 ? word[1] : word[0]);
	return true;
}

/*
 * perf pairs each contention's begin and end events; one it could not
 * pair shows up as a line with no contention counted, or as one wait as
 * long as the whole capture (a begin before the events went on, or an end
 * after they went off, matched with another acquisition's event). Neither
 * was measured.
 */
static bool unpaired(const struct lock_row *row, uint64_t capture_ns)
{
	return !row->contended ||
	       (capture_ns && row->max_wait_ns >= capture_ns / 100 * 95);
}

static int by_total_wait(const void *a, const void *b)
{
	const struct lock_entry *x = a, *y = b;

	if (x->total_wait_ns != y->total_wait_ns)
		return x->total_wait_ns > y->total_wait_ns ? -1 : 1;
	if (x->contended != y->contended)
		return x->contended > y->contended ? -1 : 1;
	if (strcmp(x->caller, y->caller))
		return strcmp(x->caller, y->caller);
	return strcmp(x->type, y->type);
}

static int by_row_total_wait(const void *a, const void *b)
{
	const struct lock_row *x = a, *y = b;

	if (x->total_wait_ns != y->total_wait_ns)
		return x->total_wait_ns > y->total_wait_ns ? -1 : 1;
	return x->contended > y->contended ? -1 : x->contended < y->contended;
}

/* Adds a line to the entry of its caller and type, made when new. */
static int merge_line(struct lock_entry **v, size_t *n, size_t *cap,
		      const struct report_line *l)
{
	struct lock_entry *e = NULL, *grown;
	struct lock_row *rows;

	for (size_t i = 0; i < *n && !e; i++)
		if (!strcmp((*v)[i].caller, l->caller) &&
		    !strcmp((*v)[i].type, l->type))
			e = &(*v)[i];
	if (!e) {
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 32;
			grown = realloc(*v, *cap * sizeof(**v));
			if (!grown)
				return ENOMEM;
			*v = grown;
		}
		e = &(*v)[(*n)++];
		memset(e, 0, sizeof(*e));
		memcpy(e->caller, l->caller, sizeof(e->caller));
		memcpy(e->type, l->type, sizeof(e->type));
	}
	rows = realloc(e->rows, (e->n_rows + 1) * sizeof(*rows));
	if (!rows)
		return ENOMEM;
	e->rows = rows;
	e->rows[e->n_rows++] = l->row;
	e->contended += l->row.contended;
	e->total_wait_ns += l->row.total_wait_ns;
	if (l->row.max_wait_ns > e->max_wait_ns)
		e->max_wait_ns = l->row.max_wait_ns;
	/* perf's own mean for a lone line, which has no rounding of ours. */
	e->avg_wait_ns = e->n_rows == 1 ? l->row.avg_wait_ns :
					  e->total_wait_ns / e->contended;
	return 0;
}

/* Reads the report's lines into *lines (malloc()ed), each with the call
 * stack printed under it. */
static int read_report(FILE *f, struct report_line **lines, size_t *n_lines)
{
	struct report_line *v = NULL, *grown, *cur = NULL;
	size_t n = 0, cap = 0;
	bool header = false;
	char line[1024];

	*lines = NULL;
	*n_lines = 0;
	while (fgets(line, sizeof(line), f)) {
		char *word[MAX_WORDS];
		struct report_line e;

		/* A line longer than the buffer is not one of perf's
		 * lines: skip the rest of it. */
		if (!strchr(line, '\n') && !feof(f)) {
			int ch;

			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			cur = NULL;
			continue;
		}
		if (cur && parse_frame(line, &cur->row))
			continue;
		cur = NULL;
		if (!header) {
			header = is_header(word, split_words(line, word,
							     MAX_WORDS));
			continue;
		}
		memset(&e, 0, sizeof(e));
		if (!parse_entry(word, split_words(line, word, MAX_WORDS), &e))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				free(v);
				return ENOMEM;
			}
			v = grown;
		}
		v[n] = e;
		cur = &v[n++];
	}
	*lines = v;
	*n_lines = n;
	return header ? 0 : EBADMSG;
}

int capture_parse_contention(FILE *f, uint64_t capture_ns, size_t top,
			     struct lock_report *out)
{
	struct report_line *lines;
	struct lock_entry *v = NULL;
	size_t n_lines, n = 0, cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = read_report(f, &lines, &n_lines);
	for (size_t i = 0; !rc && i < n_lines; i++) {
		if (unpaired(&lines[i].row, capture_ns))
			out->dropped++;
		else
			rc = merge_line(&v, &n, &cap, &lines[i]);
	}
	free(lines);
	if (rc) {
		lock_entries_free(v, n);
		out->dropped = 0;
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		qsort(v[i].rows, v[i].n_rows, sizeof(v[i].rows[0]),
		      by_row_total_wait);
	if (n)
		qsort(v, n, sizeof(*v), by_total_wait);
	for (size_t i = top; i < n; i++)
		free(v[i].rows);
	if (n > top)
		n = top;
	if (!n) {
		free(v);
		v = NULL;
	}
	out->entries = v;
	out->n_entries = n;
	return 0;
}

/* Runs perf lock contention on the level's profile into REPORT_NAME and
 * reads its top entries into the level. */
static void perf_report(struct level_capture *c, struct level_result *level)
{
	char path[PATH_MAX + 32], st[48];
	char *argv[] = {
		"perf", "lock", "contention", "-i", c->perf_data,
		/* Fixed fields and order, most total wait first, each
		 * line's call stack under it. */
		"-v", "-k", "wait_total",
		"-F", "contended,wait_total,wait_max,avg_wait",
		NULL
	};
	struct lock_report report;
	pid_t pid;
	int fd, status, rc;
	FILE *f;

	fd = capture_output_file(c, "lock profile", REPORT_NAME, false, path,
				 sizeof(path));
	if (fd < 0)
		return;
	pid = process_spawn(&(struct spawn_spec){
		.argv = argv, .out_fd = fd, .err_fd = fd,
	});
	close(fd);
	if (pid < 0) {
		capture_error(c, "lock profile: cannot fork: %s",
			      strerror(errno));
		return;
	}
	if (process_wait(pid, NULL, PROCESS_INTERRUPTIBLE,
			 process_deadline_in(PERF_REPORT_TIMEOUT_S)) != 1) {
		process_end_group(&pid, 0, 0);
		if (!run_interrupted)
			capture_error(c, "lock profile: perf lock contention did not finish within %.0f s; killed it",
				      PERF_REPORT_TIMEOUT_S);
		return;
	}
	status = process_end_group(&pid, 0, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		capture_error(c, "lock profile: perf lock contention failed (%s); its output is in %s",
			      process_status_text(status, st, sizeof(st)),
			      path);
		return;
	}
	f = fopen(path, "re");
	if (!f) {
		capture_error(c, "lock profile: cannot read %s: %s", path,
			      strerror(errno));
		return;
	}
	rc = capture_parse_contention(f, (uint64_t)(c->profile_s * 1e9),
				      c->params->lock_profile_top, &report);
	fclose(f);
	if (rc == EBADMSG)
		capture_error(c, "lock profile: %s lacks the header 'contended total wait max wait avg wait type caller' of perf 6.1's report",
			      path);
	else if (rc)
		capture_error(c, "lock profile: cannot read %s: %s", path,
			      strerror(rc));
	else {
		level->lock_profiled = true;
		level->locks = report.entries;
		level->n_locks = report.n_entries;
		level->locks_dropped = report.dropped;
	}
}

void perf_lock_finish(struct level_capture *c, struct level_result *level)
{
	char err[REASON_LEN];
	int status;

	if (c->timer_pid > 0) {
		process_wait(c->timer_pid, NULL, PROCESS_INTERRUPTIBLE,
			     process_deadline_in(TIMER_EXIT_TIMEOUT_S));
		status = process_end_group(&c->timer_pid, 0, 0);
		/* Killed: perf's events stayed on past the window. */
		if (WIFSIGNALED(status) && !run_interrupted)
			capture_error(c, "lock profile: its timer did not end it within %.0f s of the window's end",
				      TIMER_EXIT_TIMEOUT_S);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
			capture_error(c, "lock profile: perf would not switch its events on after the CPU profile");
	}
	if (c->perf_pid <= 0)
		return;
	if (perf_stop(c, err, sizeof(err)))
		capture_error(c, "%s", err);
	else if (level->status == LEVEL_OK && !c->error[0])
		perf_report(c, level);
	if (!c->params->keep_profiles)
		unlink(c->perf_data);
}

void perf_lock_abort(struct level_capture *c)
{
	process_end_group(&c->timer_pid, 0, 0);
	process_end_group(&c->perf_pid, 0, 0);
	perf_close_fds(c);
	if (c->perf_data[0])
		unlink(c->perf_data);
}
