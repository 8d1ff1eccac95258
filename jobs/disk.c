/* jobs/disk.c: the AIM7 disk jobs, on a file of the user's in 1 KiB blocks. */

/* Random and sequential reads, writes, copies and updates, buffered,
 * synchronous (O_SYNC) or direct (O_DIRECT). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "jobs/catalog.h"

/*
 * AIM7 moves its disk files in 1 KiB blocks, and its file size is a
 * number of them: FILESIZE + POOLSIZE / users, in KiB, rounded down. One
 * op of most jobs moves the whole file once; the main loops of the sync_*
 * jobs move half as many blocks, as AIM7's do "so as not to pound disk".
 * The buffer is aligned to 4 KiB for O_DIRECT, which then takes 1 KiB
 * transfers wherever the device's logical block is at most 1 KiB
 * (512-byte sectors); where it is not, the disk_dio_* jobs skip
 * themselves. The file is not rounded up for them: its size is whole
 * blocks, and every transfer is one whole block at a block offset.
 */
#define DISK_BLOCK 1024
#define DISK_MEM_ALIGN 4096
/* Two blocks, so that a half-file job still moves one. */
#define DISK_MIN_BLOCKS 2

/*
 * No job syncs the machine. AIM7, and re-aim-7 unless run with -y, run
 * sync(1) around the plain disk_* jobs' transfers; that flushes every
 * dirty page of the machine, so with many users each op would wait for
 * all the others' writes, and it adds a fork and exec to each op. Like
 * re-aim-7 -y, where the reference counts come from, the plain disk_*
 * jobs therefore do what their disk_b* twins do, except that disk_rd
 * writes the file it reads and disk_brd reads the one made at init.
 */

static unsigned long disk_blocks(uint64_t file_size)
{
	uint64_t n = file_size / DISK_BLOCK;

	if (n < DISK_MIN_BLOCKS)
		n = DISK_MIN_BLOCKS;
	return n > ULONG_MAX ? ULONG_MAX : (unsigned long)n;
}

static unsigned long disk_half_blocks(uint64_t file_size)
{
	return disk_blocks(file_size) / 2;
}

/* How an op makes its own file: creat(), or open() with O_WRONLY |
 * O_CREAT and these flags, as the job's AIM7 counterpart does. */
#define DISK_CREAT (-1)

/* What distinguishes one disk job from the others of its pattern. */
struct disk_spec {
	const char *name;	/* tags the user's files */
	int create;		/* DISK_CREAT, open() flags, 0: no file */
	int io_flags;		/* 0, O_SYNC or O_DIRECT, for the reopen */
	bool half;		/* the op moves half the file's blocks */
	bool source;		/* the op reads a file made at init */
	bool stat_dir;		/* the op first stats its directory */
	bool unlink_again;	/* the copy is unlinked again after closing */
};

struct disk_state {
	const struct disk_spec *spec;
	uint64_t *progress;
	unsigned long blocks;	/* the file's blocks */
	unsigned long loops;	/* blocks the op's main loop moves */
	uint64_t rng;		/* per-user generator for random blocks */
	unsigned char *buf;	/* one block, see disk_buf_get */
	bool src_made;		/* src_path is this job's, for fini */
	const char *dir;
	char path[PATH_MAX];	/* the file each op makes and removes */
	char src_path[PATH_MAX]; /* the file made at init, if spec->source */
};

static off_t disk_random_offset(struct disk_state *st, unsigned long blocks)
{
	return (off_t)(job_random(&st->rng) % blocks) * DISK_BLOCK;
}

/*
 * One block buffer per user, shared by all its disk jobs: a user runs one
 * op at a time, and nineteen jobs each with a page-aligned buffer would
 * cost a user 76 KiB. Per thread, for the threads mode.
 */
static __thread unsigned char *disk_buf;
static __thread unsigned int disk_buf_refs;

static unsigned char *disk_buf_get(uint64_t seed)
{
	if (!disk_buf) {
		if (posix_memalign((void **)&disk_buf, DISK_MEM_ALIGN,
				   DISK_BLOCK))
			return disk_buf = NULL;
		/* AIM7 writes zeros; random bytes keep a compressing
		 * filesystem from turning the writes into nothing. */
		job_fill_random(disk_buf, DISK_BLOCK, seed);
	}
	disk_buf_refs++;
	return disk_buf;
}

static void disk_buf_put(void)
{
	if (disk_buf_refs && !--disk_buf_refs) {
		free(disk_buf);
		disk_buf = NULL;
	}
}

/*
 * An AIM7 job reports its inner operations as it goes (see
 * job_progress()). A disk op's time goes into its block transfers, so it
 * reports its `inner` operations in proportion to the `steps` transfers
 * done, after each one, in progress ticks: a job whose unit is its read
 * loop but which first writes the file reports half an inner op a block,
 * in both halves.
 */
struct disk_progress {
	uint64_t *counter;
	unsigned long steps, done, inner;
	unsigned long reported;		/* ticks */
};

static void disk_progress_start(struct disk_progress *p,
				const struct disk_state *st,
				unsigned long steps)
{
	p->counter = st->progress;
	p->steps = steps;
	p->done = 0;
	p->inner = st->loops;
	p->reported = 0;
}

static void disk_step(struct disk_progress *p)
{
	unsigned long want = (unsigned long)((unsigned __int128)++p->done *
					     p->inner * JOB_PROGRESS_TICKS /
					     p->steps);

	if (want > p->reported) {
		job_progress_ticks(p->counter, want - p->reported);
		p->reported = want;
	}
}

/*
 * The loop of an O_SYNC or O_DIRECT op takes nearly all its time, so the
 * buffered writes that make its file first are not counted as steps.
 */
static bool disk_fill_counts(const struct disk_state *st)
{
	return !(st->spec->io_flags & (O_SYNC | O_DIRECT));
}

/* A short transfer on a file of known size is an I/O error, not EOF. */
static int disk_io_error(ssize_t n)
{
	return n < 0 ? errno : EIO;
}

/* Writes one block. A short write (a nearly full disk) is continued, so
 * that the error reported is the real one, ENOSPC, not a guess. */
static int disk_write_block(int fd, const unsigned char *buf)
{
	size_t done = 0;
	ssize_t n;

	while (done < DISK_BLOCK) {
		n = write(fd, buf + done, DISK_BLOCK - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return disk_io_error(n);
		done += (size_t)n;
	}
	return 0;
}

static int disk_read_block(int fd, unsigned char *buf)
{
	ssize_t n = read(fd, buf, DISK_BLOCK);

	return n == DISK_BLOCK ? 0 : disk_io_error(n);
}

static int disk_write_blocks(const struct disk_state *st, int fd,
			     unsigned long blocks, struct disk_progress *p)
{
	int err;

	for (unsigned long i = 0; i < blocks; i++) {
		err = disk_write_block(fd, st->buf);
		if (err)
			return err;
		if (p)
			disk_step(p);
	}
	return 0;
}

/* Makes the op's own file; returns its descriptor, or -1 with errno. */
static int disk_create(const struct disk_state *st)
{
	if (st->spec->create == DISK_CREAT)
		return creat(st->path, 0600);
	return open(st->path,
		    O_WRONLY | O_CREAT | O_CLOEXEC | st->spec->create, 0600);
}

/* Ends an op that made st->path: removes it and closes fd, keeping the
 * op's first error. AIM7's jobs do the two in either order, for the same
 * work. */
static int disk_finish(const struct disk_state *st, int fd, int err)
{
	if (unlink(st->path) && !err && errno != ENOENT)
		err = errno;
	if (fd >= 0 && close(fd) && !err)
		err = errno;
	return err;
}

/* Makes the op's file of `blocks` blocks and closes it, or fails with
 * nothing left behind. */
static int disk_make_file(struct disk_state *st, unsigned long blocks,
			  struct disk_progress *p)
{
	int fd, err;

	fd = disk_create(st);
	if (fd < 0)
		return errno;
	err = disk_write_blocks(st, fd, blocks,
				disk_fill_counts(st) ? p : NULL);
	if (close(fd) && !err)
		err = errno;
	if (err)
		disk_finish(st, -1, err);
	return err;
}

/* Starts an op of `steps` transfers. The O_DIRECT jobs begin as AIM7's
 * do, by checking whether their target is a device; here it is always the
 * user's directory. */
static int disk_op_start(struct disk_progress *p, const struct disk_state *st,
			 unsigned long steps)
{
	struct stat sb;

	disk_progress_start(p, st, steps);
	if (st->spec->stat_dir && stat(st->dir, &sb))
		return errno;
	return 0;
}

/* The write of disk_rw's loop, in the read's shape. */
static int disk_rewrite_block(int fd, unsigned char *buf)
{
	return disk_write_block(fd, buf);
}

/* Writes the file's first `blocks` blocks, then moves one block per loop,
 * each at a random one of them, with io() on the file opened oflags. */
static int disk_random_run(struct disk_state *st, unsigned long blocks,
			   int oflags, int (*io)(int fd, unsigned char *buf))
{
	struct disk_progress p;
	int fd, err;

	err = disk_op_start(&p, st, st->loops + (disk_fill_counts(st) ?
						 blocks : 0));
	if (err)
		return err;
	err = disk_make_file(st, blocks, &p);
	if (err)
		return err;
	fd = open(st->path, oflags | O_CLOEXEC | st->spec->io_flags);
	if (fd < 0)
		return disk_finish(st, -1, errno);
	for (unsigned long i = 0; i < st->loops; i++) {
		if (lseek(fd, disk_random_offset(st, blocks), SEEK_SET) < 0)
			return disk_finish(st, fd, errno);
		err = io(fd, st->buf);
		if (err)
			return disk_finish(st, fd, err);
		disk_step(&p);
	}
	return disk_finish(st, fd, 0);
}

/* disk_rr, disk_brr, disk_dio_rr: write the file, then read as many
 * blocks as it has, each at a random block. */
static int disk_rr_run(void *state)
{
	struct disk_state *st = state;

	return disk_random_run(st, st->blocks, O_RDONLY, disk_read_block);
}

/* disk_rw, disk_brw, disk_dio_rw, sync_disk_rw: write the file, then
 * rewrite as many blocks as it has, each at a random block. */
static int disk_rw_run(void *state)
{
	struct disk_state *st = state;

	return disk_random_run(st, st->loops, O_WRONLY, disk_rewrite_block);
}

/* The update of sync_disk_update's loop: read a block and write the next
 * one, where the read left the offset, as in AIM7. */
static int disk_update_block(int fd, unsigned char *buf)
{
	int err = disk_read_block(fd, buf);

	return err ? err : disk_write_block(fd, buf);
}

/* sync_disk_update: write the file, then reopen it O_SYNC and update at
 * half as many random blocks as it has. */
static int disk_update_run(void *state)
{
	struct disk_state *st = state;

	return disk_random_run(st, st->blocks, O_RDWR, disk_update_block);
}

/* Reads `blocks` blocks in order from the start of fd. */
static int disk_read_seq(struct disk_state *st, int fd, unsigned long blocks,
			 struct disk_progress *p)
{
	int err;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return errno;
	for (unsigned long i = 0; i < blocks; i++) {
		err = disk_read_block(fd, st->buf);
		if (err)
			return err;
		disk_step(p);
	}
	return 0;
}

/* disk_rd: write the file, then read it in order. */
static int disk_rd_run(void *state)
{
	struct disk_state *st = state;
	struct disk_progress p;
	int fd, err;

	disk_progress_start(&p, st, 2 * st->blocks);
	err = disk_make_file(st, st->blocks, &p);
	if (err)
		return err;
	fd = open(st->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return disk_finish(st, -1, errno);
	err = disk_read_seq(st, fd, st->blocks, &p);
	return disk_finish(st, fd, err);
}

/* disk_brd, disk_dio_rd: read the file made at init in order. */
static int disk_brd_run(void *state)
{
	struct disk_state *st = state;
	struct disk_progress p;
	int fd, err;

	err = disk_op_start(&p, st, st->blocks);
	if (err)
		return err;
	fd = open(st->src_path, O_RDONLY | O_CLOEXEC | st->spec->io_flags);
	if (fd < 0)
		return errno;
	err = disk_read_seq(st, fd, st->blocks, &p);
	if (close(fd) && !err)
		err = errno;
	return err;
}

/* disk_wrt, disk_bwrt, disk_dio_wrt, sync_disk_wrt: write a new file in
 * order. */
static int disk_wrt_run(void *state)
{
	struct disk_state *st = state;
	struct disk_progress p;
	int fd, err;

	err = disk_op_start(&p, st, st->loops);
	if (err)
		return err;
	fd = disk_create(st);
	if (fd < 0)
		return errno;
	err = disk_write_blocks(st, fd, st->loops, &p);
	return disk_finish(st, fd, err);
}

/* disk_cp, disk_bcp, disk_dio_cp, sync_disk_cp: copy the file made at
 * init, or its first half, into a new file. */
static int disk_cp_run(void *state)
{
	struct disk_state *st = state;
	struct disk_progress p;
	int src, dst, err;

	disk_progress_start(&p, st, st->loops);
	src = open(st->src_path, O_RDONLY | O_CLOEXEC | st->spec->io_flags);
	if (src < 0)
		return errno;
	dst = disk_create(st);
	if (dst < 0) {
		err = errno;
		close(src);
		return err;
	}
	err = lseek(src, 0, SEEK_SET) < 0 ? errno : 0;
	for (unsigned long i = 0; !err && i < st->loops; i++) {
		err = disk_read_block(src, st->buf);
		if (!err)
			err = disk_write_block(dst, st->buf);
		if (!err)
			disk_step(&p);
	}
	if (close(src) && !err)
		err = errno;
	err = disk_finish(st, dst, err);
	/* AIM7 removes the copy a second time; it is gone already, so this
	 * one fails with ENOENT, but the lookup it makes is part of the job. */
	if (st->spec->unlink_again)
		unlink(st->path);
	return err;
}

static void disk_fini(void *state)
{
	struct disk_state *st = state;

	if (st->src_made)
		unlink(st->src_path);
	if (st->buf)
		disk_buf_put();
	free(st);
}

/* Makes the file that disk_brd and the copies read: the file size in
 * blocks, flushed, so that every op reads allocated blocks. AIM7 makes
 * one per directory for all its users; here each user has its own. */
static int disk_make_source(struct disk_state *st)
{
	int fd, err;

	fd = open(st->src_path,
		  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	st->src_made = true;
	err = disk_write_blocks(st, fd, st->blocks, NULL);
	if (!err && fdatasync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	return err;
}

/* Words for a skip reason that name tmpfs, whose refusal of O_DIRECT
 * the user fixes with -d, not with another kernel alone. */
static const char *disk_tmpfs_hint(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) || sf.f_type != TMPFS_MAGIC)
		return "";
	return " (tmpfs, which takes O_DIRECT from Linux 6.6 on; give -d a "
	       "disk filesystem)";
}

/*
 * Tries one O_DIRECT write of a block, so that a filesystem that refuses
 * O_DIRECT (open fails) or refuses 1 KiB transfers (the write fails) is
 * found at init, where the job can skip itself, rather than in every op.
 */
static int disk_probe_direct(struct disk_state *st, const struct job_ctx *ctx)
{
	int fd, err = 0;
	ssize_t n;

	fd = open(st->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC | O_DIRECT, 0600);
	if (fd < 0) {
		err = errno;
		if (err == EINVAL) {
			job_set_reason(ctx,
				       "O_DIRECT refused by the filesystem of %s%s: %s",
				       ctx->dir, disk_tmpfs_hint(ctx->dir),
				       strerror(err));
			return JOB_SKIPPED;
		}
		job_set_reason(ctx, "cannot create %s: %s", st->path,
			       strerror(err));
		return err;
	}
	n = pwrite(fd, st->buf, DISK_BLOCK, 0);
	if (n != DISK_BLOCK) {
		err = disk_io_error(n);
		if (err == EINVAL) {
			job_set_reason(ctx,
				       "the filesystem of %s%s takes no 1 KiB O_DIRECT transfers: %s",
				       ctx->dir, disk_tmpfs_hint(ctx->dir),
				       strerror(err));
			err = JOB_SKIPPED;
		} else {
			job_set_reason(ctx, "cannot write %s: %s", st->path,
				       strerror(err));
		}
	}
	close(fd);
	unlink(st->path);
	return err;
}

/*
 * An op makes its file and removes it, so a file that cannot fit would
 * fail every op. Where the filesystem has less free space than the
 * blocks the op writes at the least, the job fails at init instead, and
 * says so. More users than the space holds still fail in their ops.
 */
static int disk_check_space(const struct disk_state *st,
			    const struct job_ctx *ctx)
{
	struct statvfs sv;
	uint64_t free_bytes, need = (uint64_t)st->loops * DISK_BLOCK;

	if (statvfs(ctx->dir, &sv))
		return 0;
	free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (free_bytes >= need)
		return 0;
	job_set_reason(ctx, "the job's %llu KiB file does not fit in %s (%llu KiB free)",
		       (unsigned long long)need / 1024, ctx->dir,
		       (unsigned long long)free_bytes / 1024);
	return ENOSPC;
}

static int disk_init(const struct job_ctx *ctx, void **state,
		     const struct disk_spec *spec)
{
	struct disk_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return ENOMEM;
	st->spec = spec;
	st->progress = ctx->progress;
	st->dir = ctx->dir;
	st->blocks = disk_blocks(ctx->file_size);
	st->loops = spec->half ? st->blocks / 2 : st->blocks;
	/* Each job of a user draws its own sequence from the user's seed. */
	st->rng = ctx->seed;
	for (const char *c = spec->name; *c; c++)
		st->rng = st->rng * 31 + (unsigned char)*c;
	st->buf = disk_buf_get(ctx->seed);
	if (!st->buf) {
		err = ENOMEM;
		goto out;
	}
	if (job_path(st->path, sizeof(st->path), ctx->dir, "%s.%u",
		     spec->name, ctx->user) ||
	    job_path(st->src_path, sizeof(st->src_path), ctx->dir, "%s.%u.src",
		     spec->name, ctx->user)) {
		err = ENAMETOOLONG;
		job_set_reason(ctx, "file name too long in %s", ctx->dir);
		goto out;
	}
	if (spec->source) {
		err = disk_make_source(st);
		if (err) {
			job_set_reason(ctx, "cannot create %s: %s",
				       st->src_path, strerror(err));
			goto out;
		}
	}
	if (spec->create) {
		err = disk_check_space(st, ctx);
		if (err)
			goto out;
	}
	if (spec->io_flags & O_DIRECT ||
	    (spec->create != DISK_CREAT && spec->create & O_DIRECT)) {
		err = disk_probe_direct(st, ctx);
		if (err)
			goto out;
	}
	*state = st;
	return 0;
out:
	disk_fini(st);
	return err;
}

/* Syscalls of one op: { name, per op, per inner op }. */

static const struct job_syscall rr_calls[] = {
	{ "creat", 1 }, { "openat", 1 }, { "close", 2 }, { "unlink", 1 },
	{ "write", 0, 1 }, { "lseek", 0, 1 }, { "read", 0, 1 }, { NULL, 0 } };
static const struct job_syscall dio_rr_calls[] = {
	{ "newfstatat", 1 }, { "creat", 1 }, { "openat", 1 }, { "close", 2 },
	{ "unlink", 1 }, { "write", 0, 1 }, { "lseek", 0, 1 },
	{ "read", 0, 1 }, { NULL, 0 } };
static const struct job_syscall rw_calls[] = {
	{ "creat", 1 }, { "openat", 1 }, { "close", 2 }, { "unlink", 1 },
	{ "write", 0, 2 }, { "lseek", 0, 1 }, { NULL, 0 } };
static const struct job_syscall dio_rw_calls[] = {
	{ "newfstatat", 1 }, { "creat", 1 }, { "openat", 1 }, { "close", 2 },
	{ "unlink", 1 }, { "write", 0, 2 }, { "lseek", 0, 1 }, { NULL, 0 } };
static const struct job_syscall sync_rw_calls[] = {
	{ "openat", 2 }, { "close", 2 }, { "unlink", 1 },
	{ "write", 0, 2 }, { "lseek", 0, 1 }, { NULL, 0 } };
static const struct job_syscall rd_calls[] = {
	{ "creat", 1 }, { "openat", 1 }, { "lseek", 1 }, { "close", 2 },
	{ "unlink", 1 }, { "write", 0, 1 }, { "read", 0, 1 }, { NULL, 0 } };
static const struct job_syscall brd_calls[] = {
	{ "openat", 1 }, { "lseek", 1 }, { "close", 1 }, { "read", 0, 1 },
	{ NULL, 0 } };
static const struct job_syscall dio_rd_calls[] = {
	{ "newfstatat", 1 }, { "openat", 1 }, { "lseek", 1 }, { "close", 1 },
	{ "read", 0, 1 }, { NULL, 0 } };
static const struct job_syscall wrt_calls[] = {
	{ "creat", 1 }, { "close", 1 }, { "unlink", 1 }, { "write", 0, 1 },
	{ NULL, 0 } };
static const struct job_syscall sync_wrt_calls[] = {
	{ "openat", 1 }, { "close", 1 }, { "unlink", 1 }, { "write", 0, 1 },
	{ NULL, 0 } };
static const struct job_syscall dio_wrt_calls[] = {
	{ "newfstatat", 1 }, { "openat", 1 }, { "close", 1 }, { "unlink", 1 },
	{ "write", 0, 1 }, { NULL, 0 } };
static const struct job_syscall cp_calls[] = {
	{ "openat", 1 }, { "creat", 1 }, { "lseek", 1 }, { "close", 2 },
	{ "unlink", 2 }, { "read", 0, 1 }, { "write", 0, 1 }, { NULL, 0 } };
/* The copies that open their copy with open(), not creat(). */
static const struct job_syscall cp_open_calls[] = {
	{ "openat", 2 }, { "lseek", 1 }, { "close", 2 }, { "unlink", 1 },
	{ "read", 0, 1 }, { "write", 0, 1 }, { NULL, 0 } };
/* Three writes per update: the update's own and two blocks of the file
 * it first writes (one more in all when the file's blocks are odd). */
static const struct job_syscall update_calls[] = {
	{ "openat", 2 }, { "close", 2 }, { "unlink", 1 }, { "lseek", 0, 1 },
	{ "read", 0, 1 }, { "write", 0, 3 }, { NULL, 0 } };

/*
 * One disk job: its spec, init() and row. what is its inner op, as AIM9
 * printed it, size its blocks per op (disk_blocks or disk_half_blocks),
 * about its summary, calls its syscalls, run_fn its pattern's run() and
 * dev its deviation, or NULL; the rest is its disk_spec, whose name, the
 * job's, tags the user's files.
 */
#define DISK_JOB_ROW(id, what, size, about, calls, run_fn, dev, tmpfs, ...) \
static const struct disk_spec id##_spec = {				\
	.name = #id, __VA_ARGS__					\
};									\
									\
static int id##_init(const struct job_ctx *ctx, void **state)		\
{									\
	return disk_init(ctx, state, &id##_spec);			\
}									\
									\
const struct job job_##id = {						\
	.name = #id,							\
	.family = "disk",						\
	.units = JOB_UNITS_AIM7,					\
	.uses_dir = true,						\
	.unit = what,							\
	.inner_ops_for = size,						\
	.summary = about,						\
	.syscalls = calls,						\
	.deviation = dev,						\
	.on_tmpfs = tmpfs,						\
	.init = id##_init,						\
	.run = run_fn,							\
	.fini = disk_fini,						\
}

#define DISK_JOB(id, what, size, about, calls, run_fn, dev, ...)	\
	DISK_JOB_ROW(id, what, size, about, calls, run_fn, dev, NULL,	\
		     __VA_ARGS__)
/* tmpfs has no device for O_DIRECT to reach. */
#define DISK_ON_TMPFS "tmpfs has no device, so O_DIRECT bypasses no " \
	"cache there: before Linux 6.6 tmpfs refuses O_DIRECT and the job " \
	"is skipped, from 6.6 on it takes it as buffered I/O; give -d a " \
	"disk filesystem to measure direct I/O"
#define DISK_DIO_JOB(id, what, size, about, calls, run_fn, dev, ...)	\
	DISK_JOB_ROW(id, what, size, about, calls, run_fn, dev,		\
		     DISK_ON_TMPFS, __VA_ARGS__)

/* What the jobs of one pattern do, buffered or not. */
#define DISK_RR_SUMMARY "write a file of the user's size in 1 KiB blocks, " \
	"read as many random 1 KiB blocks of it, remove it"
#define DISK_RW_SUMMARY "write a file of the user's size in 1 KiB blocks, " \
	"rewrite as many random 1 KiB blocks of it, remove it"
#define DISK_WRT_SUMMARY "write a new file of the user's size in 1 KiB " \
	"blocks, remove it"
#define DISK_CP_SUMMARY "copy the user's file to a new one in 1 KiB " \
	"blocks, remove the copy"
/* reaim's O_DIRECT writes and copies move nothing. */
#define DISK_DIO_LOST(moves) "reaim's job " moves " nothing, because the " \
	"return value of its buffer allocation overwrites its block " \
	"count; this one " moves " the whole file, as AIM7 intends"

DISK_JOB(disk_rr, "Random Disk Reads (K)", disk_blocks, DISK_RR_SUMMARY,
	 rr_calls, disk_rr_run, NULL, .create = DISK_CREAT);
DISK_JOB(disk_rw, "Random Disk Writes (K)", disk_blocks, DISK_RW_SUMMARY,
	 rw_calls, disk_rw_run, NULL, .create = DISK_CREAT);
DISK_JOB(disk_rd, "Sequential Disk Reads (K)", disk_blocks,
	 "write a file of the user's size in 1 KiB blocks, read it back in "
	 "order, remove it", rd_calls, disk_rd_run, NULL, .create = DISK_CREAT);
DISK_JOB(disk_wrt, "Sequential Disk Writes (K)", disk_blocks,
	 DISK_WRT_SUMMARY, wrt_calls, disk_wrt_run, NULL,
	 .create = DISK_CREAT);
DISK_JOB(disk_cp, "Disk Copies (K)", disk_blocks, DISK_CP_SUMMARY,
	 cp_calls, disk_cp_run, NULL, .create = DISK_CREAT, .source = true,
	 .unlink_again = true);
DISK_JOB(disk_brr, "Random Bufcache Disk Reads (K)", disk_blocks,
	 DISK_RR_SUMMARY, rr_calls, disk_rr_run, NULL, .create = DISK_CREAT);
DISK_JOB(disk_brw, "Random Bufcache Disk Writes (K)", disk_blocks,
	 DISK_RW_SUMMARY, rw_calls, disk_rw_run, NULL, .create = DISK_CREAT);
DISK_JOB(disk_brd, "Sequential Bufcache Disk Reads (K)", disk_blocks,
	 "read the user's file in order in 1 KiB blocks", brd_calls,
	 disk_brd_run, NULL, .source = true);
DISK_JOB(disk_bwrt, "Sequential Bufcache Disk Writes (K)", disk_blocks,
	 DISK_WRT_SUMMARY, wrt_calls, disk_wrt_run, NULL,
	 .create = DISK_CREAT);
DISK_JOB(disk_bcp, "Bufcache Disk Copies (K)", disk_blocks,
	 DISK_CP_SUMMARY, cp_calls, disk_cp_run, NULL, .create = DISK_CREAT,
	 .source = true, .unlink_again = true);
DISK_JOB(sync_disk_rw, "Sync Random Disk Writes (K)", disk_half_blocks,
	 "write a file of half the user's size in 1 KiB blocks, reopen it "
	 "O_SYNC, rewrite as many random blocks, remove it", sync_rw_calls,
	 disk_rw_run, NULL, .create = O_TRUNC, .io_flags = O_SYNC,
	 .half = true);
DISK_JOB(sync_disk_wrt, "Sync Sequential Disk Writes (K)", disk_half_blocks,
	 "write a new O_SYNC file of half the user's size in 1 KiB blocks, "
	 "remove it", sync_wrt_calls, disk_wrt_run, NULL,
	 .create = O_TRUNC | O_SYNC, .half = true);
DISK_JOB(sync_disk_cp, "Sync Disk Copies (K)", disk_half_blocks,
	 "copy the first half of the user's file in 1 KiB blocks to a new "
	 "O_SYNC file, remove the copy", cp_open_calls, disk_cp_run, NULL,
	 .create = O_TRUNC | O_SYNC, .half = true, .source = true);
DISK_JOB(sync_disk_update, "Sync Disk Updates (K)", disk_half_blocks,
	 "write a file of the user's size in 1 KiB blocks, reopen it O_SYNC, "
	 "read a random block and write the next at half as many places, "
	 "remove it", update_calls, disk_update_run, NULL,
	 .create = O_TRUNC, .io_flags = O_SYNC, .half = true);
DISK_DIO_JOB(disk_dio_rr, "Random O_DIRECT Disk Reads (K)", disk_blocks,
	 "write a file of the user's size in 1 KiB blocks, reopen it "
	 "O_DIRECT, read as many random blocks, remove it", dio_rr_calls,
	 disk_rr_run, NULL, .create = DISK_CREAT, .io_flags = O_DIRECT,
	 .stat_dir = true);
DISK_DIO_JOB(disk_dio_rw, "Random O_DIRECT Disk Writes (K)", disk_blocks,
	 "write a file of the user's size in 1 KiB blocks, reopen it "
	 "O_DIRECT, rewrite as many random blocks, remove it", dio_rw_calls,
	 disk_rw_run, NULL, .create = DISK_CREAT, .io_flags = O_DIRECT,
	 .stat_dir = true);
DISK_DIO_JOB(disk_dio_rd, "Sequential O_DIRECT Disk Reads (K)", disk_blocks,
	 "read the user's file in order in 1 KiB blocks, O_DIRECT",
	 dio_rd_calls, disk_brd_run, NULL, .io_flags = O_DIRECT,
	 .source = true, .stat_dir = true);
DISK_DIO_JOB(disk_dio_wrt, "Sequential O_DIRECT Disk Writes (K)", disk_blocks,
	 "write a new O_DIRECT file of the user's size in 1 KiB blocks, "
	 "remove it", dio_wrt_calls, disk_wrt_run, DISK_DIO_LOST("writes"),
	 .create = O_DIRECT, .stat_dir = true);
DISK_DIO_JOB(disk_dio_cp, "O_DIRECT Disk Copies (K)", disk_blocks,
	 "copy the user's file to a new one in 1 KiB blocks, both O_DIRECT, "
	 "remove the copy", cp_open_calls, disk_cp_run,
	 DISK_DIO_LOST("copies"), .create = O_DIRECT, .io_flags = O_DIRECT,
	 .source = true);
