/* driver/users/pool.c: the driver's side of the users: having them forked, calling them to a level, waiting for them at each step. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/users/gate.h"
#include "driver/base/process.h"
#include "driver/users/pool_end.h"
#include "driver/users/spawn_channel.h"
#include "driver/users/spawner.h"
#include "driver/users/user_life.h"
#include "driver/base/util.h"

/* How long users get to reach the gate: generous, it is not measured. */
#define READY_TIMEOUT_S 60.0
/* How often the waits below look at the users while a count is moving,
 * and at the latest when it is not (the last user to come wakes them). */
#define WAIT_MOVING_NS (1000 * 1000)
#define WAIT_STILL_NS (10 * 1000 * 1000)
/* How often wait_parked() reads every user's progress. */
#define PROGRESS_EVERY_NS (100 * 1000 * 1000)

/* The user's view of the run, from the driver's. */
static void pool_fill_ctx(struct user_pool *pool, const struct pool_run *run)
{
	const struct run_params *p = run->params;

	pool->ctx = (struct user_ctx){
		.arena = run->arena,
		.mix = run->mix,
		.run_dirs = run->run_dirs,
		.shared_dirs = p->layout == LAYOUT_SHARED ? run->shared_dirs
							  : NULL,
		.n_dirs = run->n_dirs,
		.parent = getpid(),
		.seed = p->seed,
		.timer_ns = run->record->timer_ns,
		.latency = p->latency,
		.cpus = p->cpus,
		.n_cpus = p->n_cpus,
		.libexec_dir = p->libexec_dir,
		.test_fault = p->test_fault,
	};
	pool->mode = p->mode;
	pool->grace_s = p->grace_s;
}

int pool_start(struct user_pool *pool, const struct pool_run *run,
	       char *err, size_t errlen)
{
	unsigned int max_users = run->arena->max_users;
	int rc = 0;

	pool->pids = calloc(max_users ? max_users : 1, sizeof(*pool->pids));
	if (!pool->pids) {
		rc = err_set(err, errlen,
			     "cannot allocate counters for %u users: %s",
			     max_users, strerror(ENOMEM));
		errno = ENOMEM;
		goto out;
	}
	pool->max_users = max_users;
	pool->alive = 0;
	pool_fill_ctx(pool, run);
	pool_end_init(pool);
	if (pool->mode == MODE_PROCESS)
		rc = spawner_start(pool, err, errlen);
out:
	/* Whoever maps the arena anew has its file by now; errno is kept. */
	arena_close_fd(run->arena);
	return rc;
}

/* Counts a child the pool just forked, in the users' process group. Both
 * sides set the group, so that neither depends on who runs first; a group
 * whose members all died is gone, and the new user starts a new one. */
static void pool_adopt(struct user_pool *pool, pid_t pid)
{
	if (!pool->pgid || setpgid(pid, pool->pgid)) {
		setpgid(pid, pid);
		pool->pgid = pid;
	}
	pool->alive++;
}

/* Thread mode: forks the process of the user threads unless it runs;
 * every user of the level is one of its threads. */
static int fork_thread_proc(struct user_pool *pool, struct level_run *lr,
			    uint32_t gen_now)
{
	pid_t pid;

	if (!pool->thread_proc) {
		pid = fork();
		if (pid == 0)
			thread_proc_main(&pool->ctx, pool->pgid, gen_now);
		if (pid < 0) {
			level_run_fail(lr, "cannot fork the process of the user threads: %s",
				   strerror(errno));
			lr->end_ramp = true;
			return -1;
		}
		pool_adopt(pool, pid);
		pool->thread_proc = pid;
	}
	for (unsigned int u = 0; u < lr->users; u++)
		if (!pool->pids[u])
			pool->pids[u] = pool->thread_proc;
	return 0;
}

/* Process mode: has the spawner fork the users of the level that have no
 * process, a run of consecutive ones at a time. */
static int fork_users(struct user_pool *pool, struct level_run *lr,
		      uint32_t gen_now)
{
	char why[REASON_LEN];
	unsigned int u = 0, first;

	while (u < lr->users) {
		if (pool->pids[u]) {
			u++;
			continue;
		}
		for (first = u; u < lr->users && !pool->pids[u]; u++)
			;
		if (!spawner_fork(pool, first, u - first, lr->users, gen_now,
				  why, sizeof(why)))
			continue;
		if (run_interrupted)
			return -1;
		level_run_fail(lr, "%s", why);
		lr->end_ramp = true;
		return -1;
	}
	return 0;
}

int pool_level_begin(struct user_pool *pool, struct level_run *lr,
		     unsigned int users)
{
	struct arena_header *hdr = pool->ctx.arena->hdr;
	uint32_t gen_now = __atomic_load_n(&hdr->level_gen, __ATOMIC_RELAXED);

	/* Users that died between levels are replaced, not blamed. */
	pool_reap_exited(pool, NULL);
	pool->level_begun_s = time(NULL);
	arena_reset_level(pool->ctx.arena, users);
	lr->users = users;
	__atomic_store_n(&hdr->ready, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->parked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->passed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hdr->active_users, users, __ATOMIC_RELAXED);
	/*
	 * The new generation is announced before the missing users are
	 * forked, with release order: a user that sees it sees the counts
	 * above. Parked users and each new child (born seeing it) then come
	 * to the gate on the other CPUs while the rest are being forked,
	 * instead of all of them after the last fork.
	 */
	lr->gen = gen_now + 1;
	__atomic_store_n(&hdr->called, (uint64_t)lr->gen << 32 | users,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->level_gen, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->level_gen);
	fflush(NULL);
	/* When not every user could be started, the level is not run: the
	 * caller stops it at once, and the users that did start park (those
	 * never forked have no pid and are not waited for). */
	if (pool->mode == MODE_THREAD)
		return fork_thread_proc(pool, lr, gen_now);
	return fork_users(pool, lr, gen_now);
}

int pool_check(struct user_pool *pool, struct level_run *lr)
{
	pool_reap_exited(pool, lr);
	pool_check_threads(pool, lr);
	return lr->failed ? -1 : 0;
}

/*
 * Sleeps until *count may have moved on from `seen`. Users count in
 * without waking the driver, except the last one; while the count moves
 * the driver looks again after a short step, instead of spinning on a
 * word that changes thousands of times, and when it stands still it
 * sleeps until the last user's wake or WAIT_STILL_NS.
 */
static void wait_count(uint32_t *count, uint32_t seen, bool moving)
{
	struct timespec step = { 0, WAIT_MOVING_NS };

	if (moving)
		nanosleep(&step, NULL);
	else
		gate_wait_change(count, seen, WAIT_STILL_NS);
}

/*
 * Waits until `count` reaches the level's users. The time limit runs from
 * the last user that came, not from the start: ten thousand users on two
 * CPUs take seconds just to be scheduled one after another, and that is
 * not a stuck user.
 */
static int wait_all(struct user_pool *pool, struct level_run *lr,
		    uint32_t *count, const char *what)
{
	uint64_t limit = (uint64_t)(READY_TIMEOUT_S * NSEC_PER_SEC);
	uint64_t deadline = now_ns() + limit;
	uint32_t seen, last = 0;

	for (;;) {
		bool moving;

		seen = __atomic_load_n(count, __ATOMIC_ACQUIRE);
		if (seen >= lr->users)
			return 0;
		moving = seen != last;
		if (moving) {
			last = seen;
			deadline = now_ns() + limit;
		}
		/* A user that exits here failed to set up, or crashed. */
		if (pool_check(pool, lr) || run_interrupted)
			return -1;
		if (now_ns() > deadline) {
			level_run_fail(lr, "only %u of %u users %s, and none more for %.0f s",
				   seen, lr->users, what, READY_TIMEOUT_S);
			return -1;
		}
		wait_count(count, seen, moving);
	}
}

int pool_wait_ready(struct user_pool *pool, struct level_run *lr)
{
	return wait_all(pool, lr, &pool->ctx.arena->hdr->ready,
			"reached the start gate");
}

int pool_wait_through(struct user_pool *pool, struct level_run *lr)
{
	return wait_all(pool, lr, &pool->ctx.arena->hdr->passed,
			"came through the start gate");
}

void pool_release(struct user_pool *pool, struct level_run *lr)
{
	__atomic_store_n(&pool->ctx.arena->hdr->gate, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&pool->ctx.arena->hdr->gate);
}

void pool_stop(struct user_pool *pool, struct level_run *lr)
{
	struct arena_header *hdr = pool->ctx.arena->hdr;

	__atomic_store_n(&hdr->stop, lr->gen, __ATOMIC_RELEASE);
	/* Users still at the gate (a level that never started) must come
	 * through it to see the stop word and park, and those through it
	 * waiting for the others must stop waiting. */
	pool_release(pool, lr);
	__atomic_store_n(&hdr->all_through, lr->gen, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->all_through);
}

static void rusage_add(struct rusage_sum *sum, const struct slot_rusage *r)
{
	sum->utime_s += (double)r->utime_us / 1e6;
	sum->stime_s += (double)r->stime_us / 1e6;
	sum->nvcsw += (uint64_t)r->nvcsw;
	sum->nivcsw += (uint64_t)r->nivcsw;
	sum->minflt += (uint64_t)r->minflt;
	sum->majflt += (uint64_t)r->majflt;
	if (r->maxrss_kb > sum->maxrss_kb)
		sum->maxrss_kb = r->maxrss_kb;
}


/* Every user's ops and AIM7 progress ticks, added up: while it grows,
 * some user is still getting somewhere. */
static uint64_t users_progress(const struct user_pool *pool,
			       unsigned int users)
{
	const struct arena *a = pool->ctx.arena;
	uint64_t sum = 0;

	for (unsigned int u = 0; u < users; u++) {
		const struct user_slot *s = arena_slot(a, u);

		for (size_t e = 0; e < a->n_entries; e++)
			sum += __atomic_load_n(&s->counters[e].ops,
					       __ATOMIC_RELAXED) +
			       __atomic_load_n(&s->counters[e].inner,
					       __ATOMIC_RELAXED);
	}
	return sum;
}

/* Waits grace_s for every user of the level to park or exit, the grace
 * running from the last one that parked or got somewhere. */
static void wait_parked(struct user_pool *pool, struct level_run *lr,
			double grace_s)
{
	uint32_t *parked = &pool->ctx.arena->hdr->parked;
	uint64_t grace = (uint64_t)(grace_s * NSEC_PER_SEC);
	uint64_t deadline = now_ns() + grace;
	unsigned int gone, last = 0;
	uint64_t moved, last_moved = users_progress(pool, lr->users);
	uint64_t next_progress = now_ns() + PROGRESS_EVERY_NS;
	uint32_t seen;
	bool cut = false, counted, moving;

	for (;;) {
		pool_reap_exited(pool, lr);
		pool_check_threads(pool, lr);
		seen = __atomic_load_n(parked, __ATOMIC_ACQUIRE);
		gone = 0;
		for (unsigned int u = 0; u < lr->users; u++)
			gone += !pool->pids[u];
		if (seen + gone >= lr->users)
			return;
		/* The grace runs from the last user that parked or moved on:
		 * thousands of busy users on a few CPUs see the stop flag one
		 * after another, over seconds, and an AIM7 op in hand can
		 * last longer than the grace; neither is stuck. Progress, a
		 * read of every user's counters, is looked at every
		 * PROGRESS_EVERY_NS and when the grace runs out. */
		counted = seen + gone != last;
		moving = counted;
		if (now_ns() >= next_progress || now_ns() >= deadline) {
			moved = users_progress(pool, lr->users);
			moving = moving || moved != last_moved;
			last_moved = moved;
			next_progress = now_ns() + PROGRESS_EVERY_NS;
		}
		if (moving && !cut) {
			last = seen + gone;
			deadline = now_ns() + grace;
		}
		if (now_ns() >= deadline)
			return;
		/* A signal cuts the grace short: the level is dropped anyway,
		 * and the driver must exit promptly. */
		if (run_interrupted && !cut) {
			deadline = process_deadline(deadline);
			cut = true;
		}
		wait_count(parked, seen, counted);
	}
}

void pool_level_end(struct user_pool *pool, struct level_run *lr,
		    double grace_s)
{
	wait_parked(pool, lr, grace_s);
	pool_kill_stuck(pool, lr);
	for (unsigned int u = 0; u < lr->users; u++)
		if (pool->pids[u])
			rusage_add(&lr->rusage,
				   &arena_slot(pool->ctx.arena, u)->rusage);
}

void pool_shutdown(struct user_pool *pool, double grace_s)
{
	struct arena_header *hdr;
	uint64_t deadline = process_deadline_in(grace_s);

	if (!pool->pids)
		return;
	/* First, so that it forks no user the steps below would miss. */
	spawner_stop(&pool->spawner, deadline);
	if (!pool->alive)
		goto out;
	hdr = pool->ctx.arena->hdr;
	__atomic_store_n(&hdr->quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&hdr->level_gen, 1, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->level_gen);
	/* A user still in a level (an interrupted one) leaves through it. */
	__atomic_store_n(&hdr->stop, hdr->level_gen - 1, __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->gate, hdr->level_gen - 1, __ATOMIC_RELEASE);
	gate_wake_all(&hdr->gate);
	pool_reap_in_order(pool, deadline);
	pool_kill_stuck(pool, NULL);
out:
	free(pool->pids);
	pool->pids = NULL;
}
