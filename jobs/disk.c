/* jobs/disk.c: the AIM7 disk jobs: random and sequential reads, writes,
 * copies and updates of a per-user file, buffered, synced or direct. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/catalog.h"

/*
 * The user's file is its AIM7 size rounded up to DISK_ALIGN, and it moves
 * in blocks of DISK_BLOCK, the last one shorter when the file is. Offsets
 * and lengths stay multiples of DISK_ALIGN, which satisfies O_DIRECT on
 * the usual 512-byte and 4 KiB logical block sizes. 64 KiB blocks keep a
 * synchronous op affordable: an O_SYNC write costs about the same here
 * whether it carries 4 KiB or 64 KiB (5.5 MiB with oflag=sync: 4.0 s in
 * 4 KiB writes, 0.29 s in 64 KiB ones), and AIM7's FILESIZE runs to
 * megabytes.
 */
#define DISK_ALIGN 4096
#define DISK_BLOCK (64 * 1024)

/*
 * One op moves the user's whole file once, so its inner ops, the block
 * transfers, follow the file size and so the level (AIM7's FILESIZE +
 * POOLSIZE / users): disk_blocks() gives the driver that number, and the
 * syscall counts below are per block where they scale with the file.
 */
static uint64_t disk_file_bytes(uint64_t file_size)
{
	uint64_t n = (file_size + DISK_ALIGN - 1) / DISK_ALIGN * DISK_ALIGN;

	return n ? n : DISK_ALIGN;
}

static unsigned long disk_blocks(uint64_t file_size)
{
	return (unsigned long)((disk_file_bytes(file_size) + DISK_BLOCK - 1) /
			       DISK_BLOCK);
}

/* What one op does with the file. */
enum disk_pattern {
	DISK_RANDOM_READ,	/* as many reads as blocks, at random blocks */
	DISK_RANDOM_WRITE,	/* as many writes as blocks, at random blocks */
	DISK_SEQ_READ,		/* the whole file, in order */
	DISK_SEQ_WRITE,		/* the whole file, in order */
	DISK_COPY,		/* the whole file into a second file */
	DISK_UPDATE,		/* read, change and rewrite random blocks */
};

/*
 * How written data reaches the disk.
 *
 * The plain jobs end every op with fdatasync() of the job's own file (the
 * copy's destination for disk_cp), never with sync(). A global sync()
 * flushes every dirty page of the machine: with many users each op would
 * wait for the writes of all the others, and the curve would measure that
 * coupling rather than the job. fdatasync() keeps the cost of durability
 * with the user that caused it. On the read jobs it finds nothing dirty
 * and returns quickly, but they keep it so that the plain and b variants
 * differ the same way across the family.
 */
enum disk_sync {
	DISK_FDATASYNC,		/* disk_*: fdatasync() ending each op */
	DISK_BUFFERED,		/* disk_b*: page cache only, no sync */
	DISK_OSYNC,		/* sync_disk_*: the written file is O_SYNC */
	DISK_DIRECT,		/* disk_dio_*: O_DIRECT, no sync */
};

struct disk_state {
	enum disk_sync sync;
	int fd;			/* the file; the source of a copy */
	int dst_fd;		/* the destination of a copy, else -1 */
	uint64_t file_bytes;	/* size of each file */
	unsigned long nblocks;	/* blocks in each file */
	uint64_t rng;		/* per-user generator for random offsets */
	uint64_t stamp;		/* changes written data from op to op */
	unsigned char *buf;	/* the user's block buffer, see disk_buf_get */
	char path[PATH_MAX];	/* empty until this job created the file */
	char dst_path[PATH_MAX];
};

/* splitmix64: small, fast, and good enough to spread block offsets. */
static uint64_t disk_random(struct disk_state *st)
{
	uint64_t z = (st->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned long disk_random_block(struct disk_state *st)
{
	return (unsigned long)(disk_random(st) % st->nblocks);
}

static off_t block_offset(unsigned long block)
{
	return (off_t)block * DISK_BLOCK;
}

static size_t block_len(const struct disk_state *st, unsigned long block)
{
	uint64_t left = st->file_bytes - (uint64_t)block * DISK_BLOCK;

	return left < DISK_BLOCK ? (size_t)left : DISK_BLOCK;
}

/*
 * One block buffer per user, shared by all its disk jobs: a user runs one
 * op at a time, and twenty disk jobs with a 64 KiB buffer each would cost
 * a user more than a megabyte. Per thread, for the threads mode.
 */
static __thread unsigned char *disk_buf;
static __thread unsigned int disk_buf_refs;

static unsigned char *disk_buf_get(void)
{
	if (!disk_buf && posix_memalign((void **)&disk_buf, DISK_ALIGN,
					DISK_BLOCK))
		return disk_buf = NULL;
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

/* A short transfer on a file of known size is an I/O error, not EOF. */
static int disk_io_error(ssize_t n)
{
	return n < 0 ? errno : EIO;
}

/* Creates the file, fills it with blocks that are not all zeros, and
 * flushes it, so that every op overwrites or rereads allocated blocks that
 * are on disk and the first op does no more work than the others. Then
 * reopens it with `flags` (O_SYNC, O_DIRECT), which cannot be added with
 * fcntl(F_SETFL) on Linux. */
static int disk_create(struct disk_state *st, const char *path, int flags,
		       int *fdp)
{
	uint64_t word;
	int fd, fd2, err;
	ssize_t n;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return errno;
	for (size_t i = 0; i < DISK_BLOCK; i += sizeof(word)) {
		word = disk_random(st);
		memcpy(st->buf + i, &word, sizeof(word));
	}
	for (unsigned long i = 0; i < st->nblocks; i++) {
		size_t len = block_len(st, i), done = 0;

		memcpy(st->buf, &i, sizeof(i));
		/* A short write (a nearly full disk) is retried, so that the
		 * error reported is the real one, ENOSPC, not a guess. */
		while (done < len) {
			n = write(fd, st->buf + done, len - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				err = disk_io_error(n);
				goto fail;
			}
			done += (size_t)n;
		}
	}
	if (fdatasync(fd)) {
		err = errno;
		goto fail;
	}
	if (!flags) {
		*fdp = fd;
		return 0;
	}
	fd2 = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | flags);
	if (fd2 < 0) {
		err = errno;
		goto fail;
	}
	close(fd);
	*fdp = fd2;
	return 0;
fail:
	close(fd);
	return err;
}

static void disk_fini(void *state)
{
	struct disk_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	if (st->dst_fd >= 0)
		close(st->dst_fd);
	if (st->path[0])
		unlink(st->path);
	if (st->dst_path[0])
		unlink(st->dst_path);
	if (st->buf)
		disk_buf_put();
	free(st);
}

static int disk_init(const struct job_ctx *ctx, void **state,
		     const char *name, enum disk_pattern pattern,
		     enum disk_sync sync)
{
	struct disk_state *st = calloc(1, sizeof(*st));
	char path[PATH_MAX];
	int flags = 0, dst_flags = 0, err;
	bool writes;

	if (!st)
		return ENOMEM;
	st->sync = sync;
	st->fd = -1;
	st->dst_fd = -1;
	st->file_bytes = disk_file_bytes(ctx->file_size);
	st->nblocks = disk_blocks(ctx->file_size);
	st->rng = ctx->seed ^ ((uint64_t)(pattern + 1) << 56);
	st->buf = disk_buf_get();
	if (!st->buf) {
		err = ENOMEM;
		goto out;
	}

	writes = pattern != DISK_RANDOM_READ && pattern != DISK_SEQ_READ;
	if (sync == DISK_DIRECT) {
		flags = O_DIRECT;
		dst_flags = O_DIRECT;
	} else if (sync == DISK_OSYNC) {
		/* A copy reads its source normally; only writes are synced. */
		if (pattern == DISK_COPY)
			dst_flags = O_SYNC;
		else if (writes)
			flags = O_SYNC;
	}

	if (job_path(path, sizeof(path), ctx->dir, "%s.%u", name, ctx->user)) {
		err = ENAMETOOLONG;
		goto out;
	}
	err = disk_create(st, path, flags, &st->fd);
	/* On EEXIST the file is not ours: leave it. Any other failure comes
	 * after this job created the file, or leaves no file, so fini may
	 * remove the name. */
	if (err != EEXIST)
		memcpy(st->path, path, sizeof(path));
	if (err)
		goto out_open;

	if (pattern == DISK_COPY) {
		if (job_path(path, sizeof(path), ctx->dir, "%s.%u.dst", name,
			     ctx->user)) {
			err = ENAMETOOLONG;
			goto out;
		}
		err = disk_create(st, path, dst_flags, &st->dst_fd);
		if (err != EEXIST)
			memcpy(st->dst_path, path, sizeof(path));
		if (err)
			goto out_open;
	}
	*state = st;
	return 0;

out_open:
	if (err == EINVAL && sync == DISK_DIRECT) {
		job_set_reason(ctx,
			       "O_DIRECT refused by the filesystem of %s: %s",
			       ctx->dir, strerror(err));
		err = JOB_SKIPPED;
	} else {
		job_set_reason(ctx, "cannot create %s: %s", path,
			       strerror(err));
	}
out:
	disk_fini(st);
	return err;
}

/* The plain jobs make the op's writes durable before it counts. */
static int disk_end_op(const struct disk_state *st, int fd)
{
	if (st->sync == DISK_FDATASYNC && fdatasync(fd))
		return errno;
	return 0;
}

/* Marks the block so that successive ops write different data. */
static void disk_stamp(struct disk_state *st)
{
	st->stamp++;
	memcpy(st->buf, &st->stamp, sizeof(st->stamp));
}

static int disk_rr_run(void *state)
{
	struct disk_state *st = state;
	ssize_t n;

	for (unsigned long i = 0; i < st->nblocks; i++) {
		unsigned long b = disk_random_block(st);

		n = pread(st->fd, st->buf, block_len(st, b), block_offset(b));
		if (n != (ssize_t)block_len(st, b))
			return disk_io_error(n);
	}
	return disk_end_op(st, st->fd);
}

static int disk_rw_run(void *state)
{
	struct disk_state *st = state;
	ssize_t n;

	disk_stamp(st);
	for (unsigned long i = 0; i < st->nblocks; i++) {
		unsigned long b = disk_random_block(st);

		n = pwrite(st->fd, st->buf, block_len(st, b), block_offset(b));
		if (n != (ssize_t)block_len(st, b))
			return disk_io_error(n);
	}
	return disk_end_op(st, st->fd);
}

static int disk_rd_run(void *state)
{
	struct disk_state *st = state;
	ssize_t n;

	if (lseek(st->fd, 0, SEEK_SET))
		return errno;
	for (unsigned long i = 0; i < st->nblocks; i++) {
		n = read(st->fd, st->buf, block_len(st, i));
		if (n != (ssize_t)block_len(st, i))
			return disk_io_error(n);
	}
	return disk_end_op(st, st->fd);
}

static int disk_wrt_run(void *state)
{
	struct disk_state *st = state;
	ssize_t n;

	disk_stamp(st);
	if (lseek(st->fd, 0, SEEK_SET))
		return errno;
	for (unsigned long i = 0; i < st->nblocks; i++) {
		n = write(st->fd, st->buf, block_len(st, i));
		if (n != (ssize_t)block_len(st, i))
			return disk_io_error(n);
	}
	return disk_end_op(st, st->fd);
}

static int disk_cp_run(void *state)
{
	struct disk_state *st = state;
	ssize_t n;

	if (lseek(st->fd, 0, SEEK_SET) || lseek(st->dst_fd, 0, SEEK_SET))
		return errno;
	for (unsigned long i = 0; i < st->nblocks; i++) {
		n = read(st->fd, st->buf, block_len(st, i));
		if (n != (ssize_t)block_len(st, i))
			return disk_io_error(n);
		n = write(st->dst_fd, st->buf, block_len(st, i));
		if (n != (ssize_t)block_len(st, i))
			return disk_io_error(n);
	}
	return disk_end_op(st, st->dst_fd);
}

/* A database-like update: read a random block, change it, write it back
 * in place, each write synchronous. */
static int disk_update_run(void *state)
{
	struct disk_state *st = state;
	uint64_t word;
	ssize_t n;

	for (unsigned long i = 0; i < st->nblocks; i++) {
		unsigned long b = disk_random_block(st);
		size_t len = block_len(st, b);

		n = pread(st->fd, st->buf, len, block_offset(b));
		if (n != (ssize_t)len)
			return disk_io_error(n);
		memcpy(&word, st->buf, sizeof(word));
		word++;
		memcpy(st->buf, &word, sizeof(word));
		n = pwrite(st->fd, st->buf, len, block_offset(b));
		if (n != (ssize_t)len)
			return disk_io_error(n);
	}
	return disk_end_op(st, st->fd);
}

/* One init per row: the name tags the user's files, the rest picks the
 * pattern and how writes reach the disk. */
#define DISK_INIT(name, pattern, sync)					\
	static int name##_init(const struct job_ctx *ctx, void **state)	\
	{								\
		return disk_init(ctx, state, #name, pattern, sync);	\
	}

DISK_INIT(disk_rr, DISK_RANDOM_READ, DISK_FDATASYNC)
DISK_INIT(disk_rw, DISK_RANDOM_WRITE, DISK_FDATASYNC)
DISK_INIT(disk_rd, DISK_SEQ_READ, DISK_FDATASYNC)
DISK_INIT(disk_wrt, DISK_SEQ_WRITE, DISK_FDATASYNC)
DISK_INIT(disk_cp, DISK_COPY, DISK_FDATASYNC)
DISK_INIT(disk_brr, DISK_RANDOM_READ, DISK_BUFFERED)
DISK_INIT(disk_brw, DISK_RANDOM_WRITE, DISK_BUFFERED)
DISK_INIT(disk_brd, DISK_SEQ_READ, DISK_BUFFERED)
DISK_INIT(disk_bwrt, DISK_SEQ_WRITE, DISK_BUFFERED)
DISK_INIT(disk_bcp, DISK_COPY, DISK_BUFFERED)
DISK_INIT(sync_disk_rw, DISK_RANDOM_WRITE, DISK_OSYNC)
DISK_INIT(sync_disk_wrt, DISK_SEQ_WRITE, DISK_OSYNC)
DISK_INIT(sync_disk_cp, DISK_COPY, DISK_OSYNC)
DISK_INIT(sync_disk_update, DISK_UPDATE, DISK_OSYNC)
DISK_INIT(disk_dio_rr, DISK_RANDOM_READ, DISK_DIRECT)
DISK_INIT(disk_dio_rw, DISK_RANDOM_WRITE, DISK_DIRECT)
DISK_INIT(disk_dio_rd, DISK_SEQ_READ, DISK_DIRECT)
DISK_INIT(disk_dio_wrt, DISK_SEQ_WRITE, DISK_DIRECT)
DISK_INIT(disk_dio_cp, DISK_COPY, DISK_DIRECT)

/* Syscalls of one op: { name, per op, per block }. */

static const struct job_syscall rr_synced[] = {
	{ "pread64", 0, 1 }, { "fdatasync", 1 }, { NULL, 0 } };
static const struct job_syscall rr_plain[] = {
	{ "pread64", 0, 1 }, { NULL, 0 } };
static const struct job_syscall rw_synced[] = {
	{ "pwrite64", 0, 1 }, { "fdatasync", 1 }, { NULL, 0 } };
static const struct job_syscall rw_plain[] = {
	{ "pwrite64", 0, 1 }, { NULL, 0 } };
static const struct job_syscall rd_synced[] = {
	{ "lseek", 1 }, { "read", 0, 1 }, { "fdatasync", 1 }, { NULL, 0 } };
static const struct job_syscall rd_plain[] = {
	{ "lseek", 1 }, { "read", 0, 1 }, { NULL, 0 } };
static const struct job_syscall wrt_synced[] = {
	{ "lseek", 1 }, { "write", 0, 1 }, { "fdatasync", 1 }, { NULL, 0 } };
static const struct job_syscall wrt_plain[] = {
	{ "lseek", 1 }, { "write", 0, 1 }, { NULL, 0 } };
static const struct job_syscall cp_synced[] = {
	{ "lseek", 2 }, { "read", 0, 1 }, { "write", 0, 1 },
	{ "fdatasync", 1 }, { NULL, 0 } };
static const struct job_syscall cp_plain[] = {
	{ "lseek", 2 }, { "read", 0, 1 }, { "write", 0, 1 },
	{ NULL, 0 } };
static const struct job_syscall update_calls[] = {
	{ "pread64", 0, 1 }, { "pwrite64", 0, 1 }, { NULL, 0 } };

const struct job job_disk_rr = {
	.name = "disk_rr",
	.family = "disk",
	.uses_dir = true,
	.unit = "Random Disk Reads (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "read as many random 64 KiB blocks as the user's file has, "
		   "then fdatasync()",
	.syscalls = rr_synced,
	.init = disk_rr_init,
	.run = disk_rr_run,
	.fini = disk_fini,
};

const struct job job_disk_rw = {
	.name = "disk_rw",
	.family = "disk",
	.uses_dir = true,
	.unit = "Random Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "write as many random 64 KiB blocks as the user's file "
		   "has, then fdatasync()",
	.syscalls = rw_synced,
	.init = disk_rw_init,
	.run = disk_rw_run,
	.fini = disk_fini,
};

const struct job job_disk_rd = {
	.name = "disk_rd",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sequential Disk Reads (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "read the user's file in order in 64 KiB blocks, then "
		   "fdatasync() it",
	.syscalls = rd_synced,
	.init = disk_rd_init,
	.run = disk_rd_run,
	.fini = disk_fini,
};

const struct job job_disk_wrt = {
	.name = "disk_wrt",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sequential Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "overwrite the user's file in order in 64 KiB blocks, then "
		   "fdatasync()",
	.syscalls = wrt_synced,
	.init = disk_wrt_init,
	.run = disk_wrt_run,
	.fini = disk_fini,
};

const struct job job_disk_cp = {
	.name = "disk_cp",
	.family = "disk",
	.uses_dir = true,
	.unit = "Disk Copies (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "copy the user's file to a second one in 64 KiB blocks, "
		   "then fdatasync()",
	.syscalls = cp_synced,
	.init = disk_cp_init,
	.run = disk_cp_run,
	.fini = disk_fini,
};

const struct job job_disk_brr = {
	.name = "disk_brr",
	.family = "disk",
	.uses_dir = true,
	.unit = "Random Disk Reads (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "read as many random 64 KiB blocks as the user's file has, "
		   "no sync",
	.syscalls = rr_plain,
	.init = disk_brr_init,
	.run = disk_rr_run,
	.fini = disk_fini,
};

const struct job job_disk_brw = {
	.name = "disk_brw",
	.family = "disk",
	.uses_dir = true,
	.unit = "Random Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "write as many random 64 KiB blocks as the user's file "
		   "has, no sync",
	.syscalls = rw_plain,
	.init = disk_brw_init,
	.run = disk_rw_run,
	.fini = disk_fini,
};

const struct job job_disk_brd = {
	.name = "disk_brd",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sequential Disk Reads (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "read the user's file in order in 64 KiB blocks, no sync",
	.syscalls = rd_plain,
	.init = disk_brd_init,
	.run = disk_rd_run,
	.fini = disk_fini,
};

const struct job job_disk_bwrt = {
	.name = "disk_bwrt",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sequential Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "overwrite the user's file in order in 64 KiB blocks, no "
		   "sync",
	.syscalls = wrt_plain,
	.init = disk_bwrt_init,
	.run = disk_wrt_run,
	.fini = disk_fini,
};

const struct job job_disk_bcp = {
	.name = "disk_bcp",
	.family = "disk",
	.uses_dir = true,
	.unit = "Disk Copies (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "copy the user's file to a second one in 64 KiB blocks, no "
		   "sync",
	.syscalls = cp_plain,
	.init = disk_bcp_init,
	.run = disk_cp_run,
	.fini = disk_fini,
};

const struct job job_sync_disk_rw = {
	.name = "sync_disk_rw",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sync Random Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "write as many random 64 KiB blocks as the user's file "
		   "has, O_SYNC",
	.syscalls = rw_plain,
	.init = sync_disk_rw_init,
	.run = disk_rw_run,
	.fini = disk_fini,
};

const struct job job_sync_disk_wrt = {
	.name = "sync_disk_wrt",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sync Sequential Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "overwrite the user's file in order in 64 KiB blocks, "
		   "O_SYNC",
	.syscalls = wrt_plain,
	.init = sync_disk_wrt_init,
	.run = disk_wrt_run,
	.fini = disk_fini,
};

const struct job job_sync_disk_cp = {
	.name = "sync_disk_cp",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sync Disk Copies (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "copy the user's file in 64 KiB blocks to a second one "
		   "opened O_SYNC",
	.syscalls = cp_plain,
	.init = sync_disk_cp_init,
	.run = disk_cp_run,
	.fini = disk_fini,
};

const struct job job_sync_disk_update = {
	.name = "sync_disk_update",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sync Disk Updates (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "read, change and rewrite random 64 KiB blocks of the "
		   "user's file, O_SYNC",
	.syscalls = update_calls,
	.init = sync_disk_update_init,
	.run = disk_update_run,
	.fini = disk_fini,
};

const struct job job_disk_dio_rr = {
	.name = "disk_dio_rr",
	.family = "disk",
	.uses_dir = true,
	.unit = "Random Disk Reads (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "read as many random 64 KiB blocks as the user's file has, "
		   "O_DIRECT",
	.syscalls = rr_plain,
	.init = disk_dio_rr_init,
	.run = disk_rr_run,
	.fini = disk_fini,
};

const struct job job_disk_dio_rw = {
	.name = "disk_dio_rw",
	.family = "disk",
	.uses_dir = true,
	.unit = "Random Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "write as many random 64 KiB blocks as the user's file "
		   "has, O_DIRECT",
	.syscalls = rw_plain,
	.init = disk_dio_rw_init,
	.run = disk_rw_run,
	.fini = disk_fini,
};

const struct job job_disk_dio_rd = {
	.name = "disk_dio_rd",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sequential Disk Reads (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "read the user's file in order in 64 KiB blocks with "
		   "O_DIRECT",
	.syscalls = rd_plain,
	.init = disk_dio_rd_init,
	.run = disk_rd_run,
	.fini = disk_fini,
};

const struct job job_disk_dio_wrt = {
	.name = "disk_dio_wrt",
	.family = "disk",
	.uses_dir = true,
	.unit = "Sequential Disk Writes (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "overwrite the user's file in order in 64 KiB blocks with "
		   "O_DIRECT",
	.syscalls = wrt_plain,
	.init = disk_dio_wrt_init,
	.run = disk_wrt_run,
	.fini = disk_fini,
};

const struct job job_disk_dio_cp = {
	.name = "disk_dio_cp",
	.family = "disk",
	.uses_dir = true,
	.unit = "Disk Copies (64 KiB blocks)",
	.inner_ops_for = disk_blocks,
	.summary = "copy the user's file to a second one in 64 KiB blocks, "
		   "both O_DIRECT",
	.syscalls = cp_plain,
	.init = disk_dio_cp_init,
	.run = disk_cp_run,
	.fini = disk_fini,
};
