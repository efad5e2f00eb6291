/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/kdev_t.h - a device number's two halves, as the kernel's */
#ifndef SHIM_LINUX_KDEV_T_H
#define SHIM_LINUX_KDEV_T_H

#include <linux/types.h>

#define MINORBITS	20
#define MKDEV(ma, mi)	((dev_t)(((ma) << MINORBITS) | (mi)))
#define MAJOR(dev)	((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev)	((unsigned int)((dev) & ((1U << MINORBITS) - 1)))

#endif /* SHIM_LINUX_KDEV_T_H */
