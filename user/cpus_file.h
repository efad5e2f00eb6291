/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_CPUS_FILE_H
#define IOWSTAT_CPUS_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "procfs.h"
#include "snapshot.h"

#define DEBUGFS_DEFAULT_ROOT	"/sys/kernel/debug"

/* The parse error that means "not our ABI": callers word it specially. */
extern const char *const debugfs_err_abi;

bool debugfs_module_present(void);
int debugfs_parse_cpus(const char *buf, size_t len,
		       struct iowstat_snapshot *s, struct parse_err *pe);

#endif /* IOWSTAT_CPUS_FILE_H */
