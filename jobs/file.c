/* jobs/file.c: file-system metadata jobs (creat, unlink, close). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jobs/catalog.h"

/* Files a creat user keeps at most; bounds disk and inode use. */
#define CREAT_KEEP 16

/* Use the creat and unlink syscalls themselves where the ABI has them, so
 * that what strace shows is what the job name says. */
static int sys_creat(const char *path, mode_t mode)
{
#ifdef SYS_creat
	return (int)syscall(SYS_creat, path, mode);
#else
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
#endif
}

static int sys_unlink(const char *path)
{
#ifdef SYS_unlink
	return (int)syscall(SYS_unlink, path);
#else
	return unlinkat(AT_FDCWD, path, 0);
#endif
}

struct file_state {
	char dir[PATH_MAX];
	unsigned int user;
	char tag;		/* which job: each names its files apart */
	unsigned long next;	/* sequence number of the next file */
	unsigned long live;	/* files that exist now */
	int fd;			/* creat, close: the descriptor of the op */
};

/* Names carry the job and the user index, so that the jobs of one user,
 * and users sharing one directory, never touch each other's files. */
static int file_name(const struct file_state *st, unsigned long seq,
		     char *buf, size_t len)
{
	return job_path(buf, len, st->dir, "%c%u.%lu", st->tag, st->user, seq);
}

static int file_init(const struct job_ctx *ctx, void **state, char tag)
{
	struct file_state *st = calloc(1, sizeof(*st));

	if (!st)
		return ENOMEM;
	if (job_path(st->dir, sizeof(st->dir), ctx->dir, ".")) {
		free(st);
		return ENAMETOOLONG;
	}
	st->user = ctx->user;
	st->tag = tag;
	st->fd = -1;
	*state = st;
	return 0;
}

/* Removes the files this state still owns, oldest first. */
static int file_unlink_live(struct file_state *st)
{
	char path[PATH_MAX];
	int err = 0;

	for (; st->live; st->live--) {
		if (file_name(st, st->next - st->live, path, sizeof(path)))
			return ENAMETOOLONG;
		if (sys_unlink(path) && errno != ENOENT)
			err = errno;
	}
	return err;
}

static void file_fini(void *state)
{
	struct file_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	file_unlink_live(st);
	free(st);
}

static int creat_init(const struct job_ctx *ctx, void **state)
{
	return file_init(ctx, state, 'c');
}

static int unlink_init(const struct job_ctx *ctx, void **state)
{
	return file_init(ctx, state, 'u');
}

/* creat: the op is one creat() of a new file. Closing the previous op's
 * descriptor and removing the oldest file, once CREAT_KEEP exist, happen
 * in prepare(): one close and one unlink per op, never a batch, so that
 * every op is short even when thousands of users share a directory. */
static int creat_prepare(void *state)
{
	struct file_state *st = state;
	char path[PATH_MAX];

	if (st->fd >= 0) {
		close(st->fd);
		st->fd = -1;
	}
	if (st->live < CREAT_KEEP)
		return 0;
	if (file_name(st, st->next - st->live, path, sizeof(path)))
		return ENAMETOOLONG;
	st->live--;
	if (sys_unlink(path) && errno != ENOENT)
		return errno;
	return 0;
}

static int creat_run(void *state)
{
	struct file_state *st = state;
	char path[PATH_MAX];

	if (file_name(st, st->next, path, sizeof(path)))
		return ENAMETOOLONG;
	st->fd = sys_creat(path, 0600);
	if (st->fd < 0)
		return errno;
	st->next++;
	st->live++;
	return 0;
}

/* unlink: the op is one unlink() of an existing file, which prepare()
 * creates (creat + close) right before. */
static int unlink_prepare(void *state)
{
	struct file_state *st = state;
	char path[PATH_MAX];
	int fd;

	if (st->live)
		return 0;
	if (file_name(st, st->next, path, sizeof(path)))
		return ENAMETOOLONG;
	fd = sys_creat(path, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	st->next++;
	st->live++;
	return 0;
}

static int unlink_run(void *state)
{
	struct file_state *st = state;
	char path[PATH_MAX];

	if (!st->live)
		return ENOENT;
	if (file_name(st, st->next - st->live, path, sizeof(path)))
		return ENAMETOOLONG;
	st->live--;
	if (sys_unlink(path))
		return errno;
	return 0;
}

/* close: the op is one close() of a descriptor that holds the only
 * reference to its open file, so the kernel really releases the file
 * (unlike close(dup(fd))). prepare() opens it on a file made at init. */
static int close_init(const struct job_ctx *ctx, void **state)
{
	struct file_state *st;
	char path[PATH_MAX];
	int rc, fd;

	rc = file_init(ctx, state, 'k');
	if (rc)
		return rc;
	st = *state;
	if (file_name(st, 0, path, sizeof(path)))
		return ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	st->next = 1;
	st->live = 1;
	return 0;
}

static int close_prepare(void *state)
{
	struct file_state *st = state;
	char path[PATH_MAX];

	if (st->fd >= 0)
		return 0;
	if (file_name(st, 0, path, sizeof(path)))
		return ENAMETOOLONG;
	st->fd = open(path, O_RDONLY | O_NOFOLLOW);
	return st->fd < 0 ? errno : 0;
}

static int close_run(void *state)
{
	struct file_state *st = state;
	int fd = st->fd;

	st->fd = -1;
	if (close(fd))
		return errno;
	return 0;
}

const struct job job_creat = {
	.name = "creat",
	.family = "file",
	.unit = "File Creations",
	.inner_ops = 1,
	.summary = "create a new empty file in the scratch directory",
	.syscalls = (const struct job_syscall[]){
		{ "creat", 1 }, { "close", 1 }, { "unlink", 1 }, { NULL, 0 } },
	.setup = "closes the previous op's descriptor; unlinks the oldest of "
		 "the user's 16 newest files",
	.init = creat_init,
	.prepare = creat_prepare,
	.run = creat_run,
	.fini = file_fini,
};

const struct job job_unlink = {
	.name = "unlink",
	.family = "file",
	.unit = "File Removals",
	.inner_ops = 1,
	.summary = "remove an existing empty file from the scratch directory",
	.syscalls = (const struct job_syscall[]){
		{ "unlink", 1 }, { "creat", 1 }, { "close", 1 }, { NULL, 0 } },
	.setup = "creates (creat + close) the file the op removes",
	.init = unlink_init,
	.prepare = unlink_prepare,
	.run = unlink_run,
	.fini = file_fini,
};

const struct job job_close = {
	.name = "close",
	.family = "file",
	.unit = "File Closes",
	.inner_ops = 1,
	.summary = "close the last descriptor of an open file",
	.syscalls = (const struct job_syscall[]){
		{ "close", 1 }, { "openat", 1 }, { NULL, 0 } },
	.setup = "opens the descriptor the op closes",
	.init = close_init,
	.prepare = close_prepare,
	.run = close_run,
	.fini = file_fini,
};
