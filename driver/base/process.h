/* driver/base/process.h: the driver's children: PATH search, spawning, bounded waits, kill-and-reap, numbers from /proc. */
#ifndef AIMSWEEP_PROCESS_H
#define AIMSWEEP_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The signal that interrupted the run, or 0; set by the driver's handler. */
extern volatile int run_interrupted;

/* Once a run is interrupted, what still runs gets this long, counted from
 * when the driver first sees the signal, before SIGKILL: one budget for
 * every wait after the signal together (a level's end, the captures, the
 * pool's shutdown), so that Ctrl-C ends the run promptly however many
 * waits it was in. */
#define INTERRUPT_GRACE_NS (500ULL * 1000 * 1000)

/* How long a process sent SIGKILL gets to die before the driver goes on
 * without it: one in uninterruptible sleep (a hung disk or NFS server)
 * dies only when it wakes. */
#define PROCESS_KILLED_WAIT_S 10.0

/* now_ns() plus `seconds`. */
uint64_t process_deadline_in(double seconds);

/* deadline_ns, or the end of INTERRUPT_GRACE_NS when the run has been
 * interrupted and that comes sooner. */
uint64_t process_deadline(uint64_t deadline_ns);

/* Whether execvp() would find `name`: PATH searched as execvp searches it
 * (unset: /bin:/usr/bin; an empty entry is the current directory). */
bool process_in_path(const char *name);

/* The number a /proc or /sys file starts with, or `fallback` when the
 * file cannot be read or starts with none. */
long process_read_long(const char *path, long fallback);

/* Opens dir/name for a child's output (0644, close-on-exec), appended to
 * or truncated; its path goes to path[len] for messages. The descriptor,
 * or -1 with errno. */
int process_output_file(const char *dir, const char *name, bool append,
			char *path, size_t len);

/* How process_spawn() starts a program. Set out_fd and err_fd always:
 * 0 is a descriptor, not "none". */
struct spawn_spec {
	char *const *argv;	/* argv[0] is searched in PATH */
	const char *dir;	/* where it runs; NULL: where the driver is */
	int out_fd;		/* its stdout; -1: the driver's */
	int err_fd;		/* its stderr; -1: the driver's */
	const int *keep;	/* the driver's descriptors it keeps, <= 2 */
	size_t n_keep;
};

/*
 * Forks a child of the driver set up as process_child_setup() says, with
 * pdeath_sig, leading a process group of its own: how every child that
 * the driver starts begins (the exceptions, and why, are in
 * docs/architecture.md). 0 in the child; in the driver, the pid, or -1
 * with errno.
 */
pid_t process_fork(int pdeath_sig);

/*
 * Forks and execs s->argv in a child that dies with the driver (SIGKILL,
 * whatever kills the driver), leads a process group of its own (so that
 * it and what it starts end together, and a Ctrl-C meant for the driver
 * does not reach it), starts with default signal dispositions, reads
 * /dev/null and holds none of the driver's descriptors but keep[]. Returns
 * the pid, or -1 with errno.
 */
pid_t process_spawn(const struct spawn_spec *s);

/* The pieces of process_spawn(), for children that run our own code. In
 * the child: it gets pdeath_sig when the driver (parent) dies, and exits
 * 127 when the driver is gone already; it leads its own group; its signals
 * are the defaults, none blocked. */
void process_child_setup(pid_t parent, int pdeath_sig);
/* In the child: stdin from /dev/null; stdout and stderr to out_fd and
 * err_fd where they are not -1. */
void process_child_stdio(int out_fd, int err_fd);
/* In the child: closes every descriptor from 3 up but keep[0..n_keep-1],
 * n_keep <= 2. */
void process_close_other_fds(const int *keep, size_t n_keep);
/* Sets the signals that end processes from a terminal or a supervisor
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT) to `handler`. */
void process_set_stop_signals(void (*handler)(int));

/* Whether our child pid has exited, without reaping it: until it is
 * reaped its pid still names its process group. */
bool process_has_exited(pid_t pid);

/* process_wait() flags. */
enum {
	PROCESS_REAP = 1,	/* reap it into *status, else leave it */
	PROCESS_INTERRUPTIBLE = 2,	/* an interrupted run ends the wait */
	PROCESS_GRACE_CUT = 4,	/* an interrupted run cuts the deadline to
				 * process_deadline()'s */
};

/* Waits, polling, until child pid has exited or deadline_ns passes. 1
 * when it exited, 0 when the time ran out (or the run was interrupted,
 * with PROCESS_INTERRUPTIBLE), -1 with errno when it cannot be waited
 * for. */
int process_wait(pid_t pid, int *status, unsigned int flags,
		 uint64_t deadline_ns);

/* Reaps pid, sent SIGKILL, into *status by deadline_ns, or sooner once the
 * run is interrupted (PROCESS_GRACE_CUT). One still alive then is left
 * behind with a warning, so that the driver can still end the run and
 * write what it has. 0 when reaped; else -1, and *status is that of a
 * kill by SIGKILL. */
int process_reap_killed(pid_t pid, int *status, uint64_t deadline_ns);

/*
 * Ends the process group *pid leads and reaps *pid: `sig` first (0: none)
 * with grace_s to act on it when the leader still runs, then SIGKILL for
 * every member left, the leader included, reaped as process_reap_killed()
 * does. The leader is reaped last, so that no other process can get its
 * pid, and with it the group's id, while the group is signalled. Sets *pid
 * to 0 and returns the leader's wait status; 0 when *pid was not a pid.
 */
int process_end_group(pid_t *pid, int sig, double grace_s);

/* write() of all of buf that cannot raise SIGPIPE, whatever the driver
 * does with it: a child we talk to may be gone. 0, or -1 with errno. */
int process_write_nosigpipe(int fd, const char *buf, size_t len);

/* "exited with status 3" or "killed by signal 15 (SIGTERM)", for messages
 * and for a failed level's reason, whose words results/SCHEMA.md gives. */
const char *process_status_text(int status, char *buf, size_t len);

#endif
