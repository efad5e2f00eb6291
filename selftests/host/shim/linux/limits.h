/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/limits.h - INT_MAX and the rest, from the C library */
#ifndef SHIM_LINUX_LIMITS_H
#define SHIM_LINUX_LIMITS_H

#include <limits.h>

#endif /* SHIM_LINUX_LIMITS_H */
