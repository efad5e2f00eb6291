/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/minmax.h - min() and max() are shim.h's */
#ifndef SHIM_LINUX_MINMAX_H
#define SHIM_LINUX_MINMAX_H

#include <shim.h>

#endif /* SHIM_LINUX_MINMAX_H */
