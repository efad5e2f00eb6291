/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_SAMPLE_H
#define IOWSTAT_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "procfs.h"
#include "snapshot.h"

#define RAW_MAX_FILES	12
#define RAW_PATH_MAX	256

/* The text of every file read for one sample, kept for --record. */
struct iowstat_raw {
	uint64_t mono_ns, real_ns;
	unsigned int nfiles;
	struct {
		char path[RAW_PATH_MAX];
		char *buf;
		size_t len;
	} f[RAW_MAX_FILES];
};

int raw_add(struct iowstat_raw *raw, const char *path, char *buf, size_t len);
void raw_clear(struct iowstat_raw *raw);

int sample_parse_file(const char *path, const char *buf, size_t len,
		      struct iowstat_snapshot *s, struct parse_err *pe);
int sample_take(struct iowstat_backend *be, struct iowstat_snapshot *s,
		struct iowstat_raw *raw);
void sample_meta_init(struct iowstat_meta *m, unsigned int interval);

#endif /* IOWSTAT_SAMPLE_H */
