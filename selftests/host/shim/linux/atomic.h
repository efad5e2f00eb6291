/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/atomic.h - the atomics are shim.h's */
#ifndef SHIM_LINUX_ATOMIC_H
#define SHIM_LINUX_ATOMIC_H

#include <shim.h>

#endif /* SHIM_LINUX_ATOMIC_H */
