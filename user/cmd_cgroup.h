/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_CMD_CGROUP_H
#define IOWSTAT_CMD_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "cmd_tree.h"

/*
 * struct cmd_cgroup - the cgroup v2 CMD's tree runs in, made for the run
 * @dir:      /sys/fs/cgroup/.../iowstat-PID, beside iowstat's own cgroup
 * @home:     iowstat's own cgroup: where what still runs at the end goes
 * @procs_fd: @dir's cgroup.procs, open for the child to join (-1: none)
 * @id:       @dir's inode number: its cgroup id
 * @misses:   the backend's cgroup row misses when it was made
 * @be:       the backend whose cgroups row is the tree's iowait
 */
struct cmd_cgroup {
	char dir[PATH_MAX];
	char home[PATH_MAX];
	int procs_fd;
	uint64_t id;
	int64_t misses;
	struct iowstat_backend *be;
};

int cmd_cgroup_make(struct cmd_cgroup *cg, struct iowstat_backend *be,
		    char *why, size_t n);
int cmd_cgroup_join(const struct cmd_cgroup *cg);
void cmd_cgroup_iowait(const struct cmd_cgroup *cg, struct tree_parts *p);
unsigned int cmd_cgroup_remove(struct cmd_cgroup *cg);

/* the reader of one row of a cgroups file (tested) */
enum { OWNER_WAIT, OWNER_WAIT_BLK, OWNER_WA, OWNER_SUMS };
int owner_table_sums(const struct owner_table *t, uint64_t id,
		     uint64_t sums[OWNER_SUMS]);

#endif /* IOWSTAT_CMD_CGROUP_H */
