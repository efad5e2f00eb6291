/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_OWNER_FILES_H
#define IOWSTAT_OWNER_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iowprobe_abi.h"
#include "util.h"

struct parse_err;

/* the kernel's comm is 15 bytes; a longer one is kept cut, not refused */
#define OWNER_COMM_MAX	64

/*
 * struct owner_row - one row of the procs or cgroups file
 * @v:    the numeric columns (iowprobe_owner_cols.h); 0 where absent
 * @dev:  "major:minor" of the disk it waited on most, when @has_dev
 * @comm: the process name (procs only), NUL-terminated
 */
struct owner_row {
	uint64_t v[IOWPROBE_OCOL_NR];
	bool has_dev;
	uint32_t dev_major, dev_minor;
	char comm[OWNER_COMM_MAX];
};

/*
 * struct owner_table - one read of the procs or cgroups file, its rows
 * sorted by key (pid or cgroup id), then live before exited: a reused pid
 * has two rows, the exited one and the new process
 */
struct owner_table {
	enum iowprobe_owner_kind kind;
	struct owner_row *row;
	size_t n, cap;
	uint64_t now_ns;	/* the module's instant of the read; 0: no rows */
	bool has_wait_kinds;	/* the wait_<kind>_ns columns were there */
};

int owners_parse(enum iowprobe_owner_kind kind, const char *buf, size_t len,
		 struct owner_table *t, struct parse_err *pe);
int owners_parse_dev(struct span tok, struct owner_row *r);
void owners_free(struct owner_table *t);
uint64_t owner_key(const struct owner_table *t, const struct owner_row *r);
const struct owner_row *owners_find(const struct owner_table *t,
				    uint64_t key, bool exited);
const char *owner_col_name(int col);
bool owner_col_in(enum iowprobe_owner_kind kind, int col);

/*
 * Where the waits were (enum iowprobe_wait_kind, iowprobe_abi.h): a row's
 * r->v[IOWPROBE_OCOL_WAIT(kind)] is its wait_ns spent in @kind; the kinds
 * add up to wait_ns, less the sleeps an older module did not sort (its
 * rows have them all 0).
 */
const char *owner_wait_kind_name(unsigned int kind);
int owner_wait_dominant(const uint64_t *v, double *share);

#endif /* IOWSTAT_OWNER_FILES_H */
