/* jobs/file.c: the file-system metadata jobs, micro and AIM7. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jobs/catalog.h"
#include "jobs/decimal.h"

/* Files a creat user keeps at most; bounds disk and inode use, and what a
 * user must unlink when its level ends. */
#define CREAT_KEEP 4

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
	/* "DIR/<tag><user>.", the name of every file of this job and user
	 * but its sequence number, which file_name() writes after it. */
	char path[PATH_MAX];
	size_t prefix_len;
	unsigned long next;	/* sequence number of the next file */
	unsigned long live;	/* files that exist now */
	int fd;			/* creat, close: the descriptor of the op */
};

/* Names carry the job and the user index, so that the jobs of one user,
 * and users sharing one directory, never touch each other's files; only
 * the number is written per op (see decimal.h). Returns the path, in the
 * state's buffer, or NULL when it is too long. */
static const char *file_name(struct file_state *st, unsigned long seq)
{
	return decimal_put(st->path + st->prefix_len,
			   sizeof(st->path) - st->prefix_len, seq) ?
	       st->path : NULL;
}

static int file_init(const struct job_ctx *ctx, void **state, char tag)
{
	struct file_state *st = calloc(1, sizeof(*st));

	if (!st)
		return ENOMEM;
	if (job_path(st->path, sizeof(st->path), ctx->dir, "%c%u.", tag,
		     ctx->user)) {
		free(st);
		return ENAMETOOLONG;
	}
	st->prefix_len = strlen(st->path);
	st->fd = -1;
	*state = st;
	return 0;
}

/* Creates the next file of the sequence; its descriptor goes to *fd. */
static inline int file_creat_next(struct file_state *st, int *fd)
{
	const char *path = file_name(st, st->next);

	if (!path)
		return ENAMETOOLONG;
	*fd = sys_creat(path, 0600);
	if (*fd < 0)
		return errno;
	st->next++;
	st->live++;
	return 0;
}

/* Removes the oldest file this state owns; with gone_ok, one that is
 * missing already is no error. */
static inline int file_unlink_oldest(struct file_state *st, bool gone_ok)
{
	const char *path = file_name(st, st->next - st->live);

	if (!path)
		return ENAMETOOLONG;
	st->live--;
	if (sys_unlink(path) && !(gone_ok && errno == ENOENT))
		return errno;
	return 0;
}

/* Removes the files this state still owns, oldest first. */
static int file_unlink_live(struct file_state *st)
{
	int err = 0, rc;

	while (st->live) {
		rc = file_unlink_oldest(st, true);
		if (rc == ENAMETOOLONG)
			return rc;
		if (rc)
			err = rc;
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

	if (st->fd >= 0) {
		close(st->fd);
		st->fd = -1;
	}
	if (st->live < CREAT_KEEP)
		return 0;
	return file_unlink_oldest(st, true);
}

static int creat_run(void *state)
{
	struct file_state *st = state;

	return file_creat_next(st, &st->fd);
}

/* unlink: the op is one unlink() of an existing file, which prepare()
 * creates (creat + close) right before. */
static int unlink_prepare(void *state)
{
	struct file_state *st = state;
	int fd, err;

	if (st->live)
		return 0;
	err = file_creat_next(st, &fd);
	if (!err)
		close(fd);
	return err;
}

static int unlink_run(void *state)
{
	struct file_state *st = state;

	if (!st->live)
		return ENOENT;
	return file_unlink_oldest(st, false);
}

/* close: the op is one close() of a descriptor that holds the only
 * reference to its open file, so the kernel really releases the file
 * (unlike close(dup(fd))). prepare() opens it on a file made at init. */
static int close_init(const struct job_ctx *ctx, void **state)
{
	struct file_state *st;
	const char *path;
	int rc, fd;

	rc = file_init(ctx, state, 'k');
	if (rc)
		return rc;
	st = *state;
	path = file_name(st, 0);
	if (!path)
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
	const char *path;

	if (st->fd >= 0)
		return 0;
	path = file_name(st, 0);
	if (!path)
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
	.uses_dir = true,
	.unit = "File Creations",
	.inner_ops = 1,
	.summary = "create a new empty file in the scratch directory",
	.syscalls = (const struct job_syscall[]){
		{ "creat", 1 }, { "close", 1 }, { "unlink", 1 }, { NULL, 0 } },
	.setup = "closes the previous op's descriptor; unlinks the oldest of "
		 "the user's 4 newest files",
	.init = creat_init,
	.prepare = creat_prepare,
	.run = creat_run,
	.fini = file_fini,
};

const struct job job_unlink = {
	.name = "unlink",
	.family = "file",
	.uses_dir = true,
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
	.uses_dir = true,
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

/*
 * The AIM7 file and directory jobs: each op does the work of one reaim job
 * of the same name. Their files carry the job and the user in their names,
 * like the files above, so that users sharing a directory never meet.
 */

/* Creates an empty file that must not exist yet. */
static int file_create_empty(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * Gives the file `first` the name `path` too. The directory jobs need many
 * names, not many files: a thousand users then need a thousand inodes, not
 * over a million. Where the filesystem allows no more links to one file,
 * the name gets an empty file of its own.
 */
static int file_add_name(const char *first, const char *path)
{
	if (!link(first, path))
		return 0;
	if (errno != EMLINK)
		return errno;
	return file_create_empty(path);
}

/* Removes a file this job owns; one that is already gone is fine. */
static void file_remove(const char *path)
{
	sys_unlink(path);
}

/*
 * creat_clo: CREAT_CLO_LOOPS times, creat() one file and close it, then
 * remove the file. The first creat() makes the file, the others truncate
 * it. An inner op is one creat() and its close().
 */
#define CREAT_CLO_LOOPS 1000

struct creat_clo_state {
	uint64_t *progress;
	char path[PATH_MAX];
};

static int creat_clo_init(const struct job_ctx *ctx, void **state)
{
	struct creat_clo_state *st = JOB_STATE_NEW(ctx, struct creat_clo_state);

	if (!st)
		return ENOMEM;
	if (job_path(st->path, sizeof(st->path), ctx->dir, "creat_clo.%u",
		     ctx->user)) {
		free(st);
		return ENAMETOOLONG;
	}
	*state = st;
	return 0;
}

static int creat_clo_run(void *state)
{
	struct creat_clo_state *st = state;
	int fd, err = 0;

	for (unsigned int i = 0; i < CREAT_CLO_LOOPS; i++) {
		fd = sys_creat(st->path, 0600);
		if (fd < 0) {
			err = errno;
			break;
		}
		if (close(fd)) {
			err = errno;
			break;
		}
		job_progress(st->progress, 1);
	}
	/* Even after a failure, so that the next op starts afresh. */
	if (sys_unlink(st->path) && !err)
		err = errno;
	return err;
}

static void creat_clo_fini(void *state)
{
	struct creat_clo_state *st = state;

	file_remove(st->path);
	free(st);
}

/*
 * link_test: creat() a file and give it LINK_NAMES - 1 more names (8 in
 * all, POSIX's smallest LINK_MAX); then, LINK_ROUNDS times, remove each
 * extra name and link it again; then remove every name and close the file.
 * That is 70 link() and 71 unlink() an op. An inner op is one remove and
 * relink of the rounds, AIM7's "Link/Unlink Pairs", 63 an op.
 */
#define LINK_NAMES 8
#define LINK_ROUNDS 9
#define LINK_PAIRS (LINK_ROUNDS * (LINK_NAMES - 1))

struct link_state {
	uint64_t *progress;
	size_t stride;		/* bytes from one name to the next */
	char names[];		/* LINK_NAMES paths, DIR/link_test.<user>.<i> */
};

_Static_assert(LINK_NAMES <= 10, "link_test's names end in one digit");

static const char *link_name(const struct link_state *st, unsigned int i)
{
	return st->names + i * st->stride;
}

/* Removes every name an op may have left; a missing one is fine. */
static void link_remove_all(const struct link_state *st)
{
	for (unsigned int i = 0; i < LINK_NAMES; i++)
		file_remove(link_name(st, i));
}

static int link_init(const struct job_ctx *ctx, void **state)
{
	struct link_state *st;
	char path[PATH_MAX];
	size_t len;

	/* Every name has the same length: the index is one digit. */
	if (job_path(path, sizeof(path), ctx->dir, "link_test.%u.0",
		     ctx->user))
		return ENAMETOOLONG;
	len = strlen(path) + 1;
	st = job_state_new(ctx, sizeof(*st) + LINK_NAMES * len,
			   offsetof(struct link_state, progress));
	if (!st)
		return ENOMEM;
	st->stride = len;
	for (unsigned int i = 0; i < LINK_NAMES; i++)
		job_path(st->names + i * len, len, ctx->dir, "link_test.%u.%u",
			 ctx->user, i);
	*state = st;
	return 0;
}

static int link_run(void *state)
{
	struct link_state *st = state;
	const char *file = link_name(st, 0);
	unsigned int i, round;
	int fd, err;

	fd = sys_creat(file, 0600);
	if (fd < 0)
		return errno;
	for (i = 1; i < LINK_NAMES; i++)
		if (link(file, link_name(st, i)))
			goto fail;
	for (round = 0; round < LINK_ROUNDS; round++) {
		for (i = 1; i < LINK_NAMES; i++) {
			if (sys_unlink(link_name(st, i)) ||
			    link(file, link_name(st, i)))
				goto fail;
			job_progress(st->progress, 1);
		}
	}
	for (i = 0; i < LINK_NAMES; i++)
		if (sys_unlink(link_name(st, i)))
			goto fail;
	return close(fd) ? errno : 0;
fail:
	err = errno;
	/* Leave no name behind, so that the next op starts afresh. */
	link_remove_all(st);
	close(fd);
	return err;
}

static void link_fini(void *state)
{
	link_remove_all(state);
	free(state);
}

/*
 * dir_rtns_1: DIR_READS readdir() calls on one open directory, rewinding
 * it whenever they reach its end. AIM7 reads /bin, whose size differs from
 * one system to the next; the job reads a directory of the run's instead,
 * made once with as many entries as /bin had where reaim's counts were
 * taken (1305 with . and ..; the counts allow 1250 to 1427), with names of
 * 10 characters. As /bin is in AIM7, it is one directory that every user
 * of the run (of its scratch directory) reads. The reads go round it 7
 * times and part of an eighth, and with glibc's 32 KiB directory buffer a
 * round takes 2 getdents64 and one more that finds the end: 22 getdents64
 * and 7 lseek an op, as reaim's made there. An inner op is one readdir(),
 * AIM7's "Directory Operations".
 */
#define DIR_READS 10000
#define DIR_READ_STEP 100	/* readdir() calls per progress report */
#define DIR_FILES 1303		/* entries besides . and .. */
#define DIR_NAME "dir_rtns_1.d"

struct dir_state {
	uint64_t *progress;
	char dir[PATH_MAX];
};

/* Makes dir with DIR_FILES names of one empty file (names, not inodes:
 * the directory's size is what a read sees). */
static int dir_fill(const char *dir)
{
	char first[PATH_MAX], path[PATH_MAX];
	int err;

	if (mkdir(dir, 0755))
		return errno;
	if (job_path(first, sizeof(first), dir, "entry%05u", 0))
		return ENAMETOOLONG;
	err = file_create_empty(first);
	for (unsigned int i = 1; !err && i < DIR_FILES; i++)
		err = job_path(path, sizeof(path), dir, "entry%05u", i) ?
			ENAMETOOLONG : file_add_name(first, path);
	return err;
}

/* Removes a directory of names that dir_fill() made, all or in part. */
static void dir_empty_out(const char *dir)
{
	char path[PATH_MAX];

	for (unsigned int i = 0; i < DIR_FILES; i++)
		if (!job_path(path, sizeof(path), dir, "entry%05u", i))
			unlink(path);
	rmdir(dir);
}

/*
 * A directory of the run's that every user of it reads, run_dir/name,
 * made by the first user that needs it: under a lock (flock(), which the
 * kernel drops when its holder dies, and which holds between threads
 * too, each with its own open file), fill() makes it under a name of the
 * user's own, and it is renamed into place whole, so that a user that
 * finds it finds it complete; empty_out() removes what a fill made, all
 * or in part. It stays for the run: the driver removes the run's
 * directory at its end. Its path goes to out.
 */
static int shared_dir_make(const struct job_ctx *ctx, const char *name,
			   int (*fill)(const char *dir),
			   void (*empty_out)(const char *dir), char *out,
			   size_t len)
{
	char lock[PATH_MAX], part[PATH_MAX];
	struct stat sb;
	int fd, err = 0;

	if (job_path(out, len, ctx->run_dir, "%s", name) ||
	    job_path(lock, sizeof(lock), ctx->run_dir, "%s.lock", name) ||
	    job_path(part, sizeof(part), ctx->run_dir, "%s.%u", name,
		     ctx->user))
		return ENAMETOOLONG;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	while (flock(fd, LOCK_EX))
		if (errno != EINTR) {
			err = errno;
			goto out;
		}
	if (!stat(out, &sb))
		goto out;
	/* What a user killed while filling left. */
	empty_out(part);
	err = fill(part);
	if (!err && rename(part, out))
		err = errno;
	if (err)
		empty_out(part);
out:
	close(fd);
	return err;
}

static int dir_init(const struct job_ctx *ctx, void **state)
{
	struct dir_state *st = JOB_STATE_NEW(ctx, struct dir_state);
	int err;

	if (!st)
		return ENOMEM;
	err = shared_dir_make(ctx, DIR_NAME, dir_fill, dir_empty_out, st->dir,
			      sizeof(st->dir));
	if (err) {
		job_set_reason(ctx, "cannot make the directory it reads, %s",
			       st->dir);
		free(st);
		return err;
	}
	*state = st;
	return 0;
}

static int dir_run(void *state)
{
	struct dir_state *st = state;
	DIR *d = opendir(st->dir);
	int err = 0;

	if (!d)
		return errno;
	for (unsigned int step = 0; step < DIR_READS / DIR_READ_STEP; step++) {
		for (unsigned int i = 0; i < DIR_READ_STEP; i++) {
			errno = 0;
			if (readdir(d))
				continue;
			if (errno) {
				err = errno;
				goto out;
			}
			rewinddir(d);
		}
		job_progress(st->progress, DIR_READ_STEP);
	}
out:
	closedir(d);
	return err;
}

/*
 * disk_src: a search of a small source tree. An op reads the tree's list
 * of names, shuffles the names to stat and the names to create, and goes
 * through SRC_SLOTS slots: it stats the slot's name to stat, if any, and
 * creates, closes and removes the slot's name to create, if any. An inner
 * op is one slot, AIM7's "Directory Searches".
 *
 * AIM7 ships its tree (fakeh.tgz), one copy of which every user of a disk
 * directory searches; here the run's first user makes one of the same
 * shape in the run's directory, which all its users then search: 8
 * directories of 40 files at depths 0 to 6 below the top, and a list of
 * 9.6 KiB (4 read() calls) that names every file, 57 of them to stat, and
 * 43 names to create. As in AIM7, the op works inside the tree: it
 * changes into it and back (getcwd, chdir) and uses relative paths, and
 * the names it creates end in the process ID (getpid), then the user's
 * number, which keeps threads apart. "Back" is the user's scratch
 * directory, its working directory (driver/users/user_loop.c), never the
 * driver's: a user thread has a working directory of its own, and one
 * that may not enter where the driver was started still comes back.
 */
#define SRC_SLOTS 75		/* names of each kind the list may hold */
#define SRC_FILES 40		/* files of a directory that has files */
#define SRC_STATS 57		/* names to stat in the list */
#define SRC_CREATS 43		/* names to create in the list */
#define SRC_SHUFFLES 5		/* passes that shuffle each kind */
#define SRC_LINE_MAX 160	/* longest line of the list */
#define SRC_LIST "dirlist"

/* The tree, parents before children; its stats add up to SRC_STATS and its
 * creats to SRC_CREATS. File i of a directory is "hdr<i>"; the list names
 * files 2, 7, 12, ... to stat, and "tmp1." to "tmp<creats>." to create. */
static const struct src_dir {
	const char *path;	/* from the top of the tree */
	unsigned char files;
	unsigned char stats;
	unsigned char creats;
} src_dirs[] = {
	{ ".", SRC_FILES, 8, 0 },
	{ "./bin", SRC_FILES, 6, 7 },
	{ "./usr", 0, 0, 0 },
	{ "./usr/home", SRC_FILES, 7, 5 },
	{ "./usr/spool", 0, 0, 0 },
	{ "./usr/spool/mail", 0, 0, 0 },
	{ "./usr/spool/mail/tmp", SRC_FILES, 7, 6 },
	{ "./usr/local", 0, 0, 0 },
	{ "./usr/local/src", 0, 0, 0 },
	{ "./usr/local/src/proj", 0, 0, 0 },
	{ "./usr/local/src/proj/doc", 0, 0, 0 },
	{ "./usr/local/src/proj/doc/man1", SRC_FILES, 7, 6 },
	{ "./usr/local/src/proj/lib", SRC_FILES, 6, 6 },
	{ "./usr/src", 0, 0, 0 },
	{ "./usr/src/tools", 0, 0, 0 },
	{ "./usr/src/tools/build", 0, 0, 0 },
	{ "./usr/src/tools/build/source", SRC_FILES, 8, 6 },
	{ "./usr/opt", 0, 0, 0 },
	{ "./usr/opt/port", 0, 0, 0 },
	{ "./usr/opt/port/tools", 0, 0, 0 },
	{ "./usr/opt/port/tools/compress", SRC_FILES, 8, 7 },
};

#define SRC_N_DIRS (sizeof(src_dirs) / sizeof(src_dirs[0]))

struct src_state {
	uint64_t *progress;
	uint64_t rng;
	unsigned int user;	/* in the names the op creates */
	char top[PATH_MAX];	/* the run's tree, shared by its users */
	char cwd[PATH_MAX];	/* where the op returns to */
	/* One op's names, as read from the list, and the order of its slots
	 * (NULL: no name of that kind in the slot). */
	char stat_names[SRC_SLOTS][SRC_LINE_MAX];
	char creat_names[SRC_SLOTS][SRC_LINE_MAX + 24];
	const char *stats[SRC_SLOTS];
	const char *creats[SRC_SLOTS];
};

/* A path in the tree: top, the directory's path, and name if not NULL. */
static int src_path(const char *top, const struct src_dir *dir,
		    const char *name, char *buf, size_t len)
{
	return name ? job_path(buf, len, top, "%s/%s", dir->path, name) :
		      job_path(buf, len, top, "%s", dir->path);
}

static bool src_is_stat(const struct src_dir *dir, unsigned int file)
{
	return file % 5 == 2 && file / 5 < dir->stats;
}

/* The name the op creates for "tmp<c>." of dir: AIM7 ends it in the
 * process ID; the user's number after it keeps threads apart. */
static void src_creat_name(char *buf, size_t len, const char *prefix,
			   int pid, unsigned int user)
{
	snprintf(buf, len, "%s%d.%u", prefix, pid, user);
}

/* Removes the names this user's ops may have left in the tree (an op cut
 * short); the tree itself is the run's. */
static void src_fini(void *state)
{
	struct src_state *st = state;
	char prefix[32], name[64], path[PATH_MAX];
	int pid = getpid();

	for (size_t d = 0; d < SRC_N_DIRS; d++)
		for (unsigned int c = 1; c <= src_dirs[d].creats; c++) {
			snprintf(prefix, sizeof(prefix), "tmp%u.", c);
			src_creat_name(name, sizeof(name), prefix, pid,
				       st->user);
			if (!src_path(st->top, &src_dirs[d], name, path,
				      sizeof(path)))
				unlink(path);
		}
	free(st);
}

/* Removes a tree that src_fill() made, all or in part, deepest first. */
static void src_empty_out(const char *top)
{
	char name[32], path[PATH_MAX];

	for (size_t d = SRC_N_DIRS; d--;) {
		for (unsigned int f = 0; f < src_dirs[d].files; f++) {
			snprintf(name, sizeof(name), "hdr%02u", f);
			if (!src_path(top, &src_dirs[d], name, path,
				      sizeof(path)))
				unlink(path);
		}
		if (d && !src_path(top, &src_dirs[d], NULL, path, sizeof(path)))
			rmdir(path);
	}
	if (!job_path(path, sizeof(path), top, SRC_LIST))
		unlink(path);
	rmdir(top);
}

/* Writes the list of the tree's names: each directory, then its files
 * ("s " before those to stat), then its names to create ("c "). */
static int src_write_list(const char *top)
{
	char path[PATH_MAX];
	const struct src_dir *dir;
	FILE *f;
	int err;

	if (job_path(path, sizeof(path), top, SRC_LIST))
		return ENAMETOOLONG;
	f = fopen(path, "wxe");
	if (!f)
		return errno;
	for (size_t d = 0; d < SRC_N_DIRS; d++) {
		dir = &src_dirs[d];
		fprintf(f, "%s\n", dir->path);
		for (unsigned int i = 0; i < dir->files; i++)
			fprintf(f, "%s%s/hdr%02u\n",
				src_is_stat(dir, i) ? "s " : "", dir->path, i);
		for (unsigned int i = 1; i <= dir->creats; i++)
			fprintf(f, "c %s/tmp%u.\n", dir->path, i);
	}
	err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

/* Makes the tree at top: its directories, its files (names of one empty
 * file) and its list. The directories are open to every user of the run,
 * who create their names in them. */
static int src_fill(const char *top)
{
	char first[PATH_MAX], path[PATH_MAX], name[32];
	const struct src_dir *dir;
	int err;

	if (mkdir(top, 0755))
		return errno;
	if (src_path(top, &src_dirs[0], "hdr00", first, sizeof(first)))
		return ENAMETOOLONG;
	for (size_t d = 0; d < SRC_N_DIRS; d++) {
		dir = &src_dirs[d];
		if (src_path(top, dir, NULL, path, sizeof(path)))
			return ENAMETOOLONG;
		if (d && mkdir(path, 0755))
			return errno;
		for (unsigned int f = 0; f < dir->files; f++) {
			snprintf(name, sizeof(name), "hdr%02u", f);
			if (src_path(top, dir, name, path, sizeof(path)))
				return ENAMETOOLONG;
			err = d || f ? file_add_name(first, path) :
				       file_create_empty(path);
			if (err)
				return err;
		}
	}
	return src_write_list(top);
}

static int src_init(const struct job_ctx *ctx, void **state)
{
	struct src_state *st = JOB_STATE_NEW(ctx, struct src_state);
	int err;

	if (!st)
		return ENOMEM;
	st->rng = ctx->seed ^ 0x5cc5cc5cULL;
	st->user = ctx->user;
	err = shared_dir_make(ctx, "disk_src.d", src_fill, src_empty_out,
			      st->top, sizeof(st->top));
	if (err) {
		job_set_reason(ctx, "cannot make the source tree %s", st->top);
		free(st);
		return err;
	}
	*state = st;
	return 0;
}

static int src_read_list(struct src_state *st, FILE *list, int pid)
{
	unsigned int n_stats = 0, n_creats = 0;
	char line[SRC_LINE_MAX];
	size_t len;

	memset(st->stats, 0, sizeof(st->stats));
	memset(st->creats, 0, sizeof(st->creats));
	while (fgets(line, sizeof(line), list)) {
		if (line[0] != 's' && line[0] != 'c')
			continue;
		len = strlen(line);
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len < 3 || line[1] != ' ')
			return EINVAL;
		if (line[0] == 's') {
			if (n_stats == SRC_SLOTS)
				return EINVAL;
			memcpy(st->stat_names[n_stats], line + 2, len - 1);
			st->stats[n_stats] = st->stat_names[n_stats];
			n_stats++;
		} else {
			if (n_creats == SRC_SLOTS)
				return EINVAL;
			src_creat_name(st->creat_names[n_creats],
				       sizeof(st->creat_names[n_creats]),
				       line + 2, pid, st->user);
			st->creats[n_creats] = st->creat_names[n_creats];
			n_creats++;
		}
	}
	return ferror(list) ? EIO : 0;
}

/* SRC_SHUFFLES passes, each swapping every slot with a random one. */
static void src_shuffle(const char **slots, uint64_t *rng)
{
	const char *t;
	unsigned int j;

	for (unsigned int pass = 0; pass < SRC_SHUFFLES; pass++) {
		for (unsigned int i = 0; i < SRC_SLOTS; i++) {
			j = (unsigned int)(job_random(rng) % SRC_SLOTS);
			t = slots[i];
			slots[i] = slots[j];
			slots[j] = t;
		}
	}
}

static int src_search(struct src_state *st)
{
	struct stat sb;
	int fd;

	for (unsigned int i = 0; i < SRC_SLOTS; i++) {
		if (st->stats[i] && stat(st->stats[i], &sb))
			return errno;
		if (st->creats[i]) {
			fd = sys_creat(st->creats[i], 0600);
			if (fd < 0)
				return errno;
			close(fd);
			if (sys_unlink(st->creats[i]))
				return errno;
		}
		job_progress(st->progress, 1);
	}
	return 0;
}

static int src_run(void *state)
{
	struct src_state *st = state;
	FILE *list;
	int err;

	if (!getcwd(st->cwd, sizeof(st->cwd)))
		return errno;
	if (chdir(st->top))
		return errno;
	list = fopen(SRC_LIST, "re");
	if (!list) {
		err = errno;
		goto out;
	}
	err = src_read_list(st, list, getpid());
	fclose(list);
	if (err)
		goto out;
	src_shuffle(st->stats, &st->rng);
	src_shuffle(st->creats, &st->rng);
	err = src_search(st);
out:
	/* Back where the op started, even after a failure: the user's other
	 * jobs may use paths relative to it. */
	if (chdir(st->cwd) && !err)
		err = errno;
	return err;
}

const struct job job_creat_clo = {
	.name = "creat_clo",
	.aim7_name = "creat-clo",
	.family = "file",
	.units = JOB_UNITS_AIM7,
	.uses_dir = true,
	.unit = "File Creations and Closes",
	.inner_ops = CREAT_CLO_LOOPS,
	.summary = "creat() and close() one file 1000 times, then remove it",
	.syscalls = (const struct job_syscall[]){
		{ "creat", 0, 1 }, { "close", 0, 1 }, { "unlink", 1, 0 },
		{ NULL, 0, 0 } },
	.init = creat_clo_init,
	.run = creat_clo_run,
	.fini = creat_clo_fini,
};

const struct job job_link_test = {
	.name = "link_test",
	.family = "file",
	.units = JOB_UNITS_AIM7,
	.uses_dir = true,
	.unit = "Link/Unlink Pairs",
	.inner_ops = LINK_PAIRS,
	.summary = "give a new file 7 more names, remove and relink each 9 "
		   "times, remove them all",
	.syscalls = (const struct job_syscall[]){
		{ "link", LINK_NAMES - 1, 1 },
		{ "unlink", LINK_NAMES, 1 },
		{ "creat", 1, 0 }, { "close", 1, 0 }, { NULL, 0, 0 } },
	.init = link_init,
	.run = link_run,
	.fini = link_fini,
};

const struct job job_dir_rtns_1 = {
	.name = "dir_rtns_1",
	.family = "file",
	.units = JOB_UNITS_AIM7,
	.unit = "Directory Operations",
	.inner_ops = DIR_READS,
	.summary = "readdir() 10000 times the run's directory of 1305 "
		   "entries, every user the same one, rewinding it at its end",
	.syscalls = (const struct job_syscall[]){
		{ "getdents64", 22, 0 }, { "lseek", 7, 0 },
		{ "openat", 1, 0 }, { "newfstatat", 1, 0 }, { "close", 1, 0 },
		{ NULL, 0, 0 } },
	.deviation = "reads a directory of the run's with /bin's entry count "
		     "on the reference system, not /bin itself, whose size "
		     "differs from one system to the next",
	.init = dir_init,
	.run = dir_run,
	.fini = free,
};

const struct job job_disk_src = {
	.name = "disk_src",
	.family = "file",
	.units = JOB_UNITS_AIM7,
	.unit = "Directory Searches",
	.inner_ops = SRC_SLOTS,
	.summary = "in the run's source tree, read its name list, stat 57 "
		   "files, create and remove 43",
	.syscalls = (const struct job_syscall[]){
		{ "newfstatat", 1 + SRC_STATS, 0 },
		{ "close", 1 + SRC_CREATS, 0 },
		{ "creat", SRC_CREATS, 0 }, { "unlink", SRC_CREATS, 0 },
		{ "read", 4, 0 }, { "chdir", 2, 0 }, { "getpid", 1, 0 },
		{ "getcwd", 1, 0 }, { "openat", 1, 0 }, { NULL, 0, 0 } },
	.init = src_init,
	.run = src_run,
	.fini = src_fini,
};
