// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - --record: every raw sample, in the format replay.c reads.
 * Each write goes through util.c's checked output: a full disk is said
 * once, with the file's name and the real reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "util.h"

FILE *record_open(const char *path, const struct iowstat_meta *m)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	FILE *f = fd < 0 ? NULL : out_open(fd, path);

	if (!f) {
		err_msg("cannot create %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	fprintf(f, "%s\n@meta hz %u\n@meta pagesize %u\n@meta interval %u\n"
		"@meta sysname %s\n@meta nodename %s\n@meta release %s\n"
		"@meta machine %s\n", RECORD_MAGIC, m->hz, m->pagesize,
		m->interval, m->sysname, m->nodename, m->release, m->machine);
	return f;
}

/*
 * record_sample - one sample; flushed so an interrupted run keeps it
 * Return: 0 or -errno (said).
 */
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
	return out_flush(f);
}

int record_cmd(FILE *f, const struct cmd_result *c)
{
	fprintf(f, "@cmd %d %" PRIu64 " %" PRIu64 " %" PRIu64, c->status,
		c->wall_ns, c->user_us, c->sys_us);
	if (c->have_runq)
		fprintf(f, " %" PRIu64, c->runq_ns);
	fputc('\n', f);
	return out_flush(f);
}

int record_close(FILE *f)
{
	return out_close(f);
}
