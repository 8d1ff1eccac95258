/* driver/capture/hook.c: --hook: the user's command, run during each level's steady state. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/capture/capture.h"
#include "driver/base/process.h"
#include "driver/base/util.h"

/* How long the hook has after SIGTERM at the end of its level. */
#define HOOK_TERM_GRACE_S 2.0
/* The same, when the driver is on its way out. */
#define HOOK_ABORT_GRACE_S 0.5

#define HOOK_OUT_NAME "hook.out"

/* A level's hook: its supervisor, which leads the hook's process group. */
struct hook_level {
	pid_t pid;
};

/* In the hook's supervisor, when the driver dies: the whole group goes. */
static void supervisor_orphaned(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

/* In the supervisor: waits for the shell and ends as it ended. */
__attribute__((noreturn))
static void supervisor_exit_as(pid_t shell)
{
	struct rlimit no_core = { 0, 0 };
	int status, sig;

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
	pid_t pid = process_fork(SIGUSR1), shell;

	if (pid != 0)
		return pid;
	/* Until the handler is in, SIGUSR1 ends the supervisor alone: there
	 * is no shell yet to take with it. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = supervisor_orphaned;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	prctl(PR_SET_NAME, "aimsweep-hook");
	process_child_stdio(out_fd, out_fd);
	process_close_other_fds(NULL, 0);
	process_set_stop_signals(SIG_IGN);
	shell = fork();
	if (shell == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		process_set_stop_signals(SIG_DFL);
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
	supervisor_exit_as(shell);
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

static bool hook_wanted(const struct run_params *p)
{
	return p->hook_cmd != NULL;
}

static void hook_start(struct level_capture *c, void *st)
{
	struct hook_level *h = st;
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
	/* Appended to: a level run twice keeps both outputs. */
	out = capture_output_file(c, "hook", HOOK_OUT_NAME, true, out_path,
				  sizeof(out_path));
	if (out < 0)
		return;
	env = hook_environment(ours, sizeof(ours) / sizeof(ours[0]));
	if (!env) {
		capture_error(c, "hook: out of memory");
		close(out);
		return;
	}
	h->pid = spawn_hook(argv, out, env);
	if (h->pid < 0) {
		h->pid = 0;
		capture_error(c, "hook: cannot fork: %s", strerror(errno));
	}
	free(env);
	close(out);
}

static void hook_write(struct level_capture *c, void *st,
		       struct level_result *level)
{
	struct hook_level *h = st;
	/* How it ended is its own doing only if it ended before the level
	 * did: after our SIGTERM, a shell may well exit 143. */
	bool by_itself;
	char how[48];
	int status;

	if (h->pid <= 0)
		return;
	by_itself = process_has_exited(h->pid);
	status = process_end_group(&h->pid, SIGTERM, HOOK_TERM_GRACE_S);
	level->hook_ran = true;
	level->hook_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	level->hook_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	snprintf(level->hook_dir, sizeof(level->hook_dir), "%s", c->dir);
	/* Ending it at the level's end is the rule; a hook that failed by
	 * itself (a typo, a perf that could not start) would otherwise go
	 * unnoticed until someone read the JSON. */
	if (by_itself && (level->hook_status || WIFSIGNALED(status)))
		msg_warn("the hook of the %u-user level %s%s; its output is in %s/" HOOK_OUT_NAME,
			 level->users, WIFSIGNALED(status) ? "was " : "",
			 process_status_text(status, how, sizeof(how)),
			 c->dir);
}

/* Ends the hook at once, for an interrupted level. */
static void hook_abort(struct level_capture *c, void *st)
{
	struct hook_level *h = st;

	(void)c;
	process_end_group(&h->pid, SIGTERM, HOOK_ABORT_GRACE_S);
}

/*
 * --hook. At t0: starts `/bin/sh -c HOOK` with the level in its
 * environment (AIMSWEEP_USERS, AIMSWEEP_LEVEL, AIMSWEEP_RUNTIME,
 * AIMSWEEP_LEVEL_DIR) and its output appended to the level's hook.out. At
 * the level's end it is ended if it still runs (SIGTERM, then SIGKILL),
 * and how it ended is recorded in the level, with a warning when it
 * failed by itself.
 */
const struct capture_ops hook_capture = {
	.name = "hook",
	.level_size = sizeof(struct hook_level),
	.wanted = hook_wanted,
	.start = hook_start,
	.write = hook_write,
	.abort = hook_abort,
};
