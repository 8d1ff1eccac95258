/* driver/capture/perf_record.c: a `perf record --control` child of the driver: its pipes, its start, its commands, the timer that switches its events, its stop. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/capture/perf_record.h"
#include "driver/base/process.h"
#include "driver/base/util.h"

/* perf record takes a fraction of a second to start on an idle machine,
 * and the users wait at the gate meanwhile: the limit is generous, for a
 * machine that is busy with a thousand of them. */
#define PERF_READY_TIMEOUT_S 60.0
/* After "stop", perf writes its header and exits. */
#define PERF_STOP_TIMEOUT_S 5.0

/* perf puts "Error:" on a line of its own, before what went wrong. */
const char *perf_record_said(const struct perf_record *r, char *buf,
			     size_t len)
{
	FILE *f = fopen(r->log_path, "re");
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
		if (r->join_error &&
		    (!strcmp(line, "Error:") || !strcmp(line, "Warning:"))) {
			snprintf(prefix, sizeof(prefix), "%s ", line);
			continue;
		}
		snprintf(buf, len, "perf said: %s%s", prefix, line);
		break;
	}
	fclose(f);
	return buf;
}

int perf_record_command(struct perf_record *r, const char *cmd)
{
	return process_write_nosigpipe(r->ctl_fd, cmd, strlen(cmd));
}

/* Waits for perf's next "ack" until deadline_ns; -1 when perf is gone,
 * the time ran out or the run was interrupted. */
static int wait_ack(struct perf_record *r, uint64_t deadline_ns)
{
	char buf[64];

	for (;;) {
		struct pollfd pfd = { .fd = r->ack_fd, .events = POLLIN };
		ssize_t n;
		int rc;

		if (now_ns() >= deadline_ns || run_interrupted)
			return -1;
		rc = poll(&pfd, 1, 100);
		if (rc < 0 && errno != EINTR)
			return -1;
		if (rc <= 0)
			continue;
		n = read(r->ack_fd, buf, sizeof(buf) - 1);
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

void perf_record_close(struct perf_record *r)
{
	if (!r->fds_open)
		return;
	close(r->ctl_fd);
	close(r->ack_fd);
	r->fds_open = false;
}

/* Why perf did not answer at its start; it is ended and reaped. */
static void not_ready(struct perf_record *r, perf_failed_fn *failed,
		      char *err, size_t errlen)
{
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
		process_end_group(&r->pid, 0, 0);
	} else if (process_wait(r->pid, NULL, 0,
				process_deadline_in(1.0)) == 1) {
		/* Its pipe closed as it exited; it is reapable soon after. */
		failed(r, process_end_group(&r->pid, 0, 0), err, errlen);
	} else {
		process_end_group(&r->pid, 0, 0);
		snprintf(err, errlen,
			 "%s: %s was not ready after %.0f s (its output is in %s)",
			 r->what, r->cmd, PERF_READY_TIMEOUT_S, r->log_path);
	}
	perf_record_close(r);
}

/* Spawns perf with its control pipes ctl and ack and its log; -1 with
 * the reason in err. */
static int spawn(struct perf_record *r, char *const *argv, int ctl[2],
		 int ack[2], char *err, size_t errlen)
{
	int keep[2] = { ctl[0], ack[1] };
	int log = open(r->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0644);

	if (log < 0) {
		snprintf(err, errlen, "%s: cannot create %s: %s", r->what,
			 r->log_path, strerror(errno));
		return -1;
	}
	snprintf(r->control, sizeof(r->control), "--control=fd:%d,%d",
		 ctl[0], ack[1]);
	r->pid = process_spawn(&(struct spawn_spec){
		.argv = argv, .out_fd = log, .err_fd = log,
		.keep = keep, .n_keep = 2,
	});
	close(log);
	if (r->pid < 0) {
		r->pid = 0;
		snprintf(err, errlen, "%s: cannot fork: %s", r->what,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int perf_record_launch(struct perf_record *r, char *const *argv,
		       perf_failed_fn *failed, char *err, size_t errlen)
{
	int ctl[2] = { -1, -1 }, ack[2] = { -1, -1 };

	if (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)) {
		snprintf(err, errlen, "%s: cannot create a pipe: %s", r->what,
			 strerror(errno));
		goto fail;
	}
	if (spawn(r, argv, ctl, ack, err, errlen))
		goto fail;
	close(ctl[0]);
	close(ack[1]);
	r->ctl_fd = ctl[1];
	r->ack_fd = ack[0];
	r->fds_open = true;
	fcntl(r->ack_fd, F_SETFL, O_NONBLOCK);

	if (!perf_record_command(r, "ping\n") &&
	    !wait_ack(r, process_deadline_in(PERF_READY_TIMEOUT_S)))
		return 0;
	not_ready(r, failed, err, errlen);
	return -1;
fail:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (ack[i] >= 0)
			close(ack[i]);
	}
	return -1;
}

/* The timer, in the child: sleeps until on_ns and enables perf's events
 * (unless on_ns is 0), then until off_ns and disables them. */
static __attribute__((noreturn)) void timer_child(struct perf_record *r,
						  uint64_t on_ns,
						  uint64_t off_ns)
{
	prctl(PR_SET_NAME, "aimsweep-timer");
	process_close_other_fds(&r->ctl_fd, 1);
	if (on_ns) {
		sleep_until_ns(on_ns, NULL);
		if (perf_record_command(r, "enable\n"))
			_exit(2);
	}
	sleep_until_ns(off_ns, NULL);
	_exit(perf_record_command(r, "disable\n") ? 1 : 0);
}

int perf_record_timer(struct perf_record *r, uint64_t on_ns, uint64_t off_ns)
{
	pid_t pid = process_fork(SIGKILL);

	if (pid == 0)
		timer_child(r, on_ns, off_ns);
	if (pid < 0)
		return -1;
	r->timer_pid = pid;
	return 0;
}

int perf_record_timer_end(struct perf_record *r)
{
	if (r->timer_pid <= 0)
		return 0;
	process_wait(r->timer_pid, NULL, PROCESS_INTERRUPTIBLE,
		     process_deadline_in(PERF_TIMER_EXIT_TIMEOUT_S));
	return process_end_group(&r->timer_pid, 0, 0);
}

int perf_record_stop(struct perf_record *r, char *err, size_t errlen)
{
	char said[320], st[48];
	bool early = process_has_exited(r->pid);
	int status;

	if (!early)
		perf_record_command(r, "stop\n");
	if (process_wait(r->pid, NULL, PROCESS_INTERRUPTIBLE,
			 process_deadline_in(PERF_STOP_TIMEOUT_S)) != 1) {
		process_end_group(&r->pid, 0, 0);
		perf_record_close(r);
		if (run_interrupted)
			snprintf(err, errlen, "interrupted");
		else
			snprintf(err, errlen,
				 "%s: %s did not stop within %.0f s; killed it (its output is in %s)",
				 r->what, r->cmd, PERF_STOP_TIMEOUT_S,
				 r->log_path);
		return -1;
	}
	status = process_end_group(&r->pid, 0, 0);
	perf_record_close(r);
	if (early || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "%s: %s %s (%s); %s", r->what, r->cmd,
			 early ? "ended before the profile did" : "failed",
			 process_status_text(status, st, sizeof(st)),
			 perf_record_said(r, said, sizeof(said)));
		return -1;
	}
	return 0;
}

int perf_record_try(struct perf_record *r, double seconds,
		    const char *cannot_enable, char *err, size_t errlen)
{
	if (perf_record_command(r, "enable\n")) {
		snprintf(err, errlen, "%s: %s", cannot_enable,
			 strerror(errno));
		perf_record_abort(r);
		return -1;
	}
	sleep_until_ns(process_deadline_in(seconds), &run_interrupted);
	return perf_record_stop(r, err, errlen);
}

void perf_record_abort(struct perf_record *r)
{
	process_end_group(&r->timer_pid, 0, 0);
	process_end_group(&r->pid, 0, 0);
	perf_record_close(r);
}

int perf_record_check_dir(const char *option, const char *name, char *dir,
			  size_t len, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (!process_in_path("perf")) {
		snprintf(err, errlen,
			 "%s: perf not found in PATH: install linux-perf (Debian; linux-tools on Ubuntu, perf on Fedora)",
			 option);
		return -1;
	}
	snprintf(dir, len, "%s/aimsweep-%s.XXXXXX", tmp, name);
	if (mkdtemp(dir))
		return 0;
	snprintf(err, errlen,
		 "%s: cannot create a directory for perf's test profile in %s: %s",
		 option, tmp, strerror(errno));
	return -1;
}

void perf_record_option_error(const char *option, const char *what,
			      const char *why, char *err, size_t errlen)
{
	size_t n = strlen(what);

	if (!strncmp(why, what, n) && !strncmp(why + n, ": ", 2))
		why += n + 2;
	snprintf(err, errlen, "%s: %s", option, why);
}
