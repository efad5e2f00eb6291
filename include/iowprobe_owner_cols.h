/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_owner_cols.h - the columns of the procs and cgroups files, in
 * file order: the one list
 *
 * Each includer defines IOWPROBE_OWNER_COL(name, in_procs, in_cgroups); it
 * is undefined again at the end.  No include guard: every inclusion expands
 * the list its own way.  in_procs and in_cgroups are 0 (not in that
 * file), 1 (in it) or IOWPROBE_OCOL_ADDED (in it since a later module: a
 * reader goes without it).  Every column is an unsigned decimal but two: dev
 * is "major:minor" ("-" when none) and comm, which may hold spaces, is
 * last and runs to the end of the line.  A new column goes just before
 * comm, with its description in doc/abi.md and man/iowprobe.4.
 */
IOWPROBE_OWNER_COL(pid,		1, 0)	/* the thread group id */
IOWPROBE_OWNER_COL(cgroup,	1, 1)	/* cgroup v2 id: its inode number */
IOWPROBE_OWNER_COL(sleeps,	1, 1)
IOWPROBE_OWNER_COL(wait_ns,	1, 1)
IOWPROBE_OWNER_COL(wait_blk_ns,	1, 1)
IOWPROBE_OWNER_COL(wa_ns,	1, 1)
IOWPROBE_OWNER_COL(asleep,	1, 1)	/* its tasks in iowait now */
IOWPROBE_OWNER_COL(exited,	1, 0)	/* 1: gone, kept until read */
IOWPROBE_OWNER_COL(now_ns,	1, 1)
IOWPROBE_OWNER_COL(dev,		1, 1)
/* wait_ns by kind: wait_uring_ns wait_rw_ns wait_sync_ns ... */
#define IOWPROBE_WAIT_KIND(kind)					\
	IOWPROBE_OWNER_COL(wait_##kind##_ns, IOWPROBE_OCOL_ADDED,	\
			   IOWPROBE_OCOL_ADDED)
#include "iowprobe_wait_kinds.h"
IOWPROBE_OWNER_COL(comm,	1, 0)

#undef IOWPROBE_OWNER_COL
