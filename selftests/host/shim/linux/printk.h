/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/printk.h - the kernel log is stderr here */
#ifndef SHIM_LINUX_PRINTK_H
#define SHIM_LINUX_PRINTK_H

#include <stdio.h>

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define pr_err(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)

#endif /* SHIM_LINUX_PRINTK_H */
