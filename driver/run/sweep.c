/* driver/run/sweep.c: one `aimsweep run`: what every level needs, set up before the first and torn down after the last. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/base/process.h"
#include "driver/base/util.h"
#include "driver/measure/limits.h"
#include "driver/output/result_write.h"
#include "driver/run/driver_task.h"
#include "driver/run/ramp.h"
#include "driver/run/sweep.h"
#include "driver/users/user_level.h"

int sweep_write_result(struct sweep *s)
{
	char err[PATH_MAX + 128];

	if (result_write(&s->result, s->dir.json_path, err, sizeof(err))) {
		msg_error("%s", err);
		return -1;
	}
	return 0;
}

bool sweep_live_table(const struct sweep *s)
{
	const char *format = s->params->format;

	return !format || !strcmp(format, "default");
}

/* The run's private scratch directories, one under each base, each with
 * the `shared` directory that --layout shared uses. */
static int setup_scratch(struct sweep *s)
{
	const struct run_params *p = s->params;
	char err[PATH_MAX + 256];

	for (size_t i = 0; i < p->n_scratch; i++) {
		scratch_remove_stale(p->scratch_bases[i]);
		if (scratch_create(&s->scratch[i], p->scratch_bases[i], err,
				   sizeof(err))) {
			msg_error("%s", err);
			return EXIT_USAGE;
		}
		s->n_scratch++;
		s->run_dirs[i] = s->scratch[i].dir;
		path_join(s->shared_paths[i], sizeof(s->shared_paths[i]),
			  s->scratch[i].dir, "shared");
		s->shared_dirs[i] = s->shared_paths[i];
	}
	return EXIT_OK;
}

static int no_counters(unsigned int max_users, int rc)
{
	msg_error("cannot allocate counters for %u users: %s", max_users,
		  strerror(rc));
	return EXIT_RUN_FAILED;
}

/* The counters for the largest level, the users' pool with its spawner
 * started, and the t0 and t1 snapshots. Returns the exit status. */
static int setup_users(struct sweep *s, unsigned int max_users)
{
	const struct run_params *p = s->params;
	char err[PATH_MAX + 256];
	int rc;

	/* After the scratch directories: the arena's file is one more
	 * descriptor, held until the spawner has it. */
	rc = arena_create(&s->arena, max_users, s->mix->n_entries,
			  users_loop_bytes(s->mix), p->latency) ? errno : 0;
	if (rc)
		return no_counters(max_users, rc);
	/* The spawner is a fork of the driver until its exec: before the
	 * driver's arrays for N users, that copy is a small one. */
	rc = pool_start(&s->pool, &(struct pool_run){
		.arena = &s->arena, .mix = s->mix, .params = p,
		.record = &s->result.record, .run_dirs = s->run_dirs,
		.shared_dirs = s->shared_dirs, .n_dirs = s->n_scratch,
	}, err, sizeof(err));
	if (rc) {
		/* Too few descriptors is a limit of the run's, like one the
		 * driver itself meets in setting up. */
		rc = errno == EMFILE || errno == ENFILE ? EXIT_USAGE
							: EXIT_RUN_FAILED;
		msg_error("%s", err);
		return rc;
	}
	rc = snapshot_alloc(&s->t0, max_users, s->mix->n_entries) ? errno : 0;
	if (!rc)
		rc = snapshot_alloc(&s->t1, max_users,
				    s->mix->n_entries) ? errno : 0;
	if (rc)
		return no_counters(max_users, rc);
	return EXIT_OK;
}

/* Counters for the largest level, perf's check, the scratch directories
 * and the users' pool: what every level needs. Returns the exit status,
 * EXIT_OK when the levels can run. */
static int sweep_setup(struct sweep *s)
{
	const struct run_params *p = s->params;
	char err[PATH_MAX + 256];
	int status;

	/* perf must be able to record before anything is created. */
	if (capture_wanted(p) &&
	    capture_check(p, &s->captures, err, sizeof(err))) {
		if (run_interrupted)
			return EXIT_INTERRUPTED + run_interrupted;
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	status = setup_scratch(s);
	if (status == EXIT_OK)
		status = setup_users(s, params_max_users(p));
	if (status != EXIT_OK)
		return status;
	/* Writing the empty result now proves the output directory works
	 * before any level runs. */
	if (result_dir_create(&s->dir, p->output_dir, &s->result, err,
			      sizeof(err))) {
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	return sweep_write_result(s) ? EXIT_USAGE : EXIT_OK;
}

static void sweep_cleanup(struct sweep *s)
{
	pool_shutdown(&s->pool, s->params->grace_s);
	for (size_t i = 0; i < s->n_scratch; i++)
		if (scratch_remove(&s->scratch[i]))
			msg_error("could not remove scratch directory %s",
				  s->scratch[i].dir);
	snapshot_free(&s->t0);
	snapshot_free(&s->t1);
	capture_run_free(s->captures);
	arena_destroy(&s->arena);
	run_result_free(&s->result);
}

int sweep_run(const struct run_params *p, const struct mix *mix,
	      const struct cJSON *params_json)
{
	/* On the heap, not the stack: its scratch paths are over 200 KiB,
	 * more than a stack frame should hold. */
	struct sweep *s = calloc(1, sizeof(*s));
	int status;

	if (!s) {
		msg_error("out of memory");
		return EXIT_RUN_FAILED;
	}
	s->params = p;
	s->mix = mix;
	s->result.params = p;
	s->result.params_json = params_json;
	s->result.mix = mix;
	s->result.status = RUN_RUNNING;
	host_probe(&s->result.host);

	driver_task_signals();
	s->result.record.timer_ns = driver_task_timer_cost_ns();
	driver_task_priority(&s->result.record);
	status = sweep_setup(s);
	if (status == EXIT_OK)
		status = ramp_run(s);
	sweep_cleanup(s);
	free(s);
	return status;
}
