/* jobs/mem.c: memory jobs (brk, brk_test, page_test, mem_rtns_*, ram_copy). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jobs/catalog.h"

struct brk_state {
	uintptr_t base;		/* the break malloc knows, read each op */
	uintptr_t low;		/* the op moves the break to base + high, */
	uintptr_t high;		/* then back to base + low */
};

/* The raw syscall, not sbrk(): glibc's malloc keeps its own idea of the
 * break, and this job always gives back exactly what it took. */
static uintptr_t sys_brk(uintptr_t addr)
{
	return (uintptr_t)syscall(SYS_brk, addr);
}

/* Set once a process has put its break on a page of its own. */
static int brk_heap_owned;

/*
 * Users are forked from the driver, whose heap they inherit, and the
 * kernel does not merge a range into a VMA shared with a parent through
 * fork: a page added right above that heap becomes a VMA of its own, and
 * shrinking back unmaps that VMA whole. The op would then measure mapping
 * and unmapping a separate VMA, cheaper and contended differently than
 * extending the heap, and which of the two depended on what the driver
 * had done. So the process first takes a page above the break through
 * malloc's own sbrk() (malloc keeps its break right) and writes to it: the
 * heap's top is then memory of this process, and the op extends and
 * splits it as in any program that has used its heap. Once per process,
 * from init(), when no user of the process is running ops.
 */
static int brk_own_heap(uintptr_t step)
{
	char *page;

	if (__atomic_exchange_n(&brk_heap_owned, 1, __ATOMIC_ACQ_REL))
		return 0;
	page = sbrk((intptr_t)step);
	if (page == (void *)-1) {
		__atomic_store_n(&brk_heap_owned, 0, __ATOMIC_RELEASE);
		return errno;
	}
	*(volatile char *)page = 1;
	return 0;
}

/*
 * In a process of its own a user grows the heap from the break by a page
 * and shrinks it back (low 0, high one page). Threads share one break:
 * asking for the same page, a thread's call could find the break already
 * where it asked, moved there by another, and then did nothing (brk()
 * returns at once when the break is already on the page asked for,
 * holding mmap_lock only briefly). How many calls were such no-ops
 * depended on how the threads interleaved; in one --mode thread run two
 * users ran 12.3M jobs/min each, against 8.3M in the runs around it. So
 * in thread mode user u moves the break between pages 2u and 2u + 1
 * above it: only u asks for those, and it alternates, so each of its
 * calls finds the break elsewhere and moves it, by one page or more
 * (through other users' pages, never touched, so never faulted in).
 */
static int brk_init(const struct job_ctx *ctx, void **state)
{
	struct brk_state *st = malloc(sizeof(*st));
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	int rc;

	if (!st)
		return ENOMEM;
	st->base = 0;
	st->low = ctx->threaded ? 2 * (uintptr_t)ctx->user * page : 0;
	st->high = st->low + page;
	rc = brk_own_heap(page);
	if (rc) {
		free(st);
		return rc;
	}
	*state = st;
	return 0;
}

/*
 * The op returns to the break malloc knows, read before every op: malloc,
 * used by other jobs of the same user, moves it, and returning to a stale
 * break would cut the heap from under malloc. glibc's sbrk(0) answers
 * from the break it keeps, which its malloc moves and this job always
 * leaves as found, so it needs no syscall: a third brk() per op would add
 * a third trip through the kernel (and mmap_lock) that the op does not
 * measure. Threads of one process all read the same value; none of them
 * moves the break with malloc meanwhile, as each has an arena of its own
 * (see user_host()), and the pages they take turns at (see brk_init())
 * are never written, so malloc finds them zeroed should it grow into
 * them later.
 */
static int brk_prepare(void *state)
{
	struct brk_state *st = state;
	void *cur = sbrk(0);

	if (cur == (void *)-1)
		return errno;
	st->base = (uintptr_t)cur;
	return 0;
}

/* One op grows the heap by a page and shrinks it back: the kernel extends
 * the heap mapping, then unmaps the page again (in thread mode, between
 * this user's own two pages; see brk_init()). */
static int brk_run(void *state)
{
	struct brk_state *st = state;

	if (sys_brk(st->base + st->high) != st->base + st->high)
		return ENOMEM;
	if (sys_brk(st->base + st->low) != st->base + st->low)
		return ENOMEM;
	return 0;
}

static void brk_fini(void *state)
{
	free(state);
}

const struct job job_brk = {
	.name = "brk",
	.family = "mem",
	.unit = "Heap Grow and Shrink Pairs",
	.inner_ops = 1,
	.summary = "grow the heap by one page with brk() and shrink it back",
	.syscalls = (const struct job_syscall[]){ { "brk", 2 }, { NULL, 0 } },
	.setup = "reads the break malloc keeps (sbrk(0), no syscall)",
	.init = brk_init,
	.prepare = brk_prepare,
	.run = brk_run,
	.fini = brk_fini,
};

/* The AIM7 memory jobs. */

/* brk_test: how many pages one op adds to the heap, one brk() each, before
 * it takes them away again one brk() at a time. */
#define BRK_TEST_STEPS 8

struct brk_test_state {
	uintptr_t base;		/* the break when the op began */
	uintptr_t page;
};

static int brk_test_init(const struct job_ctx *ctx, void **state)
{
	struct brk_test_state *st;

	/* Threads share one break and glibc's malloc moves it too; users
	 * moving it at once would take memory from under each other. */
	if (ctx->threaded) {
		job_set_reason(ctx, "brk_test moves the process-wide break, "
			       "which user threads would fight over");
		return JOB_SKIPPED;
	}
	st = malloc(sizeof(*st));
	if (!st)
		return ENOMEM;
	st->page = (uintptr_t)sysconf(_SC_PAGESIZE);
	st->base = 0;
	*state = st;
	return 0;
}

/* malloc() may have moved the break since the last op (mem_rtns_1 in the
 * same mix does), so every op starts from the break as it is now. */
static int brk_test_prepare(void *state)
{
	struct brk_test_state *st = state;

	st->base = sys_brk(0);
	return 0;
}

/* One op grows the heap a page at a time, then shrinks it a page at a
 * time; whatever happens, the break ends where it began. */
static int brk_test_run(void *state)
{
	struct brk_test_state *st = state;
	uintptr_t want;
	unsigned int i;

	for (i = 1; i <= BRK_TEST_STEPS; i++) {
		want = st->base + i * st->page;
		if (sys_brk(want) != want)
			goto fail;
	}
	for (i = BRK_TEST_STEPS; i-- > 0;) {
		want = st->base + i * st->page;
		if (sys_brk(want) != want)
			goto fail;
	}
	return 0;
fail:
	sys_brk(st->base);
	return ENOMEM;
}

/* page_test: the pages one op maps and writes; 64 KiB, far below what
 * transparent huge pages would back with one fault. */
#define PAGE_TEST_PAGES 16

struct page_test_state {
	size_t page;
	unsigned char fill;	/* what the op writes; not a constant */
};

static int page_test_init(const struct job_ctx *ctx, void **state)
{
	struct page_test_state *st = malloc(sizeof(*st));

	if (!st)
		return ENOMEM;
	st->page = (size_t)sysconf(_SC_PAGESIZE);
	st->fill = (unsigned char)(ctx->seed | 1);
	*state = st;
	return 0;
}

/* One op maps fresh anonymous memory and writes one byte to each page, so
 * that every page takes a real fault and gets a zeroed page, then unmaps
 * it. mmap() and not brk() because it is private to the op, which user
 * threads sharing one heap need. */
static int page_test_run(void *state)
{
	struct page_test_state *st = state;
	size_t len = PAGE_TEST_PAGES * st->page;
	unsigned char *mem;
	unsigned int i;

	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return errno;
	for (i = 0; i < PAGE_TEST_PAGES; i++)
		mem[i * st->page] = (unsigned char)(st->fill + i);
	job_sink += mem[(PAGE_TEST_PAGES - 1) * st->page];
	if (munmap(mem, len))
		return errno;
	return 0;
}

/* mem_rtns_1: the blocks one op allocates, all live at once; their sizes
 * come from the user's seed and average about 2 KiB. */
#define MEM_RTNS_1_BLOCKS 16
#define MEM_RTNS_1_MAX 4096

struct mem_rtns_1_state {
	size_t sizes[MEM_RTNS_1_BLOCKS];
	unsigned int round;	/* rotates which sizes are paired */
	unsigned char fill;
	unsigned char flip;	/* not 0: a pair differs in its last byte */
};

static int mem_rtns_1_init(const struct job_ctx *ctx, void **state)
{
	struct mem_rtns_1_state *st = calloc(1, sizeof(*st));
	uint64_t x = ctx->seed;

	if (!st)
		return ENOMEM;
	for (unsigned int i = 0; i < MEM_RTNS_1_BLOCKS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		st->sizes[i] = 16 + (size_t)(x >> 33) % (MEM_RTNS_1_MAX - 16);
	}
	st->fill = (unsigned char)(x >> 8);
	st->flip = (unsigned char)((x >> 16) | 1);
	*state = st;
	return 0;
}

/*
 * One op allocates blocks of varied sizes in pairs of one size, fills
 * both of a pair alike but for the last byte, compares them (memcmp reads
 * them through), and frees them all in an order unlike the allocation.
 */
static int mem_rtns_1_run(void *state)
{
	struct mem_rtns_1_state *st = state;
	unsigned char *blk[MEM_RTNS_1_BLOCKS];
	uint64_t acc = 0;
	unsigned int i;
	size_t n;
	int err = 0;

	for (i = 0; i < MEM_RTNS_1_BLOCKS; i++) {
		n = st->sizes[((i & ~1u) + st->round) % MEM_RTNS_1_BLOCKS];
		blk[i] = malloc(n);
		if (!blk[i]) {
			err = ENOMEM;
			break;
		}
		memset(blk[i], st->fill, n);
		if (i & 1) {
			blk[i][n - 1] ^= st->flip;
			acc += (uint64_t)(memcmp(blk[i - 1], blk[i], n) < 0);
		}
		acc ^= (uintptr_t)blk[i];
	}
	job_sink += acc;
	/* Odd blocks first, then even ones, leaving holes for free() to
	 * coalesce. */
	for (unsigned int j = 1; j < i; j += 2)
		free(blk[j]);
	for (unsigned int j = 0; j < i; j += 2)
		free(blk[j]);
	st->round++;
	return err;
}

/* mem_rtns_2 and ram_copy: the buffer each keeps, and what one op of
 * mem_rtns_2 does to it: a memset, a memcpy and a memmove per size. */
#define MEM_BUF_SIZE (16 * 1024)
#define MEM_RTNS_2_SIZES 4
#define MEM_RTNS_2_OPS (3 * MEM_RTNS_2_SIZES)

struct mem_buf_state {
	unsigned char *buf;	/* MEM_BUF_SIZE bytes, or twice for ram_copy */
	unsigned char fill;
	size_t sizes[MEM_RTNS_2_SIZES];
};

static int mem_buf_init(const struct job_ctx *ctx, void **state, size_t len)
{
	struct mem_buf_state *st = malloc(sizeof(*st));

	if (!st)
		return ENOMEM;
	st->buf = malloc(len);
	if (!st->buf) {
		free(st);
		return ENOMEM;
	}
	st->fill = (unsigned char)ctx->seed;
	memset(st->buf, st->fill, len);
	/* From a cache line to half the buffer, so that every memcpy has
	 * room for a destination that does not overlap its source. */
	st->sizes[0] = 64;
	st->sizes[1] = 512;
	st->sizes[2] = 2048;
	st->sizes[3] = MEM_BUF_SIZE / 2;
	*state = st;
	return 0;
}

static void mem_buf_fini(void *state)
{
	struct mem_buf_state *st = state;

	free(st->buf);
	free(st);
}

static int mem_rtns_2_init(const struct job_ctx *ctx, void **state)
{
	return mem_buf_init(ctx, state, MEM_BUF_SIZE);
}

/* For each size: set a block, copy it to the other half of the buffer,
 * and move it three bytes along within itself (overlapping, unaligned). */
static int mem_rtns_2_run(void *state)
{
	struct mem_buf_state *st = state;
	unsigned char *buf = st->buf;
	size_t n;

	for (unsigned int i = 0; i < MEM_RTNS_2_SIZES; i++) {
		n = st->sizes[i];
		memset(buf, (int)(st->fill + i), n);
		memcpy(buf + MEM_BUF_SIZE / 2, buf, n);
		memmove(buf + 3, buf, n - 3);
	}
	job_sink += buf[st->fill] + buf[MEM_BUF_SIZE - 1];
	return 0;
}

/* ram_copy: two buffers of MEM_BUF_SIZE, copied one into the other and
 * back. They live in the caches, as per-user memory must stay small; with
 * many users, the caches are what the users contend for. */
static int ram_copy_init(const struct job_ctx *ctx, void **state)
{
	return mem_buf_init(ctx, state, 2 * MEM_BUF_SIZE);
}

static int ram_copy_run(void *state)
{
	struct mem_buf_state *st = state;
	unsigned char *a = st->buf, *b = st->buf + MEM_BUF_SIZE;

	memcpy(b, a, MEM_BUF_SIZE);
	/* Change the copy, so that copying it back is not a no-op. */
	b[st->fill]++;
	memcpy(a, b, MEM_BUF_SIZE);
	job_sink += a[MEM_BUF_SIZE - 1];
	return 0;
}

const struct job job_brk_test = {
	.name = "brk_test",
	.family = "mem",
	.unit = "Memory Allocations",
	.inner_ops = 2 * BRK_TEST_STEPS,
	.summary = "grow the heap 8 pages by brk(), then shrink it back",
	.syscalls = (const struct job_syscall[]){
		{ "brk", 2 * BRK_TEST_STEPS + 1 }, { NULL, 0 } },
	.setup = "reads the current break with brk(0)",
	.init = brk_test_init,
	.prepare = brk_test_prepare,
	.run = brk_test_run,
	.fini = free,
};

const struct job job_page_test = {
	.name = "page_test",
	.family = "mem",
	.unit = "Page Faults",
	.inner_ops = PAGE_TEST_PAGES,
	.summary = "map 16 anonymous pages, fault each in, unmap them",
	.syscalls = (const struct job_syscall[]){
		{ "mmap", 1 }, { "munmap", 1 }, { NULL, 0 } },
	.init = page_test_init,
	.run = page_test_run,
	.fini = free,
};

const struct job job_mem_rtns_1 = {
	.name = "mem_rtns_1",
	.family = "mem",
	.unit = "Dynamic Memory Operations",
	.inner_ops = MEM_RTNS_1_BLOCKS,
	.summary = "malloc, memset, memcmp, free 16 blocks of varied sizes",
	.syscalls = (const struct job_syscall[]){ { NULL, 0 } },
	.init = mem_rtns_1_init,
	.run = mem_rtns_1_run,
	.fini = free,
};

const struct job job_mem_rtns_2 = {
	.name = "mem_rtns_2",
	.family = "mem",
	.unit = "Block Memory Operations",
	.inner_ops = MEM_RTNS_2_OPS,
	.summary = "memset, memcpy, memmove blocks of 64 B to 8 KiB",
	.syscalls = (const struct job_syscall[]){ { NULL, 0 } },
	.init = mem_rtns_2_init,
	.run = mem_rtns_2_run,
	.fini = mem_buf_fini,
};

const struct job job_ram_copy = {
	.name = "ram_copy",
	.family = "mem",
	.unit = "KiB of Memory to Memory Copy",
	.inner_ops = 2 * MEM_BUF_SIZE / 1024,
	.summary = "copy a 16 KiB buffer to another and back",
	.syscalls = (const struct job_syscall[]){ { NULL, 0 } },
	.init = ram_copy_init,
	.run = ram_copy_run,
	.fini = mem_buf_fini,
};
