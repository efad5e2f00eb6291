/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/sched/signal.h - every thread is on one list the test
 * builds (shim_tasks); the walk needs an RCU reader, as in the kernel
 */
#ifndef SHIM_LINUX_SCHED_SIGNAL_H
#define SHIM_LINUX_SCHED_SIGNAL_H

#include <linux/rcupdate.h>
#include <linux/sched.h>

extern struct task_struct *shim_tasks;

#define for_each_process_thread(g, p)					\
	for (shim_assert_rcu_reader(), (g) = shim_tasks; ((p) = (g));	\
	     (g) = (g)->shim_next)

#endif /* SHIM_LINUX_SCHED_SIGNAL_H */
