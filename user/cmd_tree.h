/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_CMD_TREE_H
#define IOWSTAT_CMD_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taskstats.h"

#define TREE_WHY_MAX	160

/*
 * struct tree_parts - where the threads of CMD's tree spent their lives,
 * summed over every thread of CMD and its descendants that ended:
 *     thread = user + sys + runq + iowait + other
 * @thread_ns:  the thread-seconds: the sum of the threads' lifetimes
 * @user_ns, @sys_ns: their exact run time, split as their ticks split it
 * @tick_ns:    their ticks (utime + stime), to check @user_ns + @sys_ns
 * @runq_ns:    runnable, waiting for a CPU
 * @blkio_ns:   delay accounting's iowait; 0 while kernel.task_delayacct
 *              is off
 * @have_blkio: it was on from CMD's start to its end: @blkio_ns counts
 * @iowait_ns, @iowait_blk_ns, @wa_ns: the module's row for CMD's cgroup,
 *              when @have_iowait: wait_ns, wait_blk_ns, wa_ns
 * @other_ns:   sleep that is not iowait (with !@have_iowait: all sleep);
 *              negative only if the parts disagree
 * @no_tree, @no_iowait: why a part is missing, "" when it is not
 * @left:       processes of the tree still running at the end: not counted
 * @lost:       exit records the kernel could not deliver
 */
struct tree_parts {
	unsigned int processes, threads;
	uint64_t thread_ns;
	uint64_t user_ns, sys_ns, tick_ns;
	uint64_t runq_ns, blkio_ns;
	bool have_tree, have_iowait, have_blkio;
	uint64_t iowait_ns, iowait_blk_ns, wa_ns;
	int64_t other_ns;
	unsigned int left;
	bool lost;
	char no_tree[TREE_WHY_MAX], no_iowait[TREE_WHY_MAX];
};

/*
 * The tree's parts in a recording: a file of its own in the last sample
 * of a -- CMD run, "NAME VALUE" lines, so that an iowstat before it skips
 * it as it skips any file it does not know
 */
#define TREE_PATH	"iowstat:tree"

struct parse_err;

/* struct cmd_tree - every exit record received while CMD ran */
struct cmd_tree {
	struct thread_exit *e;
	size_t n, cap;
	bool oom;
	bool delayacct;		/* kernel.task_delayacct on when CMD began */
};

void tree_start(struct cmd_tree *t);
void tree_add(const struct thread_exit *e, void *tree);
int tree_sum(const struct cmd_tree *t, uint32_t self, struct tree_parts *p);
void tree_split_cpu(const struct thread_exit *e, uint64_t *user,
		    uint64_t *sys);
void tree_parts_finish(struct tree_parts *p);
int tree_parts_format(const struct tree_parts *p, char **buf, size_t *len);
int tree_parts_parse(const char *buf, size_t len, struct tree_parts *p,
		     struct parse_err *pe);
void tree_free(struct cmd_tree *t);

#endif /* IOWSTAT_CMD_TREE_H */
