/* tests/signal_optlevels.c: signal_test and jmp_test return 0, op after op, in processes and threads. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "jobs/catalog.h"

/*
 * A signal_test op sends 1000 signals: 30 rounds send 90000 a user, and
 * run 90 ops of each job in each. What a compiler gets wrong here (a
 * counter read once, so that the wait for the handler never ends; a
 * jump that loses a frame's count) is wrong in every op, the first
 * included: more rounds only took longer (11 s a level alone, 30 s
 * and more beside the rest of the suite).
 */
#define ROUNDS 30

/* One user's life of a job: init, three ops, fini. */
static int cycle(const struct job *job, bool threaded)
{
	char reason[128] = "";
	uint64_t progress = 0;
	struct job_ctx ctx;
	void *state;
	int rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.threaded = threaded;
	ctx.reason = reason;
	ctx.reason_len = sizeof(reason);
	ctx.progress = &progress;
	rc = job->init(&ctx, &state);
	if (rc) {
		fprintf(stderr, "%s init: %d %s\n", job->name, rc, reason);
		return 1;
	}
	for (int i = 0; i < 3 && !rc; i++)
		rc = job->run(state);
	job->fini(state);
	if (rc) {
		fprintf(stderr, "%s run: %s\n", job->name, strerror(rc));
		return 1;
	}
	/* Every signal or jump counted, none twice. */
	if (progress != 3 * (uint64_t)job->inner_ops * JOB_PROGRESS_TICKS) {
		fprintf(stderr, "%s: %llu progress ticks in 3 ops of %u inner ops\n",
			job->name, (unsigned long long)progress,
			job->inner_ops);
		return 1;
	}
	return 0;
}

static void *thread_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		if (cycle(&job_signal_test, true) || cycle(&job_jmp_test, true))
			return (void *)1;
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	void *ret;
	int bad = 0;

	for (int i = 0; i < ROUNDS; i++)
		if (cycle(&job_signal_test, false) || cycle(&job_jmp_test, false))
			return 1;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL))
			return 99;
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	puts(bad ? "0 passed, 1 failed" : "1 passed, 0 failed");
	return bad;
}
