/* SPDX-License-Identifier: GPL-2.0-only */
/* shim asm/syscall.h - the system call a task is in, as x86_64 reads it */
#ifndef SHIM_ASM_SYSCALL_H
#define SHIM_ASM_SYSCALL_H

#include <linux/sched.h>

static inline long syscall_get_nr(struct task_struct *p, struct pt_regs *regs)
{
	return regs->orig_ax;
}

#endif /* SHIM_ASM_SYSCALL_H */
