/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_RECORD_H
#define IOWSTAT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cmd_tree.h"
#include "sample.h"
#include "snapshot.h"

#define RECORD_MAGIC	"# iowstat recording 1"

/* How a -- CMD run ended, kept at the end of a recording. */
struct cmd_result {
	bool valid;
	int status;			/* iowstat's exit status */
	uint64_t wall_ns, user_us, sys_us;
	uint64_t runq_ns;		/* waiting for a CPU (schedstat) */
	bool have_runq;
	struct tree_parts tree;		/* recorded as TREE_PATH */
};

FILE *record_open(const char *path, const struct iowstat_meta *m);
int record_sample(FILE *f, unsigned int n, const struct iowstat_raw *raw);
int record_cmd(FILE *f, const struct cmd_result *c);
int record_close(FILE *f);

struct replay;

int replay_open(const char *path, struct replay **rp,
		struct iowstat_meta *m, struct cmd_result *c);
int replay_next(struct replay *r, struct iowstat_snapshot *s);
unsigned int replay_count(const struct replay *r);
int replay_resample(struct replay *r, unsigned int interval);
void replay_close(struct replay *r);

/* For fuzzing: check a whole recording held in memory. */
int replay_check_buf(const char *name, char *buf, size_t len);

#endif /* IOWSTAT_RECORD_H */
