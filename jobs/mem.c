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
 * where it asks, moved there by another, and then do nothing (brk()
 * returns at once when the break is already on the page asked for,
 * holding mmap_lock only briefly). How many calls were such no-ops
 * depended on how the threads interleaved, so a thread-mode run's
 * jobs/min swung far from the runs around it (docs/performance.md). So
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
 * (see thread_proc_main()), and the pages they take turns at (see
 * brk_init()) are never written, so malloc finds them zeroed should it
 * grow into them later. brk_test and page_test read it the same way (reaim's
 * sbrk(0) makes no syscall either).
 */
static inline int brk_read_base(uintptr_t *base)
{
	void *cur = sbrk(0);

	if (cur == (void *)-1)
		return errno;
	*base = (uintptr_t)cur;
	return 0;
}

static int brk_prepare(void *state)
{
	return brk_read_base(&((struct brk_state *)state)->base);
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

/* What every brk job's prepare() does. */
#define BRK_SETUP "reads the break malloc keeps (sbrk(0), no syscall)"

const struct job job_brk = {
	.name = "brk",
	.family = "mem",
	.unit = "Heap Grow and Shrink Pairs",
	.inner_ops = 1,
	.summary = "grow the heap by one page with brk() and shrink it back",
	.syscalls = (const struct job_syscall[]){ { "brk", 2 }, { NULL, 0 } },
	.setup = BRK_SETUP,
	.init = brk_init,
	.prepare = brk_prepare,
	.run = brk_run,
	.fini = free,
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
	struct brk_rounds_state *st = JOB_STATE_NEW(ctx,
						    struct brk_rounds_state);

	if (!st)
		return ENOMEM;
	st->top = BRK_RAISE;
	if (ctx->threaded)
		st->top += (uintptr_t)ctx->user * BRK_ROUND_CALLS * BRK_STEP;
	st->rounds = rounds;
	st->fill = fill;
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
 * break. */
static int brk_rounds_prepare(void *state)
{
	return brk_read_base(&((struct brk_rounds_state *)state)->base);
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

/* mem_rtns_1 and mem_rtns_2 take their block sizes from this table in
 * turn: reaim's mix of odd sizes from 1 byte to 8 KiB. */
static const unsigned short mem_rtns_sizes[] = {
	1, 3, 5, 7, 9, 11, 33, 65, 129, 1024,
	1025, 1023, 8192, 4096, 4095, 11, 33, 65, 129, 1024,
	1, 3, 5, 7, 9, 11, 33, 65, 129, 1024,
	1025, 1023, 8192, 4096, 4095, 11, 33, 65, 129, 1024,
};

#define MEM_RTNS_SIZES (sizeof(mem_rtns_sizes) / sizeof(mem_rtns_sizes[0]))

/*
 * mem_rtns_1: 100 rounds. A round makes 100 triples of blocks: a copy of
 * a 44-character string, a malloc() of the triple's size in the table and
 * a calloc() of the next size. It reads the first byte of every block,
 * then frees them last triple first: the string, the calloc() block, the
 * malloc() block. AIM9 counted the 30000 free()s.
 */
#define MEM_RTNS_1_ROUNDS 100
#define MEM_RTNS_1_TRIPLES 100
#define MEM_RTNS_1_BLOCKS (3 * MEM_RTNS_1_TRIPLES)

static const char mem_rtns_1_text[] =
	"a 44-byte string that mem_rtns_1 duplicates.";

struct mem_rtns_1_state {
	unsigned char *blocks[MEM_RTNS_1_BLOCKS];
	uint64_t *progress;
};

static int mem_rtns_1_init(const struct job_ctx *ctx, void **state)
{
	*state = JOB_STATE_NEW(ctx, struct mem_rtns_1_state);
	return *state ? 0 : ENOMEM;
}

/* Allocates a round's blocks; returns how many it got, all of them unless
 * memory ran out. */
static unsigned int mem_rtns_1_alloc(unsigned char **blk)
{
	unsigned int n = 0;
	size_t len;

	for (unsigned int t = 0; t < MEM_RTNS_1_TRIPLES; t++) {
		blk[n] = malloc(sizeof(mem_rtns_1_text));
		if (!blk[n])
			break;
		memcpy(blk[n++], mem_rtns_1_text, sizeof(mem_rtns_1_text));
		len = mem_rtns_sizes[t % MEM_RTNS_SIZES];
		blk[n] = malloc(len);
		if (!blk[n])
			break;
		n++;
		len = mem_rtns_sizes[(t + 1) % MEM_RTNS_SIZES];
		blk[n] = calloc(len, 1);
		if (!blk[n])
			break;
		n++;
	}
	return n;
}

static int mem_rtns_1_run(void *state)
{
	struct mem_rtns_1_state *st = state;
	unsigned char **blk = st->blocks;
	unsigned int n;
	uint64_t sum;

	for (unsigned int r = 0; r < MEM_RTNS_1_ROUNDS; r++) {
		n = mem_rtns_1_alloc(blk);
		if (n < MEM_RTNS_1_BLOCKS) {
			while (n-- > 0)
				free(blk[n]);
			return ENOMEM;
		}
		/* The malloc() blocks are read unwritten, as in reaim: what
		 * the byte holds does not matter, only that it is read. */
		sum = 0;
		for (unsigned int i = 0; i < MEM_RTNS_1_BLOCKS; i++)
			sum += blk[i][0];
		job_sink += sum;
		for (unsigned int i = MEM_RTNS_1_BLOCKS; i > 0; i -= 3) {
			free(blk[i - 3]);
			free(blk[i - 1]);
			free(blk[i - 2]);
		}
		job_progress(st->progress, MEM_RTNS_1_BLOCKS);
	}
	return 0;
}

/*
 * mem_rtns_2 and ram_copy work on two buffers of their own, placed as
 * reaim's default build places its two arrays: the lower one `lo_align`
 * bytes past a 64-byte line, the higher one `gap` bytes above it. How far
 * a copy's destination lies from its source, modulo a 4 KiB page, decides
 * whether the copy's loads wait on its own earlier stores (4K aliasing),
 * which on some CPUs costs more than the copy itself; so that distance,
 * and which buffer is the lower, must be reaim's.
 */
struct mem_buf_state {
	unsigned char *base, *lo, *hi;
	uint64_t *progress;
};

#define MEM_BUF_LINE 64

static int mem_buf_init(const struct job_ctx *ctx, void **state,
			size_t lo_align, size_t gap, size_t len)
{
	struct mem_buf_state *st = JOB_STATE_NEW(ctx, struct mem_buf_state);
	size_t total = lo_align + gap + len;

	if (!st)
		return ENOMEM;
	total = (total + MEM_BUF_LINE - 1) / MEM_BUF_LINE * MEM_BUF_LINE;
	st->base = aligned_alloc(MEM_BUF_LINE, total);
	if (!st->base) {
		free(st);
		return ENOMEM;
	}
	st->lo = st->base + lo_align;
	st->hi = st->lo + gap;
	job_fill_random(st->base, total, ctx->seed);
	*state = st;
	return 0;
}

static void mem_buf_fini(void *state)
{
	struct mem_buf_state *st = state;

	free(st->base);
	free(st);
}

/*
 * mem_rtns_2: 100 rounds over two 8 KiB buffers. Round n takes the n-th
 * size of the table and starts its blocks n % 8 and n / 8 % 8 bytes into
 * the buffers (every alignment against a double, both ways round). It
 * sets both blocks alike, marks one byte of the first, finds the mark
 * with memchr(), compares the blocks with memcmp() and unmarks the byte
 * as the comparison says, then copies the second block onto the first
 * with memcpy() and the first onto the second with memmove(). reaim's
 * buffers are on its stack, the first 8208 bytes above the second (16
 * bytes of padding after 8 KiB + 8): so the memcpy() runs from the lower
 * buffer to the higher, and the memmove() from the higher to the lower.
 */
#define MEM_RTNS_2_ROUNDS 100
#define MEM_RTNS_2_BUF (8192 + sizeof(double))
#define MEM_RTNS_2_GAP 8208
#define MEM_RTNS_2_FILL 'A'
#define MEM_RTNS_2_MARK 'Z'	/* above the fill: memcmp() says so */

static int mem_rtns_2_init(const struct job_ctx *ctx, void **state)
{
	return mem_buf_init(ctx, state, 0, MEM_RTNS_2_GAP, MEM_RTNS_2_BUF);
}

static int mem_rtns_2_run(void *state)
{
	struct mem_buf_state *st = state;
	unsigned char *first = st->hi, *second = st->lo;
	unsigned char *p1, *p2, *mark;
	size_t off1, off2, len;

	for (unsigned int n = 0; n < MEM_RTNS_2_ROUNDS; n++) {
		off1 = n % sizeof(double);
		off2 = n / sizeof(double) % sizeof(double);
		len = mem_rtns_sizes[n % MEM_RTNS_SIZES];
		p1 = first + off1;
		p2 = second + off2;
		memset(p1, MEM_RTNS_2_FILL, len);
		memset(p2, MEM_RTNS_2_FILL, len);
		p1[n % len] = MEM_RTNS_2_MARK;
		mark = memchr(p1, MEM_RTNS_2_MARK, len);
		if (memcmp(p1, p2, len) > 0 && mark)
			*mark = MEM_RTNS_2_FILL;
		memcpy(p1, p2, len);
		memmove(second + off1, first + off2, len);
		job_progress(st->progress, 1);
	}
	job_sink += first[0] + second[MEM_RTNS_2_BUF - 1];
	return 0;
}

/*
 * ram_copy: 100 memcpy()s from one 64 KiB buffer to another, of the sizes
 * in this table in turn (reaim's: mostly a few bytes, a few of 1 to 64
 * KiB), copy n starting n / 8 % 8 bytes into the source and n % 8 into
 * the destination, every alignment against a double. AIM9 rated the test
 * at 25020 a run, which is no count of this loop; an inner op here is one
 * of the copies. reaim's destination array lies below its source, 64 KiB
 * + 32 bytes (the source's 8 extra bytes padded to 32), and 32 bytes past
 * a 64-byte line: so every copy's destination is 25 to 39 bytes below its
 * source, modulo 4 KiB, and no load waits on the copy's own stores.
 */
static const unsigned int ram_copy_sizes[] = {
	1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 7,
	8, 9, 11, 17, 33, 63, 7, 7, 7, 7, 7, 7,
	1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 7,
	127, 256, 1001, 1200, 1492, 1500,
	1024, 2048, 3172, 4096, 8192, 16384, 32768, 65536, 512,
	7, 7, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6,
	7, 7, 7, 7, 7, 7, 8, 9, 11, 17, 33, 63,
	7, 7, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6,
	7, 7, 7, 7, 7, 7,
};

#define RAM_COPY_SIZES (sizeof(ram_copy_sizes) / sizeof(ram_copy_sizes[0]))
#define RAM_COPY_COPIES 100
#define RAM_COPY_BUF (65536 + sizeof(double))
#define RAM_COPY_GAP (65536 + 32)
#define RAM_COPY_LO_ALIGN 32

static int ram_copy_init(const struct job_ctx *ctx, void **state)
{
	return mem_buf_init(ctx, state, RAM_COPY_LO_ALIGN, RAM_COPY_GAP,
			    RAM_COPY_BUF);
}

static int ram_copy_run(void *state)
{
	struct mem_buf_state *st = state;
	unsigned char *dst = st->lo;
	const unsigned char *src = st->hi;
	size_t from, to;

	for (unsigned int n = 0; n < RAM_COPY_COPIES; n++) {
		to = n % sizeof(double);
		from = n / sizeof(double) % sizeof(double);
		memcpy(dst + to, src + from,
		       ram_copy_sizes[n % RAM_COPY_SIZES]);
		job_progress(st->progress, 1);
	}
	job_sink += dst[RAM_COPY_COPIES];
	return 0;
}

/* brk_test and page_test: an op's brk() calls. */
static const struct job_syscall brk_rounds_calls[] = {
	{ "brk", 2, 1 }, { NULL, 0, 0 } };

const struct job job_brk_test = {
	.name = "brk_test",
	.family = "mem",
	.units = JOB_UNITS_AIM7,
	.unit = "System Memory Allocations",
	.inner_ops = BRK_TEST_ROUNDS * BRK_ROUND_CALLS,
	.summary = "raise the break 1 MiB; 1000 times, brk() 16 pages back "
		   "and take them again a page per brk()",
	.syscalls = brk_rounds_calls,
	.setup = BRK_SETUP,
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
	.syscalls = brk_rounds_calls,
	.setup = BRK_SETUP,
	.init = page_test_init,
	.prepare = brk_rounds_prepare,
	.run = brk_rounds_run,
	.fini = free,
};

const struct job job_mem_rtns_1 = {
	.name = "mem_rtns_1",
	.family = "mem",
	.units = JOB_UNITS_AIM7,
	.unit = "Dynamic Memory Operations",
	.inner_ops = MEM_RTNS_1_ROUNDS * MEM_RTNS_1_BLOCKS,
	.summary = "100 times: malloc and calloc 300 blocks of 1 B to 8 KiB, "
		   "read each, free them",
	.syscalls = (const struct job_syscall[]){ { NULL, 0, 0 } },
	.init = mem_rtns_1_init,
	.run = mem_rtns_1_run,
	.fini = free,
};

const struct job job_mem_rtns_2 = {
	.name = "mem_rtns_2",
	.family = "mem",
	.units = JOB_UNITS_AIM7,
	.unit = "Block Memory Operations",
	.inner_ops = MEM_RTNS_2_ROUNDS,
	.summary = "100 blocks of 1 B to 8 KiB: memset, memchr, memcmp, "
		   "memcpy, memmove at every alignment",
	.syscalls = (const struct job_syscall[]){ { NULL, 0, 0 } },
	.init = mem_rtns_2_init,
	.run = mem_rtns_2_run,
	.fini = mem_buf_fini,
};

const struct job job_ram_copy = {
	.name = "ram_copy",
	.family = "mem",
	.units = JOB_UNITS_AIM7,
	.unit = "Memory to Memory Copy",
	.inner_ops = RAM_COPY_COPIES,
	.summary = "100 memcpy()s of 1 B to 64 KiB between two buffers, "
		   "at every alignment",
	.syscalls = (const struct job_syscall[]){ { NULL, 0, 0 } },
	.init = ram_copy_init,
	.run = ram_copy_run,
	.fini = mem_buf_fini,
};
