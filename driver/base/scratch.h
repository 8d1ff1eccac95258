/* driver/base/scratch.h: the run's private scratch directory. */
#ifndef AIMSWEEP_SCRATCH_H
#define AIMSWEEP_SCRATCH_H

#include <limits.h>
#include <stddef.h>

#define SCRATCH_PREFIX "aimsweep."
#define SCRATCH_OWNER_FILE ".aimsweep-owner"

struct scratch {
	char base[PATH_MAX];	/* its parent directory, an absolute path */
	char dir[PATH_MAX];	/* base/aimsweep.XXXXXX, mode 0700 */
};

/* Checks that base is a directory we can write in; 0, or -1 with the
 * reason in err. Touches nothing. */
int scratch_check_base(const char *base, char *err, size_t errlen);
/* What a scratch directory's filesystem is, for the record and for the
 * warning below. */
struct scratch_fs {
	char type[32];		/* as /proc/self/mountinfo names it */
	int journal;		/* ext2/3/4: 1 or 0; -1: other, or unknown */
};

/* The filesystem that holds base: its mount's type, "unknown" where no
 * mount matches, and for ext2/3/4 whether a journal runs on it. */
void scratch_probe_fs(const char *base, struct scratch_fs *fs);
/*
 * Where the users' files go when neither -d, a DISKDIR nor $TMPDIR names
 * a place: SCRATCH_TMPFS when it is a tmpfs we can write in, so that the
 * run measures the kernel and not the state of a disk (LKP's aim7 mounts
 * a tmpfs for its runs for the same reason); else /tmp.
 */
#define SCRATCH_TMPFS "/dev/shm"
const char *scratch_default_base(void);
/* Creates the private directory and its owner file; 0, or -1 with what
 * failed in err. */
int scratch_create(struct scratch *s, const char *base, char *err,
		   size_t errlen);
/* Removes what the users left in the directory between two levels; 0, or
 * -1 when something is left (errno EBUSY, or opendir()'s): the caller,
 * which knows when, names the directory. */
int scratch_clear(const struct scratch *s);
/* Removes the directory and everything in it; 0, or -1 with errno EBUSY
 * when it is still there, for the caller to name. */
int scratch_remove(struct scratch *s);
/* Removes scratch directories in `base` whose owner process is gone (left
 * by a driver killed with SIGKILL); reports each one on stderr. Returns the
 * number removed. */
int scratch_remove_stale(const char *base);

#endif
