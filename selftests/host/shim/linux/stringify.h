/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/stringify.h - a macro argument as a string, expanded first */
#ifndef SHIM_LINUX_STRINGIFY_H
#define SHIM_LINUX_STRINGIFY_H

#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)

#endif /* SHIM_LINUX_STRINGIFY_H */
