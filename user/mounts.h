/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_MOUNTS_H
#define IOWSTAT_MOUNTS_H

int mount_standard(const char *type, const char *dir, const char *opts);

#endif /* IOWSTAT_MOUNTS_H */
