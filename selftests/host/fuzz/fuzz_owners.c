// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_owners.c - the parsers --top adds: the module's procs and cgroups
 * files (by column name, comm to the end of the line) and a recording's
 * iowstat:names file, all through sample_parse_file() as replay feeds
 * them.  After a success the rows must be sorted and in range, and
 * --top's figures of them (from nothing, and from themselves) must run
 * clean under UBSan and keep to the limit.
 *
 * Input: a selector byte (0 procs, 1 cgroups, 2 names, modulo 3), an
 * optional newline, the text.
 */
#include "fuzz.h"

#include "names.h"
#include "sample.h"
#include "view_top.h"

#define LIMIT	3

static const char *const path[] = {
	"/sys/kernel/debug/iowprobe/procs",
	"/sys/kernel/debug/iowprobe/cgroups",
	NAMES_PATH,
};

static struct iowstat_snapshot *none, *snap;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	none = snapshot_alloc();
	snap = snapshot_alloc();
	if (!none || !snap)
		abort();
	return 0;
}

static void check_rows(enum iowprobe_owner_kind k)
{
	const struct owner_table *t = &snap->owners[k];
	struct top_view v = { .kind = k };
	uint64_t prev = 0;
	char dev[32];
	size_t i;

	if (!(snap->have & HAVE_OWNERS(k)))
		fuzz_fail("accepted, HAVE_OWNERS(%d) not set", k);
	for (i = 0; i < t->n; i++) {
		if (owner_key(t, &t->row[i]) < prev)
			fuzz_fail("row %zu out of order", i);
		prev = owner_key(t, &t->row[i]);
		if (t->row[i].v[IOWPROBE_OCOL_exited] > 1)
			fuzz_fail("row %zu: exited %llu", i, (unsigned long long)
				  t->row[i].v[IOWPROBE_OCOL_exited]);
		if (strlen(t->row[i].comm) >= OWNER_COMM_MAX)
			fuzz_fail("row %zu: comm too long", i);
		names_dev(&t->row[i], dev, sizeof(dev));
		names_cgroup(t->row[i].v[IOWPROBE_OCOL_cgroup]);
	}
	if (top_compute(&v, none, snap, LIMIT) || v.n > LIMIT)
		fuzz_fail("from nothing: %zu rows", v.n);
	if (top_compute(&v, snap, snap, LIMIT) || v.n > LIMIT)
		fuzz_fail("from itself: %zu rows", v.n);
	for (i = 1; i < v.n; i++)
		if (v.rows[i].wa > v.rows[i - 1].wa)
			fuzz_fail("rows not by %%wa");
	top_free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_err pe = { 0, NULL };
	unsigned int sel;
	size_t skip;
	char *buf;
	int err;

	if (!snap)
		LLVMFuzzerInitialize(NULL, NULL);
	if (!size)
		return 0;
	sel = data[0] % 3;
	skip = 1 + (size > 1 && data[1] == '\n');
	buf = fuzz_copy(data + skip, size - skip);
	snap->have = 0;
	err = sample_parse_file(path[sel], buf, size - skip, snap, &pe);
	if (err) {
		if (err != -EINVAL || !pe.why)
			fuzz_fail("refused with %d, reason %p", err, pe.why);
		if (pe.line > size + 1)
			fuzz_fail("line %u of %zu bytes", pe.line, size);
	} else if (sel < IOWPROBE_OWNER_KINDS) {
		check_rows(sel);
	}
	free(buf);
	return 0;
}
