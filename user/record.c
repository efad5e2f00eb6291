// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - --record: every raw sample, in the format replay.c reads.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "record.h"
#include "util.h"

FILE *record_open(const char *path, const struct iowstat_meta *m)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		err_msg("cannot create %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fprintf(f, "%s\n@meta hz %u\n@meta pagesize %u\n@meta interval %u\n"
		"@meta sysname %s\n@meta nodename %s\n@meta release %s\n"
		"@meta machine %s\n", RECORD_MAGIC, m->hz, m->pagesize,
		m->interval, m->sysname, m->nodename, m->release, m->machine);
	return f;
}

/* record_sample - one sample; flushed so an interrupted run keeps it */
int record_sample(FILE *f, unsigned int n, const struct iowstat_raw *raw)
{
	unsigned int i;

	fprintf(f, "@sample %u %" PRIu64 " %" PRIu64 "\n", n, raw->mono_ns,
		raw->real_ns);
	for (i = 0; i < raw->nfiles; i++) {
		fprintf(f, "@file %s %zu\n", raw->f[i].path, raw->f[i].len);
		fwrite(raw->f[i].buf, 1, raw->f[i].len, f);
		fputc('\n', f);
	}
	fprintf(f, "@end %u\n", n);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int record_cmd(FILE *f, const struct cmd_result *c)
{
	fprintf(f, "@cmd %d %" PRIu64 " %" PRIu64 " %" PRIu64, c->status,
		c->wall_ns, c->user_us, c->sys_us);
	if (c->have_runq)
		fprintf(f, " %" PRIu64, c->runq_ns);
	fputc('\n', f);
	return fflush(f) ? -EIO : 0;
}

int record_close(FILE *f)
{
	if (!f)
		return 0;
	return fclose(f) ? -EIO : 0;
}
