// SPDX-License-Identifier: GPL-2.0-only
/*
 * iowstat_parse_test.c - iowstat's parsers on fixed text: /proc files,
 * the debugfs "cpus" file (by column name, ABI check) and strict numbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "cpus_file.h"
#include "procfs.h"
#include "util.h"

#define CPUS_HEAD	"# iowprobe abi 1\n"				\
	"cpu busy_ns idle_ns iowait_ns blk_local_ns blk_any_ns "	\
	"k_idle_ns k_iowait_ns nr_iowait\n"

FIXTURE(snap) {
	struct iowstat_snapshot *s;
	struct parse_err pe;
};

FIXTURE_SETUP(snap)
{
	self->s = calloc(1, sizeof(*self->s));
	ASSERT_NE(NULL, self->s);
}

FIXTURE_TEARDOWN(snap)
{
	free(self->s);
}

static int parse(int (*fn)(const char *, size_t, struct iowstat_snapshot *,
			   struct parse_err *),
		 const char *text, struct iowstat_snapshot *s,
		 struct parse_err *pe)
{
	return fn(text, strlen(text), s, pe);
}

TEST(parse_u32_is_strict)
{
	uint32_t v;

	EXPECT_EQ(0, parse_u32("5", 1, 10, &v));
	EXPECT_EQ(5, v);
	EXPECT_NE(0, parse_u32("", 1, 10, &v));
	EXPECT_NE(0, parse_u32("5x", 1, 10, &v));
	EXPECT_NE(0, parse_u32(" 5", 1, 10, &v));
	EXPECT_NE(0, parse_u32("-1", 1, 10, &v));
	EXPECT_NE(0, parse_u32("0", 1, 10, &v));
	EXPECT_NE(0, parse_u32("11", 1, 10, &v));
	EXPECT_NE(0, parse_u32("99999999999999999999999", 1, 10, &v));
}

TEST(parse_u64_overflow)
{
	uint64_t v;

	EXPECT_EQ(0, parse_u64_span((struct span){ "18446744073709551615",
						   20 }, &v));
	EXPECT_EQ(UINT64_MAX, v);
	EXPECT_NE(0, parse_u64_span((struct span){ "18446744073709551616",
						   20 }, &v));
}

TEST_F(snap, proc_stat)
{
	const char *t = "cpu  1 2 3 4 5 6 7 8 9 10\n"
			"cpu0 1 0 0 0 0 0 0 0\n"
			"cpu3 2 0 0 0 0 0 0 0 0 0\n"
			"intr 77 1 2 3\nctxt 88\nbtime 5\n"
			"procs_running 4\nprocs_blocked 2\n";

	ASSERT_EQ(0, parse(procfs_parse_stat, t, self->s, &self->pe));
	EXPECT_EQ(10, self->s->stat_all.t[T_GNICE]);
	EXPECT_EQ(5, self->s->stat_all.t[T_IOWAIT]);
	EXPECT_EQ(4, self->s->nr_stat_cpus);
	EXPECT_EQ(2, self->s->stat_cpu[3].t[T_USER]);
	EXPECT_EQ(0, self->s->stat_cpu[0].t[T_GUEST]);
	EXPECT_EQ(77, self->s->intr);
	EXPECT_EQ(88, self->s->ctxt);
	EXPECT_EQ(4, self->s->procs_running);
	EXPECT_EQ(2, self->s->procs_blocked);
}

TEST_F(snap, proc_stat_rejects_garbage)
{
	EXPECT_NE(0, parse(procfs_parse_stat, "cpu 1 2 x 4\nctxt 1\n",
			   self->s, &self->pe));
	EXPECT_EQ(1, self->pe.line);
	EXPECT_NE(0, parse(procfs_parse_stat, "cpu 1 2 3 4\n", self->s,
			   &self->pe));
	EXPECT_NE(0, parse(procfs_parse_stat,
			   "cpu 1 2 3 4\ncpu99999 1 2 3 4\nctxt 1\n",
			   self->s, &self->pe));
	EXPECT_EQ(2, self->pe.line);
}

TEST_F(snap, vmstat_meminfo_psi)
{
	ASSERT_EQ(0, parse(procfs_parse_vmstat,
			   "pgpgin 1\npgpgout 2\npswpin 3\npswpout 4\n",
			   self->s, &self->pe));
	EXPECT_EQ(4, self->s->pswpout);
	ASSERT_EQ(0, parse(procfs_parse_meminfo,
			   "MemFree: 10 kB\nBuffers: 20 kB\nCached: 30 kB\n"
			   "Active(anon): 99 kB\nActive: 40 kB\n",
			   self->s, &self->pe));
	EXPECT_EQ(40, self->s->active);
	EXPECT_EQ(0, self->s->sreclaimable);
	EXPECT_NE(0, parse(procfs_parse_meminfo, "MemFree: 10 kB\n",
			   self->s, &self->pe));
	ASSERT_EQ(0, parse(procfs_parse_psi,
			   "some avg10=1.00 avg60=0 avg300=0 total=123\n"
			   "full avg10=0 avg60=0 avg300=0 total=45\n",
			   self->s, &self->pe));
	EXPECT_EQ(123, self->s->psi_some_us);
	EXPECT_EQ(45, self->s->psi_full_us);
}

TEST_F(snap, cpus_by_column_name)
{
	/* columns reordered and one unknown column appended */
	const char *t = "# iowprobe abi 1\n"
		"cpu idle_ns busy_ns iowait_ns blk_any_ns blk_local_ns "
		"k_iowait_ns k_idle_ns nr_iowait brand_new\n"
		"0 10 20 3 4 5 6 7 -1 99\n"
		"1 11 21 1 1 1 1 1 2 99\n"
		"all 21 41 4 5 6 7 8 1 198\n";

	ASSERT_EQ(0, parse(debugfs_parse_cpus, t, self->s, &self->pe));
	EXPECT_EQ(2, self->s->nr_cpus);
	EXPECT_EQ(10, self->s->cpu[0].v[IOWPROBE_COL_idle_ns]);
	EXPECT_EQ(20, self->s->cpu[0].v[IOWPROBE_COL_busy_ns]);
	EXPECT_EQ(4, self->s->cpu[0].v[IOWPROBE_COL_blk_any_ns]);
	EXPECT_EQ(5, self->s->cpu[0].v[IOWPROBE_COL_blk_local_ns]);
	EXPECT_EQ(7, self->s->cpu[0].v[IOWPROBE_COL_k_idle_ns]);
	EXPECT_EQ(-1, (int64_t)self->s->cpu[0].v[IOWPROBE_COL_nr_iowait]);
	EXPECT_TRUE(self->s->have & HAVE_CPUS);
}

TEST_F(snap, cpus_refuses_other_abi)
{
	EXPECT_NE(0, parse(debugfs_parse_cpus, "# iowprobe abi 2\ncpu\n",
			   self->s, &self->pe));
	EXPECT_TRUE(self->pe.why == debugfs_err_abi);
	EXPECT_NE(0, parse(debugfs_parse_cpus, "", self->s, &self->pe));
	EXPECT_TRUE(self->pe.why == debugfs_err_abi);
}

TEST_F(snap, cpus_rejects_bad_rows)
{
	static const char *const bad[] = {
		CPUS_HEAD "0 1 2 3 4 5 6 7\n",		/* too few */
		CPUS_HEAD "0 1 2 3 4 5 6 7 8 9\n",	/* too many */
		CPUS_HEAD "0 1 2 3 4 5 6 x 8\n",	/* not a number */
		CPUS_HEAD "0 1 2 3 4 5 6 -7 8\n",	/* negative counter */
		CPUS_HEAD "0 1 2 3 4 5 6 7 8\n0 1 2 3 4 5 6 7 8\n",
		CPUS_HEAD "5000 1 2 3 4 5 6 7 8\n",	/* id too large */
		CPUS_HEAD,				/* no rows */
		"# iowprobe abi 1\ncpu busy_ns idle_ns\n0 1 2\n",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, parse(debugfs_parse_cpus, bad[i], self->s,
					 &self->pe)) {
			TH_LOG("case %u accepted", i);
		}
	}
	ASSERT_EQ(0, parse(debugfs_parse_cpus, CPUS_HEAD "0 1 2 3 4 5 6 7 8\n",
			   self->s, &self->pe));
}

TEST_F(snap, cpus_error_line)
{
	EXPECT_NE(0, parse(debugfs_parse_cpus,
			   CPUS_HEAD "0 1 2 3 4 5 6 7 8\n1 1 2\n", self->s,
			   &self->pe));
	EXPECT_EQ(4, self->pe.line);
}

TEST_HARNESS_MAIN
