/* tests/test_guard.c: runs one test with a time limit and fails it for any process, SysV object or temporary file it leaves behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * test_guard CMD [ARG...]: the log compiler of every test in `make
 * check`. It becomes a child subreaper, so that every process the test
 * starts, whatever it execs and whatever environment it has, stays its
 * descendant or is handed to it when its parent dies. Then it runs CMD:
 *
 * - with a wall-clock limit, TEST_TIMEOUT_S (default 480 s): a test past
 *   it is killed with its whole tree, and fails naming itself and the
 *   last step it noted in tests/NAME.tmp/last-step (run_aimsweep notes
 *   each aimsweep command there);
 * - as root, in a SysV IPC namespace of its own: whatever SysV object is
 *   left in it when the test ends is the test's, and fails it;
 * - with TMPDIR a directory of its own, which must be empty at the end.
 *
 * Once the test has ended, every process still alive in its tree fails
 * it (after a short grace for those dying with their parent), and is
 * killed. The test's own status stands otherwise: 0 pass, 77 skip, 99
 * hard error, else fail.
 */

#define DEFAULT_TIMEOUT_S 480
/* How long a leftover process has to end by itself: users and helpers
 * die with their parent (PR_SET_PDEATHSIG) a moment after it. */
#define LEFTOVER_GRACE_MS 3000

static const char *test_path;
static char tmp_dir[PATH_MAX];

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The parent pid and command name of pid from /proc, or -1. */
static pid_t parent_of(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[512], *open_paren, *close_paren;
	ssize_t n;
	int fd, ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -1;
	if (comm)
		snprintf(comm, len, "%.*s", (int)(close_paren - open_paren - 1),
			 open_paren + 1);
	/* ") S ppid" */
	if (sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* True when pid's chain of parents reaches ours. */
static bool is_descendant(pid_t pid)
{
	pid_t self = getpid();

	for (int depth = 0; pid > 1 && depth < 4096; depth++) {
		pid = parent_of(pid, NULL, 0);
		if (pid == self)
			return true;
	}
	return false;
}

/* Reaps whatever has ended, so that only live descendants are left. */
static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/*
 * Calls fn for every live descendant (zombies are reaped first); returns
 * how many there were.
 */
static int for_each_descendant(void (*fn)(pid_t pid, const char *comm))
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	reap_all();
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char comm[64] = "?";
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);

		if (pid <= 0 || pid == getpid() || !is_descendant(pid))
			continue;
		parent_of(pid, comm, sizeof(comm));
		n++;
		if (fn)
			fn(pid, comm);
	}
	closedir(d);
	return n;
}

static void report_leftover(pid_t pid, const char *comm)
{
	char path[64], cmd[256] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		for (ssize_t i = 0; i < n - 1; i++)
			if (!cmd[i])
				cmd[i] = ' ';
	}
	fprintf(stderr, "FAIL: %s left process %d (%s) running: %s\n",
		test_path, (int)pid, comm, cmd);
}

static void kill_one(pid_t pid, const char *comm)
{
	(void)comm;
	kill(pid, SIGKILL);
}

static void kill_tree(void)
{
	for (int round = 0; round < 50 && for_each_descendant(kill_one); round++)
		sleep_ms(20);
	reap_all();
}

/* The last step the test noted, or "". */
static void last_step(char *buf, size_t len)
{
	const char *base = strrchr(test_path, '/');
	char name[PATH_MAX], path[PATH_MAX + 64];
	size_t n;
	FILE *f;

	snprintf(name, sizeof(name), "%s", base ? base + 1 : test_path);
	n = strlen(name);
	if (n > 3 && !strcmp(name + n - 3, ".sh"))
		name[n - 3] = '\0';
	snprintf(path, sizeof(path), "tests/%s.tmp/last-step", name);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Counts the SysV objects in one /proc/sysvipc table (after its header
 * line), printing each. */
static int sysv_left(const char *kind)
{
	char path[64], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sysvipc/%s", kind);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		while (fgets(line, sizeof(line), f)) {
			fprintf(stderr, "FAIL: %s left a SysV %s object: %s",
				test_path, kind, line);
			n++;
		}
	fclose(f);
	return n;
}

/* Counts (and prints) what is left in the test's TMPDIR. */
static int tmp_left(void)
{
	DIR *d = opendir(tmp_dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fprintf(stderr, "FAIL: %s left %s/%s in its TMPDIR\n",
			test_path, tmp_dir, e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static int remove_tree(const char *path)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	return system(cmd);
}

int main(int argc, char **argv)
{
	const char *limit = getenv("TEST_TIMEOUT_S");
	long timeout_s = limit ? strtol(limit, NULL, 10) : 0;
	bool own_ipc = false;
	char cwd[PATH_MAX - 64];
	long long deadline;
	int status = 0, rc;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: test_guard CMD [ARG...]\n");
		return 99;
	}
	test_path = argv[argc - 1];
	if (timeout_s <= 0)
		timeout_s = DEFAULT_TIMEOUT_S;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		perror("test_guard: PR_SET_CHILD_SUBREAPER");
		return 99;
	}
	/* Said in the form .ci/run reports: a check that did not run. */
	if (geteuid() != 0)
		fprintf(stderr, "note: not root: SysV objects the test leaves are not checked\n");
	else if (unshare(CLONE_NEWIPC))
		fprintf(stderr, "note: no IPC namespace of its own (%s): SysV objects the test leaves are not checked\n",
			strerror(errno));
	else
		own_ipc = true;
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/tests/guard-tmp.XXXXXX", cwd);
	if (!mkdtemp(tmp_dir)) {
		fprintf(stderr, "test_guard: cannot make %s: %s\n", tmp_dir,
			strerror(errno));
		return 99;
	}
	setenv("TMPDIR", tmp_dir, 1);

	pid = fork();
	if (pid < 0) {
		perror("test_guard: fork");
		return 99;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "test_guard: cannot run %s: %s\n", argv[1],
			strerror(errno));
		_exit(99);
	}
	deadline = now_ms() + timeout_s * 1000;
	for (;;) {
		int st;
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			break;
		if (now_ms() >= deadline) {
			char step[512];

			last_step(step, sizeof(step));
			fprintf(stderr, "FAIL: %s did not end within %ld s (TEST_TIMEOUT_S); its last step: %s\n",
				test_path, timeout_s, step[0] ? step : "(none noted)");
			kill_tree();
			remove_tree(tmp_dir);
			return 1;
		}
		/* Orphans handed to us must not stay zombies. */
		while ((got = waitpid(-1, &st, WNOHANG)) > 0 && got != pid)
			;
		if (got == pid) {
			status = st;
			break;
		}
		sleep_ms(50);
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	/* What the test left behind fails it, even a pass or a skip. */
	{
		long long until = now_ms() + LEFTOVER_GRACE_MS;
		int left;

		while ((left = for_each_descendant(NULL)) && now_ms() < until)
			sleep_ms(50);
		if (left) {
			for_each_descendant(report_leftover);
			kill_tree();
			rc = 1;
		}
	}
	if (own_ipc && sysv_left("shm") + sysv_left("sem") + sysv_left("msg"))
		rc = 1;
	if (tmp_left())
		rc = 1;
	remove_tree(tmp_dir);
	return rc;
}
