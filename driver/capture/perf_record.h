/* driver/capture/perf_record.h: a `perf record --control` child of the driver: its pipes, its start, its commands, the timer that switches its events, its stop. */
#ifndef AIMSWEEP_PERF_RECORD_H
#define AIMSWEEP_PERF_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How long the timer may be late in switching perf's events off: only a
 * starved machine makes it late. */
#define PERF_TIMER_EXIT_TIMEOUT_S 1.0

/*
 * One perf record (perf lock record, perf record -e cpu-clock) that the
 * driver controls through --control=fd:CTL,ACK. Zeroed, it means "nothing
 * started". The caller sets what, cmd, log_path and join_error before
 * perf_record_launch().
 */
struct perf_record {
	const char *what;	/* messages' prefix: "lock profile" */
	const char *cmd;	/* perf's command in messages: "perf record" */
	/* With it, a log line "Error:" or "Warning:" is joined to the next
	 * in what perf said. */
	bool join_error;
	char log_path[PATH_MAX + 32];	/* perf's stdout and stderr */
	char control[64];	/* "--control=fd:CTL,ACK", for perf's argv */
	pid_t pid;		/* leads its own process group */
	int ctl_fd, ack_fd;	/* commands to perf, its acknowledgements */
	bool fds_open;
	pid_t timer_pid;	/* switches perf's events at set times */
};

/* Why perf exited before it was ready (status its wait status), into err:
 * each profile has its own advice. */
typedef void perf_failed_fn(const struct perf_record *r, int status,
			    char *err, size_t errlen);

/*
 * Starts argv (perf ... with r->control among its arguments, events off
 * until "enable") with its output in r->log_path, and waits until perf
 * answers on its control pipe, which it does once it is fully set up.
 * -1 with the reason in err; perf is then ended and reaped, and
 * `failed` says why when perf exited.
 */
int perf_record_launch(struct perf_record *r, char *const *argv,
		       perf_failed_fn *failed, char *err, size_t errlen);

/* Sends perf one of its --control commands ("enable\n", ...). 0, or -1
 * with errno. */
int perf_record_command(struct perf_record *r, const char *cmd);

/*
 * Forks the timer, a child of the driver that sends "enable" at the
 * CLOCK_MONOTONIC time on_ns (unless 0: the events are on already) and
 * "disable" at off_ns, while the driver sleeps until t1. It exits 2 when
 * perf would not enable, 1 when it would not disable. -1 with errno when
 * it cannot be forked.
 */
int perf_record_timer(struct perf_record *r, uint64_t on_ns, uint64_t off_ns);

/* Waits up to PERF_TIMER_EXIT_TIMEOUT_S for the timer, kills what is
 * left and reaps it: its wait status (killed: perf's events stayed on
 * past their end), or 0 when there was no timer. */
int perf_record_timer_end(struct perf_record *r);

/*
 * Stops perf and reaps it; 0 when it wrote its profile and exited 0. A
 * perf that had exited before it was stopped cut its profile short (it
 * reached --max-size, or failed): that is an error too, in err.
 */
int perf_record_stop(struct perf_record *r, char *err, size_t errlen);

/* For a check: perf's events on for `seconds`, then perf stopped as by
 * perf_record_stop(). -1 with the reason in err; when perf would not
 * switch its events on, "CANNOT_ENABLE: ERROR", and perf is ended. */
int perf_record_try(struct perf_record *r, double seconds,
		    const char *cannot_enable, char *err, size_t errlen);

/* Kills and reaps perf and its timer, and closes the pipes. */
void perf_record_abort(struct perf_record *r);

/* Closes the pipes to perf, when open. */
void perf_record_close(struct perf_record *r);

/* "perf said: " and the first line of its log that says something, for
 * messages; its own progress notes are skipped. */
const char *perf_record_said(const struct perf_record *r, char *buf,
			     size_t len);

/*
 * For a profile's check before the first level: 0 with a new directory
 * for its test profile, $TMPDIR/aimsweep-NAME.XXXXXX, in dir[len]; -1
 * with what failed in err, said of the option ("--cpu-profile: perf not
 * found in PATH: ...").
 */
int perf_record_check_dir(const char *option, const char *name, char *dir,
			  size_t len, char *err, size_t errlen);

/* A level's message why, "WHAT: reason", said of the option instead:
 * "OPTION: reason", into err. */
void perf_record_option_error(const char *option, const char *what,
			      const char *why, char *err, size_t errlen);

#endif
