/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/cgroup.h - no CONFIG_CGROUPS here: every task is in the
 * cgroup of id 0, as owners.c books it on such a kernel
 */
#ifndef SHIM_LINUX_CGROUP_H
#define SHIM_LINUX_CGROUP_H

#include <linux/sched.h>

#endif /* SHIM_LINUX_CGROUP_H */
