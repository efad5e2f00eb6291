/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_NAMES_H
#define IOWSTAT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procfs.h"
#include "snapshot.h"

/*
 * The names --top prints for the module's numbers: a cgroup id is the
 * inode of its directory in cgroup v2 (cgroupfs.h), a disk's major:minor has
 * its DEVNAME in /sys/dev/block/M:m/uevent.  A recording keeps them as
 * one more file, so that --replay prints the names the recording machine
 * had, on any machine.
 */
#define NAMES_PATH	"iowstat:names"

void names_learn(const struct iowstat_snapshot *s);
const char *names_cgroup(uint64_t id);
const char *names_dev(const struct owner_row *r, char *buf, size_t n);
int names_take(char **buf, size_t *len);
int names_parse(const char *buf, size_t len, struct parse_err *pe);

#endif /* IOWSTAT_NAMES_H */
