/* jobs/mem.c: memory jobs (brk, brk_test, page_test, mem_rtns_*, ram_copy). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * brk_test and page_test, after reaim: one op raises the break by 1 MiB;
 * then, round after round, it gives the top 16 pages back with one brk()
 * and takes them again one 4 KiB brk() at a time; at last it puts the
 * break back. brk_test makes 1000 rounds and never writes the pages:
 * 17002 brk() calls, of which AIM9 counted the 17000 in the rounds.
 * page_test makes 100 rounds and writes every 128th byte of each page as
 * it takes it back, so each takes a fault: 1702 brk() calls, 1600 faults.
 */
#define BRK_RAISE (1024 * 1024)
#define BRK_STEP 4096
#define BRK_STEPS 16
#define BRK_ROUND_CALLS (1 + BRK_STEPS)
#define BRK_TEST_ROUNDS 1000
#define PAGE_TEST_ROUNDS 100
#define PAGE_TEST_STRIDE 128

struct brk_rounds_state {
	uintptr_t base;		/* the break malloc knows, read each op */
	uintptr_t top;		/* where the rounds' pages end, above base */
	unsigned int rounds;
	unsigned char fill;	/* what page_test writes; 0: brk_test */
	uint64_t *progress;
};

/*
 * Threads share one break. In thread mode user u's 16 pages end BRK_RAISE
 * plus u times 17 pages above the break, one page clear of the next
 * user's, so that no two users ever ask for the same break and every call
 * moves it, as in the brk job (see brk_init()). A call finds the break
 * where any user left it and moves it across the pages in between:
 * brk_test never writes them, so none is ever faulted in or lost.
 * page_test writes each page it takes, and another user's brk() could
 * take the page back before the write, so it does not run in threads.
 */
static int brk_rounds_init(const struct job_ctx *ctx, void **state,
			   unsigned int rounds, unsigned char fill)
{
	struct brk_rounds_state *st = malloc(sizeof(*st));

	if (!st)
		return ENOMEM;
	st->base = 0;
	st->top = BRK_RAISE;
	if (ctx->threaded)
		st->top += (uintptr_t)ctx->user * BRK_ROUND_CALLS * BRK_STEP;
	st->rounds = rounds;
	st->fill = fill;
	st->progress = ctx->progress;
	*state = st;
	return 0;
}

static int brk_test_init(const struct job_ctx *ctx, void **state)
{
	return brk_rounds_init(ctx, state, BRK_TEST_ROUNDS, 0);
}

static int page_test_init(const struct job_ctx *ctx, void **state)
{
	if (ctx->threaded) {
		job_set_reason(ctx, "page_test writes the pages it takes with "
			       "brk(), and user threads share one break");
		return JOB_SKIPPED;
	}
	/* Never 0, which would make it brk_test. */
	return brk_rounds_init(ctx, state, PAGE_TEST_ROUNDS,
			       (unsigned char)(ctx->seed | 1));
}

/* As brk_prepare(): malloc, used by other jobs of the user, moves the
 * break, and glibc's sbrk(0) reads the break it keeps without a syscall
 * (reaim's sbrk(0) makes none either). */
static int brk_rounds_prepare(void *state)
{
	struct brk_rounds_state *st = state;
	void *cur = sbrk(0);

	if (cur == (void *)-1)
		return errno;
	st->base = (uintptr_t)cur;
	return 0;
}

/* page_test dirties each page it takes back a byte in every 128, as
 * reaim does; the first write faults the page in. */
static void brk_write_page(uintptr_t page, unsigned char fill)
{
	unsigned char *p = (unsigned char *)page;

	for (unsigned int i = 0; i < BRK_STEP; i += PAGE_TEST_STRIDE)
		p[i] = fill;
}

/* The raw syscall throughout, as in the brk job: the op leaves the break
 * where malloc knows it, whatever happens. */
static int brk_rounds_run(void *state)
{
	struct brk_rounds_state *st = state;
	uintptr_t top = st->base + st->top;
	uintptr_t low = top - BRK_STEPS * BRK_STEP;
	uintptr_t want;

	if (sys_brk(top) != top)
		goto fail;
	for (unsigned int r = 0; r < st->rounds; r++) {
		if (sys_brk(low) != low)
			goto fail;
		for (unsigned int i = 1; i <= BRK_STEPS; i++) {
			want = low + i * BRK_STEP;
			if (sys_brk(want) != want)
				goto fail;
			if (st->fill)
				brk_write_page(want - BRK_STEP, st->fill);
		}
		job_progress(st->progress, BRK_ROUND_CALLS);
	}
	if (sys_brk(st->base) != st->base)
		return ENOMEM;
	return 0;
fail:
	sys_brk(st->base);
	return ENOMEM;
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
	.units = JOB_UNITS_AIM7,
	.unit = "System Memory Allocations",
	.inner_ops = BRK_TEST_ROUNDS * BRK_ROUND_CALLS,
	.summary = "raise the break 1 MiB; 1000 times, brk() 16 pages back "
		   "and take them again a page per brk()",
	.syscalls = (const struct job_syscall[]){
		{ "brk", 2, 1 }, { NULL, 0, 0 } },
	.setup = "reads the break malloc keeps (sbrk(0), no syscall)",
	.init = brk_test_init,
	.prepare = brk_rounds_prepare,
	.run = brk_rounds_run,
	.fini = free,
};

const struct job job_page_test = {
	.name = "page_test",
	.family = "mem",
	.units = JOB_UNITS_AIM7,
	.unit = "System Allocations & Pages",
	.inner_ops = PAGE_TEST_ROUNDS * BRK_ROUND_CALLS,
	.summary = "brk_test's rounds 100 times, writing each page taken "
		   "back (1600 page faults)",
	.syscalls = (const struct job_syscall[]){
		{ "brk", 2, 1 }, { NULL, 0, 0 } },
	.setup = "reads the break malloc keeps (sbrk(0), no syscall)",
	.init = page_test_init,
	.prepare = brk_rounds_prepare,
	.run = brk_rounds_run,
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
