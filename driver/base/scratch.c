/* driver/base/scratch.c: makes, empties and removes the run's private directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "driver/base/scratch.h"
#include "driver/base/util.h"

int scratch_check_base(const char *base, char *err, size_t errlen)
{
	struct stat st;

	if (stat(base, &st))
		return err_set(err, errlen, "scratch directory %s: %s", base,
			       strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, errlen,
			       "scratch directory %s: not a directory", base);
	if (access(base, W_OK | X_OK))
		return err_set(err, errlen,
			       "scratch directory %s: not writable: %s", base,
			       strerror(errno));
	return 0;
}

/*
 * Whether the ext4 driver runs a journal on block device maj:min: it shows
 * each filesystem's options in /proc/fs/ext4/DEVICE/options, with a
 * data= mode only when there is a journal (internal or external). 1, 0,
 * or -1 when it cannot be told (no sysfs, not mounted by the ext4 driver).
 */
static int ext4_journal(unsigned int maj, unsigned int min)
{
	char path[PATH_MAX], target[PATH_MAX], word[64];
	const char *name;
	ssize_t len;
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	len = readlink(path, target, sizeof(target) - 1);
	if (len <= 0)
		return -1;
	target[len] = '\0';
	name = strrchr(target, '/');
	name = name ? name + 1 : target;
	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fscanf(f, "%63s", word) == 1)
		found = !strncmp(word, "data=", 5);
	fclose(f);
	return found;
}

/* The mount ID of the mount that holds path (the first field of its
 * /proc/self/mountinfo line), or -1 where statx cannot tell it. */
static long long mount_id(const char *path)
{
#ifdef STATX_MNT_ID
	struct statx stx;

	if (!statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) &&
	    (stx.stx_mask & STATX_MNT_ID))
		return (long long)stx.stx_mnt_id;
#else
	(void)path;
#endif
	return -1;
}

void scratch_probe_fs(const char *base, struct scratch_fs *fs)
{
	char line[4096], type[32];
	unsigned int maj, min, fs_maj = 0, fs_min = 0;
	long long id, want = mount_id(base);
	struct stat st;
	FILE *f;

	snprintf(fs->type, sizeof(fs->type), "unknown");
	fs->journal = -1;
	if (stat(base, &st))
		return;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	/*
	 * mount-id parent-id major:minor root mount-point ... - type source.
	 * By mount ID where statx gives it: btrfs gives each subvolume a
	 * device number of its own, which is not the mount's.
	 */
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (sscanf(line, "%lld %*s %u:%u", &id, &maj, &min) != 3 || !sep)
			continue;
		if (want >= 0 ? id != want :
				maj != major(st.st_dev) || min != minor(st.st_dev))
			continue;
		if (sscanf(sep + 3, "%31s", type) == 1) {
			snprintf(fs->type, sizeof(fs->type), "%s", type);
			fs_maj = maj;
			fs_min = min;
			break;
		}
	}
	fclose(f);
	if (!strcmp(fs->type, "ext2") || !strcmp(fs->type, "ext3") ||
	    !strcmp(fs->type, "ext4"))
		fs->journal = ext4_journal(fs_maj, fs_min);
}

/*
 * /dev/shm rather than a tmpfs of our own: it is there on every Linux
 * system with a C library, any user can write in it, and nothing is left
 * mounted when the driver is killed, while mounting needs root and a
 * mount namespace the users would have to share.
 */
const char *scratch_default_base(void)
{
	char err[PATH_MAX + 64];
	struct statfs sf;

	if (!statfs(SCRATCH_TMPFS, &sf) && sf.f_type == TMPFS_MAGIC &&
	    !scratch_check_base(SCRATCH_TMPFS, err, sizeof(err)))
		return SCRATCH_TMPFS;
	return "/tmp";
}

/*
 * When process pid started, in clock ticks after boot (field 22 of
 * /proc/PID/stat); 0 when it cannot be read. With the pid it names one
 * process for good: a pid reused later has another start time.
 */
static unsigned long long proc_start_ticks(long pid)
{
	char path[64], buf[1024];
	unsigned long long ticks = 0;
	const char *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The name, field 2, is in parentheses and may hold anything. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%llu", &ticks) != 1)
		ticks = 0;
	return ticks;
}

int scratch_create(struct scratch *s, const char *base, char *err,
		   size_t errlen)
{
	char owner[PATH_MAX + 32], cwd[PATH_MAX];
	FILE *f;
	int fd, n;

	memset(s, 0, sizeof(*s));
	/* An absolute path: the users change into their directories, and
	 * a path relative to where the driver started means nothing there. */
	if (base[0] == '/') {
		n = snprintf(s->base, sizeof(s->base), "%s", base);
	} else if (getcwd(cwd, sizeof(cwd))) {
		n = snprintf(s->base, sizeof(s->base), "%s/%s", cwd, base);
	} else {
		return err_set(err, errlen,
			       "scratch directory %s: cannot tell the working directory it is in: %s",
			       base, strerror(errno));
	}
	if (n < 0 || (size_t)n >= sizeof(s->base) - 32)
		return err_set(err, errlen,
			       "scratch directory %s: path too long", base);
	snprintf(s->dir, sizeof(s->dir), "%s/" SCRATCH_PREFIX "XXXXXX",
		 s->base);
	if (!mkdtemp(s->dir)) {
		err_set(err, errlen, "cannot create scratch directory in %s: %s",
			base, strerror(errno));
		s->dir[0] = '\0';
		return -1;
	}
	/* The owner file lets a later run tell a stale directory (its
	 * driver was killed) from one in use: the driver's pid and when it
	 * started. */
	snprintf(owner, sizeof(owner), "%s/" SCRATCH_OWNER_FILE, s->dir);
	fd = open(owner, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		err_set(err, errlen, "cannot write %s: %s", owner,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		/* It holds the owner file at most: unlink() and rmdir()
		 * need no descriptor, which a walk of the tree would, and
		 * there may be none to spare. */
		unlink(owner);
		rmdir(s->dir);
		s->dir[0] = '\0';
		return -1;
	}
	fprintf(f, "%ld %llu\n", (long)getpid(), proc_start_ticks(getpid()));
	fclose(f);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* The same, but the top directory and its owner file stay. */
static int clear_entry(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	if (ftw->level == 0 ||
	    (ftw->level == 1 && !strcmp(path + ftw->base, SCRATCH_OWNER_FILE)))
		return 0;
	return remove_entry(path, st, flag, ftw);
}

/*
 * FTW_PHYS: never follow a symlink out of the scratch tree. One open
 * directory at a time (glibc reads the rest of a directory into memory
 * before it descends): a run whose users ran out of file descriptors
 * (EMFILE) leaves the driver few to spare, and it must still clean up.
 */
static void walk_depth_first(const char *path,
			     int (*fn)(const char *, const struct stat *, int,
				       struct FTW *))
{
	nftw(path, fn, 1, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* 0, or -1 with errno EBUSY when path is still there. */
static int remove_tree(const char *path)
{
	walk_depth_first(path, remove_entry);
	if (access(path, F_OK))
		return 0;
	errno = EBUSY;
	return -1;
}

int scratch_clear(const struct scratch *s)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	walk_depth_first(s->dir, clear_entry);
	/* What is left must be the owner file alone. */
	d = opendir(s->dir);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, SCRATCH_OWNER_FILE))
			rc = -1;
	closedir(d);
	if (rc)
		errno = EBUSY;
	return rc;
}

int scratch_remove(struct scratch *s)
{
	int rc;

	if (!s->dir[0])
		return 0;
	rc = remove_tree(s->dir);
	if (rc == 0)
		s->dir[0] = '\0';
	return rc;
}

/*
 * Whether the driver that the owner file names still runs: 1 or 0; -1
 * when the file is missing or names no pid. By pid and start time; for
 * an owner file with a pid alone, or where the start time cannot be
 * read, by the process's name, which must begin with "aimsweep" (not
 * for a driver renamed or run under valgrind).
 */
static int owner_alive(const char *dir)
{
	char path[PATH_MAX + 32], comm[64];
	unsigned long long started = 0, now;
	long pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" SCRATCH_OWNER_FILE, dir);
	f = fopen(path, "re");
	if (!f)
		return -1;	/* not ours, or not yet written */
	if (fscanf(f, "%ld %llu", &pid, &started) < 1)
		pid = 0;
	fclose(f);
	if (pid <= 0)
		return -1;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return 0;
	if (started && (now = proc_start_ticks(pid)))
		return now == started;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strncmp(comm, "aimsweep", 8) == 0;
}

int scratch_remove_stale(const char *base)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(base);
	int removed = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)))
			continue;
		if (!path_join(path, sizeof(path), base, de->d_name) ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (owner_alive(path) != 0)
			continue;
		if (remove_tree(path) == 0) {
			msg_info("removed stale scratch directory %s (its run was killed)",
				 path);
			removed++;
		}
	}
	closedir(d);
	return removed;
}
