// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpus_file.c - the module backend: reads /sys/kernel/debug/iowprobe/cpus
 * and parses it by column name, so columns appended by a later module
 * version are ignored rather than misread.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "backend.h"
#include "cpus_file.h"
#include "mounts.h"
#include "sample.h"
#include "util.h"

#define DEBUGFS_MAGIC	0x64626720	/* include/uapi/linux/magic.h */
/* there while the module is loaded, whether debugfs is mounted or not */
#define SYSFS_MODULES	"/sys/module"
#define SYSFS_MODULE	SYSFS_MODULES "/iowprobe"

const char *const debugfs_err_abi = "unknown ABI";

const char *const iowstat_col_name[IOWPROBE_COL_NR] = {
#define IOWPROBE_COL(name, kind)	STRINGIFY(name),
#include "iowprobe_cols.h"
};

const unsigned char iowstat_col_kind[IOWPROBE_COL_NR] = {
#define IOWPROBE_COL(name, kind)	kind,
#include "iowprobe_cols.h"
};

_Static_assert(IOWPROBE_COL_NR <= COLS_MAX, "col_map has 64 bits");

/* parse_header - "cpu" and the columns after it, by name */
static const char *parse_header(struct span line, struct col_map *c)
{
	struct span tok;
	const char *why;
	unsigned int i;

	if (!span_next_token(&line, &tok) || !span_eq(tok, "cpu"))
		return "header does not start with \"cpu\"";
	why = col_map_parse(&line, iowstat_col_name, IOWPROBE_COL_NR,
			    COL_NONE, c);
	if (why)
		return why;
	for (i = 0; i < IOWPROBE_COL_NR; i++)
		if (iowprobe_col_required(iowstat_col_kind[i]) &&
		    !(c->found & (1ull << i)))
			return "a required column is missing";
	return NULL;
}

static int parse_value(struct span tok, int col, uint64_t *v)
{
	int64_t sv;

	if (col < 0 || iowstat_col_kind[col] != IOWPROBE_LEVEL)
		return parse_u64_span(tok, v);
	if (parse_s64_span(tok, &sv))
		return -EINVAL;
	*v = (uint64_t)sv;
	return 0;
}

/* parse_row - "<id|all> v v ..." with exactly the header's column count */
static const char *parse_row(struct span line, const struct col_map *c,
			     struct iowstat_snapshot *s)
{
	struct iowstat_cpu row = { .present = true };
	struct span tok;
	uint64_t id = 0;
	bool all;
	unsigned int i;
	uint64_t v;

	if (!span_next_token(&line, &tok))
		return "empty row";
	all = span_eq(tok, "all");
	if (!all && (parse_u64_span(tok, &id) || id >= IOWSTAT_MAX_CPUS))
		return "bad cpu id";
	for (i = 0; i < c->n; i++) {
		if (!span_next_token(&line, &tok))
			return "too few values";
		if (parse_value(tok, c->map[i], &v))
			return "bad number";
		if (c->map[i] != COL_NONE)
			row.v[c->map[i]] = v;
	}
	if (span_next_token(&line, &tok))
		return "too many values";
	if (all)
		return NULL;	/* iowstat sums the CPUs it shows itself */
	if (s->cpu[id].present)
		return "duplicate cpu id";
	s->cpu[id] = row;
	if (id + 1 > s->nr_cpus)
		s->nr_cpus = id + 1;
	return NULL;
}

/**
 * debugfs_parse_cpus() - parse the "cpus" file (ABI 1) into @s->cpu[].
 * Return: 0 or -EINVAL; @pe->why is debugfs_err_abi for a foreign ABI.
 */
int debugfs_parse_cpus(const char *buf, size_t len,
		       struct iowstat_snapshot *s, struct parse_err *pe)
{
	struct span b = { buf, len }, line;
	struct col_map c;
	const char *why;
	unsigned int n = 2;

	memset(s->cpu, 0, sizeof(s->cpu));
	s->nr_cpus = 0;
	if (!span_next_line(&b, &line) || !span_eq(line, IOWPROBE_ABI_LINE))
		return parse_fail(pe, 1, debugfs_err_abi);
	if (!span_next_line(&b, &line))
		return parse_fail(pe, 2, "no header line");
	why = parse_header(line, &c);
	if (why)
		return parse_fail(pe, 2, why);
	while (span_next_line(&b, &line)) {
		n++;
		why = parse_row(line, &c, s);
		if (why)
			return parse_fail(pe, n, why);
	}
	if (!s->nr_cpus)
		return parse_fail(pe, n, "no cpu rows");
	s->have |= HAVE_CPUS;
	if (c.found & (1ull << IOWPROBE_COL_iowait_blk_ns))
		s->have |= HAVE_IOWAIT_BLK;
	return 0;
}

struct dbg_state {
	char root[PATH_MAX];
	char cpus[PATH_MAX + 32];
	char owner[IOWPROBE_OWNER_KINDS][PATH_MAX + 32];
	char status[PATH_MAX + 32];
	bool overridden;	/* IOWSTAT_DEBUGFS set (tests) */
};

static struct dbg_state dbg;

static int not_mounted(void)
{
	err_msg("debugfs is not mounted on %s; mount it: "
		"mount -t debugfs none %s\n", dbg.root, dbg.root);
	return -ENODEV;
}

/* not_loaded - the module went away since iowstat looked */
static int not_loaded(void)
{
	err_msg("the iowprobe module is not loaded (no %s/iowprobe); "
		"load it: modprobe iowprobe (or insmod iowprobe.ko)\n",
		dbg.root);
	return -ENOENT;
}

static int not_root(void)
{
	err_msg("must be root: %s is readable by root only (try sudo)\n",
		dbg.cpus);
	return -EACCES;
}

/*
 * check_mount - is there a debugfs (or, when overridden, a folder); the
 * module is loaded, so mount it where it belongs when it is not
 */
static int check_mount(void)
{
	struct statfs sfs;
	struct stat st;

	if (dbg.overridden)
		return stat(dbg.root, &st) || !S_ISDIR(st.st_mode) ?
			not_mounted() : 0;
	if (!statfs(dbg.root, &sfs) && sfs.f_type == DEBUGFS_MAGIC)
		return 0;
	return mount_standard("debugfs", dbg.root, NULL) ? not_mounted() : 0;
}

/* report_parse - word a parse failure; a foreign ABI is a usage error */
static int report_parse(const char *path, const char *buf, size_t len,
			struct parse_err *pe)
{
	size_t n = strcspn(buf, "\n");

	if (pe->why == debugfs_err_abi) {
		err_msg("%s: unknown debugfs ABI \"%.*s\"; this iowstat reads "
			"\"%s\" (update iowstat or the module)\n", path,
			(int)(n < 60 ? n : 60), len ? buf : "",
			IOWPROBE_ABI_LINE);
		return -EPROTO;
	}
	err_msg("%s:%u: %s\n", path, pe->line, pe->why);
	return -EINVAL;
}

static int dbg_read(struct iowstat_backend *be, struct iowstat_snapshot *s,
		    struct iowstat_raw *raw)
{
	struct parse_err pe = { 0, NULL };
	size_t len;
	char *buf;
	int err;

	(void)be;
	err = read_whole_file(dbg.cpus, &buf, &len);
	if (err == -EACCES || err == -EPERM)
		return not_root();
	if (err == -ENOENT)
		return not_loaded();
	if (err) {
		err_msg("cannot read %s: %s\n", dbg.cpus, strerror(-err));
		return err;
	}
	err = debugfs_parse_cpus(buf, len, s, &pe);
	if (err)
		err = report_parse(dbg.cpus, buf, len, &pe);
	if (!err && raw)
		err = raw_add(raw, dbg.cpus, buf, len);
	else
		free(buf);
	return err;
}

/* probe_read - one read to check the ABI before anything is printed */
static int probe_read(struct iowstat_backend *be)
{
	struct iowstat_snapshot *tmp = calloc(1, sizeof(*tmp));
	int err;

	if (!tmp)
		return -ENOMEM;
	err = dbg_read(be, tmp, NULL);
	free(tmp);
	return err;
}

/* dbg_paths - the debugfs root (IOWSTAT_DEBUGFS in tests) and cpus file */
static void dbg_paths(void)
{
	static const char *const owner_file[] = IOWPROBE_OWNER_FILES;
	const char *env = getenv("IOWSTAT_DEBUGFS");
	unsigned int k;

	dbg.overridden = env && *env;
	snprintf(dbg.root, sizeof(dbg.root), "%s",
		 dbg.overridden ? env : DEBUGFS_DEFAULT_ROOT);
	snprintf(dbg.cpus, sizeof(dbg.cpus), "%s/iowprobe/cpus", dbg.root);
	snprintf(dbg.status, sizeof(dbg.status), "%s/iowprobe/status",
		 dbg.root);
	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++)
		snprintf(dbg.owner[k], sizeof(dbg.owner[k]), "%s/iowprobe/%s",
			 dbg.root, owner_file[k]);
}

/*
 * debugfs_module_present() - whether the module is loaded: sysfs says so
 * to anyone, debugfs mounted or not; without sysfs, or with
 * IOWSTAT_DEBUGFS, whether its files are there or not readable, so that
 * the debugfs backend says what is wrong
 */
bool debugfs_module_present(void)
{
	dbg_paths();
	if (!dbg.overridden && access(SYSFS_MODULES, F_OK) == 0)
		return access(SYSFS_MODULE, F_OK) == 0;
	return access(dbg.cpus, F_OK) == 0 || errno == EACCES;
}

static int dbg_open(struct iowstat_backend *be)
{
	struct stat st;
	int err;

	dbg_paths();
	/* /sys/kernel/debug itself is 0700: without root nothing below helps */
	if (!dbg.overridden && geteuid() != 0)
		return not_root();
	err = check_mount();
	if (err)
		return err;
	if (stat(dbg.cpus, &st))
		return errno == EACCES ? not_root() : not_loaded();
	/* one read now, so a foreign ABI is refused before any output */
	return probe_read(be);
}

/*
 * dbg_owners_check() - after open: whether the module has the procs and
 * cgroups files (iowprobe 0.2 and later); struct iowstat_backend's
 * owners_check
 */
static int dbg_owners_check(struct iowstat_backend *be, int need)
{
	static const char *const owner_file[] = IOWPROBE_OWNER_FILES;
	unsigned int k;

	(void)be;
	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		if (access(dbg.owner[k], F_OK) == 0)
			continue;
		if (need < 0)
			return -ENODATA;
		err_msg("--top needs the %s file of iowprobe 0.2 or later: "
			"%s is missing; update the module and reload it "
			"(rmmod iowprobe; modprobe iowprobe)\n",
			owner_file[need], dbg.owner[k]);
		return -ENODATA;
	}
	return 0;
}

/*
 * dbg_read_owners() - read the procs and cgroups files into @s and @raw
 * (when not NULL); both, whichever --top shows, so that a recording has
 * both views
 */
static int dbg_read_owners(struct iowstat_backend *be,
			   struct iowstat_snapshot *s, struct iowstat_raw *raw)
{
	struct parse_err pe = { 0, NULL };
	unsigned int k;
	size_t len;
	char *buf;
	int err;

	(void)be;
	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		err = read_whole_file(dbg.owner[k], &buf, &len);
		if (err) {
			err_msg("cannot read %s: %s\n", dbg.owner[k],
				strerror(-err));
			return err;
		}
		err = sample_parse_file(dbg.owner[k], buf, len, s, &pe);
		if (err) {
			err = report_parse(dbg.owner[k], buf, len, &pe);
			free(buf);
			return err;
		}
		if (!raw) {
			free(buf);
			continue;
		}
		err = raw_add(raw, dbg.owner[k], buf, len);
		if (err)
			return err;
	}
	return 0;
}

/*
 * dbg_owner_misses() - the status file's count of sleeps and requests that
 * found no free row of kind @k ("procs_pool_exhausted: N"); -1 if unknown
 */
static int64_t dbg_owner_misses(struct iowstat_backend *be,
				enum iowprobe_owner_kind k)
{
	static const char *const owner_file[] = IOWPROBE_OWNER_FILES;
	char key[64], *buf, *at;
	int64_t n = -1;
	size_t len;

	(void)be;
	if (read_whole_file(dbg.status, &buf, &len))
		return -1;
	snprintf(key, sizeof(key), "\n%s_pool_exhausted: ", owner_file[k]);
	at = strstr(buf, key);
	if (at)
		n = strtoll(at + strlen(key), NULL, 10);
	free(buf);
	return n;
}

static void dbg_close(struct iowstat_backend *be)
{
	(void)be;
}

struct iowstat_backend debugfs_backend = {
	.name	= "debugfs",
	.open	= dbg_open,
	.read	= dbg_read,
	.close	= dbg_close,
	.read_owners	= dbg_read_owners,
	.owners_check	= dbg_owners_check,
	.owner_misses	= dbg_owner_misses,
};
