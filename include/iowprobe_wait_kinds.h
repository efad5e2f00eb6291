/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_wait_kinds.h - where an iowait sleeper waits, taken when it
 * goes to sleep (doc/design.md#where-each-sleeper-waits): the one list of
 * the kinds, in the order of the procs and cgroups files' wait_<kind>_ns
 * columns, which iowprobe_owner_cols.h makes from it
 *
 * Each includer defines IOWPROBE_WAIT_KIND(kind); it is undefined again at
 * the end.  No include guard: every inclusion expands the list its own
 * way.  The first kind stays first: IOWPROBE_OCOL_WAIT() counts from it.
 */
IOWPROBE_WAIT_KIND(uring)	/* in io_uring_enter, or an io_uring worker */
IOWPROBE_WAIT_KIND(rw)		/* in read, write, pread64, splice, ... */
IOWPROBE_WAIT_KIND(sync)	/* in fsync, fdatasync, sync, msync, ... */
IOWPROBE_WAIT_KIND(fault)	/* a user task in no system call: a fault */
IOWPROBE_WAIT_KIND(other)	/* another system call, or a kernel thread */

#undef IOWPROBE_WAIT_KIND
