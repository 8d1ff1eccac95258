/* jobs/proc.c: process jobs (getppid, fork_test, exec_test, shell_rtns_*). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/catalog.h"
#include "jobs/getppid_syscall.h"

static int getppid_init(const struct job_ctx *ctx, void **state)
{
	(void)ctx;
	*state = NULL;
	return 0;
}

/* The cheapest syscall there is: what aimsweep reaches with this job, set
 * against a bare getppid loop, is the harness's own overhead. The call is
 * made in place (see getppid_syscall.h), and its result dropped: a store
 * would touch one more page per op than the bare loop does. Hot, to sit
 * in the user loop's page (see user_loop()). */
__attribute__((hot)) static int getppid_run(void *state)
{
	(void)state;
	getppid_syscall();
	return 0;
}

const struct job job_getppid = {
	.name = "getppid",
	.family = "proc",
	.unit = "Null System Calls",
	.inner_ops = 1,
	.summary = "the null job: one getppid syscall, to measure the harness",
	.syscalls = (const struct job_syscall[]){ { "getppid", 1 }, { NULL, 0 } },
	.init = getppid_init,
	.run = getppid_run,
};

/*
 * The AIM7 process jobs: task creation, program loads, shell scripts. One
 * op is one reaim job: fork_test creates 100 tasks and exec_test loads 5
 * programs (creat_clo.c); each shell_rtns_N runs one script (num_fcns.c).
 */
#define FORK_TEST_TASKS 100
#define EXEC_TEST_LOADS 5

/* The exit status of a child that could not exec its program, as shells
 * and posix_spawn() use it ("command not found"). */
#define CHILD_EXEC_FAILED 127

/*
 * Reaps the child pid and judges how it ended; then, as reaim's jobs do,
 * waits again and is told there is no such child (two wait4 per child:
 * reaim waits in a loop until wait() fails with ECHILD). Both waits name
 * the pid, as in thread mode other users' children are this process's
 * too; the second does not block, and cannot take another user's child,
 * as Linux hands out a freed pid again only when the pid space wraps.
 *
 * A clean exit is 0. A child that could not exec its program exits
 * CHILD_EXEC_FAILED, reported as ENOEXEC. Any other end, a non-zero
 * status or a signal, is ECHILD: "no child" reads as "the child did not
 * do its work", and the first wait never returns it for a child it can
 * reap, so it cannot be mistaken for a failing syscall.
 */
static int child_reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return errno;
	waitpid(pid, NULL, WNOHANG);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_EXEC_FAILED)
		return ENOEXEC;
	return ECHILD;
}

/* A user that ignores SIGCHLD (or sets SA_NOCLDWAIT) has its children
 * reaped by the kernel, and waitpid() fails; these jobs need the default
 * disposition, which only reaps on request. */
static int child_reapable(void)
{
	struct sigaction sa;

	if (sigaction(SIGCHLD, NULL, &sa))
		return errno;
	if (sa.sa_handler != SIG_IGN && !(sa.sa_flags & SA_NOCLDWAIT))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGCHLD, &sa, NULL) ? errno : 0;
}

/* The first steps of a child that goes on to exec a program: it dies
 * with its parent, even a parent killed with SIGKILL, and gives up if the
 * parent is gone already. Async-signal-safe, as the user may be one
 * thread of many. */
static void child_bind(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(CHILD_EXEC_FAILED);
}

static int fork_test_init(const struct job_ctx *ctx, void **state)
{
	*state = ctx->progress;
	return child_reapable();
}

/* One op creates 100 tasks one after the other, each exiting at once and
 * reaped before the next: the cost of copying the user's address space
 * and tearing it down again. */
static int fork_test_run(void *state)
{
	uint64_t *progress = state;
	pid_t pid;
	int err;

	for (unsigned int i = 0; i < FORK_TEST_TASKS; i++) {
		pid = fork();
		if (pid < 0)
			return errno;
		if (pid == 0)
			_exit(0);
		err = child_reap(pid);
		if (err)
			return err;
		job_progress(progress, 1);
	}
	return 0;
}

/* What exec_test and shell_rtns_* run: a fixed program with fixed
 * arguments, all set up at init. */
struct spawn_state {
	char *argv[5];		/* what execve() gets, NULL-terminated */
	char *envp[3];
	char env_path[24];
	char env_locale[16];
	char *program;		/* exec_test's program, allocated */
	char *script;		/* the script shell_init made, or NULL */
	pid_t parent;		/* the user's process */
	int devnull;		/* the shell's stdin and stdout, or -1 */
	uint64_t *progress;
};

static struct spawn_state *spawn_alloc(const struct job_ctx *ctx)
{
	struct spawn_state *st = JOB_STATE_NEW(ctx, struct spawn_state);

	if (!st)
		return NULL;
	st->parent = getpid();
	st->devnull = -1;
	return st;
}

static void spawn_fini(void *state)
{
	struct spawn_state *st = state;

	if (st->devnull >= 0)
		close(st->devnull);
	if (st->script)
		unlink(st->script);
	free(st->script);
	free(st->program);
	free(st);
}

/*
 * One op loads 5 programs, one after the other: fork, exec the program,
 * which exits at once, and reap it. The child only binds itself to the
 * user before it execs: the program is exec_test's own (see
 * exec_child.c), and needs nothing else.
 */
static int exec_test_run(void *state)
{
	struct spawn_state *st = state;
	pid_t pid;
	int err;

	for (unsigned int i = 0; i < EXEC_TEST_LOADS; i++) {
		pid = fork();
		if (pid < 0)
			return errno;
		if (pid == 0) {
			child_bind(st->parent);
			execve(st->argv[0], st->argv, st->envp);
			_exit(CHILD_EXEC_FAILED);
		}
		err = child_reap(pid);
		if (err)
			return err;
		job_progress(st->progress, 1);
	}
	return 0;
}

/* Fails, with the path in the reason, unless path is an executable file.
 * The reasons leave the errno text out: the driver puts it first. */
static int check_executable(const struct job_ctx *ctx, const char *path)
{
	struct stat sb;
	int err;

	if (stat(path, &sb) || access(path, X_OK)) {
		err = errno;
		job_set_reason(ctx, "cannot execute %s", path);
		return err;
	}
	if (!S_ISREG(sb.st_mode)) {
		job_set_reason(ctx, "cannot execute %s: not a regular file",
			       path);
		return EACCES;
	}
	return 0;
}

static int exec_test_init(const struct job_ctx *ctx, void **state)
{
	struct spawn_state *st;
	char path[PATH_MAX];
	int err;

	err = child_reapable();
	if (err)
		return err;
	if (!ctx->libexec_dir) {
		job_set_reason(ctx, "no directory for %s is known",
			       EXEC_CHILD_NAME);
		return ENOENT;
	}
	if (job_path(path, sizeof(path), ctx->libexec_dir, "%s",
		     EXEC_CHILD_NAME))
		return ENAMETOOLONG;
	err = check_executable(ctx, path);
	if (err)
		return err;
	st = spawn_alloc(ctx);
	if (!st)
		return ENOMEM;
	st->program = strdup(path);
	if (!st->program) {
		spawn_fini(st);
		return ENOMEM;
	}
	st->argv[0] = st->program;
	/* The program needs no environment; an empty one keeps the op the
	 * same for every user and every shell aimsweep is started from. */
	st->envp[0] = NULL;
	*state = st;
	return 0;
}

/*
 * shell_rtns_N: reaim forks a child that calls system() on the command
 * line "aim_N.sh 9": the C library starts /bin/sh -c on it, and the shell
 * starts the script, which the kernel hands to /bin/sh. aimsweep does the
 * same with a script of its own in the user's directory, named to the
 * shell as $0 so that no path is ever parsed as shell text. The shell
 * starts /bin/sh on the script itself rather than exec the script: in
 * thread mode another user's child, forked while this user wrote the
 * script, may hold it open for writing, and the exec would fail with
 * ETXTBSY. The script's one check is on the argument it was given.
 *
 * AIM7's scripts go on to run ls -l (aim_1.sh, aim_3.sh) or to sleep 5 s
 * (aim_2.sh, given 9). reaim's jobs never ran those commands, as its
 * shell never finds the scripts (see SHELL_DEVIATION), and this one does
 * not either, so that shell_rtns compares with reaim's results.
 */
#define SHELL_PATH "/bin/sh"
#define SHELL_COMMAND SHELL_PATH " \"$0\" 9"

static const char shell_script[] =
	"# aimsweep shell_rtns_N: started with one argument, as reaim starts\n"
	"# its aim_N.sh.\n"
	"[ \"$1\" = 9 ]\n";

/* The signals a user ignores (see user_process_setup()), which the shell
 * gets back at their defaults. */
static const int shell_default_signals[] = {
	SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE,
};

/*
 * The middle process of a shell op, in the place of reaim's child that
 * calls system(): it gives the shell the signal state and stdio it would
 * have under reaim, starts it with vfork() (system() does not copy the
 * address space either: it uses posix_spawn()), and exits with the
 * shell's status. Under reaim the shell starts with every signal at its
 * default (system() resets SIGINT and SIGQUIT, and the exec ends reaim's
 * own handlers), and dash's work depends on it; the users' process group
 * is not the terminal's, so a Ctrl-C still reaches the driver alone. Both
 * processes are bound to their parents, so that a killed user takes them
 * with it.
 */
static __attribute__((noreturn)) void shell_middle(const struct spawn_state *st)
{
	sigset_t none;
	pid_t self, pid;
	int status;

	child_bind(st->parent);
	for (size_t i = 0; i < sizeof(shell_default_signals) /
			       sizeof(shell_default_signals[0]); i++)
		signal(shell_default_signals[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(st->devnull, STDIN_FILENO) < 0 ||
	    dup2(st->devnull, STDOUT_FILENO) < 0)
		_exit(CHILD_EXEC_FAILED);
	self = getpid();
	pid = vfork();
	if (pid < 0)
		_exit(CHILD_EXEC_FAILED);
	if (pid == 0) {
		child_bind(self);
		execve(SHELL_PATH, st->argv, st->envp);
		_exit(CHILD_EXEC_FAILED);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			_exit(EXIT_FAILURE);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE);
}

/* One shell op without its progress report: fork the middle process and
 * reap it. */
static int shell_once(struct spawn_state *st)
{
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0)
		shell_middle(st);
	return child_reap(pid);
}

static int shell_run(void *state)
{
	struct spawn_state *st = state;
	int err;

	err = shell_once(st);
	if (!err)
		job_progress(st->progress, 1);
	return err;
}

/* Creates path, which must not exist yet, with the given mode and text;
 * on failure no file is left behind. */
static int write_new_file(const char *path, mode_t mode, const char *text)
{
	size_t len = strlen(text), done = 0;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  mode);
	if (fd < 0)
		return errno;
	while (done < len) {
		n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) && !err)
		err = errno;
	if (err)
		unlink(path);
	return err;
}

/*
 * Writes the script for shell_rtns_<variant> into the user's directory,
 * and runs it once: a shell that differs fails the job here, with the
 * shell's own complaint on stderr, rather than as an error in every op.
 */
static int shell_init(const struct job_ctx *ctx, void **state,
		      unsigned int variant)
{
	struct spawn_state *st;
	char path[PATH_MAX];
	int err;

	err = child_reapable();
	if (err)
		return err;
	err = check_executable(ctx, SHELL_PATH);
	if (err)
		return err;
	if (job_path(path, sizeof(path), ctx->dir, "shell%u.%u.sh", variant,
		     ctx->user))
		return ENAMETOOLONG;
	st = spawn_alloc(ctx);
	if (!st)
		return ENOMEM;
	err = write_new_file(path, 0600, shell_script);
	if (err) {
		job_set_reason(ctx, "cannot create %s", path);
		goto fail;
	}
	st->script = strdup(path);
	if (!st->script) {
		unlink(path);
		err = ENOMEM;
		goto fail;
	}
	st->argv[0] = SHELL_PATH;
	st->argv[1] = "-c";
	st->argv[2] = SHELL_COMMAND;
	st->argv[3] = st->script;
	/* A fixed environment: nothing of the caller's reaches the shell,
	 * and every user finds the same commands. */
	snprintf(st->env_path, sizeof(st->env_path), "PATH=/usr/bin:/bin");
	snprintf(st->env_locale, sizeof(st->env_locale), "LC_ALL=C");
	st->envp[0] = st->env_path;
	st->envp[1] = st->env_locale;
	st->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (st->devnull < 0) {
		err = errno;
		job_set_reason(ctx, "cannot open /dev/null");
		goto fail;
	}
	err = shell_once(st);
	if (err) {
		job_set_reason(ctx, "trial run of %s -c '%s' %s %s", SHELL_PATH,
			       SHELL_COMMAND, st->script,
			       err == ENOEXEC ? "could not run a command" :
			       err == ECHILD ? "did not exit 0" : "failed");
		goto fail;
	}
	*state = st;
	return 0;
fail:
	spawn_fini(st);
	return err;
}

const struct job job_fork_test = {
	.name = "fork_test",
	.family = "proc",
	.units = JOB_UNITS_AIM7,
	.unit = "Task Creations",
	.inner_ops = FORK_TEST_TASKS,
	.summary = "fork 100 children one at a time, each exiting at once",
	.syscalls = (const struct job_syscall[]){
		{ "clone", 0, 1 }, { "set_robust_list", 0, 1 },
		{ "wait4", 0, 2 }, { NULL, 0, 0 } },
	.init = fork_test_init,
	.run = fork_test_run,
};

const struct job job_exec_test = {
	.name = "exec_test",
	.family = "proc",
	.units = JOB_UNITS_AIM7,
	.unit = "Program Loads",
	.inner_ops = EXEC_TEST_LOADS,
	.summary = "fork and exec a program that exits at once, 5 times",
	.syscalls = (const struct job_syscall[]){
		{ "clone", 0, 1 }, { "set_robust_list", 0, 1 },
		{ "prctl", 0, 1 }, { "getppid", 0, 1 }, { "execve", 0, 1 },
		{ "wait4", 0, 2 }, { NULL, 0, 0 } },
	.deviation = "reaim's children load no program, as its `true` is not "
		     "where reaim looks: each exec fails, and the failure "
		     "takes 3 writes to report; ours load a static program "
		     "that exits at once, and bind themselves to the user "
		     "first (prctl, getppid)",
	.init = exec_test_init,
	.run = exec_test_run,
	.fini = spawn_fini,
};

/* The syscalls of one shell op, the shells' included, as strace counts
 * them on Debian 12 (dash 0.5.12, glibc 2.36); other versions differ in
 * the shells' share. */
static const struct job_syscall shell_syscalls[] = {
	{ "rt_sigaction", 19 }, { "mmap", 16 }, { "brk", 6 },
	{ "mprotect", 6 }, { "newfstatat", 6 }, { "openat", 5 },
	{ "close", 5 }, { "wait4", 5 }, { "read", 4 }, { "pread64", 4 },
	{ "rt_sigprocmask", 4 }, { "geteuid", 4 }, { "getppid", 4 },
	{ "set_robust_list", 3 }, { "getpid", 3 }, { "vfork", 2 },
	{ "execve", 2 }, { "prctl", 2 }, { "dup2", 2 }, { "fcntl", 2 },
	{ "munmap", 2 }, { "access", 2 }, { "arch_prctl", 2 },
	{ "set_tid_address", 2 }, { "rseq", 2 }, { "prlimit64", 2 },
	{ "getrandom", 2 }, { "getuid", 2 }, { "getgid", 2 },
	{ "getegid", 2 }, { "clone", 1 }, { "getcwd", 1 },
	{ "rt_sigreturn", 1 }, { NULL, 0 } };

/* What reaim's shell_rtns do and ours do not, for all three. */
#define SHELL_DEVIATION \
	"reaim's shell never finds aim_N.sh, which is not where reaim " \
	"looks, and writes \"not found\" where ours starts its script " \
	"(a second shell); and ours starts the shell with vfork, not " \
	"posix_spawn (clone3, and a reset of every signal: 112 more " \
	"rt_sigaction), so that the shell dies with the user"

/* shell_rtns_N: its init() and row; the three differ only in N, which
 * names the script, as reaim's aim_N.sh. */
#define SHELL_JOB(n)							\
static int shell_rtns_##n##_init(const struct job_ctx *ctx, void **state) \
{									\
	return shell_init(ctx, state, n);				\
}									\
									\
const struct job job_shell_rtns_##n = {					\
	.name = "shell_rtns_" #n,					\
	.family = "proc",						\
	.units = JOB_UNITS_AIM7,					\
	.uses_dir = true,						\
	.unit = "Shell Scripts",					\
	.inner_ops = 1,							\
	.summary = "a forked child runs a script through sh -c, as "	\
		   "system() does",					\
	.syscalls = shell_syscalls,					\
	.deviation = SHELL_DEVIATION,					\
	.init = shell_rtns_##n##_init,					\
	.run = shell_run,						\
	.fini = spawn_fini,						\
}

SHELL_JOB(1);
SHELL_JOB(2);
SHELL_JOB(3);
