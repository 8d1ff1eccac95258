/* jobs/proc.c: process jobs (getppid, fork_test, exec_test, shell_rtns_*). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
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

/* The AIM7 process jobs: task creation, program loads, shell scripts. */

/* The exit status of a child that could not exec its program, as shells
 * and posix_spawn() use it ("command not found"). */
#define CHILD_EXEC_FAILED 127

/*
 * Waits for one child (by its pid: in thread mode other users' children
 * are this process's children too) and judges how it ended. A clean exit
 * is 0. A child that could not exec its program exits CHILD_EXEC_FAILED,
 * reported as ENOEXEC. Any other end, a non-zero status or a signal, is
 * ECHILD: "no child" reads as "the child did not do its work", and no
 * waitpid() of ours returns it for a child it can reap, so it cannot be
 * mistaken for a failing syscall.
 */
static int child_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return errno;
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

static int fork_test_init(const struct job_ctx *ctx, void **state)
{
	(void)ctx;
	*state = NULL;
	return child_reapable();
}

/* One op creates a process that exits at once, and reaps it: the cost of
 * copying the user's address space and tearing it down again. */
static int fork_test_run(void *state)
{
	pid_t pid;

	(void)state;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	return child_wait(pid);
}

/* What exec_test and shell_rtns_* run: a fixed program with fixed
 * arguments, all set up at init. */
struct spawn_state {
	char *argv[4];		/* the program's path first, NULL-terminated */
	char *envp[3];
	char env_path[24];
	char env_locale[16];
	pid_t parent;		/* the user's process */
	int devnull;		/* the child's stdin and stdout, or -1 */
	bool script_made;	/* argv[1] is a script this state created */
	bool data_made;		/* argv[2] is a data file it created */
};

static struct spawn_state *spawn_alloc(void)
{
	struct spawn_state *st = calloc(1, sizeof(*st));

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
	if (st->script_made)
		unlink(st->argv[1]);
	if (st->data_made)
		unlink(st->argv[2]);
	for (unsigned int i = 0; i < 3; i++)
		free(st->argv[i]);
	free(st);
}

/*
 * The child's side of an op, with async-signal-safe calls only, as the
 * user may be one thread of many. The child dies with the user, and gives
 * up if the user is gone already. It gets back the signal state programs
 * expect: an empty mask, and SIGPIPE, which users ignore, at its default,
 * which a shell pipeline relies on. The terminal signals users ignore stay
 * ignored: the driver alone decides what a Ctrl-C means.
 */
static __attribute__((noreturn)) void child_exec(const struct spawn_state *st)
{
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != st->parent)
		_exit(CHILD_EXEC_FAILED);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (st->devnull >= 0 && (dup2(st->devnull, STDIN_FILENO) < 0 ||
				 dup2(st->devnull, STDOUT_FILENO) < 0))
		_exit(CHILD_EXEC_FAILED);
	execve(st->argv[0], st->argv, st->envp);
	_exit(CHILD_EXEC_FAILED);
}

/* One op: fork, exec the program, wait for it to exit 0. */
static int spawn_run(void *state)
{
	struct spawn_state *st = state;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0)
		child_exec(st);
	return child_wait(pid);
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
	st = spawn_alloc();
	if (!st)
		return ENOMEM;
	st->argv[0] = strdup(path);
	if (!st->argv[0]) {
		spawn_fini(st);
		return ENOMEM;
	}
	/* The helper needs no environment; an empty one keeps the op the
	 * same for every user and every shell aimsweep is started from. */
	st->envp[0] = NULL;
	*state = st;
	return 0;
}

/* The shell scripts aimsweep ships, shell_rtns_1 to _3. Each checks its
 * own result and exits non-zero when something is wrong. */
#define SHELL_PATH "/bin/sh"

/* A few builtins, one external command. */
static const char shell_script_1[] =
	"# aimsweep shell_rtns_1: a few builtins and one external command.\n"
	"n=0\n"
	"for w in alpha beta gamma delta; do\n"
	"\tn=$((n + ${#w}))\n"
	"done\n"
	"[ \"$n\" -eq 19 ] || exit 1\n"
	"cat -- \"$0\" >/dev/null\n";

/* A command substitution around a three-command pipeline. */
static const char shell_script_2[] =
	"# aimsweep shell_rtns_2: sort and count a short generated list.\n"
	"set -e\n"
	"n=$(printf '%s\\n' pear fig apple fig plum apple kiwi fig |\n"
	"\tsort | uniq | wc -l)\n"
	"[ \"$n\" -eq 5 ]\n";

/* A loop of arithmetic and appends to a file, read back, then counted by
 * an external command. $1 is a file aimsweep made for the script. */
static const char shell_script_3[] =
	"# aimsweep shell_rtns_3: a loop with arithmetic and redirections.\n"
	"set -e\n"
	"f=$1\n"
	": >\"$f\"\n"
	"i=0\n"
	"while [ \"$i\" -lt 20 ]; do\n"
	"\techo \"$i $((i * i))\" >>\"$f\"\n"
	"\ti=$((i + 1))\n"
	"done\n"
	"sum=0\n"
	"while read -r a b; do\n"
	"\tsum=$((sum + b))\n"
	"done <\"$f\"\n"
	"[ \"$sum\" -eq 2470 ]\n"
	"[ \"$(wc -l <\"$f\")\" -eq 20 ]\n";

/* Creates path, which must not exist yet, holding text; on failure no
 * file is left behind. */
static int write_new_file(const char *path, const char *text)
{
	size_t len = strlen(text), done = 0;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
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

/* Makes a file of this user's in ctx->dir and records its path in *path. */
static int shell_make_file(const struct job_ctx *ctx, char **path,
			   unsigned int variant, const char *suffix,
			   const char *text)
{
	char buf[PATH_MAX];
	int err;

	if (job_path(buf, sizeof(buf), ctx->dir, "shell%u.%u.%s", variant,
		     ctx->user, suffix))
		return ENAMETOOLONG;
	*path = strdup(buf);
	if (!*path)
		return ENOMEM;
	err = write_new_file(buf, text);
	if (err)
		job_set_reason(ctx, "cannot create %s", buf);
	return err;
}

/*
 * Writes the script for shell_rtns_<variant> (and for 3, its data file)
 * into the user's directory, and runs it once: a missing command or a
 * shell that differs fails the job here, with the shell's own complaint
 * on stderr, rather than as an error in every op.
 */
static int shell_init(const struct job_ctx *ctx, void **state,
		      unsigned int variant, const char *script)
{
	struct spawn_state *st;
	int err;

	err = child_reapable();
	if (err)
		return err;
	err = check_executable(ctx, SHELL_PATH);
	if (err)
		return err;
	st = spawn_alloc();
	if (!st)
		return ENOMEM;
	st->argv[0] = strdup(SHELL_PATH);
	if (!st->argv[0]) {
		err = ENOMEM;
		goto fail;
	}
	err = shell_make_file(ctx, &st->argv[1], variant, "sh", script);
	if (err)
		goto fail;
	st->script_made = true;
	if (variant == 3) {
		err = shell_make_file(ctx, &st->argv[2], variant, "dat", "");
		if (err)
			goto fail;
		st->data_made = true;
	}
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
	err = spawn_run(st);
	if (err) {
		job_set_reason(ctx, "trial run of %s %s %s", SHELL_PATH,
			       st->argv[1],
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

static int shell_rtns_1_init(const struct job_ctx *ctx, void **state)
{
	return shell_init(ctx, state, 1, shell_script_1);
}

static int shell_rtns_2_init(const struct job_ctx *ctx, void **state)
{
	return shell_init(ctx, state, 2, shell_script_2);
}

static int shell_rtns_3_init(const struct job_ctx *ctx, void **state)
{
	return shell_init(ctx, state, 3, shell_script_3);
}

/* The syscalls of exec_test and shell_rtns_* include those of the programs
 * they run (the dynamic loader, dash, coreutils), as strace -f counted them
 * on Debian 12: glibc 2.36, dash 0.5.12, coreutils 9.1. Other versions
 * differ in the details, not in the clone, execve and wait4 counts. */
const struct job job_fork_test = {
	.name = "fork_test",
	.family = "proc",
	.unit = "Task Creations",
	.inner_ops = 1,
	.summary = "fork a child that exits at once, and reap it",
	.syscalls = (const struct job_syscall[]){
		{ "clone", 1 }, { "set_robust_list", 1 }, { "exit_group", 1 },
		{ "wait4", 1 }, { NULL, 0 } },
	.init = fork_test_init,
	.run = fork_test_run,
};

const struct job job_exec_test = {
	.name = "exec_test",
	.family = "proc",
	.unit = "Program Loads",
	.inner_ops = 1,
	.summary = "fork, exec " EXEC_CHILD_NAME ", which exits, and reap it",
	.syscalls = (const struct job_syscall[]){
		{ "clone", 1 }, { "prctl", 1 }, { "getppid", 1 },
		{ "rt_sigaction", 1 }, { "rt_sigprocmask", 1 },
		{ "execve", 1 }, { "exit_group", 1 }, { "wait4", 1 },
		{ "mmap", 8 }, { "mprotect", 3 }, { "set_robust_list", 2 },
		{ "openat", 2 }, { "newfstatat", 2 }, { "close", 2 },
		{ "pread64", 2 }, { "read", 1 }, { "access", 1 }, { "brk", 1 },
		{ "munmap", 1 }, { "arch_prctl", 1 }, { "set_tid_address", 1 },
		{ "rseq", 1 }, { "prlimit64", 1 }, { NULL, 0 } },
	.init = exec_test_init,
	.run = spawn_run,
	.fini = spawn_fini,
};

const struct job job_shell_rtns_1 = {
	.name = "shell_rtns_1",
	.family = "proc",
	.uses_dir = true,
	.unit = "Shell Scripts",
	.inner_ops = 1,
	.summary = "run a shell script of a few builtins and one cat",
	.syscalls = (const struct job_syscall[]){
		{ "clone", 1 }, { "vfork", 1 }, { "execve", 2 },
		{ "wait4", 3 }, { "exit_group", 2 }, { "mmap", 17 },
		{ "close", 11 }, { "openat", 7 }, { "newfstatat", 7 },
		{ "brk", 6 }, { "read", 6 }, { "mprotect", 6 },
		{ "rt_sigaction", 5 }, { "rt_sigprocmask", 4 }, { "dup2", 4 },
		{ "pread64", 4 }, { "fcntl", 4 }, { "set_robust_list", 3 },
		{ "munmap", 3 }, { "getppid", 2 }, { "access", 2 },
		{ "arch_prctl", 2 }, { "set_tid_address", 2 }, { "rseq", 2 },
		{ "prlimit64", 2 }, { "geteuid", 2 }, { "getrandom", 2 },
		{ "prctl", 1 }, { "getuid", 1 }, { "getgid", 1 },
		{ "getpid", 1 }, { "getcwd", 1 }, { "getegid", 1 },
		{ "fadvise64", 1 }, { "write", 1 }, { "rt_sigreturn", 1 },
		{ NULL, 0 } },
	.init = shell_rtns_1_init,
	.run = spawn_run,
	.fini = spawn_fini,
};

const struct job job_shell_rtns_2 = {
	.name = "shell_rtns_2",
	.family = "proc",
	.uses_dir = true,
	.unit = "Shell Scripts",
	.inner_ops = 1,
	.summary = "run a shell script piping a list through sort, uniq, wc",
	.syscalls = (const struct job_syscall[]){
		{ "clone", 6 }, { "execve", 4 }, { "wait4", 8 },
		{ "exit_group", 6 }, { "pipe2", 4 }, { "close", 39 },
		{ "mmap", 33 }, { "rt_sigaction", 24 }, { "newfstatat", 17 },
		{ "read", 14 }, { "brk", 12 }, { "mprotect", 12 },
		{ "set_robust_list", 10 }, { "dup2", 9 }, { "openat", 9 },
		{ "pread64", 8 }, { "prlimit64", 7 }, { "munmap", 5 },
		{ "rt_sigreturn", 5 }, { "access", 4 }, { "arch_prctl", 4 },
		{ "set_tid_address", 4 }, { "rseq", 4 }, { "getrandom", 4 },
		{ "write", 4 }, { "fadvise64", 3 }, { "getppid", 2 },
		{ "geteuid", 2 }, { "fcntl", 2 }, { "sysinfo", 2 },
		{ "lseek", 2 }, { "prctl", 1 }, { "rt_sigprocmask", 1 },
		{ "getuid", 1 }, { "getgid", 1 }, { "getpid", 1 },
		{ "getcwd", 1 }, { "getegid", 1 }, { "sched_getaffinity", 1 },
		{ NULL, 0 } },
	.init = shell_rtns_2_init,
	.run = spawn_run,
	.fini = spawn_fini,
};

const struct job job_shell_rtns_3 = {
	.name = "shell_rtns_3",
	.family = "proc",
	.uses_dir = true,
	.unit = "Shell Scripts",
	.inner_ops = 1,
	.summary = "run a shell script looping over arithmetic and appends",
	.syscalls = (const struct job_syscall[]){
		{ "clone", 2 }, { "execve", 2 }, { "wait4", 3 },
		{ "exit_group", 2 }, { "pipe2", 1 }, { "read", 125 },
		{ "close", 81 }, { "dup2", 48 }, { "fcntl", 48 },
		{ "openat", 28 }, { "write", 21 }, { "mmap", 16 },
		{ "brk", 6 }, { "newfstatat", 6 }, { "mprotect", 6 },
		{ "rt_sigaction", 5 }, { "set_robust_list", 4 },
		{ "pread64", 4 }, { "getppid", 2 }, { "access", 2 },
		{ "arch_prctl", 2 }, { "set_tid_address", 2 }, { "rseq", 2 },
		{ "prlimit64", 2 }, { "munmap", 2 }, { "geteuid", 2 },
		{ "getrandom", 2 }, { "prctl", 1 }, { "rt_sigprocmask", 1 },
		{ "getuid", 1 }, { "getgid", 1 }, { "getpid", 1 },
		{ "getcwd", 1 }, { "getegid", 1 }, { "fadvise64", 1 },
		{ "rt_sigreturn", 1 }, { NULL, 0 } },
	.init = shell_rtns_3_init,
	.run = spawn_run,
	.fini = spawn_fini,
};
