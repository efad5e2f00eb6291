/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/lockdep.h - the lockdep assertions are linux/spinlock.h's */
#ifndef SHIM_LINUX_LOCKDEP_H
#define SHIM_LINUX_LOCKDEP_H

#include <linux/spinlock.h>

#endif /* SHIM_LINUX_LOCKDEP_H */
