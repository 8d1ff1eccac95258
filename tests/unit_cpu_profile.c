/* tests/unit_cpu_profile.c: unit tests of the parser of perf report's CPU profile (cpu_report.c) and the disturbed rule (--cpu-profile). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture/cpu_profile.h"
#include "driver/capture/cpu_report.h"
#include "tests/test.h"

#define COLUMNS "# Overhead       Samples  Symbol\n" \
		"# ........  ............  ......\n" \
		"#\n"

/* What the last parse() said when it failed. */
static char parse_err[256];

/* Parses text as if perf report had printed it into "report.txt". */
static int parse(const char *text, size_t top, struct cpu_profile *prof)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	if (!f)
		test_bail("fmemopen: %s", strerror(errno));
	parse_err[0] = '\0';
	rc = cpu_report_parse(f, "report.txt", top, prof, parse_err,
			      sizeof(parse_err));
	fclose(f);
	return rc;
}

/*
 * What perf 6.1 printed for 0.03 s of a 2-CPU machine (`perf report
 * --stdio --sort sym -n`) while four creat-contention users ran and other
 * work shared the machine, its first and last lines left out.
 */
static const char perf_61_report[] =
	"#\n"
	"#\n"
	"# Total Lost Samples: 0\n"
	"#\n"
	"# Samples: 175  of event 'cpu-clock'\n"
	"# Event count (approx.): 175526575\n"
	"#\n"
	"# Overhead       Samples  Symbol                                                                         \n"
	"# ........  ............  ...............................................................................\n"
	"#\n"
	"    22.29%            39  [k] find_get_block_common\n"
	"     7.43%            13  [k] __brelse\n"
	"     4.57%             8  [k] recently_deleted\n"
	"     4.00%             7  [k] filemap_get_entry\n"
	"     3.43%             6  [k] do_syscall_64\n"
	"     2.29%             4  [k] _raw_spin_lock\n"
	"     2.29%             4  [k] ext4_get_group_desc\n"
	"     2.29%             4  [k] folio_mark_accessed\n"
	"     1.71%             3  [k] __rcu_read_unlock\n"
	"     1.71%             3  [.] getppid_run\n"
	"     1.71%             3  [.] init_cpu_features.constprop.0\n"
	"     1.71%             3  [.] intel_check_word.constprop.0\n"
	"     1.14%             2  [k] __rcu_read_lock\n"
	"     1.14%             2  [.] ira_init\n"
	"     1.14%             2  [.] reg_classes_intersect_p\n"
	"     1.14%             2  [.] 0x000000000001238c\n"
	"     0.57%             1  [.] __GI_____strtod_l_internal\n"
	"     0.57%             1  [k] __d_lookup_rcu\n"
	"     0.57%             1  [k] __damon_get_folio\n"
	"     0.57%             1  [k] __filemap_get_folio\n"
	"     0.57%             1  [k] __find_get_block\n"
	"     0.57%             1  [k] __fput\n"
	"     0.57%             1  [k] __list_del_entry_valid_or_report\n"
	"     0.57%             1  [k] __mem_cgroup_charge\n"
	"     0.57%             1  [k] __memcg_slab_free_hook\n"
	"     0.57%             1  [k] __pv_queued_spin_lock_slowpath\n"
	"     0.57%             1  [k] __raw_callee_save___pv_queued_spin_unlock\n"
	"     0.57%             1  [k] __rb_erase_color\n"
	"     0.57%             1  [.] __strlen_evex\n"
	"     0.57%             1  [k] _find_next_zero_bit\n"
	"     0.57%             1  [.] _int_free\n"
	"     0.57%             1  [.] _int_malloc\n"
	"     0.57%             1  [k] _raw_spin_unlock_irq\n"
	"     0.57%             1  [k] _raw_spin_unlock_irqrestore\n"
	"     0.57%             1  [.] bit_from_pos\n"
	"     0.57%             1  [.] bitmap_and_into\n"
	"     0.57%             1  [.] bitmap_bit_p\n"
	"     0.57%             1  [.] bitmap_ior_into\n"
	"     0.57%             1  [.] calculate_elim_costs_all_insns\n"
	"     0.57%             1  [k] damon_update_region_access_rate\n"
	"     0.57%             1  [.] do_lookup_x\n"
	"     0.57%             1  [k] dup_mmap\n"
	"     0.57%             1  [.] et_free_pools\n"
	"     0.57%             1  [k] ext4_dir_open\n"
	"     0.57%             1  [k] ext4_inode_table\n"
	"     0.57%             1  [k] ext4_release_file\n"
	"     0.57%             1  [k] filemap_map_pages\n"
	"     0.57%             1  [k] filemap_read\n"
	"     0.57%             1  [k] flush_tlb_mm_range\n"
	"     0.57%             1  [k] folio_remove_rmap_ptes\n"
	"     0.57%             1  [.] ggc_collect\n"
	"     0.57%             1  [.] gimple_fold_stmt_to_constant_1\n"
	"     0.57%             1  [.] handle_intel.constprop.0\n"
	"     0.57%             1  [.] hash_table<indirect_string_hasher, false, xcallocator>::find_slot_with_hash\n"
	"     0.57%             1  [.] hash_table<int_cst_hasher, false, xcallocator>::find_slot_with_hash\n"
	"     0.57%             1  [k] hugepage_pmd_enabled\n"
	"     0.57%             1  [k] inode_maybe_inc_iversion\n"
	"     0.57%             1  [k] inode_set_flags\n"
	"     0.57%             1  [.] ira_init_register_move_cost\n"
	"     0.57%             1  [k] ktime_get_real_seconds\n"
	"     0.57%             1  [k] mangle_path\n"
	"     0.57%             1  [.] mprotect\n"
	"     0.57%             1  [k] next_uptodate_folio\n"
	"     0.57%             1  [.] operand_compare::hash_operand\n"
	"     0.57%             1  [.] operands_scanner::get_expr_operands\n"
	"     0.57%             1  [k] pfn_pte\n"
	"     0.57%             1  [.] pop_scope\n"
	"     0.57%             1  [.] rtx_cost\n"
	"     0.57%             1  [.] sparseset_alloc\n"
	"     0.57%             1  [k] step_into\n"
	"     0.57%             1  [.] update_active.constprop.0\n"
	"     0.57%             1  [k] vm_get_page_prot\n"
	"     0.57%             1  [k] xas_load\n"
	"     0.57%             1  [.] 0x0000000000012390\n"
	"     0.57%             1  [.] 0x000000000040dda6\n"
	"     0.57%             1  [.] 0x000000000044b54f\n"
	"     0.57%             1  [.] 0x00000000005bc978\n"
	"     0.57%             1  [.] 0x0000000000614cc0\n"
	"     0.57%             1  [.] 0x000000000071f598\n"
	"     0.57%             1  [.] 0x0000000000727905\n"
	"     0.57%             1  [.] 0x000000000082f719\n"
	"     0.57%             1  [.] 0x000000000098ed32\n"
	"     0.57%             1  [.] 0x0000000000acebe0\n"
	"     0.57%             1  [.] 0x0000000000d4b5d0\n"
	"     0.57%             1  [.] 0x00000000013170ff\n"
	"     0.57%             1  [.] 0x000000000137e349\n"
	"\n"
	"\n"
	"#\n"
	"# (Tip: Print event counts in CSV format with: perf stat -x,)\n"
	"#\n";

static void test_perf_61_output(void)
{
	struct cpu_profile prof;
	double sum = 0;
	bool blanks = false;

	CHECK_EQ_INT(parse(perf_61_report, 5, &prof), 0);
	CHECK_EQ_U64(prof.samples, 175);
	CHECK_EQ_U64(prof.lost, 0);
	CHECK_EQ_U64(prof.rows_dropped, 0);
	CHECK_STR_EQ(prof.rejected, "");
	if (!CHECK_EQ_U64(prof.n_symbols, 5))
		return;
	CHECK_STR_EQ(prof.symbols[0].name, "find_get_block_common");
	CHECK(prof.symbols[0].kernel);
	CHECK_EQ_U64(prof.symbols[0].samples, 39);
	CHECK_NEAR(prof.symbols[0].share, 39.0 / 175, 1e-12);
	/* Fourteen unresolved user addresses, 15 samples, are one entry. */
	CHECK_STR_EQ(prof.symbols[1].name, "[unknown]");
	CHECK(!prof.symbols[1].kernel);
	CHECK_EQ_U64(prof.symbols[1].samples, 15);
	CHECK_STR_EQ(prof.symbols[2].name, "__brelse");
	CHECK_EQ_U64(prof.symbols[2].samples, 13);
	CHECK_STR_EQ(prof.symbols[3].name, "recently_deleted");
	CHECK_STR_EQ(prof.symbols[4].name, "filemap_get_entry");
	free(prof.symbols);

	/* Kept whole, the shares add up to every sample. */
	CHECK_EQ_INT(parse(perf_61_report, 1000, &prof), 0);
	CHECK_EQ_U64(prof.n_symbols, 73);
	for (size_t i = 0; i < prof.n_symbols; i++) {
		sum += prof.symbols[i].share;
		blanks |= !strcmp(prof.symbols[i].name,
				  "hash_table<int_cst_hasher, false, xcallocator>::find_slot_with_hash");
	}
	CHECK_NEAR(sum, 1.0, 1e-9);
	CHECK(blanks);
	free(prof.symbols);
}

/* A name perf prints twice (two binaries have it) is one entry; the same
 * name in the kernel and in user space is two. */
static void test_merge(void)
{
	struct cpu_profile prof;

	CHECK_EQ_INT(parse("# Samples: 10  of event 'cpu-clock'\n" COLUMNS
			   "    40.00%   4  [k] osq_lock\n"
			   "    30.00%   3  [.] main\n"
			   "    20.00%   2  [.] main\n"
			   "    10.00%   1  [k] main\n",
			   10, &prof), 0);
	CHECK_STR_EQ(prof.rejected, "");
	if (!CHECK_EQ_U64(prof.n_symbols, 3))
		return;
	CHECK_STR_EQ(prof.symbols[0].name, "main");
	CHECK(!prof.symbols[0].kernel);
	CHECK_EQ_U64(prof.symbols[0].samples, 5);
	CHECK_NEAR(prof.symbols[0].share, 0.5, 1e-12);
	CHECK_STR_EQ(prof.symbols[1].name, "osq_lock");
	CHECK_STR_EQ(prof.symbols[2].name, "main");
	CHECK(prof.symbols[2].kernel);
	free(prof.symbols);
}

/*
 * Lines that cannot be read are dropped and counted; those whose samples
 * can be read still count in every share (a guest's [g], a line without
 * a name). Lines before the column header are perf's notes, not symbols.
 */
static void test_malformed(void)
{
	struct cpu_profile prof;
	char text[4096], longname[1200];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(text, sizeof(text),
		 "Warning: Processed 99 events and lost 1 chunks!\n"
		 "    99.00%%  99  [k] before_the_header\n"
		 "# Total Lost Samples: 7\n"
		 "# Samples: 13  of event 'cpu-clock'\n" COLUMNS
		 "    38.46%%   5  [k] osq_lock\n"
		 "    23.08%%   3  [g] guest_code\n"
		 "     7.69%%   1  [k]    \n"
		 "     7.69%%   1  [.] user_code\n"
		 "    23.08%%   3  k] bad_mark\n"
		 "garbage\n"
		 "    x.00%%   3  [k] bad_percent\n"
		 "    12.00    3  [k] no_percent_sign\n"
		 "   -10.00%%   3  [k] negative\n"
		 "   110.00%%   3  [k] above_all\n"
		 "    10.00%%  -3  [k] negative_samples\n"
		 "    10.00%%   0  [k] no_samples\n"
		 "    10.00%%  3x  [k] bad_samples\n"
		 "    10.00%%   3  [k] %s\n"
		 "\n#\n# (Tip: a tip)\n#\n",
		 longname);
	CHECK_EQ_INT(parse(text, 10, &prof), 0);
	CHECK_STR_EQ(prof.rejected, "");
	CHECK_EQ_U64(prof.samples, 13);
	CHECK_EQ_U64(prof.lost, 7);
	CHECK(cpu_profile_disturbed(&prof));
	/* [g], no name and k], whose samples count; "garbage" and the 7
	 * lines after it, and the overlong one, whose samples do not. */
	CHECK_EQ_U64(prof.rows_dropped, 3 + 8 + 1);
	if (!CHECK_EQ_U64(prof.n_symbols, 2))
		return;
	CHECK_STR_EQ(prof.symbols[0].name, "osq_lock");
	CHECK_NEAR(prof.symbols[0].share, 5.0 / 13, 1e-12);
	CHECK_STR_EQ(prof.symbols[1].name, "user_code");
	CHECK_NEAR(prof.symbols[1].share, 1.0 / 13, 1e-12);
	free(prof.symbols);
}

/* perf divides counts above 1000 by 1000 and says K (M, G for more). */
static void test_count_units(void)
{
	struct cpu_profile prof;

	CHECK_EQ_INT(parse("# Samples: 2K of event 'cpu-clock'\n" COLUMNS
			   "   100.00%   2112  [k] osq_lock\n", 10, &prof), 0);
	CHECK_STR_EQ(prof.rejected, "");
	CHECK_EQ_U64(prof.samples, 2112);
	CHECK_EQ_U64(prof.n_symbols, 1);
	CHECK_NEAR(prof.symbols[0].share, 1.0, 0);
	free(prof.symbols);
	CHECK_EQ_INT(parse("# Samples: 1000  of event 'cpu-clock'\n" COLUMNS
			   "   100.00%   1000  [k] osq_lock\n", 10, &prof), 0);
	CHECK_STR_EQ(prof.rejected, "");
	free(prof.symbols);
	CHECK_EQ_INT(parse("# Samples: 3M of event 'cpu-clock'\n" COLUMNS
			   "   100.00%   3999999  [k] osq_lock\n", 10, &prof),
		     0);
	CHECK_STR_EQ(prof.rejected, "");
	free(prof.symbols);
}

/* A report whose lines do not add up is rejected whole: nothing of it is
 * kept, and every line counts as dropped. */
static void test_rejected(void)
{
	struct cpu_profile prof;

	/* The header counts 3000-3999 samples; the lines hold 2112. */
	CHECK_EQ_INT(parse("# Samples: 3K of event 'cpu-clock'\n" COLUMNS
			   "   100.00%   2112  [k] osq_lock\n", 10, &prof), 0);
	CHECK_STR_CONTAINS(prof.rejected, "header counts");
	CHECK_EQ_U64(prof.n_symbols, 0);
	CHECK(prof.symbols == NULL);
	CHECK_EQ_U64(prof.rows_dropped, 1);

	/* A line the count cannot read leaves the others' shares wrong. */
	CHECK_EQ_INT(parse("# Samples: 10  of event 'cpu-clock'\n" COLUMNS
			   "    80.00%   8  [k] osq_lock\n"
			   "    20.00%   2x [k] lost_line\n", 10, &prof), 0);
	CHECK_STR_CONTAINS(prof.rejected, "header counts");
	CHECK_EQ_U64(prof.rows_dropped, 2);

	/* Shares that are not the lines' samples (a hidden line). */
	CHECK_EQ_INT(parse("# Samples: 8  of event 'cpu-clock'\n" COLUMNS
			   "    70.00%   7  [k] osq_lock\n"
			   "    10.00%   1  [k] mutex_spin_on_owner\n",
			   10, &prof), 0);
	CHECK_STR_CONTAINS(prof.rejected, "says 70.00%");
	CHECK_EQ_U64(prof.n_symbols, 0);

	/* No count in the header. */
	CHECK_EQ_INT(parse(COLUMNS "   100.00%   5  [k] osq_lock\n", 10, &prof),
		     0);
	CHECK_STR_EQ(prof.rejected, "no sample count in its header");

	/* No samples at all. */
	CHECK_EQ_INT(parse("# Samples: 0  of event 'cpu-clock'\n" COLUMNS,
			   10, &prof), 0);
	CHECK_STR_EQ(prof.rejected, "no samples");
	CHECK_EQ_U64(prof.samples, 0);
}

/* Without the column header it is not perf report's text: an error, and
 * nothing read. */
static void test_foreign(void)
{
	struct cpu_profile prof;

	CHECK_EQ_INT(parse("", 10, &prof), -1);
	CHECK_STR_EQ(parse_err,
		     "cpu profile: report.txt lacks the header '# Overhead Samples Symbol' of perf 6.1's report");
	CHECK_EQ_INT(parse("Error:\nThe perf.data data has no samples!\n",
			   10, &prof), -1);
	CHECK_STR_CONTAINS(parse_err, "lacks the header");
	CHECK_EQ_INT(parse(" contended   total wait     max wait     avg wait         type   caller\n"
			   "        80    420.65 ms     18.41 ms      5.26 ms      rwsem:W   __x64_sys_unlink+0x3b\n",
			   10, &prof), -1);
	CHECK_STR_CONTAINS(parse_err, "lacks the header");
	CHECK_EQ_INT(parse("# Overhead  Command  Symbol\n"
			   "   100.00%  perf  [k] x\n", 10, &prof), -1);
	CHECK_STR_CONTAINS(parse_err, "lacks the header");
	CHECK_EQ_U64(prof.n_symbols, 0);
	CHECK(prof.symbols == NULL);
}

/* Most samples first; ties kernel first, then by name. */
static void test_order(void)
{
	struct cpu_profile prof;

	CHECK_EQ_INT(parse("# Samples: 8  of event 'cpu-clock'\n" COLUMNS
			   "    25.00%   2  [.] b\n"
			   "    25.00%   2  [k] c\n"
			   "    12.50%   1  [k] one\n"
			   "    25.00%   2  [.] a\n"
			   "    12.50%   1  [k] zero\n", 3, &prof), 0);
	if (!CHECK_EQ_U64(prof.n_symbols, 3))
		return;
	CHECK_STR_EQ(prof.symbols[0].name, "c");
	CHECK_STR_EQ(prof.symbols[1].name, "a");
	CHECK_STR_EQ(prof.symbols[2].name, "b");
	free(prof.symbols);
}

/* The rule that marks a level disturbed. */
static void test_disturbed(void)
{
	struct cpu_profile prof = { 0 };

	CHECK(!cpu_profile_disturbed(&prof));
	prof.profiler_cpu_pct = CPU_PROFILE_DISTURB_PCT;
	CHECK(!cpu_profile_disturbed(&prof));
	prof.profiler_cpu_pct = CPU_PROFILE_DISTURB_PCT + 0.01;
	CHECK(cpu_profile_disturbed(&prof));
	prof.profiler_cpu_pct = 0;
	prof.lost = 1;
	CHECK(cpu_profile_disturbed(&prof));
}

int main(void)
{
	RUN_TEST(test_perf_61_output);
	RUN_TEST(test_merge);
	RUN_TEST(test_malformed);
	RUN_TEST(test_count_units);
	RUN_TEST(test_rejected);
	RUN_TEST(test_foreign);
	RUN_TEST(test_order);
	RUN_TEST(test_disturbed);
	return test_done();
}
