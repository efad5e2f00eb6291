// SPDX-License-Identifier: GPL-2.0-only
/*
 * mounts.c - mount debugfs or bpffs on its standard directory when a first
 * run finds it missing, as systemd does at boot, rather than send the
 * user away with a command to type
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts.h"
#include "util.h"

/* fs_known - the kernel has file systems of @type (/proc/filesystems) */
static bool fs_known(const char *type)
{
	char want[64], *buf;
	size_t len;
	bool known;

	if (read_whole_file("/proc/filesystems", &buf, &len))
		return false;
	snprintf(want, sizeof(want), "\t%s\n", type);
	known = strstr(buf, want);
	free(buf);
	return known;
}

/**
 * mount_standard() - mount a file system of @type on @dir, its standard
 * directory, which the caller found without it: only as root, only when
 * the directory is there and the kernel knows @type; said on stderr
 * Return: 0 mounted, or -errno (nothing printed: the caller says what to
 * run).
 */
int mount_standard(const char *type, const char *dir, const char *opts)
{
	struct stat st;

	if (geteuid() != 0)
		return -EPERM;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	if (!fs_known(type))
		return -ENODEV;
	if (mount(type, dir, type, MS_NOSUID | MS_NODEV | MS_NOEXEC, opts))
		return -errno;
	err_msg("mounted %s on %s, as systemd does at boot\n", type, dir);
	return 0;
}
