/* driver/capture/perf_lock.c: a level's lock profile by `perf lock record` over a slice of the window, and its report read into the level: the fallback of the in-kernel collector (lock_profile.c). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/capture/capture.h"
#include "driver/capture/ksyms.h"
#include "driver/capture/perf_lock.h"
#include "driver/capture/perf_record.h"
#include "driver/base/process.h"
#include "driver/base/util.h"

/* perf lock contention reads a profile, at about a megabyte a second. */
#define PERF_REPORT_TIMEOUT_S 120.0
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

/* How long perf's events are on in each window when
 * --lock-profile-seconds does not say: perf lock record costs the
 * workload enough (docs/profiles.md) that it takes a slice, not the
 * window. */
#define PERF_LOCK_SLICE_S 1.0

#define PERF_DATA_NAME "perf.data"
#define PERF_LOG_NAME "perf-record.log"
#define REPORT_NAME "lock-contention.txt"

/* A level's lock profile. */
struct lock_level {
	const struct ksyms *ksyms;	/* NULL: perf's callers are kept */
	char perf_data[PATH_MAX];
	struct perf_record perf;	/* perf lock record and its timer */
	double offset_s;	/* from t0 to its events going on */
	double profile_s;	/* how long they are on */
};

/* The header perf lock contention prints for the fields we ask for. */
static const char *const report_header[] = {
	"contended", "total", "wait", "max", "wait", "avg", "wait", "type",
	"caller",
};

/* The advice for a perf that cannot record lock events. */
static void perf_failed_message(char *err, size_t errlen, const char *what,
				const struct perf_record *r)
{
	char excerpt[320];
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
			 what, perf_record_said(r, excerpt, sizeof(excerpt)));
	else
		snprintf(err, errlen,
			 "%s: run as root, or lower kernel.perf_event_paranoid%s to -1 and make /sys/kernel/tracing readable; the kernel needs the lock:contention_begin tracepoint (Linux 5.19 or later); %s",
			 what, now,
			 perf_record_said(r, excerpt, sizeof(excerpt)));
}

/* perf lock record exited before it was ready. */
static void perf_failed(const struct perf_record *r, int status, char *err,
			size_t errlen)
{
	char what[128], st[48];

	snprintf(what, sizeof(what),
		 "lock profile: perf lock record failed (%s)",
		 process_status_text(status, st, sizeof(st)));
	perf_failed_message(err, errlen, what, r);
}

/*
 * Starts `perf lock record` on the whole system, writing l->perf_data,
 * its log in dir, with its events off until "enable", and waits until it
 * is ready.
 */
static int perf_launch(struct lock_level *l, const char *dir, char *err,
		       size_t errlen)
{
	struct perf_record *r = &l->perf;
	char *argv[] = {
		"perf", "lock", "record",
		/* Events off until enabled: only the window is profiled. */
		"-D", "-1", r->control,
		/* No copies of binaries into ~/.debug. */
		"-N",
		"--max-size=" PERF_MAX_SIZE,
		"-a", "-o", l->perf_data, NULL
	};

	r->what = "lock profile";
	r->cmd = "perf lock record";
	snprintf(r->log_path, sizeof(r->log_path), "%s/" PERF_LOG_NAME, dir);
	return perf_record_launch(r, argv, perf_failed, err, errlen);
}

/* Makes l's profile path in dir; -1 with err when it does not fit. */
static int perf_data_path(struct lock_level *l, const char *dir, char *err,
			  size_t errlen)
{
	if (path_join(l->perf_data, sizeof(l->perf_data), dir,
		      PERF_DATA_NAME))
		return 0;
	snprintf(err, errlen, "%s: path too long", dir);
	return -1;
}

/* The check's own profile: the same steps as a level's (start, enable
 * for 0.1 s, stop), in dir. */
static int perf_check_profile(struct lock_level *l, const char *dir,
			      char *err, size_t errlen)
{
	struct stat st;

	if (perf_data_path(l, dir, err, errlen) ||
	    perf_launch(l, dir, err, errlen))
		return -1;
	if (perf_record_try(&l->perf, 0.1,
			    "perf lock record: cannot enable its events", err,
			    errlen))
		return -1;
	if (stat(l->perf_data, &st) || st.st_size == 0) {
		snprintf(err, errlen,
			 "perf lock record exited 0 but wrote no %s", l->perf_data);
		return -1;
	}
	return 0;
}

/* The kernel's symbols, to name callers as the in-kernel collector does;
 * NULL when kallsyms hides them, and then perf's callers are kept. */
static struct ksyms *load_ksyms(void)
{
	struct ksyms *ks = malloc(sizeof(*ks));
	char err[256];

	if (ks && !ksyms_load(ks, "/proc/kallsyms", err, sizeof(err)))
		return ks;
	free(ks);
	return NULL;
}

static void perf_lock_release(void *run)
{
	ksyms_free(run);
	free(run);
}

/* --lock-profile-seconds, or the slice perf takes by default. */
static double slice_s(const struct run_params *p)
{
	return p->lock_profile_s > 0 ? p->lock_profile_s : PERF_LOCK_SLICE_S;
}

static int perf_lock_check(const struct run_params *p, void **run, char *err,
			   size_t errlen)
{
	char dir[PATH_MAX], why[REASON_LEN + 64], path[PATH_MAX + 32];
	struct lock_level l;
	int rc;

	/* The two profiles take turns in the window: each alone would see
	 * the other's perf at work. */
	if (p->cpu_profile && p->cpu_profile_s + slice_s(p) > p->runtime_s) {
		snprintf(err, errlen,
			 "--cpu-profile and perf lock record take turns in each window: their %g s and %g s need a runtime of at least %g s, and it is %g s (give -t %g, or shorter --cpu-profile-seconds or --lock-profile-seconds)",
			 p->cpu_profile_s, slice_s(p),
			 p->cpu_profile_s + slice_s(p), p->runtime_s,
			 p->cpu_profile_s + slice_s(p));
		return -1;
	}
	memset(&l, 0, sizeof(l));
	if (perf_record_check_dir("--lock-profile", "perf-check", dir,
				  sizeof(dir), err, errlen))
		return -1;
	rc = perf_check_profile(&l, dir, err, errlen);
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
	} else if (rc) {
		/* The level's words, as the option's. */
		snprintf(why, sizeof(why), "%s", err);
		perf_record_option_error("--lock-profile", "lock profile", why,
					 err, errlen);
	}
	if (!rc)
		*run = load_ksyms();
	unlink(l.perf_data);
	snprintf(path, sizeof(path), "%s.old", l.perf_data);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" PERF_LOG_NAME, dir);
	unlink(path);
	rmdir(dir);
	return rc;
}

/* While the users wait at the gate: perf lock record starts, its events
 * off, writing the level's perf.data, and is waited for. */
static int perf_lock_prepare(struct level_capture *c, void *run, void *st)
{
	const struct run_params *p = c->params;
	struct lock_level *l = st;

	l->ksyms = run;
	/* Events go on after the slices of the profiles before this one
	 * (the CPU profile's): a profile no longer than what is left of
	 * the window stays in it (cli.c sees that both fit). */
	l->offset_s = c->slices_end_s;
	l->profile_s = fmin(slice_s(p), p->runtime_s - l->offset_s);
	c->slices_end_s = l->offset_s + l->profile_s;
	if (perf_data_path(l, c->dir, c->error, sizeof(c->error)))
		return -1;
	return perf_launch(l, c->dir, c->error, sizeof(c->error));
}

/* Starts the timer that turns perf's events on at on_ns (unless 0) and
 * off at off_ns. */
static void start_timer(struct level_capture *c, struct lock_level *l,
			uint64_t on_ns, uint64_t off_ns)
{
	if (perf_record_timer(&l->perf, on_ns, off_ns))
		capture_error(c, "lock profile: cannot fork the timer that ends it: %s",
			      strerror(errno));
}

/* At t0: the events go on now, or after the slices before this one. */
static void perf_lock_start(struct level_capture *c, void *st)
{
	struct lock_level *l = st;
	uint64_t on_ns = 0, off_ns;

	if (l->perf.pid <= 0)
		return;
	if (l->offset_s > 0) {
		on_ns = process_deadline_in(l->offset_s);
		off_ns = on_ns + (uint64_t)(l->profile_s * NSEC_PER_SEC);
		start_timer(c, l, on_ns, off_ns);
		return;
	}
	off_ns = process_deadline_in(l->profile_s);
	if (perf_record_command(&l->perf, "enable\n"))
		capture_error(c, "lock profile: cannot enable perf's events: %s",
			      strerror(errno));
	else
		start_timer(c, l, 0, off_ns);
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
	uint64_t addr[LOCK_FRAMES_MAX];	/* the frames', 0 when none */
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
static bool parse_frame(char *line, struct report_line *e)
{
	struct lock_row *row = &e->row;
	const char *s = line + strspn(line, " \t");
	char *word[2];
	size_t n, hex;

	if (s == line || strncmp(s, "0x", 2))
		return false;
	hex = strspn(s + 2, "0123456789abcdef");
	if (!hex || !strchr(" \t\r\n", s[2 + hex]))
		return false;
	if (row->n_frames < LOCK_FRAMES_MAX)
		e->addr[row->n_frames] = strtoull(s, NULL, 16);
	n = split_words(line, word, 2);
	if (row->n_frames < LOCK_FRAMES_MAX)
		snprintf(row->frame[row->n_frames++], sizeof(row->frame[0]),
			 "%s", n == 2 ? word[1] : word[0]);
	return true;
}

/* The caller by the in-kernel collector's rule (ksyms_lock_caller()), so
 * that both methods name a lock's caller alike: perf's own choice with -v
 * can be a frame further out (do_filp_open for path_openat's wait), or
 * the tracepoint's own frame. Kept when no frame qualifies. */
static void caller_from_stack(struct report_line *e, const struct ksyms *ks)
{
	size_t first, at;

	if (!ks)
		return;
	at = ksyms_lock_caller(ks, e->addr, e->row.n_frames, &first);
	if (at == e->row.n_frames)
		return;
	_Static_assert(sizeof(e->caller) >= sizeof(e->row.frame[0]),
		       "a frame fits in a caller");
	strcpy(e->caller, e->row.frame[at]);
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

/* Reads the report's lines into *lines (malloc()ed), each with the call
 * stack printed under it. 0, or the errno value of why not: EBADMSG when
 * the header never came, ENOMEM; capture_parse_contention() says which. */
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
		if (cur && parse_frame(line, cur))
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

int capture_parse_contention(FILE *f, const char *path, uint64_t capture_ns,
			     size_t top, const struct ksyms *ks,
			     struct lock_report *out, char *err,
			     size_t errlen)
{
	struct lock_report_builder b = { 0 };
	struct report_line *lines;
	size_t n_lines, dropped = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = read_report(f, &lines, &n_lines);
	for (size_t i = 0; !rc && i < n_lines; i++) {
		caller_from_stack(&lines[i], ks);
		if (unpaired(&lines[i].row, capture_ns))
			dropped++;
		else
			rc = lock_report_add(&b, lines[i].caller,
					     lines[i].type, "",
					     &lines[i].row) ? ENOMEM : 0;
	}
	free(lines);
	if (rc) {
		lock_report_discard(&b);
		if (rc == EBADMSG)
			return err_set(err, errlen,
				       "lock profile: %s lacks the header 'contended total wait max wait avg wait type caller' of perf 6.1's report",
				       path);
		return err_set(err, errlen, "lock profile: cannot read %s: %s",
			       path, strerror(rc));
	}
	lock_report_finish(&b, top, out);
	out->dropped = dropped;
	return 0;
}

/* Runs perf lock contention on the level's profile into REPORT_NAME and
 * reads its top entries into the level. */
static void perf_report(struct level_capture *c, struct lock_level *l,
			struct level_result *level)
{
	char path[PATH_MAX + 32], st[48], err[PATH_MAX + 256];
	char *argv[] = {
		"perf", "lock", "contention", "-i", l->perf_data,
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
	rc = capture_parse_contention(f, path,
				      (uint64_t)(l->profile_s * 1e9),
				      c->params->lock_profile_top, l->ksyms,
				      &report, err, sizeof(err));
	fclose(f);
	if (rc)
		capture_error(c, "%s", err);
	else {
		level->lock_profiled = true;
		level->locks = report.entries;
		level->n_locks = report.n_entries;
		level->locks_dropped = report.dropped;
	}
}

/* After the level: stops perf and, when the level is ok and no capture
 * has failed so far, reads its report into the level. */
static void perf_lock_write(struct level_capture *c, void *st,
			    struct level_result *level)
{
	struct lock_level *l = st;
	char err[REASON_LEN];
	int status;

	level->lock_info.offset_s = l->offset_s;
	level->lock_info.covered_s = l->profile_s;
	status = perf_record_timer_end(&l->perf);
	/* Killed: perf's events stayed on past the window. */
	if (WIFSIGNALED(status) && !run_interrupted)
		capture_error(c, "lock profile: its timer did not end it within %.0f s of the window's end",
			      PERF_TIMER_EXIT_TIMEOUT_S);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		capture_error(c, "lock profile: perf would not switch its events on after the CPU profile");
	if (l->perf.pid <= 0)
		return;
	if (perf_record_stop(&l->perf, err, sizeof(err)))
		capture_error(c, "%s", err);
	else if (level->status == LEVEL_OK && !c->error[0])
		perf_report(c, l, level);
	if (!c->params->keep_profiles)
		unlink(l->perf_data);
}

/* Kills and reaps perf and its timer, and deletes the profile. */
static void perf_lock_abort(struct level_capture *c, void *st)
{
	struct lock_level *l = st;

	(void)c;
	perf_record_abort(&l->perf);
	if (l->perf_data[0])
		unlink(l->perf_data);
}

const struct capture_ops perf_lock_capture = {
	.name = "perf-lock",
	.level_size = sizeof(struct lock_level),
	.check = perf_lock_check,
	.prepare = perf_lock_prepare,
	.release = perf_lock_release,
	.start = perf_lock_start,
	.write = perf_lock_write,
	.abort = perf_lock_abort,
};
