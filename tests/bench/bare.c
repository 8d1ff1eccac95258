/* tests/bench/bare.c: the physical limit aimsweep is measured against in
 * `make bench`: the same operations in a bare C loop, and bare fork/gate. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobs/decimal.h"
#include "jobs/getppid_syscall.h"

/*
 * Each op here is what one op of the aimsweep job of the same name does,
 * syscall for syscall, with nothing around it: no counters in shared
 * memory, no latency sampling, no schedule. The loop reads the clock once
 * every 1024 ops, which costs well under 0.1% of the cheapest op.
 */

static volatile sig_atomic_t caught;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_usr1(int signo)
{
	(void)signo;
	caught++;
}

static void die(const char *what)
{
	fprintf(stderr, "bare: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* getppid: one system call that does nearly nothing, made in place as
 * the job makes it. */
static void op_getppid(void)
{
	getppid_syscall();
}

/* brk: grow the heap by a page and shrink it back, from the break malloc
 * keeps (sbrk(0) makes no system call), on a heap whose top page this
 * process has written to (see brk_own_heap() in jobs/mem.c). */
static void op_brk(void)
{
	uintptr_t base = (uintptr_t)sbrk(0);

	if ((uintptr_t)syscall(SYS_brk, base + 4096) != base + 4096 ||
	    (uintptr_t)syscall(SYS_brk, base) != base)
		die("brk");
}

/* kill: send SIGUSR1 to this process and catch it. The pid is read once,
 * as the job does: getpid() is a system call of its own. */
static pid_t self;

static void op_kill(void)
{
	if (kill(self, SIGUSR1))
		die("kill");
}

/* creat: close the previous file, remove the oldest of the 4 newest,
 * create a new one, as the creat job's prepare and run do. Like the job,
 * it writes only the number of each name, after a prefix made once, and
 * names its files as the job names user 0's. */
static char creat_buf[PATH_MAX];
static size_t creat_prefix;
static unsigned long creat_next;
static int creat_fd = -1;

static const char *creat_path(unsigned long seq)
{
	decimal_put(creat_buf + creat_prefix, sizeof(creat_buf) - creat_prefix,
		    seq);
	return creat_buf;
}

static void op_creat(void)
{
	if (creat_fd >= 0)
		close(creat_fd);
	if (creat_next >= 4 && unlink(creat_path(creat_next - 4)) &&
	    errno != ENOENT)
		die("unlink");
	creat_fd = creat(creat_path(creat_next++), 0600);
	if (creat_fd < 0)
		die("creat");
}

static void creat_cleanup(void)
{
	if (creat_fd >= 0)
		close(creat_fd);
	for (unsigned long s = creat_next > 4 ? creat_next - 4 : 0;
	     s < creat_next; s++)
		unlink(creat_path(s));
}

/* Set by SIGUSR2 (a follower's cue) and SIGTERM (its end), below. */
static volatile sig_atomic_t cued, ended;

/* Runs op in blocks of 1024 until the clock reaches end, or until SIGTERM;
 * returns the ops and leaves the clock at the last read in *t. */
static uint64_t run_until(void (*op)(void), uint64_t end, uint64_t *t)
{
	uint64_t ops = 0;

	do {
		for (int i = 0; i < 1024; i++)
			op();
		ops += 1024;
		*t = now_ns();
	} while (*t < end && !ended);
	return ops;
}

/* The op of that name, set up; NULL (with a message) for none. */
static void (*op_setup(const char *name, const char *dir))(void)
{
	struct sigaction sa;

	if (!strcmp(name, "getppid"))
		return op_getppid;
	if (!strcmp(name, "brk")) {
		char *page = sbrk(4096);

		if (page == (void *)-1)
			die("sbrk");
		*(volatile char *)page = 1;
		return op_brk;
	}
	if (!strcmp(name, "kill")) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGUSR1, &sa, NULL))
			die("sigaction");
		self = getpid();
		return op_kill;
	}
	if (!strcmp(name, "creat")) {
		if (!dir) {
			fprintf(stderr, "bare: creat needs a directory\n");
			return NULL;
		}
		if (strlen(dir) + 32 > sizeof(creat_buf)) {
			fprintf(stderr, "bare: directory name too long\n");
			return NULL;
		}
		creat_prefix = (size_t)snprintf(creat_buf, sizeof(creat_buf),
						"%s/c0.", dir);
		return op_creat;
	}
	fprintf(stderr, "bare: no op %s\n", name);
	return NULL;
}

/*
 * loop: OP for WARMUP seconds, then for a window of SECONDS; prints the
 * window's ops/s. With BARE_MARK=PID in the environment, it sends PID a
 * SIGUSR2 as its window starts (a follower's cue, below), as aimsweep's
 * --hook does at the level's t0.
 */
static int loop(const char *name, double warmup, double seconds,
		const char *dir)
{
	void (*op)(void) = op_setup(name, dir);
	const char *mark = getenv("BARE_MARK");
	pid_t partner = 0;
	uint64_t t0, t, ops;

	if (mark) {
		char *end;
		long pid = strtol(mark, &end, 10);

		/* Never 0 or -1: those would signal a process group or all. */
		if (*end || pid <= 1 || pid > INT_MAX) {
			fprintf(stderr, "bare: BARE_MARK is not a pid: %s\n", mark);
			return 2;
		}
		partner = (pid_t)pid;
	}
	if (!op)
		return 2;
	/* The warm-up, as aimsweep's: a vCPU that was idle can run its
	 * first tenth of a second several times slower. */
	run_until(op, now_ns() + (uint64_t)(warmup * 1e9), &t0);
	if (partner && kill(partner, SIGUSR2))
		die("kill BARE_MARK");
	caught = 0;
	ops = run_until(op, t0 + (uint64_t)(seconds * 1e9), &t);
	if (op == op_creat)
		creat_cleanup();
	if (op == op_kill && caught != (sig_atomic_t)ops)
		fprintf(stderr, "bare: %lu of %lu signals caught\n",
			(unsigned long)caught, (unsigned long)ops);
	printf("%.1f\n", (double)ops * 1e9 / (double)(t - t0));
	return 0;
}

static void on_cue(int signo)
{
	(void)signo;
	cued = 1;
}

static void on_end(int signo)
{
	(void)signo;
	ended = 1;
}

/*
 * follow: OP from the start until SIGTERM. Its window of SECONDS starts
 * at the first SIGUSR2 (aimsweep's --hook sends it right after the
 * level's t0); at the window's end it prints the window's ops/s, and
 * goes on until SIGTERM, so that a job it shares a CPU with never runs
 * alone. Sharing one CPU, the two see the same machine at the same
 * moments, and the ratio of their ops/s is free of its drift; the window
 * is a little shorter than its partner's, so that it lies inside it.
 * SIGTERM before the window has ended prints nothing and fails.
 */
static int follow(const char *name, double seconds, const char *dir)
{
	struct sigaction sa;
	void (*op)(void);
	uint64_t t0, t, ops;
	bool printed = false;
	int rc = 0;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_cue;
	if (sigaction(SIGUSR2, &sa, NULL))
		die("sigaction");
	sa.sa_handler = on_end;
	if (sigaction(SIGTERM, &sa, NULL))
		die("sigaction");
	/* A bench that dies leaves no loop spinning. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		die("prctl");
	if (getppid() == 1)
		return 1;
	op = op_setup(name, dir);
	if (!op)
		return 2;
	while (!cued && !ended)
		for (int i = 0; i < 256; i++)
			op();
	if (!ended) {
		t0 = now_ns();
		ops = run_until(op, t0 + (uint64_t)(seconds * 1e9), &t);
		if (!ended) {
			printf("%.1f\n", (double)ops * 1e9 / (double)(t - t0));
			fflush(stdout);
			printed = true;
		}
	}
	while (!ended)
		for (int i = 0; i < 256; i++)
			op();
	if (!printed) {
		fprintf(stderr, "bare: ended before its window did\n");
		rc = 1;
	}
	if (op == op_creat)
		creat_cleanup();
	return rc;
}

/*
 * N children, forked one after another by this process, each of which
 * counts itself in and sleeps on a futex word in shared memory, as
 * aimsweep's users do at the start gate; then one wake for all. Prints
 * the time until all were waiting and the time until the last came
 * through. The children leave at once: this is the kernel's cost of
 * creating, parking and waking them, with no work of theirs in it.
 *
 * With "busy", each child that is through calls getppid() in a loop until
 * the last one is through: the later ones then wait for CPUs the earlier
 * ones hold, and the release time is the scheduler's round over N busy
 * tasks, what a harness whose users start their ops at once would pay
 * (aimsweep's users yield until all are through instead). stop_s is the
 * time from telling them to stop until all have exited and been reaped.
 *
 * With "split", a second process forks half of the children while this
 * one forks the other half, one fork()ing process per CPU of a 2-CPU
 * machine: whether the fork()s of a level could go faster in parallel.
 *
 * With "thread", the N are threads of this process, made by
 * pthread_create() with the stack size and detached state of aimsweep's
 * --mode thread users (thread_proc_main() in driver/users/user_loop.c), at the
 * same gate: the floor for users that are threads. stop_s then ends when
 * the last thread has counted itself out on its way to return, as
 * aimsweep's driver sees a thread user end.
 */
struct gate {
	uint32_t ready, open, passed, done, left;
	uint64_t last_ns;
};

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* Waits until the counter *word has reached n. */
static void gate_wait_for(uint32_t *word, unsigned int n)
{
	uint32_t seen;

	while ((seen = __atomic_load_n(word, __ATOMIC_ACQUIRE)) < n)
		futex(word, FUTEX_WAIT, seen);
}

/* Adds one to the counter *word and wakes its waiter when that makes n. */
static void gate_count(uint32_t *word, unsigned int n)
{
	if (__atomic_add_fetch(word, 1, __ATOMIC_RELEASE) == n)
		futex(word, FUTEX_WAKE, 1);
}

/* A user's side of the gate: counts itself in, waits for the gate to
 * open, and counts itself through. Only the last one in wakes the
 * starter, as aimsweep's users wake the driver: a floor with a futex
 * wake a user more would flatter the harness beside it. */
static void gate_pass(struct gate *g, unsigned int n)
{
	gate_count(&g->ready, n);
	while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
		futex(&g->open, FUTEX_WAIT, 0);
	__atomic_store_n(&g->last_ns, now_ns(), __ATOMIC_RELAXED);
	gate_count(&g->passed, n);
}

/* The starter's side, from t0 when it began to make the n users: waits
 * for all to be in, opens the gate, and waits for all to be through; sets
 * *ready_s and *release_s. */
static void gate_run(struct gate *g, unsigned int n, uint64_t t0,
		     double *ready_s, double *release_s)
{
	uint64_t t_open;

	gate_wait_for(&g->ready, n);
	t_open = now_ns();
	*ready_s = (double)(t_open - t0) / 1e9;
	__atomic_store_n(&g->open, 1, __ATOMIC_RELEASE);
	futex(&g->open, FUTEX_WAKE, INT_MAX);
	gate_wait_for(&g->passed, n);
	*release_s = (double)(__atomic_load_n(&g->last_ns, __ATOMIC_RELAXED) -
			      t_open) / 1e9;
}

/* A gate in memory that forked children share with this process. */
static struct gate *gate_map(void)
{
	struct gate *g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (g == MAP_FAILED)
		die("mmap");
	memset(g, 0, sizeof(*g));
	return g;
}

/* The figures `make bench` reads, one "name seconds" a line. */
static void spawn_print(double ready_s, double release_s, double stop_s)
{
	printf("ready_s %.6f\nrelease_s %.6f\nstop_s %.6f\n", ready_s,
	       release_s, stop_s);
}

/* A child of spawn(): counts itself in, waits at the gate, and leaves. */
static void spawn_child(struct gate *g, unsigned int n, int busy)
{
	/* As aimsweep's users do: one that outlives the parent (the bench
	 * stops a run that takes too long) is killed, not left waiting. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	gate_pass(g, n);
	while (busy && !__atomic_load_n(&g->done, __ATOMIC_RELAXED))
		syscall(SYS_getppid);
	_exit(0);
}

/* Forks `count` children of spawn(). */
static void spawn_some(struct gate *g, unsigned int count, unsigned int n,
		       int busy)
{
	pid_t pid;

	for (unsigned int i = 0; i < count; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			spawn_child(g, n, busy);
	}
}

static int spawn(unsigned int n, int busy, int split)
{
	struct gate *g = gate_map();
	double ready_s, release_s;
	uint64_t t0, t_done;
	pid_t pid;

	t0 = now_ns();
	if (split) {
		/* The helper waits for its own children, and this process
		 * for the helper, below. */
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			spawn_some(g, n / 2, n, busy);
			while (wait(NULL) > 0 || errno == EINTR)
				;
			_exit(0);
		}
	}
	spawn_some(g, split ? n - n / 2 : n, n, busy);
	gate_run(g, n, t0, &ready_s, &release_s);
	t_done = now_ns();
	__atomic_store_n(&g->done, 1, __ATOMIC_RELAXED);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	spawn_print(ready_s, release_s, (double)(now_ns() - t_done) / 1e9);
	return 0;
}

/* What each thread of spawn_threads() is given. */
struct thread_gate {
	struct gate *g;
	unsigned int n;
};

/* A thread of spawn_threads(): spawn_child()'s gate, in this process. */
static void *spawn_thread(void *arg)
{
	const struct thread_gate *tg = arg;

	gate_pass(tg->g, tg->n);
	gate_count(&tg->g->left, tg->n);
	return NULL;
}

static int spawn_threads(unsigned int n)
{
	struct thread_gate tg = { gate_map(), n };
	double ready_s, release_s;
	pthread_attr_t attr;
	uint64_t t0, t_done;
	pthread_t t;
	int err;

	if ((err = pthread_attr_init(&attr)) ||
	    (err = pthread_attr_setstacksize(&attr, 256 * 1024)) ||
	    (err = pthread_attr_setdetachstate(&attr,
					       PTHREAD_CREATE_DETACHED))) {
		errno = err;
		die("pthread_attr");
	}
	t0 = now_ns();
	for (unsigned int i = 0; i < n; i++) {
		err = pthread_create(&t, &attr, spawn_thread, &tg);
		if (err) {
			fprintf(stderr,
				"bare: cannot create thread %u of %u: %s\n",
				i + 1, n, strerror(err));
			exit(1);
		}
	}
	gate_run(tg.g, n, t0, &ready_s, &release_s);
	t_done = now_ns();
	gate_wait_for(&tg.g->left, n);
	spawn_print(ready_s, release_s, (double)(now_ns() - t_done) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	const char *form = argc == 4 ? argv[3] : "";

	if (argc >= 5 && !strcmp(argv[1], "loop"))
		return loop(argv[2], atof(argv[3]), atof(argv[4]),
			    argc > 5 ? argv[5] : NULL);
	if (argc >= 4 && !strcmp(argv[1], "follow"))
		return follow(argv[2], atof(argv[3]), argc > 4 ? argv[4] : NULL);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "spawn")) {
		unsigned int n = (unsigned int)strtoul(argv[2], NULL, 10);

		if (!strcmp(form, "thread"))
			return spawn_threads(n);
		if (!*form || !strcmp(form, "busy") || !strcmp(form, "split"))
			return spawn(n, !strcmp(form, "busy"),
				     !strcmp(form, "split"));
	}
	fprintf(stderr, "usage: bare loop getppid|brk|kill|creat WARMUP SECONDS [DIR]\n"
			"       bare follow getppid|brk|kill|creat SECONDS [DIR]\n"
			"       bare spawn N [busy|split|thread]\n");
	return 2;
}
