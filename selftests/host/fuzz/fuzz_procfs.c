// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_procfs.c - the /proc parsers: stat, vmstat, meminfo, pressure/io.
 *
 * Input: one selector byte (its low two bits: 0 stat, 1 vmstat,
 * 2 meminfo, 3 pressure/io), an optional newline, then the file's text.
 * The text goes through sample_parse_file(), the path replay takes, in a
 * block of exactly its size.  After a success the snapshot must be one
 * the views can use.
 */
#include "fuzz.h"

#include "procfs.h"
#include "sample.h"
#include "snapshot.h"

static const char *const paths[4] = {
	"/proc/stat", "/proc/vmstat", "/proc/meminfo", "/proc/pressure/io",
};

static const unsigned int have_bit[4] = {
	HAVE_STAT, HAVE_VMSTAT, HAVE_MEMINFO, HAVE_PSI,
};

static struct iowstat_snapshot *snap;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	snap = calloc(1, sizeof(*snap));
	if (!snap)
		abort();
	return 0;
}

static void check(unsigned int sel, int err, const struct parse_err *pe,
		  size_t len)
{
	unsigned int i;

	if (err) {
		if (err != -EINVAL)
			fuzz_fail("%s: error %d, not -EINVAL", paths[sel], err);
		if (!pe->why)
			fuzz_fail("%s: refused without a reason", paths[sel]);
		/* the line named is in the text (line 1 of an empty one) */
		if (pe->line > len + 1)
			fuzz_fail("%s: line %u of %zu bytes", paths[sel],
				  pe->line, len);
		return;
	}
	if (!(snap->have & have_bit[sel]))
		fuzz_fail("%s: accepted, HAVE bit not set", paths[sel]);
	if (sel != 0)
		return;
	if (!snap->stat_all.present)
		fuzz_fail("/proc/stat: accepted without a cpu line");
	if (snap->nr_stat_cpus > IOWSTAT_MAX_CPUS)
		fuzz_fail("/proc/stat: nr_stat_cpus %u", snap->nr_stat_cpus);
	for (i = snap->nr_stat_cpus; i < IOWSTAT_MAX_CPUS; i++)
		if (snap->stat_cpu[i].present)
			fuzz_fail("/proc/stat: cpu%u beyond nr_stat_cpus", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_err pe = { 0, NULL };
	unsigned int sel;
	char *buf;
	int err;

	if (!snap)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size < 1)
		return 0;
	sel = data[0] & 3;
	data++;
	size--;
	if (size && data[0] == '\n') {
		data++;
		size--;
	}
	buf = fuzz_copy(data, size);
	snap->have = 0;
	err = sample_parse_file(paths[sel], buf, size, snap, &pe);
	check(sel, err, &pe, size);
	free(buf);
	return 0;
}
