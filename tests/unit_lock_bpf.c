/* tests/unit_lock_bpf.c: unit tests of the in-kernel lock collector's arithmetic: kernel symbols, the window's t0/t1 clipping, CPUs folded, stacks merged by caller, and lost events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/capture/ksyms.h"
#include "driver/capture/lock_bpf.h"
#include "tests/test.h"

/* A kallsyms of a small kernel: lock text at 0x2000..0x3000, scheduler
 * text at 0x3000..0x3800, a static lock, a module, hidden symbols. */
static const char kallsyms[] =
	"0000000000000000 T hidden_from_us\n"
	"0000000000001000 T do_unlinkat\n"
	"0000000000001000 t do_unlinkat_alias\n"
	"0000000000001400 T path_openat\n"
	"0000000000001800 T __x64_sys_unlink\n"
	"0000000000001c00 T bpf_trace_run2\n"
	"0000000000002000 T __lock_text_start\n"
	"0000000000002000 T down_write\n"
	"0000000000002800 T rwsem_down_write_slowpath\n"
	"0000000000003000 T __lock_text_end\n"
	"0000000000003000 T __sched_text_start\n"
	"0000000000003000 T schedule\n"
	"0000000000003800 T __sched_text_end\n"
	"0000000000003800 T after_sched\n"
	"0000000000010000 D rtnl_mutex\n"
	"0000000000010100 d some_table\n"
	"0000000000020000 b far_bss\n"
	"0000000000030000 t mod_func\t[somemod]\n"
	"this line is no symbol\n";

static void load_ksyms(struct ksyms *ks)
{
	char path[] = "/tmp/unit_lock_bpf.XXXXXX", err[256];
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, kallsyms, sizeof(kallsyms) - 1) !=
			      (ssize_t)(sizeof(kallsyms) - 1))
		test_bail("cannot write %s: %s", path, strerror(errno));
	close(fd);
	if (ksyms_load(ks, path, err, sizeof(err)))
		test_bail("ksyms_load: %s", err);
	unlink(path);
}

static void test_ksyms(void)
{
	struct ksyms ks;
	char buf[128];

	load_ksyms(&ks);
	CHECK_EQ_U64(ks.n, 17);		/* the hidden one is skipped */
	ksyms_frame(&ks, 0x1066, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "do_unlinkat+0x66");	/* global before local */
	ksyms_frame(&ks, 0x1800, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "__x64_sys_unlink+0x0");
	ksyms_frame(&ks, 0x30010, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "mod_func+0x10");
	ksyms_frame(&ks, 0x10, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "0x10");	/* below every symbol */
	CHECK(!ksyms_is_lock_code(&ks, 0x1fff));
	CHECK(ksyms_is_lock_code(&ks, 0x2000));
	CHECK(ksyms_is_lock_code(&ks, 0x2fff));
	CHECK(ksyms_is_lock_code(&ks, 0x3000));	/* scheduler text */
	CHECK(ksyms_is_lock_code(&ks, 0x37ff));
	CHECK(!ksyms_is_lock_code(&ks, 0x3800));
	ksyms_lock_name(&ks, 0x10000, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "rtnl_mutex");
	ksyms_lock_name(&ks, 0x10140, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "some_table+0x40");
	ksyms_lock_name(&ks, 0x20000 + LOCK_NAME_MAX_OFFSET, buf,
			sizeof(buf));
	CHECK_STR_EQ(buf, "");		/* too far into a symbol */
	ksyms_lock_name(&ks, 0x1010, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "");		/* code, not a lock */
	ksyms_free(&ks);
}

static void test_ksyms_errors(void)
{
	struct ksyms ks;
	char err[256];

	CHECK_EQ_INT(ksyms_load(&ks, "/nonexistent/kallsyms", err,
				sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "cannot read /nonexistent/kallsyms");
	/* A reader the kernel hides addresses from sees only zeros. */
	CHECK_EQ_INT(ksyms_load(&ks, "/dev/null", err, sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "names no kernel symbol");
}

static void test_window(void)
{
	struct lock_bpf_wait w = { .begin_ns = 500 };

	/* Began before t0: from t0 to t1. */
	CHECK_EQ_U64(lock_bpf_open_wait_ns(&w, 1000, 4000), 3000);
	/* Began in the window: from its begin. */
	w.begin_ns = 2500;
	CHECK_EQ_U64(lock_bpf_open_wait_ns(&w, 1000, 4000), 1500);
	/* Began at or after t1: nothing of it is in the window. */
	w.begin_ns = 4000;
	CHECK_EQ_U64(lock_bpf_open_wait_ns(&w, 1000, 4000), 0);
}

static void test_fold_cpus(void)
{
	struct lock_bpf_sum cpu[3] = {
		{ .count = 2, .total_ns = 300, .max_ns = 200, .lock = 0x10 },
		{ 0 },		/* a CPU that never waited here */
		{ .count = 1, .total_ns = 900, .max_ns = 900, .lock = 0x10 },
	}, out;

	lock_bpf_fold_cpus(cpu, 3, &out);
	CHECK_EQ_U64(out.count, 3);
	CHECK_EQ_U64(out.total_ns, 1200);
	CHECK_EQ_U64(out.max_ns, 900);
	CHECK_EQ_U64(out.lock, 0x10);
	CHECK_EQ_U64(out.other_locks, 0);
	cpu[2].lock = 0x20;
	lock_bpf_fold_cpus(cpu, 3, &out);
	CHECK(out.other_locks > 0);
}

static void test_lost(void)
{
	uint64_t no_begin[2] = { 3, 4 }, full[2] = { 0, 2 }, unk[2] = { 5, 0 };
	uint64_t tasks[2] = { 1, 1 };
	struct lock_bpf_lost lost = { 0 };

	lock_bpf_lost_add(&lost, LOCK_BPF_LOST_NO_BEGIN, no_begin, 2);
	lock_bpf_lost_add(&lost, LOCK_BPF_LOST_CALLERS_FULL, full, 2);
	lock_bpf_lost_add(&lost, LOCK_BPF_STACKS_UNKNOWN, unk, 2);
	lock_bpf_lost_add(&lost, LOCK_BPF_LOST_TASKS_FULL, tasks, 2);
	lock_bpf_lost_add(&lost, LOCK_BPF_N_COUNTERS, tasks, 2); /* ignored */
	CHECK_EQ_U64(lost.no_begin, 7);
	CHECK_EQ_U64(lost.callers_full, 2);
	CHECK_EQ_U64(lost.stacks_unknown, 5);
	CHECK_EQ_U64(lost.tasks_full, 2);
	/* A begin with no room is lost once, as the end without it. */
	CHECK_EQ_U64(lock_bpf_lost_events(&lost), 9);
}

static void test_type_names(void)
{
	CHECK_STR_EQ(lock_bpf_type_name(4), "rwsem:W");
	CHECK_STR_EQ(lock_bpf_type_name(2), "rwsem:R");
	CHECK_STR_EQ(lock_bpf_type_name(1), "spinlock");
	CHECK_STR_EQ(lock_bpf_type_name(0x20), "mutex");
	CHECK_STR_EQ(lock_bpf_type_name(0x21), "mutex");
	CHECK_STR_EQ(lock_bpf_type_name(0x12), "pcpu-sem:R");
	CHECK_STR_EQ(lock_bpf_type_name(0x40), "unknown");
}

/* Stacks by id: the program's own unnamed frame and bpf_trace_run2 on
 * top, as the kernel gives them. */
static size_t fake_stack(void *ctx, int32_t id, uint64_t ips[LOCK_BPF_DEPTH])
{
	static const uint64_t stacks[][6] = {
		/* unlink: slowpath, down_write, do_unlinkat, syscall */
		{ 0x99, 0x1c10, 0x2810, 0x2008, 0x1160, 0x1810 },
		/* unlink again, through another line of do_unlinkat */
		{ 0x99, 0x1c10, 0x2810, 0x2008, 0x1170, 0x1810 },
		/* creat: slowpath, down_write, path_openat */
		{ 0x99, 0x1c10, 0x2810, 0x2008, 0x14e3, 0 },
		/* all lock code */
		{ 0x99, 0x1c10, 0x2810, 0x3010, 0, 0 },
	};
	size_t n = 0;

	(void)ctx;
	if (id < 0 || id >= 4)
		return 0;
	while (n < 6 && stacks[id][n]) {
		ips[n] = stacks[id][n];
		n++;
	}
	return n;
}

static const struct lock_entry *entry(const struct lock_report *r,
				      const char *caller, const char *type)
{
	for (size_t i = 0; i < r->n_entries; i++)
		if (!strcmp(r->entries[i].caller, caller) &&
		    !strcmp(r->entries[i].type, type))
			return &r->entries[i];
	return NULL;
}

static void test_merged_report(void)
{
	struct lock_bpf_total totals[] = {
		{ { 0, 4 }, { .count = 10, .total_ns = 5000, .max_ns = 900,
			      .lock = 0x7000 } },
		{ { 1, 4 }, { .count = 5, .total_ns = 2000, .max_ns = 1000,
			      .lock = 0x7000 } },
		{ { 2, 4 }, { .count = 8, .total_ns = 6000, .max_ns = 800,
			      .lock = 0x10000 } },
		{ { 3, 1 }, { .count = 1, .total_ns = 10, .max_ns = 10 } },
		{ { LOCK_BPF_NO_STACK, 4 }, { .count = 2, .total_ns = 40,
					      .max_ns = 30 } },
	};
	/* Waits in progress at t1 = 10000, the window opening at 1000: one
	 * on creat's stack since 4000, one on a stack no total has, since
	 * before t0, and one that began after t1, which counts nothing. */
	struct lock_bpf_wait open[] = {
		{ .begin_ns = 4000, .lock = 0x10000, .stack_id = 2,
		  .flags = 4 },
		{ .begin_ns = 200, .lock = 0x7000, .stack_id = 3, .flags = 4 },
		{ .begin_ns = 10500, .lock = 0x7000, .stack_id = 0,
		  .flags = 4 },
	};
	const struct lock_entry *e;
	struct lock_report r;
	struct ksyms ks;

	load_ksyms(&ks);
	CHECK_EQ_INT(lock_bpf_report(totals, 5, open, 3, 1000, 10000, &ks,
				     fake_stack, NULL, 10, &r), 0);
	/* creat: 6000 summed and 6000 of the wait still going on. */
	e = entry(&r, "path_openat+0xe3", "rwsem:W");
	if (CHECK(e)) {
		CHECK_EQ_U64(e->contended, 8);
		CHECK_EQ_U64(e->total_wait_ns, 12000);
		CHECK_EQ_U64(e->max_wait_ns, 6000);
		/* The mean is of the 8 waits that ended. */
		CHECK_EQ_U64(e->avg_wait_ns, 750);
		CHECK_EQ_U64(e->n_rows, 1);
		CHECK_STR_EQ(e->lock, "rtnl_mutex");
		CHECK_EQ_U64(e->rows[0].n_frames, 3);	/* tracing left out */
		CHECK_STR_EQ(e->rows[0].frame[0],
			     "rwsem_down_write_slowpath+0x10");
	}
	CHECK(r.n_entries >= 1 && r.entries == entry(&r, "path_openat+0xe3",
						      "rwsem:W"));
	/* unlink: two stacks of one caller are one entry of two rows. */
	e = entry(&r, "do_unlinkat+0x160", "rwsem:W");
	if (CHECK(e))
		CHECK_EQ_U64(e->contended, 10);
	e = entry(&r, "do_unlinkat+0x170", "rwsem:W");
	if (CHECK(e)) {
		CHECK_EQ_U64(e->n_rows, 1);
		CHECK_STR_EQ(e->lock, "");	/* 0x7000 is no symbol */
	}
	/* A stack of lock code only, and one never taken. */
	e = entry(&r, "[unknown]", "spinlock");
	if (CHECK(e))
		CHECK_EQ_U64(e->total_wait_ns, 10);
	e = entry(&r, "[unknown]", "rwsem:W");
	if (CHECK(e)) {
		/* The lone wait in progress since before t0 joins the
		 * unknown stack's row only when their stacks match: here
		 * stack 3 is all lock code, so its caller is unknown too. */
		CHECK_EQ_U64(e->contended, 2);
		CHECK_EQ_U64(e->total_wait_ns, 40 + 9000);
		CHECK_EQ_U64(e->avg_wait_ns, 20);	/* of the 2 that ended */
		CHECK_EQ_U64(e->n_rows, 2);
	}
	lock_entries_free(r.entries, r.n_entries);

	/* The top cut keeps the most waited-on. */
	CHECK_EQ_INT(lock_bpf_report(totals, 5, NULL, 0, 1000, 10000, &ks,
				     fake_stack, NULL, 1, &r), 0);
	if (CHECK(r.n_entries == 1))
		CHECK_STR_EQ(r.entries[0].caller, "path_openat+0xe3");
	lock_entries_free(r.entries, r.n_entries);
	/* Nothing waited on: an empty report. */
	CHECK_EQ_INT(lock_bpf_report(NULL, 0, NULL, 0, 1000, 10000, &ks,
				     fake_stack, NULL, 10, &r), 0);
	CHECK(r.n_entries == 0 && !r.entries);
	ksyms_free(&ks);
}

int main(void)
{
	RUN_TEST(test_ksyms);
	RUN_TEST(test_ksyms_errors);
	RUN_TEST(test_window);
	RUN_TEST(test_fold_cpus);
	RUN_TEST(test_lost);
	RUN_TEST(test_type_names);
	RUN_TEST(test_merged_report);
	return test_done();
}
