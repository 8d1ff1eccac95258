/* driver/measure/arena.c: maps the arena that the parent and its users share. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "driver/measure/arena.h"

static size_t round_line(size_t bytes)
{
	return (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
}

static size_t loop_offset(size_t n_entries)
{
	return round_line(sizeof(struct user_slot) +
			  n_entries * sizeof(struct entry_counters));
}

static size_t hist_offset(size_t n_entries, size_t loop_bytes)
{
	return loop_offset(n_entries) + round_line(loop_bytes);
}

static size_t slot_stride(size_t n_entries, size_t loop_bytes, bool latency)
{
	size_t bytes = hist_offset(n_entries, loop_bytes);

	if (latency)
		bytes += n_entries * sizeof(struct hist);
	return round_line(bytes);
}

size_t arena_size_for(unsigned int max_users, size_t n_entries,
		      size_t loop_bytes, bool latency)
{
	struct arena a = { .n_entries = n_entries };

	return arena_slots_offset(&a) +
	       (size_t)max_users * slot_stride(n_entries, loop_bytes, latency);
}

int arena_create(struct arena *a, unsigned int max_users, size_t n_entries,
		 size_t loop_bytes, bool latency)
{
	memset(a, 0, sizeof(*a));
	a->slot_stride = slot_stride(n_entries, loop_bytes, latency);
	a->loop_offset = loop_offset(n_entries);
	a->hist_offset = latency ? hist_offset(n_entries, loop_bytes) : 0;
	a->size = arena_size_for(max_users, n_entries, loop_bytes, latency);
	a->max_users = max_users;
	a->n_entries = n_entries;
	/* A file, so that a user can map its own slot alone (see
	 * arena_attach_slot()); MAP_SHARED, so that every process sees one
	 * copy. */
	a->fd = memfd_create("aimsweep-arena", MFD_CLOEXEC);
	if (a->fd < 0)
		return -1;
	if (ftruncate(a->fd, (off_t)a->size))
		goto fail;
	a->base = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       a->fd, 0);
	if (a->base == MAP_FAILED) {
		a->base = NULL;
		goto fail;
	}
	a->hdr = a->base;
	a->skips = (struct entry_skip *)((char *)a->base +
					 sizeof(struct arena_header));
	return 0;
fail:
	arena_close_fd(a);
	return -1;
}

void arena_destroy(struct arena *a)
{
	if (a->base)
		munmap(a->base, a->size);
	a->base = NULL;
	a->hdr = NULL;
	arena_close_fd(a);
}

void arena_close_fd(struct arena *a)
{
	int err = errno;

	/* 0 is a zeroed arena's, never created: not the driver's stdin. */
	if (a->fd > 0)
		close(a->fd);
	a->fd = -1;
	errno = err;
}

/* Read once: each user the spawner forks has it, and its own first call
 * of sysconf() would cost it a page fault into the C library's code. */
static size_t page_bytes(void)
{
	static size_t page;

	if (!__atomic_load_n(&page, __ATOMIC_RELAXED))
		__atomic_store_n(&page, (size_t)sysconf(_SC_PAGESIZE),
				 __ATOMIC_RELAXED);
	return __atomic_load_n(&page, __ATOMIC_RELAXED);
}

/* Where the pages that hold only slots begin: the ones before hold the
 * header, which every user maps. */
static size_t slot_pages_offset(const struct arena *a)
{
	size_t page = page_bytes();

	return (arena_slots_offset(a) + page - 1) / page * page;
}

size_t arena_file_end(const struct arena *a)
{
	size_t page = page_bytes();

	return (a->size + page - 1) / page * page;
}

int arena_map_header(struct arena *a, int fd)
{
	size_t header = slot_pages_offset(a);
	void *base;

	base = mmap(NULL, a->size, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -1;
	if (header > a->size)
		header = a->size;
	if (mmap(base, header, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, 0) == MAP_FAILED) {
		int err = errno;

		munmap(base, a->size);
		errno = err;
		return -1;
	}
	a->base = base;
	a->hdr = base;
	a->skips = (struct entry_skip *)((char *)base +
					 sizeof(struct arena_header));
	a->fd = fd;
	return 0;
}

int arena_attach_slot(struct arena *a, unsigned int user)
{
	size_t page = page_bytes();
	size_t start = (size_t)((char *)arena_slot(a, user) - (char *)a->base);
	size_t end = start + a->slot_stride;
	void *at;

	start = start / page * page;
	if (start < slot_pages_offset(a))
		start = slot_pages_offset(a);
	end = (end + page - 1) / page * page;
	if (end > a->size)
		end = a->size;
	if (start >= end)
		return 0;
	/* Over the reserve arena_map_header() left, at the slot's offset,
	 * so that arena_slot() holds in the user as in the driver. */
	at = mmap((char *)a->base + start, end - start, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED, a->fd, (off_t)start);
	return at == MAP_FAILED ? -1 : 0;
}

void arena_reset_level(struct arena *a, unsigned int users)
{
	memset(a->skips, 0, a->n_entries * sizeof(*a->skips));
	for (unsigned int u = 0; u < users; u++) {
		struct user_slot *s = arena_slot(a, u);

		/* The pid and the parked generation outlive the level. */
		s->exit_code = 0;
		s->reason[0] = '\0';
		memset(&s->rusage, 0, sizeof(s->rusage));
		memset(s->sysv_ids, 0, sizeof(s->sysv_ids));
		s->sysv_pending_key = 0;
		memset(s->counters, 0, a->n_entries * sizeof(s->counters[0]));
	}
}

void arena_snapshot(const struct arena *a, unsigned int users, uint64_t *ops,
		    uint64_t *inner, uint64_t *errors)
{
	for (unsigned int u = 0; u < users; u++) {
		const struct user_slot *s = arena_slot(a, u);

		for (size_t e = 0; e < a->n_entries; e++) {
			const struct entry_counters *c = &s->counters[e];
			size_t i = (size_t)u * a->n_entries + e;

			ops[i] = __atomic_load_n(&c->ops, __ATOMIC_RELAXED);
			inner[i] = __atomic_load_n(&c->inner, __ATOMIC_RELAXED);
			errors[i] = __atomic_load_n(&c->errors,
						    __ATOMIC_RELAXED);
		}
	}
}
