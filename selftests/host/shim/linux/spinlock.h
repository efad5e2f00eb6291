/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/spinlock.h - raw spinlocks as flags that know their holder
 *
 * One thread plays every CPU, so a lock taken twice is a deadlock on a
 * real machine and a shim_bug() here, and so is an unlock by a CPU that
 * does not hold it.  Interrupts are a per-CPU flag.
 */
#ifndef SHIM_LINUX_SPINLOCK_H
#define SHIM_LINUX_SPINLOCK_H

#include <shim.h>

typedef struct raw_spinlock {
	int holder;		/* 0: free; else 1 + the holding CPU */
} raw_spinlock_t;

#define DEFINE_RAW_SPINLOCK(x)	raw_spinlock_t x = { 0 }
#define raw_spin_lock_init(l)	((l)->holder = 0)

void shim_lock(raw_spinlock_t *l);
void shim_unlock(raw_spinlock_t *l);
unsigned long shim_lock_irqsave(raw_spinlock_t *l);
void shim_unlock_irqrestore(raw_spinlock_t *l, unsigned long flags);
bool shim_lock_held(const raw_spinlock_t *l);
void shim_assert_irqs_off(void);
/* interrupts off and on again around a probe the kernel calls so */
void shim_irq_disable(void);
void shim_irq_enable(void);
/* local_irq_save() and local_irq_restore() (linux/irqflags.h) */
unsigned long shim_irq_save(void);
void shim_irq_restore(unsigned long flags);

#define raw_spin_lock(l)	shim_lock(l)
#define raw_spin_unlock(l)	shim_unlock(l)
#define raw_spin_lock_irqsave(l, flags)	((flags) = shim_lock_irqsave(l))
#define raw_spin_unlock_irqrestore(l, flags) shim_unlock_irqrestore(l, flags)
#define lockdep_assert_irqs_disabled()	shim_assert_irqs_off()

#endif /* SHIM_LINUX_SPINLOCK_H */
