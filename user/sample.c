// SPDX-License-Identifier: GPL-2.0-only
/*
 * sample.c - take one sample: the /proc files, then the backend, all
 * parsed into a snapshot; the raw text is kept for --record.  Replay
 * feeds recorded text through sample_parse_file(), the same path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpus_file.h"
#include "names.h"
#include "sample.h"
#include "util.h"

struct proc_file {
	const char *path;
	bool optional;		/* /proc/pressure/io needs CONFIG_PSI */
	int (*parse)(const char *buf, size_t len, struct iowstat_snapshot *s,
		     struct parse_err *pe);
};

static const struct proc_file proc_files[] = {
	{ "/proc/stat",		false,	procfs_parse_stat },
	{ "/proc/vmstat",	false,	procfs_parse_vmstat },
	{ "/proc/meminfo",	false,	procfs_parse_meminfo },
	{ "/proc/pressure/io",	true,	procfs_parse_psi },
};

/* raw_add - keep @buf (ownership passes to @raw, even on error) */
int raw_add(struct iowstat_raw *raw, const char *path, char *buf, size_t len)
{
	unsigned int i = raw->nfiles;

	if (i == RAW_MAX_FILES || strlen(path) >= RAW_PATH_MAX) {
		free(buf);
		return -E2BIG;
	}
	snprintf(raw->f[i].path, RAW_PATH_MAX, "%s", path);
	raw->f[i].buf = buf;
	raw->f[i].len = len;
	raw->nfiles++;
	return 0;
}

void raw_clear(struct iowstat_raw *raw)
{
	unsigned int i;

	for (i = 0; i < raw->nfiles; i++)
		free(raw->f[i].buf);
	raw->nfiles = 0;
}

static int fail_nomem(struct parse_err *pe)
{
	pe->line = 0;
	pe->why = "out of memory";
	return -EINVAL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* owner_kind - which owner file @path is (".../iowprobe/procs"), or -1 */
static int owner_kind(const char *path)
{
	static const char *const file[] = IOWPROBE_OWNER_FILES;
	char suffix[64];
	unsigned int k;

	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		snprintf(suffix, sizeof(suffix), "/%s/%s", IOWPROBE_DIR,
			 file[k]);
		if (ends_with(path, suffix))
			return k;
	}
	return -1;
}

static int parse_owners(enum iowprobe_owner_kind k, const char *buf,
			size_t len, struct iowstat_snapshot *s,
			struct parse_err *pe)
{
	int err = owners_parse(k, buf, len, &s->owners[k], pe);

	if (err == -ENOMEM)
		return fail_nomem(pe);
	if (!err)
		s->have |= HAVE_OWNERS(k);
	return err;
}

/**
 * sample_parse_file() - parse one file's text into @s, chosen by its path.
 * Return: 0, -EINVAL (with @pe) or -ENOENT for a path iowstat does not know.
 */
int sample_parse_file(const char *path, const char *buf, size_t len,
		      struct iowstat_snapshot *s, struct parse_err *pe)
{
	unsigned int i;
	int k;

	for (i = 0; i < ARRAY_SIZE(proc_files); i++)
		if (strcmp(path, proc_files[i].path) == 0)
			return proc_files[i].parse(buf, len, s, pe);
	if (ends_with(path, "/iowprobe/cpus"))
		return debugfs_parse_cpus(buf, len, s, pe);
	k = owner_kind(path);
	if (k >= 0)
		return parse_owners(k, buf, len, s, pe);
	if (strcmp(path, NAMES_PATH) == 0)
		return names_parse(buf, len, pe);
	return -ENOENT;
}

static int take_proc(const struct proc_file *pf, struct iowstat_snapshot *s,
		     struct iowstat_raw *raw)
{
	struct parse_err pe = { 0, NULL };
	size_t len;
	char *buf;
	int err;

	err = read_whole_file(pf->path, &buf, &len);
	if (err == -ENOENT && pf->optional)
		return 0;
	if (err) {
		err_msg("cannot read %s: %s\n", pf->path, strerror(-err));
		return err;
	}
	err = pf->parse(buf, len, s, &pe);
	if (err) {
		err_msg("%s:%u: %s\n", pf->path, pe.line, pe.why);
		free(buf);
		return err;
	}
	return raw_add(raw, pf->path, buf, len);
}

/**
 * sample_take() - read every source once into @s and @raw, which the
 * caller has cleared (raw_clear(), @s->have 0), or has begun with the
 * owner files.
 * The backend is read right after /proc, so that the kernel's numbers
 * and the exact ones describe nearly the same instant.  The sample's
 * clock is read last, just before the backend: the exact figures carry
 * their own instants (now_ns), and a slow /proc read (a loaded or
 * emulated machine can take a tenth of a second over it) must not sit
 * between the two.
 * Return: 0 or -errno, with a message printed.
 */
int sample_take(struct iowstat_backend *be, struct iowstat_snapshot *s,
		struct iowstat_raw *raw)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(proc_files); i++) {
		err = take_proc(&proc_files[i], s, raw);
		if (err)
			return err;
	}
	s->mono_ns = clock_ns(CLOCK_MONOTONIC);
	s->real_ns = clock_ns(CLOCK_REALTIME);
	raw->mono_ns = s->mono_ns;
	raw->real_ns = s->real_ns;
	return be->read(be, s, raw);
}

struct iowstat_snapshot *snapshot_alloc(void)
{
	return calloc(1, sizeof(struct iowstat_snapshot));
}

/* snapshot_free - @s and the owner rows it holds; NULL is fine */
void snapshot_free(struct iowstat_snapshot *s)
{
	unsigned int k;

	if (!s)
		return;
	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++)
		owners_free(&s->owners[k]);
	free(s);
}

void sample_meta_init(struct iowstat_meta *m, unsigned int interval)
{
	struct utsname u;
	long v;

	memset(m, 0, sizeof(*m));
	v = sysconf(_SC_CLK_TCK);
	m->hz = v > 0 ? v : 100;
	v = sysconf(_SC_PAGESIZE);
	m->pagesize = v > 0 ? v : 4096;
	m->interval = interval;
	if (uname(&u) == 0) {
		snprintf(m->sysname, sizeof(m->sysname), "%s", u.sysname);
		snprintf(m->nodename, sizeof(m->nodename), "%s", u.nodename);
		snprintf(m->release, sizeof(m->release), "%s", u.release);
		snprintf(m->machine, sizeof(m->machine), "%s", u.machine);
	}
}
