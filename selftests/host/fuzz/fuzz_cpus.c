// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_cpus.c - the debugfs "cpus" parser (ABI 1: "# iowprobe abi 1", a
 * header naming the columns, one row per CPU, "all").  The module has no
 * other file iowstat parses but procs and cgroups (fuzz_owners.c).
 *
 * Input: the file's text, in a block of exactly its size.  After a
 * success the snapshot must be one the views can use, and the differences
 * and per-CPU rows computed from it (as the since-load line does) must
 * run clean under UBSan.
 */
#include "fuzz.h"

#include "cpus_file.h"
#include "delta.h"
#include "view_cpus.h"

static struct iowstat_snapshot *snap;
static struct iowstat_delta *delta;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	snap = calloc(1, sizeof(*snap));
	delta = calloc(1, sizeof(*delta));
	if (!snap || !delta)
		abort();
	return 0;
}

static void check_accepted(void)
{
	struct rebase_state rs = { { false } };
	struct cpu_row row;
	unsigned int i;

	if (!(snap->have & HAVE_CPUS))
		fuzz_fail("accepted, HAVE_CPUS not set");
	if (snap->nr_cpus < 1 || snap->nr_cpus > IOWSTAT_MAX_CPUS)
		fuzz_fail("nr_cpus %u", snap->nr_cpus);
	if (!snap->cpu[snap->nr_cpus - 1].present)
		fuzz_fail("cpu %u (the last) not present", snap->nr_cpus - 1);
	for (i = snap->nr_cpus; i < IOWSTAT_MAX_CPUS; i++)
		if (snap->cpu[i].present)
			fuzz_fail("cpu %u beyond nr_cpus", i);
	delta_compute(NULL, snap, delta, &rs);
	for (i = 0; i < delta->nr_cpus; i++)
		cpu_row_compute(delta->cpu[i], &row);
	cpu_row_compute(delta->all, &row);
	delta_compute(snap, snap, delta, &rs);
	for (i = 0; i < delta->nr_cpus; i++)
		if (delta_total(delta->cpu[i]))
			fuzz_fail("cpu %u: a sample minus itself is not 0", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_err pe = { 0, NULL };
	char *buf = fuzz_copy(data, size);
	int err;

	if (!snap)
		LLVMFuzzerInitialize(NULL, NULL);
	snap->have = 0;
	err = debugfs_parse_cpus(buf, size, snap, &pe);
	if (err) {
		if (err != -EINVAL || !pe.why)
			fuzz_fail("refused with %d, reason %p", err, pe.why);
		if (pe.line < 1 || pe.line > size + 1)
			fuzz_fail("line %u of %zu bytes", pe.line, size);
	} else {
		check_accepted();
	}
	free(buf);
	return 0;
}
