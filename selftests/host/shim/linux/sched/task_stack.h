/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/sched/task_stack.h - a task's saved user registers */
#ifndef SHIM_LINUX_SCHED_TASK_STACK_H
#define SHIM_LINUX_SCHED_TASK_STACK_H

#include <linux/sched.h>

#define task_pt_regs(p)		(&(p)->shim_regs)

#endif /* SHIM_LINUX_SCHED_TASK_STACK_H */
