/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compat.h - the only place where kernel versions differ for iowprobe
 */
#ifndef IOWPROBE_COMPAT_H
#define IOWPROBE_COMPAT_H

#include <linux/sched.h>

/*
 * commit 152e11f6df29 ("sched/fair: Implement delayed dequeue"), v6.12: a
 * task that blocks while not eligible stays queued with se.sched_delayed
 * set, and nr_iowait is incremented only when it is finally dequeued.
 * Kbuild defines IOWPROBE_HAVE_DELAYED_DEQUEUE when the headers have the
 * field, which also covers backports.
 */
static inline bool iowprobe_task_delayed(struct task_struct *p)
{
#ifdef IOWPROBE_HAVE_DELAYED_DEQUEUE
	return READ_ONCE(p->se.sched_delayed);
#else
	return false;
#endif
}

#endif /* IOWPROBE_COMPAT_H */
