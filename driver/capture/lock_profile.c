/* driver/capture/lock_profile.c: --lock-profile: chooses once how every level's kernel lock contention is counted, and counts it: the in-kernel collector's steps are here, perf lock record's in perf_lock.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture/ksyms.h"
#include "driver/capture/lock_bpf.h"
#include "driver/capture/capture.h"
#include "driver/capture/perf_lock.h"
#include "driver/base/util.h"

#define KALLSYMS "/proc/kallsyms"

/* Test hook: AIMSWEEP_TEST_LOCK_BPF=unavailable makes the collector fail
 * to load as on a kernel without the tracepoints, so that the fallback
 * can be tested; =keys:N gives its sums room for N keys only, so that
 * lost events can be. Not for benchmarking. */
#define LOCK_BPF_TEST_ENV "AIMSWEEP_TEST_LOCK_BPF"

/* Room in the collector's task map beyond the users: every other task of
 * the machine may wait on a lock at the same time as they do. The map is
 * allocated whole when loaded (about 100 bytes a task), so it has a
 * ceiling; tasks beyond it that wait at once are counted as lost. */
#define LOCK_BPF_OTHER_TASKS 16384
#define LOCK_BPF_TASKS_MAX (1U << 18)

/* The run's method, from check to the end of the run. */
struct lock_run {
	struct lock_bpf *bpf;		/* NULL: perf lock record */
	struct ksyms ksyms;		/* for the collector's stacks */
	void *perf_run;			/* what perf_lock's check kept */
	char why[sizeof(((struct lock_capture_info *)0)->why)];
};

/* A level's profile. */
struct lock_level {
	struct lock_run *run;
	void *perf;		/* perf_lock's state for the level */
	/* The collector's: the slice --lock-profile-seconds asks for when
	 * it is shorter than the window, else 0 (the whole window); and
	 * the span it covered, from t0, once stopped. */
	uint64_t slice_ns;
	double covered_s;
};

static bool lock_profile_wanted(const struct run_params *p)
{
	return p->lock_profile;
}

/* The test hook's word (LOCK_BPF_TEST_ENV), or NULL. */
static const char *test_hook(const char *word)
{
	const char *v = getenv(LOCK_BPF_TEST_ENV);

	return v && !strncmp(v, word, strlen(word)) ? v + strlen(word) : NULL;
}

/*
 * Loads the collector into r. 0; 1 when it cannot work here (r->why says
 * why, and perf may be used instead); -1 when it may not be loaded (err
 * says so: the run is refused).
 */
static int open_collector(const struct run_params *p, struct lock_run *r,
			  char *err, size_t errlen)
{
	unsigned int users = params_max_users(p);
	unsigned int tasks = users < (LOCK_BPF_TASKS_MAX -
				      LOCK_BPF_OTHER_TASKS) / 2 ?
			     2 * users + LOCK_BPF_OTHER_TASKS :
			     LOCK_BPF_TASKS_MAX;
	const char *keys = test_hook("keys:");
	char why[REASON_LEN];
	bool denied;

	if (test_hook("unavailable")) {
		snprintf(r->why, sizeof(r->why),
			 "cannot load the in-kernel lock collector: %s=unavailable",
			 LOCK_BPF_TEST_ENV);
		return 1;
	}
	r->bpf = lock_bpf_open(tasks, keys ? (unsigned int)atoi(keys) : 0,
			       &denied, why, sizeof(why));
	if (!r->bpf && denied) {
		snprintf(err, errlen,
			 "--lock-profile needs root, or CAP_BPF and CAP_PERFMON, to load the in-kernel lock collector: %s",
			 why);
		return -1;
	}
	if (!r->bpf) {
		snprintf(r->why, sizeof(r->why), "%s", why);
		return 1;
	}
	if (ksyms_load(&r->ksyms, KALLSYMS, why, sizeof(why))) {
		lock_bpf_close(r->bpf);
		r->bpf = NULL;
		snprintf(err, errlen,
			 "--lock-profile cannot name the kernel's functions: %s",
			 why);
		return -1;
	}
	snprintf(r->why, sizeof(r->why),
		 "in-kernel collector on lock:contention_begin/end");
	return 0;
}

static void lock_profile_release(void *run)
{
	struct lock_run *r = run;

	if (!r)
		return;
	lock_bpf_close(r->bpf);
	ksyms_free(&r->ksyms);
	if (r->perf_run && perf_lock_capture.release)
		perf_lock_capture.release(r->perf_run);
	free(r);
}

/* perf lock record, as asked or in the collector's place; r->why holds
 * the collector's reason in the second case. */
static int use_perf(const struct run_params *p, struct lock_run *r,
		    char *err, size_t errlen)
{
	char reason[sizeof(r->why)];

	snprintf(reason, sizeof(reason), "%s", r->why);
	if (p->lock_method == LOCK_METHOD_PERF)
		snprintf(r->why, sizeof(r->why),
			 "perf lock record, as --lock-method perf asked");
	else
		snprintf(r->why, sizeof(r->why), "perf lock record: %s",
			 reason);
	return perf_lock_capture.check(p, &r->perf_run, err, errlen);
}

/* Once, before the first level: which method every level will use. */
static void say_method(const struct run_params *p, const struct lock_run *r)
{
	if (r->bpf && p->lock_profile_s > 0)
		msg_info("lock profile: in-kernel collector, the first %g s of each window",
			 p->lock_profile_s);
	else if (r->bpf)
		msg_info("lock profile: in-kernel collector, the whole window of each level");
	else
		msg_info("lock profile: %s", r->why);
}

static int lock_profile_check(const struct run_params *p, void **run,
			      char *err, size_t errlen)
{
	struct lock_run *r = calloc(1, sizeof(*r));
	int rc = 1;

	if (!r) {
		snprintf(err, errlen, "--lock-profile: %s", strerror(ENOMEM));
		return -1;
	}
	if (p->lock_method != LOCK_METHOD_PERF)
		rc = open_collector(p, r, err, errlen);
	if (rc == 1 && p->lock_method == LOCK_METHOD_BPF) {
		snprintf(err, errlen, "--lock-method bpf: %s", r->why);
		rc = -1;
	} else if (rc == 1) {
		rc = use_perf(p, r, err, errlen);
	}
	if (rc) {
		lock_profile_release(r);
		return -1;
	}
	say_method(p, r);
	*run = r;
	return 0;
}

static int lock_profile_prepare(struct level_capture *c, void *run, void *st)
{
	struct lock_level *l = st;

	l->run = run;
	if (!l->run->bpf) {
		l->perf = calloc(1, perf_lock_capture.level_size);
		if (!l->perf) {
			capture_error(c, "lock profile: %s", strerror(ENOMEM));
			return -1;
		}
		return perf_lock_capture.prepare(c, l->run->perf_run, l->perf);
	}
	/* The collector covers the window from t0, whatever else samples
	 * in it: it costs too little to need a slice of its own. */
	if (c->params->lock_profile_s > 0 &&
	    c->params->lock_profile_s < c->params->runtime_s)
		l->slice_ns = (uint64_t)(c->params->lock_profile_s * 1e9);
	if (lock_bpf_reset(l->run->bpf, c->error, sizeof(c->error)))
		return -1;
	return 0;
}

static void lock_profile_start(struct level_capture *c, void *st)
{
	struct lock_level *l = st;

	if (!l->run->bpf) {
		perf_lock_capture.start(c, l->perf);
		return;
	}
	lock_bpf_start(l->run->bpf, c->t0_ns);
	/* A slice ends in the kernel, without the driver. */
	if (l->slice_ns)
		lock_bpf_stop(l->run->bpf, c->t0_ns + l->slice_ns);
}

static void lock_profile_stop(struct level_capture *c, void *st)
{
	struct lock_level *l = st;
	uint64_t end;

	if (!l->run->bpf) {
		if (perf_lock_capture.stop)
			perf_lock_capture.stop(c, l->perf);
		return;
	}
	end = c->t1_ns;
	if (l->slice_ns && c->t0_ns + l->slice_ns < end)
		end = c->t0_ns + l->slice_ns;
	lock_bpf_stop(l->run->bpf, end);
	l->covered_s = (double)(end - c->t0_ns) / 1e9;
}

/* The collector's window, read into the level. */
static void read_collector(struct level_capture *c, struct lock_level *l,
			   struct level_result *level)
{
	struct lock_capture_info *li = &level->lock_info;
	struct lock_bpf_lost lost;
	struct lock_report report;
	char err[REASON_LEN];

	if (lock_bpf_read(l->run->bpf, &l->run->ksyms,
			  c->params->lock_profile_top, &report, &lost, err,
			  sizeof(err))) {
		capture_error(c, "lock profile: %s", err);
		return;
	}
	level->lock_profiled = true;
	level->locks = report.entries;
	level->n_locks = report.n_entries;
	level->locks_dropped = 0;
	li->has_lost = true;
	li->lost_no_begin = lost.no_begin;
	li->lost_tasks_full = lost.tasks_full;
	li->lost_callers_full = lost.callers_full;
	li->stacks_unknown = lost.stacks_unknown;
	if (lock_bpf_lost_events(&lost))
		msg_warn("%u users: the lock profile lost %llu waits (%llu without a begin, %llu with no room for their caller): its counts are low",
			 level->users,
			 (unsigned long long)lock_bpf_lost_events(&lost),
			 (unsigned long long)lost.no_begin,
			 (unsigned long long)lost.callers_full);
}

static void lock_profile_write(struct level_capture *c, void *st,
			       struct level_result *level)
{
	struct lock_level *l = st;
	struct lock_capture_info *li = &level->lock_info;

	li->method = l->run->bpf ? "bpf" : "perf";
	snprintf(li->why, sizeof(li->why), "%s", l->run->why);
	if (!l->run->bpf) {
		perf_lock_capture.write(c, l->perf, level);
		free(l->perf);
		l->perf = NULL;
		return;
	}
	li->offset_s = 0;
	li->covered_s = l->covered_s;	/* 0 unless stopped at t1 */
	if (c->t1_ns && level->status == LEVEL_OK && !c->error[0])
		read_collector(c, l, level);
}

static void lock_profile_abort(struct level_capture *c, void *st)
{
	struct lock_level *l = st;

	if (l->perf) {
		perf_lock_capture.abort(c, l->perf);
		free(l->perf);
		l->perf = NULL;
	}
}

/*
 * --lock-profile. check chooses the method once, before the first level,
 * and says which on standard error:
 *
 *   --lock-method auto   the in-kernel collector where it loads, else
 *                        perf lock record, with why in each level
 *   --lock-method bpf    the in-kernel collector, or the run is refused
 *   --lock-method perf   perf lock record
 *
 * Without the privilege to load the collector (root, or CAP_BPF with
 * CAP_PERFMON), the run is refused whatever the method: perf lock
 * record needs as much.
 *
 * The collector covers the whole window of every level unless
 * --lock-profile-seconds asks for less, from t0; perf lock record covers
 * --lock-profile-seconds (1 s when not given) after the CPU profile's
 * slice.
 */
const struct capture_ops lock_profile_capture = {
	.name = "lock-profile",
	.level_size = sizeof(struct lock_level),
	.wanted = lock_profile_wanted,
	.check = lock_profile_check,
	.prepare = lock_profile_prepare,
	.start = lock_profile_start,
	.stop = lock_profile_stop,
	.write = lock_profile_write,
	.abort = lock_profile_abort,
	.release = lock_profile_release,
};
