/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/irqflags.h - interrupts off and on again: a per-CPU depth */
#ifndef SHIM_LINUX_IRQFLAGS_H
#define SHIM_LINUX_IRQFLAGS_H

#include <linux/spinlock.h>

#define local_irq_save(flags)		((flags) = shim_irq_save())
#define local_irq_restore(flags)	shim_irq_restore(flags)

#endif /* SHIM_LINUX_IRQFLAGS_H */
