// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_pair - attach iowstat's BPF backend, then for every line read on
 * stdin print the BPF backend's cpus text and the module's cpus file, read
 * back to back, so that a test compares both backends over one window
 * without iowstat's interval loop in between.  The module's file is read
 * between two BPF reads: a test can interpolate the BPF figures at the
 * instants of the module's rows (now_ns).
 *
 * usage: bpf_pair [MODULE_CPUS_FILE]
 *   MODULE_CPUS_FILE   default /sys/kernel/debug/iowprobe/cpus
 *
 * Prints "ready" once attached.  Each request gets, in this order:
 *   @bpf
 *   <the BPF backend's cpus text (the module's format, ABI 1), read first>
 *   @bpf
 *   <the same, read right after the module's file>
 *   @module
 *   <the module's cpus file, nothing when it cannot be read>
 *   @end
 * Exit: 0 at end of input, 1 on an error, 2 when the backend cannot open
 * (its one-line reason is on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "sample.h"
#include "util.h"

#define MODULE_CPUS	"/sys/kernel/debug/iowprobe/cpus"

/* put_text - @buf as lines: a missing final newline is added */
static void put_text(const char *buf, size_t len)
{
	fwrite(buf, 1, len, stdout);
	if (len && buf[len - 1] != '\n')
		putchar('\n');
}

/* put_bpf - read the BPF backend and print its text */
static int put_bpf(struct iowstat_snapshot *s)
{
	struct iowstat_raw raw = { 0 };
	int err;

	memset(s, 0, sizeof(*s));
	/* no kernel's view wanted (k_* stay 0): the read stays short */
	s->have = HAVE_STAT;
	err = bpf_backend.read(&bpf_backend, s, &raw);
	if (err)
		return err;
	puts("@bpf");
	put_text(raw.f[0].buf, raw.f[0].len);
	raw_clear(&raw);
	return 0;
}

/* pair - one request: BPF, the module, BPF again */
static int pair(struct iowstat_snapshot *s, const char *module_cpus)
{
	size_t len = 0;
	char *buf = NULL;
	int err;

	err = put_bpf(s);
	if (err)
		return err;
	if (read_whole_file(module_cpus, &buf, &len))
		len = 0;
	err = put_bpf(s);
	puts("@module");
	put_text(buf, len);
	puts("@end");
	fflush(stdout);
	free(buf);
	return err;
}

int main(int argc, char **argv)
{
	const char *module_cpus = argc > 1 ? argv[1] : MODULE_CPUS;
	struct iowstat_snapshot *s = calloc(1, sizeof(*s));
	char line[64];
	int err;

	if (!s)
		return 1;
	err = bpf_backend.open(&bpf_backend);
	if (err) {
		bpf_backend.close(&bpf_backend);
		free(s);
		return 2;
	}
	puts("ready");
	fflush(stdout);
	while (!err && fgets(line, sizeof(line), stdin))
		err = pair(s, module_cpus);
	bpf_backend.close(&bpf_backend);
	free(s);
	return err ? 1 : 0;
}
