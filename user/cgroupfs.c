// SPDX-License-Identifier: GPL-2.0-only
/*
 * cgroupfs.c - where cgroup v2 is mounted (cgroupfs.h)
 */
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/vfs.h>

#include "cgroupfs.h"

static bool is_cgroup2(const char *dir)
{
	struct statfs sfs;

	return !statfs(dir, &sfs) && sfs.f_type == CGROUP2_SUPER_MAGIC;
}

/**
 * cgroupfs_root() - the directory cgroup v2 is mounted on: that of
 * IOWSTAT_CGROUPFS when set (the tests' stand-in, not checked), else
 * CGROUPFS_ROOT or, under systemd's hybrid layout, CGROUPFS_HYBRID.
 * Return: the directory, or NULL when cgroup v2 is on neither.
 */
const char *cgroupfs_root(void)
{
	const char *env = getenv("IOWSTAT_CGROUPFS");

	if (env && *env)
		return env;
	if (is_cgroup2(CGROUPFS_ROOT))
		return CGROUPFS_ROOT;
	if (is_cgroup2(CGROUPFS_HYBRID))
		return CGROUPFS_HYBRID;
	return NULL;
}

/**
 * cgroupfs_open_v2() - cgroup v2's root directory, open, for calls that need
 * the file system itself (open_by_handle_at()): the stand-in of
 * IOWSTAT_CGROUPFS is no cgroup v2 and is refused
 * Return: the file descriptor, or -1.
 */
int cgroupfs_open_v2(void)
{
	const char *root = cgroupfs_root();

	if (!root || !is_cgroup2(root))
		return -1;
	return open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}
