/* driver/capture.c: per-level capture in the steady state: perf lock profiles and the user's hook. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/capture.h"
#include "driver/users.h"
#include "driver/util.h"

/* perf lock record takes 0.5 s to start on this 2-CPU machine when idle;
 * users wait at the gate meanwhile, so this is generous. */
#define PERF_READY_TIMEOUT_S 60.0
/* After "stop", perf writes its header and exits: 0.5 s here. */
#define PERF_STOP_TIMEOUT_S 5.0
/* perf lock contention reads a profile: 0.6 s for 0.7 MB here. */
#define PERF_REPORT_TIMEOUT_S 120.0
/* How long the hook has after SIGTERM at the end of its level. */
#define HOOK_TERM_GRACE_S 2.0
/* The timer turns perf's events off before t1; it may be late only when
 * the machine is starved. */
#define TIMER_EXIT_TIMEOUT_S 1.0
/*
 * The most one level's profile may take on disk (perf record --max-size).
 * 1 s profiles measured on this 2-CPU machine: 0.17 MB for creat-contention
 * at 8 and 64 users, 0.25 MB at 256, 0.19 MB for syscall-mix at 64 (0.1 MB
 * of it is the system's task and kernel maps, the rest one record per
 * contended acquisition). The limit is 1000 times that, for long profiles
 * on big machines; a profile that reaches it ends early and fails its
 * level. Profiles are deleted after each level unless --keep-profiles, so
 * one at a time is on disk.
 */
#define PERF_MAX_SIZE "256M"
#define POLL_STEP_NS (10 * 1000 * 1000ULL)

#define PERF_DATA_NAME "perf.data"
#define PERF_LOG_NAME "perf-record.log"
#define REPORT_NAME "lock-contention.txt"
#define HOOK_OUT_NAME "hook.out"

/* The header perf lock contention prints for the fields we ask for. */
static const char *const report_header[] = {
	"contended", "total", "wait", "max", "wait", "avg", "wait", "type",
	"caller",
};

bool capture_wanted(const struct run_params *p)
{
	return p->lock_profile || p->cpu_profile || p->hook_cmd;
}

static void set_error(struct level_capture *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keeps the first failure: later ones are usually its consequences. */
static void set_error(struct level_capture *c, const char *fmt, ...)
{
	va_list ap;

	if (c->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
}

uint64_t deadline_in(double seconds)
{
	return now_ns() + (uint64_t)(seconds * NSEC_PER_SEC);
}

static void sleep_step(void)
{
	struct timespec ts = { 0, (long)POLL_STEP_NS };

	nanosleep(&ts, NULL);
}

/* "exit 3" or "killed by SIGTERM", for messages. */
const char *status_text(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by SIG%s",
			 sigabbrev_np(WTERMSIG(status)) ?
			 sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, len, "status %#x", status);
	return buf;
}

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

/* The signals that end processes from a terminal or a supervisor. */
static void set_signals(void (*handler)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], handler);
}

static void unblock_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * In a child of the driver: it gets `pdeath_sig` when the driver dies
 * (whatever kills it), leads a process group of its own (so that it and
 * what it starts can be ended together, and a Ctrl-C meant for the driver
 * does not reach it), and starts with default signals: the driver catches
 * some and ignores SIGPIPE, and an ignored signal stays ignored across
 * exec.
 */
void child_setup(pid_t parent, int pdeath_sig)
{
	prctl(PR_SET_PDEATHSIG, pdeath_sig);
	if (getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	set_signals(SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	unblock_signals();
}

/* stdin from /dev/null, stdout and stderr to out_fd. */
static void child_stdio(int out_fd)
{
	int null = open("/dev/null", O_RDWR);
	/* Out of the way of the dup2()s onto 0, 1 and 2. */
	int out = fcntl(out_fd, F_DUPFD, 10);

	if (null < 0 || out < 0)
		_exit(127);
	dup2(null, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
}

/* Closes every descriptor from 3 up but keep[0..n_keep-1], n_keep <= 2:
 * a child holds none of the driver's. */
void close_other_fds(const int *keep, size_t n_keep)
{
	int k[2] = { INT_MAX, INT_MAX }, lo = 3;

	for (size_t i = 0; i < n_keep && i < 2; i++)
		k[i] = keep[i];
	if (k[0] > k[1]) {
		int t = k[0];

		k[0] = k[1];
		k[1] = t;
	}
	for (int i = 0; i < 2 && k[i] != INT_MAX; i++) {
		if (k[i] > lo)
			close_range((unsigned int)lo, (unsigned int)k[i] - 1, 0);
		if (k[i] >= lo)
			lo = k[i] + 1;
	}
	close_range((unsigned int)lo, ~0U, 0);
}

/*
 * Forks and runs argv (argv[0] searched in PATH) as described at
 * child_setup(), killed with the driver, stdout and stderr to out_fd. Of
 * the driver's descriptors only keep[] (at most 2) stay open in it.
 * Returns the pid, or -1 with errno.
 */
pid_t spawn(char *const argv[], int out_fd, const int *keep,
	    size_t n_keep)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		child_setup(parent, SIGKILL);
		child_stdio(out_fd);
		for (size_t i = 0; i < n_keep; i++)
			fcntl(keep[i], F_SETFD, 0);
		close_other_fds(keep, n_keep);
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "aimsweep: cannot run %s: %s\n",
			argv[0], strerror(errno));
		_exit(127);
	}
	/* Both sides set the group, so that it is set before either goes
	 * on; the child's exec may have made the parent's call fail. */
	setpgid(pid, pid);
	return pid;
}

/* In the hook's supervisor, when the driver dies: the whole group goes. */
static void supervisor_orphaned(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

/*
 * The hook's shell runs under a small process of ours that leads the
 * hook's process group. A shell killed with the driver would leave what it
 * started running (PR_SET_PDEATHSIG is not inherited); the supervisor gets
 * SIGUSR1 when the driver dies, however it dies, and kills the whole
 * group. It ignores the SIGTERM that ends the hook at its level's end,
 * waits for the shell and exits as the shell did, so that its wait status
 * is the hook's. Returns its pid, or -1 with errno.
 */
static pid_t spawn_hook(char *const argv[], int out_fd, char *const envp[])
{
	struct sigaction sa;
	struct rlimit no_core = { 0, 0 };
	pid_t parent = getpid(), pid = fork(), shell;
	int status, sig;

	if (pid < 0)
		return -1;
	if (pid > 0) {
		setpgid(pid, pid);
		return pid;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = supervisor_orphaned;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	child_setup(parent, SIGUSR1);
	prctl(PR_SET_NAME, "aimsweep-hook");
	child_stdio(out_fd);
	close_other_fds(NULL, 0);
	set_signals(SIG_IGN);
	shell = fork();
	if (shell == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		set_signals(SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		execve(argv[0], argv, envp);
		dprintf(STDERR_FILENO, "aimsweep: cannot run %s: %s\n",
			argv[0], strerror(errno));
		_exit(127);
	}
	if (shell < 0) {
		dprintf(STDERR_FILENO, "aimsweep: cannot fork the hook: %s\n",
			strerror(errno));
		_exit(127);
	}
	while (waitpid(shell, &status, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	/* Die of the shell's signal, without a core of our own. */
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(128 + sig);
}

/* Whether our child pid has exited, without reaping it: until it is
 * reaped its pid still names its process group. */
bool has_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

/* Waits until pid exits or deadline_ns passes (or, when interruptible,
 * the run is interrupted); true when it exited. */
bool wait_exit_until(pid_t pid, uint64_t deadline_ns,
		     bool interruptible)
{
	while (!has_exited(pid)) {
		if (now_ns() >= deadline_ns ||
		    (interruptible && run_interrupted))
			return false;
		sleep_step();
	}
	return true;
}

/*
 * Ends the process group *pid leads and reaps *pid: `sig` first (0: none)
 * with grace_s to act on it when the leader still runs, then SIGKILL for
 * every member left, the leader included. The leader is reaped last, so that no other process can
 * get its pid, and with it the group's id, while the group is signalled.
 * Returns the leader's wait status.
 */
int end_group(pid_t *pid, int sig, double grace_s)
{
	int status = 0;

	if (*pid <= 0)
		return 0;
	if (sig && !has_exited(*pid)) {
		kill(-*pid, sig);
		wait_exit_until(*pid, deadline_in(grace_s), false);
	}
	kill(-*pid, SIGKILL);
	while (waitpid(*pid, &status, 0) < 0 && errno == EINTR)
		;
	*pid = 0;
	return status;
}

/* write() that cannot raise SIGPIPE, whatever the driver does with it:
 * perf may be gone when we talk to it. */
int write_nosigpipe(int fd, const char *buf, size_t len)
{
	sigset_t pipe_set, old, pending;
	struct timespec zero = { 0, 0 };
	bool was_pending;
	ssize_t n;
	int err = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);

	do {
		n = write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (err == EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &zero);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return err ? -1 : 0;
}

/* Sends perf record one of its --control commands ("enable\n", ...). */
static int perf_command(struct level_capture *c, const char *cmd)
{
	return write_nosigpipe(c->perf_ctl_fd, cmd, strlen(cmd));
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

int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = INT_MIN;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = INT_MIN;
		fclose(f);
	}
	return v;
}

/* The advice for a perf that cannot record lock events. */
static void perf_failed_message(char *err, size_t errlen, const char *what,
				const char *log_path)
{
	char excerpt[256];
	int paranoid = read_paranoid();
	char now[32] = "";

	if (paranoid != INT_MIN)
		snprintf(now, sizeof(now), " (now %d)", paranoid);
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

/*
 * Starts `perf lock record` on the whole system, writing c->perf_data,
 * with its events off until perf_command("enable\n"), and waits until it
 * answers on its control pipe, which it does once it is fully set up.
 */
static int perf_launch(struct level_capture *c, char *err, size_t errlen)
{
	char control[64], log_path[PATH_MAX + 32], what[128], st[48];
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
	int status;

	snprintf(log_path, sizeof(log_path), "%s/" PERF_LOG_NAME, c->dir);
	if (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)) {
		snprintf(err, errlen, "lock profile: cannot create a pipe: %s",
			 strerror(errno));
		goto fail;
	}
	log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log < 0) {
		snprintf(err, errlen, "lock profile: cannot create %s: %s",
			 log_path, strerror(errno));
		goto fail;
	}
	snprintf(control, sizeof(control), "--control=fd:%d,%d", ctl[0],
		 ack[1]);
	keep[0] = ctl[0];
	keep[1] = ack[1];
	c->perf_pid = spawn(argv, log, keep, 2);
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
	    !perf_wait_ack(c, deadline_in(PERF_READY_TIMEOUT_S)))
		return 0;
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
		end_group(&c->perf_pid, 0, 0);
	} else if (wait_exit_until(c->perf_pid, deadline_in(1.0), false)) {
		/* Its pipe closed as it exited; it is reapable soon after. */
		status = end_group(&c->perf_pid, 0, 0);
		snprintf(what, sizeof(what),
			 "lock profile: perf lock record failed (%s)",
			 status_text(status, st, sizeof(st)));
		perf_failed_message(err, errlen, what, log_path);
	} else {
		end_group(&c->perf_pid, 0, 0);
		snprintf(err, errlen,
			 "lock profile: perf lock record was not ready after %.0f s (its output is in %s)",
			 PERF_READY_TIMEOUT_S, log_path);
	}
	perf_close_fds(c);
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
	bool early = has_exited(c->perf_pid);
	int status;

	snprintf(log_path, sizeof(log_path), "%s/" PERF_LOG_NAME, c->dir);
	if (!early)
		perf_command(c, "stop\n");
	if (!wait_exit_until(c->perf_pid, deadline_in(PERF_STOP_TIMEOUT_S),
			     true)) {
		end_group(&c->perf_pid, 0, 0);
		perf_close_fds(c);
		if (run_interrupted)
			snprintf(err, errlen, "interrupted");
		else
			snprintf(err, errlen,
				 "lock profile: perf lock record did not stop within %.0f s; killed it (its output is in %s)",
				 PERF_STOP_TIMEOUT_S, log_path);
		return -1;
	}
	status = end_group(&c->perf_pid, 0, 0);
	perf_close_fds(c);
	if (early) {
		snprintf(err, errlen,
			 "lock profile: perf lock record ended before the profile did (%s); %s",
			 status_text(status, st, sizeof(st)),
			 log_excerpt(log_path, excerpt, sizeof(excerpt)));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "lock profile: perf lock record failed (%s); %s",
			 status_text(status, st, sizeof(st)),
			 log_excerpt(log_path, excerpt, sizeof(excerpt)));
		return -1;
	}
	return 0;
}

bool in_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n && n < sizeof(buf) - strlen(name) - 2) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name);
			if (access(buf, X_OK) == 0)
				return true;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

int capture_check(const struct run_params *p, char *err, size_t errlen)
{
	struct level_capture c;
	const char *tmp = getenv("TMPDIR");
	char log_path[PATH_MAX + 32], old[PATH_MAX + 8];
	struct stat st;
	int rc = -1;

	if (cpu_profile_check(p, err, errlen))
		return -1;
	if (!p->lock_profile)
		return 0;
	if (!in_path("perf")) {
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
	snprintf(c.perf_data, sizeof(c.perf_data), "%s/" PERF_DATA_NAME,
		 c.dir);
	snprintf(log_path, sizeof(log_path), "%s/" PERF_LOG_NAME, c.dir);

	/* The same steps as a level: start, enable for 0.1 s, stop. */
	if (perf_launch(&c, err, errlen))
		goto out;
	if (perf_command(&c, "enable\n")) {
		snprintf(err, errlen, "perf lock record: cannot enable its events: %s",
			 strerror(errno));
		end_group(&c.perf_pid, 0, 0);
		perf_close_fds(&c);
		goto out;
	}
	sleep_until_ns(deadline_in(0.1), &run_interrupted);
	if (perf_stop(&c, err, errlen))
		goto out;
	if (stat(c.perf_data, &st) || st.st_size == 0) {
		snprintf(err, errlen,
			 "perf lock record exited 0 but wrote no %s", c.perf_data);
		goto out;
	}
	rc = 0;
out:
	if (run_interrupted) {
		snprintf(err, errlen, "interrupted");
	} else if (rc) {
		static const char level_prefix[] = "lock profile: ";
		char why[REASON_LEN + 64];
		const char *w = why;

		snprintf(why, sizeof(why), "%s", err);
		if (!strncmp(w, level_prefix, sizeof(level_prefix) - 1))
			w += sizeof(level_prefix) - 1;
		snprintf(err, errlen, "--lock-profile: %s", w);
	}
	unlink(c.perf_data);
	snprintf(old, sizeof(old), "%s.old", c.perf_data);
	unlink(old);
	unlink(log_path);
	rmdir(c.dir);
	return rc;
}

int capture_prepare(struct level_capture *c, const struct run_params *p,
		    unsigned int users, size_t level_index,
		    const char *level_dir, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->params = p;
	c->users = users;
	c->level_index = level_index;
	if (!capture_wanted(p))
		return 0;
	if (mkdir(level_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", level_dir,
			 strerror(errno));
		return -1;
	}
	/* The hook may change directory: it gets an absolute path. */
	if (!realpath(level_dir, c->dir)) {
		snprintf(err, errlen, "cannot resolve %s: %s", level_dir,
			 strerror(errno));
		return -1;
	}
	if (p->cpu_profile &&
	    cpu_profile_prepare(&c->cpu, p, c->dir, err, errlen))
		return -1;
	if (!p->lock_profile)
		return 0;
	/* Events go on at t0, or after the CPU profile's slice: a profile
	 * no longer than the window stays in it (cli.c sees that both
	 * fit). */
	if (p->cpu_profile)
		c->profile_offset_s = c->cpu.slice_s;
	c->profile_s = fmin(p->lock_profile_s,
			    p->runtime_s - c->profile_offset_s);
	if (!path_join(c->perf_data, sizeof(c->perf_data), c->dir,
		       PERF_DATA_NAME)) {
		snprintf(err, errlen, "%s: path too long", c->dir);
		return -1;
	}
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
		set_error(c, "lock profile: cannot fork the timer that ends it: %s",
			  strerror(errno));
		return;
	}
	if (pid == 0) {
		child_setup(parent, SIGKILL);
		prctl(PR_SET_NAME, "aimsweep-timer");
		close_other_fds(&c->perf_ctl_fd, 1);
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

/* The driver's environment without AIMSWEEP_<name>= entries, plus ours;
 * NULL when out of memory. */
static char **hook_environment(char *const ours[], size_t n_ours)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + n_ours + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t j = 0; j < n_ours && !replaced; j++)
			replaced = !strncmp(environ[i], ours[j],
					    strcspn(ours[j], "=") + 1);
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < n_ours; j++)
		env[k++] = ours[j];
	return env;
}

static void start_hook(struct level_capture *c)
{
	const struct run_params *p = c->params;
	char users[48], level[48], runtime[64], dir[PATH_MAX + 32];
	char out_path[PATH_MAX + 32];
	char *const ours[] = { users, level, runtime, dir };
	char *argv[] = { "/bin/sh", "-c", (char *)p->hook_cmd, NULL };
	char **env;
	int out;

	snprintf(users, sizeof(users), "AIMSWEEP_USERS=%u", c->users);
	snprintf(level, sizeof(level), "AIMSWEEP_LEVEL=%zu",
		 c->level_index + 1);
	snprintf(runtime, sizeof(runtime), "AIMSWEEP_RUNTIME=%g",
		 p->runtime_s);
	snprintf(dir, sizeof(dir), "AIMSWEEP_LEVEL_DIR=%s", c->dir);
	snprintf(out_path, sizeof(out_path), "%s/" HOOK_OUT_NAME, c->dir);
	/* Appended to: a level run twice keeps both outputs. */
	out = open(out_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out < 0) {
		set_error(c, "hook: cannot create %s: %s", out_path,
			  strerror(errno));
		return;
	}
	env = hook_environment(ours, sizeof(ours) / sizeof(ours[0]));
	if (!env) {
		set_error(c, "hook: out of memory");
		close(out);
		return;
	}
	c->hook_pid = spawn_hook(argv, out, env);
	if (c->hook_pid < 0) {
		c->hook_pid = 0;
		set_error(c, "hook: cannot fork: %s", strerror(errno));
	}
	free(env);
	close(out);
}

void capture_start(struct level_capture *c)
{
	if (!c->params || c->started)
		return;
	c->started = true;
	/* The CPU profile first, from t0; the lock profile after it. */
	cpu_profile_start(&c->cpu);
	if (c->perf_pid > 0 && c->profile_offset_s > 0) {
		uint64_t on_ns = deadline_in(c->profile_offset_s);

		start_timer(c, on_ns, on_ns +
			    (uint64_t)(c->profile_s * NSEC_PER_SEC));
	} else if (c->perf_pid > 0) {
		uint64_t off_ns = deadline_in(c->profile_s);

		if (perf_command(c, "enable\n"))
			set_error(c, "lock profile: cannot enable perf's events: %s",
				  strerror(errno));
		else
			start_timer(c, 0, off_ns);
	}
	if (c->params->hook_cmd)
		start_hook(c);
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

	snprintf(path, sizeof(path), "%s/" REPORT_NAME, c->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		set_error(c, "lock profile: cannot create %s: %s", path,
			  strerror(errno));
		return;
	}
	pid = spawn(argv, fd, NULL, 0);
	close(fd);
	if (pid < 0) {
		set_error(c, "lock profile: cannot fork: %s", strerror(errno));
		return;
	}
	if (!wait_exit_until(pid, deadline_in(PERF_REPORT_TIMEOUT_S), true)) {
		end_group(&pid, 0, 0);
		if (!run_interrupted)
			set_error(c, "lock profile: perf lock contention did not finish within %.0f s; killed it",
				  PERF_REPORT_TIMEOUT_S);
		return;
	}
	status = end_group(&pid, 0, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		set_error(c, "lock profile: perf lock contention failed (%s); its output is in %s",
			  status_text(status, st, sizeof(st)), path);
		return;
	}
	f = fopen(path, "re");
	if (!f) {
		set_error(c, "lock profile: cannot read %s: %s", path,
			  strerror(errno));
		return;
	}
	rc = capture_parse_contention(f, (uint64_t)(c->profile_s * 1e9),
				      c->params->lock_profile_top, &report);
	fclose(f);
	if (rc == EBADMSG)
		set_error(c, "lock profile: %s lacks the header 'contended total wait max wait avg wait type caller' of perf 6.1's report",
			  path);
	else if (rc)
		set_error(c, "lock profile: cannot read %s: %s", path,
			  strerror(rc));
	else {
		level->lock_profiled = true;
		level->locks = report.entries;
		level->n_locks = report.n_entries;
		level->locks_dropped = report.dropped;
	}
}

void capture_finish(struct level_capture *c, struct level_result *level)
{
	char err[REASON_LEN];
	int status;

	if (!c->params)
		return;
	if (run_interrupted) {
		capture_abort(c);
		return;
	}
	/* The hook first: its level is over. */
	if (c->hook_pid > 0) {
		/* How it ended is its own doing only if it ended before the
		 * level did: after our SIGTERM, a shell may well exit 143. */
		bool by_itself = has_exited(c->hook_pid);
		const char *sig_name;

		status = end_group(&c->hook_pid, SIGTERM, HOOK_TERM_GRACE_S);
		level->hook_ran = true;
		level->hook_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		level->hook_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
		snprintf(level->hook_dir, sizeof(level->hook_dir), "%s", c->dir);
		/* Ending it at the level's end is the rule; a hook that
		 * failed by itself (a typo, a perf that could not start)
		 * would otherwise go unnoticed until someone read the JSON. */
		sig_name = level->hook_signal ?
			sigabbrev_np(level->hook_signal) : NULL;
		if (by_itself && WIFEXITED(status) && level->hook_status)
			msg_warn("the hook of the %u-user level exited with status %d; its output is in %s/hook.out",
				 level->users, level->hook_status, c->dir);
		else if (by_itself && WIFSIGNALED(status))
			msg_warn("the hook of the %u-user level was killed by signal %d (SIG%s); its output is in %s/hook.out",
				 level->users, level->hook_signal,
				 sig_name ? sig_name : "?", c->dir);
	}
	if (c->timer_pid > 0) {
		wait_exit_until(c->timer_pid, deadline_in(TIMER_EXIT_TIMEOUT_S),
				true);
		status = end_group(&c->timer_pid, 0, 0);
		/* Killed: perf's events stayed on past the window. */
		if (WIFSIGNALED(status) && !run_interrupted)
			set_error(c, "lock profile: its timer did not end it within %.0f s of the window's end",
				  TIMER_EXIT_TIMEOUT_S);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
			set_error(c, "lock profile: perf would not switch its events on after the CPU profile");
	}
	if (c->perf_pid > 0) {
		if (perf_stop(c, err, sizeof(err)))
			set_error(c, "%s", err);
		else if (level->status == LEVEL_OK && !c->error[0])
			perf_report(c, level);
		if (!c->params->keep_profiles)
			unlink(c->perf_data);
	}
	if (cpu_profile_finish(&c->cpu, level,
			       level->status == LEVEL_OK && !c->error[0], err,
			       sizeof(err)))
		set_error(c, "%s", err);
	if (run_interrupted) {
		capture_abort(c);
		return;
	}
	if (c->error[0] && level->status == LEVEL_OK) {
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "%s", c->error);
	}
	c->params = NULL;
}

void capture_abort(struct level_capture *c)
{
	if (!c->params)
		return;
	end_group(&c->timer_pid, 0, 0);
	end_group(&c->perf_pid, 0, 0);
	perf_close_fds(c);
	cpu_profile_abort(&c->cpu);
	/* A short grace: the driver is on its way out. */
	end_group(&c->hook_pid, SIGTERM, 0.5);
	if (c->perf_data[0])
		unlink(c->perf_data);
	c->params = NULL;
}
