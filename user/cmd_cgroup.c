// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_cgroup.c - CMD's tree in a cgroup v2 of its own, so that the
 * backend's cgroups row for it is the tree's iowait
 *
 * The module (or --bpf) books each iowait sleep on the cgroup its task was
 * in when it slept, and keeps a cgroup's row while the cgroup is: the row of a
 * cgroup made for the run holds exactly the iowait of every process that
 * ran in it, including processes already reaped and orphans, with no pid
 * to follow.  The procs rows could not do that as well: an exited row
 * goes once any reader has read it, and a reused pid has two rows.
 *
 * The cgroup is made beside iowstat's own (its parent's child), not at the
 * root, so CMD stays under the limits and weights it would have had
 * without iowstat.  The child joins it itself before exec, so every
 * descendant is born in it.
 *
 * A run killed by SIGKILL cannot remove its cgroup, and cgroup v2 never
 * removes one by itself; so each run first removes, beside the one it
 * makes, the iowstat-PID cgroups of runs that are gone (rmdir() takes
 * only an empty cgroup: one whose orphans still run stays until then).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "cmd_cgroup.h"
#include "iowprobe_abi.h"
#include "owner_files.h"
#include "util.h"

/* own_cgroup - iowstat's cgroup v2 path ("/..."), from /proc/self/cgroup */
static int own_cgroup(char *path, size_t n)
{
	struct span all, line;
	size_t len;
	char *buf;
	int err;

	err = read_whole_file("/proc/self/cgroup", &buf, &len);
	if (err)
		return err;
	all = (struct span){ buf, len };
	err = -ENOENT;
	while (span_next_line(&all, &line)) {
		if (!span_starts(line, "0::/") || line.len - 3 >= n)
			continue;
		memcpy(path, line.p + 3, line.len - 3);
		path[line.len - 3] = '\0';
		err = 0;
	}
	free(buf);
	return err;
}

/* stale_pid - the PID of an "iowstat-PID" cgroup whose run is gone, or 0 */
static pid_t stale_pid(const char *name)
{
	uint32_t pid;

	if (strncmp(name, "iowstat-", 8) || parse_u32(name + 8, 1, INT32_MAX,
						      &pid))
		return 0;
	return kill((pid_t)pid, 0) && errno == ESRCH ? (pid_t)pid : 0;
}

/* sweep_stale - remove the empty cgroups of gone runs beside @ours */
static void sweep_stale(const char *ours)
{
	char path[PATH_MAX], *slash;
	struct dirent *de;
	size_t n;
	DIR *d;

	snprintf(path, sizeof(path), "%s", ours);
	slash = strrchr(path, '/');
	*slash = '\0';
	d = opendir(path);
	if (!d)
		return;
	n = slash - path;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !stale_pid(de->d_name) ||
		    n + 1 + strlen(de->d_name) >= sizeof(path))
			continue;
		path[n] = '/';
		strcpy(path + n + 1, de->d_name);
		rmdir(path);	/* EBUSY: its orphans still run */
		path[n] = '\0';
	}
	closedir(d);
}

/**
 * cmd_cgroup_make() - make CMD's cgroup, whose row @be (open) will keep.
 * Return: 0, or -errno with @why saying what is missing, in a few words.
 */
int cmd_cgroup_make(struct cmd_cgroup *cg, struct iowstat_backend *be,
		    char *why, size_t n)
{
	const char *root = cgroupfs_root();
	char own[PATH_MAX], *slash;
	int err, n_home, n_dir;
	struct stat st;

	cg->procs_fd = -1;
	cg->be = be;
	if (be->owners_check(be, -1)) {
		snprintf(why, n, "the module has no cgroups file (iowprobe 0.2 "
			 "or later has)");
		return -ENODATA;
	}
	if (!root) {
		snprintf(why, n, CGROUPFS_MISSING);
		return -ENODEV;
	}
	err = own_cgroup(own, sizeof(own));
	if (err) {
		snprintf(why, n, "iowstat's own cgroup v2 is unknown");
		return err;
	}
	n_home = snprintf(cg->home, sizeof(cg->home), "%s%s", root,
			  strcmp(own, "/") ? own : "");
	slash = strrchr(own, '/');
	*slash = '\0';		/* its parent; "" for the root */
	n_dir = snprintf(cg->dir, sizeof(cg->dir), "%s%s/iowstat-%d",
			 root, own, (int)getpid());
	if ((size_t)n_home >= sizeof(cg->home) ||
	    (size_t)n_dir + sizeof("/cgroup.procs") > sizeof(cg->dir)) {
		snprintf(why, n, "iowstat's cgroup path is too long");
		return -ENAMETOOLONG;
	}
	sweep_stale(cg->dir);
	if (mkdir(cg->dir, 0755) || stat(cg->dir, &st)) {
		err = -errno;
		snprintf(why, n, "cannot make %.120s: %s", cg->dir,
			 strerror(-err));
		return err;
	}
	cg->id = st.st_ino;
	cg->misses = be->owner_misses(be, IOWPROBE_CGROUPS);
	strcat(cg->dir, "/");
	strcat(cg->dir, "cgroup.procs");
	cg->procs_fd = open(cg->dir, O_WRONLY | O_CLOEXEC);
	err = cg->procs_fd < 0 ? -errno : 0;
	*strrchr(cg->dir, '/') = '\0';
	if (err) {
		snprintf(why, n, "cannot open %.120s/cgroup.procs: %s", cg->dir,
			 strerror(-err));
		rmdir(cg->dir);
	}
	return err;
}

/*
 * cmd_cgroup_join() - in the child, before exec: "0" moves the writer.
 * Only write(2): async-signal-safe after fork.  Return: 0 or -errno.
 */
int cmd_cgroup_join(const struct cmd_cgroup *cg)
{
	if (cg->procs_fd < 0)
		return -EBADF;
	return write(cg->procs_fd, "0", 1) == 1 ? 0 : -errno;
}

/*
 * owner_table_sums() - wait_ns, wait_blk_ns and wa_ns of cgroup @id in a
 * read of a cgroups file, @t
 * Return: 1 found, 0 no row (the cgroup never waited).
 */
int owner_table_sums(const struct owner_table *t, uint64_t id,
		     uint64_t sums[OWNER_SUMS])
{
	const struct owner_row *r = owners_find(t, id, false);

	if (!r)
		return 0;
	sums[OWNER_WAIT] = r->v[IOWPROBE_OCOL_wait_ns];
	sums[OWNER_WAIT_BLK] = r->v[IOWPROBE_OCOL_wait_blk_ns];
	sums[OWNER_WA] = r->v[IOWPROBE_OCOL_wa_ns];
	return 1;
}

/*
 * cmd_cgroup_iowait() - the tree's iowait from the backend's row of CMD's
 * cgroup, read once CMD has ended; or why not, in @p->no_iowait
 */
void cmd_cgroup_iowait(const struct cmd_cgroup *cg, struct tree_parts *p)
{
	struct iowstat_snapshot *s = calloc(1, sizeof(*s));
	uint64_t sums[OWNER_SUMS] = { 0 };
	int r;

	r = s ? cg->be->read_owners(cg->be, s, NULL) : -ENOMEM;
	if (!r)
		owner_table_sums(&s->owners[IOWPROBE_CGROUPS], cg->id, sums);
	snapshot_free(s);
	if (r) {
		snprintf(p->no_iowait, sizeof(p->no_iowait), "cannot read the "
			 "cgroups rows: %s", strerror(-r));
		return;
	}
	/*
	 * A full pool (a removed cgroup's row is freed only once read) gives
	 * a new cgroup no row: its sleeps are only counted as misses
	 */
	if (cg->be->owner_misses(cg->be, IOWPROBE_CGROUPS) != cg->misses) {
		snprintf(p->no_iowait, sizeof(p->no_iowait), "the cgroups "
			 "pool was full (cgroups_pool_exhausted or cgroups_full "
			 "grew; reload the module, or raise cgroups=)");
		return;
	}
	p->iowait_ns = sums[OWNER_WAIT];
	p->iowait_blk_ns = sums[OWNER_WAIT_BLK];
	p->wa_ns = sums[OWNER_WA];
	p->have_iowait = true;
}

/* move_home - what still runs in CMD's cgroup goes back to iowstat's */
static unsigned int move_home(const struct cmd_cgroup *cg)
{
	char path[PATH_MAX + 16], *buf;
	struct span all, line;
	unsigned int moved = 0;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	if (read_whole_file(path, &buf, &len))
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->home);
	all = (struct span){ buf, len };
	while (span_next_line(&all, &line)) {
		f = fopen(path, "w");
		if (!f)
			break;
		fprintf(f, "%.*s\n", (int)line.len, line.p);
		if (fclose(f) == 0)
			moved++;
	}
	free(buf);
	return moved;
}

/*
 * cmd_cgroup_remove() - remove CMD's cgroup; processes of the tree still
 * running go back to iowstat's own.  Return: how many did.
 */
unsigned int cmd_cgroup_remove(struct cmd_cgroup *cg)
{
	unsigned int moved = 0;

	if (cg->procs_fd < 0)
		return 0;
	close(cg->procs_fd);
	cg->procs_fd = -1;
	if (rmdir(cg->dir) && errno == EBUSY) {
		moved = move_home(cg);
		if (rmdir(cg->dir))
			err_msg("cannot remove %s: %s\n", cg->dir,
				strerror(errno));
	}
	return moved;
}
