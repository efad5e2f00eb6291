/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_PROCFS_H
#define IOWSTAT_PROCFS_H

#include <stddef.h>

#include "snapshot.h"

/* Where and why a parser refused its input (line counts from 1). */
struct parse_err {
	unsigned int line;
	const char *why;
};

int parse_fail(struct parse_err *pe, unsigned int line, const char *why);

int procfs_parse_stat(const char *buf, size_t len,
		      struct iowstat_snapshot *s, struct parse_err *pe);
int procfs_parse_vmstat(const char *buf, size_t len,
			struct iowstat_snapshot *s, struct parse_err *pe);
int procfs_parse_meminfo(const char *buf, size_t len,
			 struct iowstat_snapshot *s, struct parse_err *pe);
int procfs_parse_psi(const char *buf, size_t len,
		     struct iowstat_snapshot *s, struct parse_err *pe);

#endif /* IOWSTAT_PROCFS_H */
