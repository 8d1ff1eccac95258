/* driver/sweep.c: runs the levels of one `aimsweep run`, one after another. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver/arena.h"
#include "driver/collector.h"
#include "driver/report_json.h"
#include "driver/report_text.h"
#include "driver/scratch.h"
#include "driver/sweep.h"
#include "driver/users.h"
#include "driver/util.h"

/* Users get this long to finish their op when the run is interrupted. */
#define INTERRUPT_GRACE_S 1.0

struct sweep {
	struct run_params *params;
	const struct mix *mix;
	struct arena arena;
	struct snapshot t0, t1;
	struct scratch scratch;
	struct user_pool pool;
	char shared_dir[PATH_MAX];
	struct run_result result;
	char result_dir[PATH_MAX];
	char json_path[PATH_MAX];
};

static void on_signal(int signo)
{
	if (!run_interrupted)
		run_interrupted = signo;
}

static void install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must cut the driver's sleeps short. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/* A closed stdout must not kill the driver before it cleans up. */
	signal(SIGPIPE, SIG_IGN);
}

static unsigned int max_level(const struct run_params *p)
{
	unsigned int max = 0;

	for (size_t i = 0; i < p->n_levels; i++)
		if (p->levels[i] > max)
			max = p->levels[i];
	return max;
}

/* results/<date>-<workfile>, with -2, -3... if a run already took it. */
static int make_result_dir(struct sweep *s, char *err, size_t errlen)
{
	const char *out = s->params->output_dir;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (mkdir(out, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create output directory %s: %s",
			 out, strerror(errno));
		return -1;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* RFC 3339: the offset needs its colon, which %z leaves out. */
	n = (int)strftime(s->result.started_at, sizeof(s->result.started_at) - 1,
			  "%Y-%m-%dT%H:%M:%S%z", &tm);
	if (n >= 5) {
		char *off = s->result.started_at + n - 2;

		memmove(off + 1, off, 3);
		*off = ':';
	}
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			n = snprintf(s->result_dir, sizeof(s->result_dir),
				     "%s/%s-%s", out, stamp, s->mix->name);
		else
			n = snprintf(s->result_dir, sizeof(s->result_dir),
				     "%s/%s-%s-%d", out, stamp, s->mix->name, i);
		if (n < 0 || (size_t)n >= sizeof(s->result_dir) - 16) {
			snprintf(err, errlen, "output directory %s: path too long",
				 out);
			return -1;
		}
		if (mkdir(s->result_dir, 0755) == 0)
			break;
		if (errno != EEXIST || i == 999) {
			snprintf(err, errlen, "cannot create %s: %s",
				 s->result_dir, strerror(errno));
			return -1;
		}
	}
	if (!path_join(s->json_path, sizeof(s->json_path), s->result_dir,
		       "result.json")) {
		snprintf(err, errlen, "output directory %s: path too long", out);
		return -1;
	}
	return 0;
}

static int write_result(struct sweep *s)
{
	char err[PATH_MAX + 128];

	if (result_write(&s->result, s->json_path, err, sizeof(err))) {
		msg_error("%s", err);
		return -1;
	}
	return 0;
}

/*
 * One level: call the users to it (forking those the pool lacks), wait
 * for all of them at the gate, open it, let the warm-up pass, snapshot at
 * t0 and t1, stop, wait for them to park. The window is timed by the
 * parent alone, so users' start and stop skew is not in it. Returns false
 * when higher levels cannot work either.
 */
static bool run_level(struct sweep *s, unsigned int users,
		      struct level_result *level)
{
	const struct run_params *p = s->params;
	struct level_run lr = { 0 };
	uint64_t t_start, t_gate;
	bool measured = false;

	memset(level, 0, sizeof(*level));
	level->users = users;
	if (s->pool.job_dir && mkdir(s->pool.job_dir, 0700) && errno != EEXIST) {
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason),
			 "cannot create %s: %s", s->pool.job_dir,
			 strerror(errno));
		return false;
	}

	t_start = now_ns();
	if (users_level_begin(&s->pool, &lr, users))
		goto stop;
	if (users_wait_ready(&s->pool, &lr))
		goto stop;
	level->start_s = (double)(now_ns() - t_start) / NSEC_PER_SEC;

	t_gate = now_ns();
	users_release(&s->pool, &lr);
	if (!sleep_until_ns(t_gate + (uint64_t)(p->warmup_s * NSEC_PER_SEC),
			    &run_interrupted))
		goto stop;
	snapshot_take(&s->t0, &s->arena, users);
	if (!sleep_until_ns(s->t0.t_ns +
				    (uint64_t)(p->runtime_s * NSEC_PER_SEC),
			    &run_interrupted))
		goto stop;
	snapshot_take(&s->t1, &s->arena, users);
	measured = true;
stop:
	users_stop(&s->pool, &lr);
	users_level_end(&s->pool, &lr,
			run_interrupted ? INTERRUPT_GRACE_S : p->grace_s);
	level->rusage = lr.rusage;
	if (lr.failed) {
		level->status = LEVEL_FAILED;
		snprintf(level->reason, sizeof(level->reason), "%s", lr.reason);
		if (lr.failures > 1) {
			size_t n = strlen(level->reason);

			snprintf(level->reason + n, sizeof(level->reason) - n,
				 " (and %u more users failed)", lr.failures - 1);
		}
	} else if (measured) {
		if (collector_level(&s->t0, &s->t1, &s->arena, s->mix, users,
				    level)) {
			level->status = LEVEL_FAILED;
			snprintf(level->reason, sizeof(level->reason),
				 "out of memory while collecting results");
		}
	}
	/* Parked users have removed their files; this catches what users
	 * that died left. */
	if (scratch_clear(&s->scratch))
		msg_warn("could not empty %s after the level", s->scratch.dir);
	return !lr.end_ramp;
}

static void sweep_cleanup(struct sweep *s)
{
	users_pool_shutdown(&s->pool, run_interrupted ? INTERRUPT_GRACE_S
						      : s->params->grace_s);
	if (scratch_remove(&s->scratch))
		msg_error("could not remove scratch directory %s",
			  s->scratch.dir);
	snapshot_free(&s->t0);
	snapshot_free(&s->t1);
	arena_destroy(&s->arena);
	run_result_free(&s->result);
}

int sweep_run(struct run_params *p, const struct mix *mix)
{
	struct sweep s = { .params = p, .mix = mix };
	char err[PATH_MAX + 256];
	unsigned int max_users = max_level(p);
	int status = EXIT_OK, rc;

	s.result.params = p;
	s.result.mix = mix;
	s.result.status = RUN_RUNNING;
	host_probe(&s.result.host);

	install_signal_handlers();
	rc = arena_create(&s.arena, max_users, mix->n_entries);
	if (!rc)
		rc = snapshot_alloc(&s.t0, max_users, mix->n_entries);
	if (!rc)
		rc = snapshot_alloc(&s.t1, max_users, mix->n_entries);
	if (!rc)
		rc = users_pool_init(&s.pool, max_users);
	if (rc) {
		msg_error("cannot allocate counters for %u users: %s",
			  max_users, strerror(rc));
		status = EXIT_RUN_FAILED;
		goto out;
	}
	scratch_remove_stale(p->scratch_base);
	if (scratch_create(&s.scratch, p->scratch_base, err, sizeof(err))) {
		msg_error("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	s.pool.arena = &s.arena;
	s.pool.mix = mix;
	s.pool.params = p;
	s.pool.run_dir = s.scratch.dir;
	if (p->layout == LAYOUT_SHARED) {
		path_join(s.shared_dir, sizeof(s.shared_dir), s.scratch.dir,
			  "shared");
		s.pool.job_dir = s.shared_dir;
	}
	/* Writing the empty result now proves the output directory works
	 * before any level runs. */
	if (make_result_dir(&s, err, sizeof(err))) {
		msg_error("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (write_result(&s)) {
		status = EXIT_USAGE;
		goto out;
	}

	report_text_header(stdout, &s.result, s.json_path);
	for (size_t i = 0; i < p->n_levels && !run_interrupted; i++) {
		struct level_result level;
		bool go_on;

		go_on = run_level(&s, p->levels[i], &level);
		if (run_interrupted) {
			/* The level did not finish: it is not a result. */
			level_result_free(&level);
			break;
		}
		if (result_add_level(&s.result, &level)) {
			level_result_free(&level);
			msg_error("out of memory");
			status = EXIT_RUN_FAILED;
			break;
		}
		report_text_level(stdout, &s.result.levels[s.result.n_levels - 1]);
		if (level.status != LEVEL_OK)
			status = EXIT_RUN_FAILED;
		if (write_result(&s)) {
			status = EXIT_RUN_FAILED;
			break;
		}
		if (!go_on) {
			msg_error("stopping the ramp: higher levels would fail the same way");
			break;
		}
	}

	if (run_interrupted) {
		s.result.status = RUN_INTERRUPTED;
		s.result.interrupted_by = run_interrupted;
		status = EXIT_INTERRUPTED + run_interrupted;
	} else {
		s.result.status = status == EXIT_OK ? RUN_COMPLETE : RUN_FAILED;
	}
	if (write_result(&s) && status == EXIT_OK)
		status = EXIT_RUN_FAILED;
	report_text_summary(stdout, &s.result);
	if (run_interrupted)
		msg_error("interrupted by SIG%s: kept %zu finished levels in %s",
			  sigabbrev_np(run_interrupted), s.result.n_levels,
			  s.json_path);
out:
	sweep_cleanup(&s);
	return status;
}
