/* driver/base/process.c: the driver's children: PATH search, spawning, bounded waits, kill-and-reap, numbers from /proc. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/base/process.h"
#include "driver/base/util.h"

volatile int run_interrupted;

/* How often a bounded wait looks at its child. */
#define POLL_STEP_NS (10 * 1000 * 1000L)

uint64_t process_deadline_in(double seconds)
{
	return now_ns() + (uint64_t)(seconds * NSEC_PER_SEC);
}

/* The interrupt's deadline is fixed the first time it is asked for, so
 * that every wait after the signal shares one budget. */
uint64_t process_deadline(uint64_t deadline_ns)
{
	static uint64_t cut;

	if (!run_interrupted)
		return deadline_ns;
	if (!cut)
		cut = now_ns() + INTERRUPT_GRACE_NS;
	return cut < deadline_ns ? cut : deadline_ns;
}

bool process_in_path(const char *name)
{
	const char *path = getenv("PATH"), *p;

	/* execvp's default when PATH is unset. */
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char file[PATH_MAX];
		struct stat st;
		int n;

		/* An empty entry is the current directory. */
		n = end == p ? snprintf(file, sizeof(file), "%s", name) :
		    snprintf(file, sizeof(file), "%.*s/%s", (int)(end - p), p,
			     name);
		if (n > 0 && (size_t)n < sizeof(file) && !stat(file, &st) &&
		    S_ISREG(st.st_mode) && !access(file, X_OK))
			return true;
		if (!*end)
			return false;
		p = end;
	}
}

long process_read_long(const char *path, long fallback)
{
	FILE *f = fopen(path, "re");
	long v;

	if (!f)
		return fallback;
	if (fscanf(f, "%ld", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

int process_output_file(const char *dir, const char *name, bool append,
			char *path, size_t len)
{
	if (snprintf(path, len, "%s/%s", dir, name) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_WRONLY | O_CREAT | O_CLOEXEC |
			  (append ? O_APPEND : O_TRUNC), 0644);
}

void process_set_stop_signals(void (*handler)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], handler);
}

/* The driver catches some signals and ignores SIGPIPE, and an ignored
 * signal stays ignored across exec. */
void process_child_setup(pid_t parent, int pdeath_sig)
{
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, pdeath_sig);
	if (getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	process_set_stop_signals(SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void process_child_stdio(int out_fd, int err_fd)
{
	int null = open("/dev/null", O_RDWR);
	/* Out of the way of the dup2()s onto 0, 1 and 2. */
	int out = out_fd < 0 ? -1 : fcntl(out_fd, F_DUPFD, 10);
	int err = err_fd < 0 ? -1 : fcntl(err_fd, F_DUPFD, 10);

	if (null < 0 || (out_fd >= 0 && out < 0) || (err_fd >= 0 && err < 0))
		_exit(127);
	dup2(null, STDIN_FILENO);
	if (out >= 0)
		dup2(out, STDOUT_FILENO);
	if (err >= 0)
		dup2(err, STDERR_FILENO);
}

void process_close_other_fds(const int *keep, size_t n_keep)
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
			close_range((unsigned int)lo,
				    (unsigned int)k[i] - 1, 0);
		if (k[i] >= lo)
			lo = k[i] + 1;
	}
	close_range((unsigned int)lo, ~0U, 0);
}

pid_t process_fork(int pdeath_sig)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0)
		process_child_setup(parent, pdeath_sig);
	/* Both sides set the group, so that it is set before either goes
	 * on; the child's exec may have made the parent's call fail. */
	else if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

pid_t process_spawn(const struct spawn_spec *s)
{
	pid_t pid = process_fork(SIGKILL);

	if (pid == 0) {
		if (s->dir && chdir(s->dir)) {
			dprintf(STDERR_FILENO, "aimsweep: cannot enter %s: %s\n",
				s->dir, strerror(errno));
			_exit(127);
		}
		process_child_stdio(s->out_fd, s->err_fd);
		for (size_t i = 0; i < s->n_keep; i++)
			fcntl(s->keep[i], F_SETFD, 0);
		process_close_other_fds(s->keep, s->n_keep);
		execvp(s->argv[0], s->argv);
		dprintf(STDERR_FILENO, "aimsweep: cannot run %s: %s\n",
			s->argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

bool process_has_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

/* 1 when pid has exited (and, with reap, is reaped), 0 not yet, -1 with
 * errno when it cannot be waited for. */
static int has_ended(pid_t pid, int *status, bool reap)
{
	pid_t got;

	if (!reap)
		return process_has_exited(pid);
	do {
		got = waitpid(pid, status, WNOHANG);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	return got == pid;
}

int process_wait(pid_t pid, int *status, unsigned int flags,
		 uint64_t deadline_ns)
{
	struct timespec tick = { 0, POLL_STEP_NS };
	int rc;

	while (!(rc = has_ended(pid, status, flags & PROCESS_REAP))) {
		if ((flags & PROCESS_INTERRUPTIBLE) && run_interrupted)
			return 0;
		if (flags & PROCESS_GRACE_CUT)
			deadline_ns = process_deadline(deadline_ns);
		if (now_ns() >= deadline_ns)
			return 0;
		nanosleep(&tick, NULL);
	}
	return rc;
}

int process_reap_killed(pid_t pid, int *status, uint64_t deadline_ns)
{
	int rc = process_wait(pid, status, PROCESS_REAP | PROCESS_GRACE_CUT,
			      deadline_ns);

	if (rc == 1)
		return 0;
	if (rc == 0)
		msg_warn("process %d did not end after SIGKILL; left behind (in uninterruptible sleep?)",
			 (int)pid);
	*status = SIGKILL;	/* as waitpid() reports a kill */
	return -1;
}

int process_end_group(pid_t *pid, int sig, double grace_s)
{
	int status = 0;

	if (*pid <= 0)
		return 0;
	if (sig && !process_has_exited(*pid)) {
		kill(-*pid, sig);
		process_wait(*pid, NULL, 0, process_deadline_in(grace_s));
	}
	kill(-*pid, SIGKILL);
	process_reap_killed(*pid, &status,
			    process_deadline_in(PROCESS_KILLED_WAIT_S));
	*pid = 0;
	return status;
}

const char *process_status_text(int status, char *buf, size_t len)
{
	const char *sig;

	if (WIFEXITED(status)) {
		snprintf(buf, len, "exited with status %d",
			 WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		sig = sigabbrev_np(WTERMSIG(status));
		snprintf(buf, len, "killed by signal %d (SIG%s)",
			 WTERMSIG(status), sig ? sig : "?");
	} else {
		snprintf(buf, len, "status %#x", status);
	}
	return buf;
}

/* write() that cannot raise SIGPIPE, whatever the driver does with it:
 * perf may be gone when we talk to it. */
int process_write_nosigpipe(int fd, const char *buf, size_t len)
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
