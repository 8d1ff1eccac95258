/* tests/job_runner.c: runs N ops of one job outside the driver, so that strace can count what one op makes. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

#include "jobs/job.h"

/*
 * job_runner --list
 *	prints each job's name and family ("aim7" or "micro"), one a line.
 * job_runner --syscalls JOB [FILE_SIZE]
 *	prints the syscalls JOB declares for one op, "name count" a line:
 *	its table row's per-op count plus per-inner-op count times
 *	job_inner_ops() at FILE_SIZE (default as below).
 * job_runner JOB N DIR LIBEXEC_DIR [FILE_SIZE]
 *	sets JOB up as user 0 of a 1-user level in DIR, runs N ops, tears
 *	it down. FILE_SIZE defaults to AIM7's FILESIZE 10K + POOLSIZE 1M at
 *	one user. Exits 0 when every op succeeded and, for an AIM7 job,
 *	the ops reported exactly N x job_inner_ops() inner operations
 *	through job_progress(); 77 when the job skipped itself; 1 else.
 *
 * Running it with N = 12 and N = 4 under `strace -f -c`, the difference
 * divided by 8 is one op's syscalls, free of set-up and tear-down: the
 * way the reference counts of reaim's jobs were taken.
 */

static void remove_sysv(const int32_t *ids, const uint8_t *kinds)
{
	for (size_t i = 0; i < JOB_SYSV_MAX; i++) {
		if (!ids[i])
			continue;
		if (kinds[i] == JOB_SYSV_SHM)
			shmctl(ids[i] - 1, IPC_RMID, NULL);
		else if (kinds[i] == JOB_SYSV_SEM)
			semctl(ids[i] - 1, 0, IPC_RMID);
		else if (kinds[i] == JOB_SYSV_MSG)
			msgctl(ids[i] - 1, IPC_RMID, NULL);
	}
}

/* AIM7's FILESIZE 10K + POOLSIZE 1M, at one user. */
#define DEFAULT_FILE_SIZE (10240 + 1048576)

static int print_syscalls(const char *name, const char *file_size_arg)
{
	const struct job *job = job_find(name);
	uint64_t file_size = DEFAULT_FILE_SIZE;
	unsigned long inner;

	if (!job) {
		fprintf(stderr, "job_runner: no job %s\n", name);
		return 2;
	}
	if (file_size_arg)
		file_size = strtoull(file_size_arg, NULL, 10);
	inner = job_inner_ops(job, file_size);
	for (const struct job_syscall *sc = job->syscalls; sc && sc->name; sc++)
		printf("%s %lu\n", sc->name,
		       sc->per_op + (unsigned long)sc->per_inner * inner);
	return 0;
}

static int list_jobs(void)
{
	for (size_t i = 0; i < job_table_len; i++)
		printf("%s %s\n", job_table[i]->name,
		       job_table[i]->units == JOB_UNITS_AIM7 ? "aim7" : "micro");
	return 0;
}

int main(int argc, char **argv)
{
	int32_t sysv_ids[JOB_SYSV_MAX] = { 0 };
	uint8_t sysv_kinds[JOB_SYSV_MAX] = { 0 };
	char reason[256] = "";
	uint64_t progress = 0;
	struct job_ctx ctx = { 0 };
	const struct job *job;
	unsigned long n, inner;
	void *state = NULL;
	int rc, status = 0;

	if (argc == 2 && !strcmp(argv[1], "--list"))
		return list_jobs();
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--syscalls"))
		return print_syscalls(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: job_runner --list | --syscalls JOB [FILE_SIZE] |\n"
				"       job_runner JOB N DIR LIBEXEC_DIR [FILE_SIZE]\n");
		return 2;
	}
	job = job_find(argv[1]);
	if (!job) {
		fprintf(stderr, "job_runner: no job %s\n", argv[1]);
		return 2;
	}
	n = strtoul(argv[2], NULL, 10);
	ctx.user = 0;
	ctx.users = 1;
	ctx.dir = argv[3];
	ctx.run_dir = argv[3];
	ctx.libexec_dir = argv[4];
	ctx.file_size = argc == 6 ? strtoull(argv[5], NULL, 10) :
				    DEFAULT_FILE_SIZE;
	ctx.seed = 1;
	ctx.reason = reason;
	ctx.reason_len = sizeof(reason);
	ctx.sysv_ids = sysv_ids;
	ctx.sysv_kinds = sysv_kinds;
	ctx.progress = &progress;
	inner = job_inner_ops(job, ctx.file_size);

	rc = job->init(&ctx, &state);
	if (rc == JOB_SKIPPED) {
		fprintf(stderr, "job_runner: %s skipped: %s\n", job->name,
			reason);
		return 77;
	}
	if (rc) {
		fprintf(stderr, "job_runner: %s: init: %s%s%s\n", job->name,
			strerror(rc), reason[0] ? ": " : "", reason);
		remove_sysv(sysv_ids, sysv_kinds);
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		if (job->prepare && (rc = job->prepare(state)))
			break;
		if ((rc = job->run(state)))
			break;
	}
	if (rc) {
		fprintf(stderr, "job_runner: %s: op failed: %s\n", job->name,
			strerror(rc));
		status = 1;
	} else if (job->units == JOB_UNITS_AIM7 &&
		   progress != n * inner * JOB_PROGRESS_TICKS) {
		fprintf(stderr, "job_runner: %s: %lu ops reported %llu progress ticks, not %lu x %lu inner ops x %lu\n",
			job->name, n, (unsigned long long)progress, n, inner,
			JOB_PROGRESS_TICKS);
		status = 1;
	}
	if (job->fini)
		job->fini(state);
	remove_sysv(sysv_ids, sysv_kinds);
	return status;
}
