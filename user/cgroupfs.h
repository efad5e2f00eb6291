/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_CGROUPFS_H
#define IOWSTAT_CGROUPFS_H

/*
 * Where cgroup v2 is mounted, the one place iowstat asks.  A cgroup id of
 * the module's and the BPF programs' is the inode of the cgroup's directory
 * in the kernel's default hierarchy, cgroup v2: /sys/fs/cgroup with
 * systemd's unified layout, /sys/fs/cgroup/unified with its hybrid one
 * (cgroup v1 controllers on /sys/fs/cgroup, systemd.unified_cgroup_hierarchy=0).
 */
#define CGROUPFS_ROOT		"/sys/fs/cgroup"
#define CGROUPFS_HYBRID		CGROUPFS_ROOT "/unified"
/* why cgroupfs_root() found none */
#define CGROUPFS_MISSING \
	"no cgroup v2 mounted on " CGROUPFS_ROOT " or " CGROUPFS_HYBRID

const char *cgroupfs_root(void);
int cgroupfs_open_v2(void);

#endif /* IOWSTAT_CGROUPFS_H */
