/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/rcupdate.h - nothing is freed under a reader here, so a
 * read-side section is only counted, for the walks that need one
 */
#ifndef SHIM_LINUX_RCUPDATE_H
#define SHIM_LINUX_RCUPDATE_H

#include <shim.h>

void rcu_read_lock(void);
void rcu_read_unlock(void);
void shim_assert_rcu_reader(void);

#endif /* SHIM_LINUX_RCUPDATE_H */
