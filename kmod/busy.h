/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * busy.h - the in-flight clocks of blk.c, and the read of the global one
 * that every idle switch makes (inline: a call per switch costs the pipe)
 */
#ifndef IOWPROBE_BUSY_H
#define IOWPROBE_BUSY_H

#include <linux/atomic.h>
#include <linux/seqlock.h>

#include "iowprobe_core.h"

/*
 * struct iowprobe_busy - a gclock fed by an in-flight count
 *
 * Only 0<->1 transitions of @inflight take blk.c's busy_lock; the locker
 * sets the clock from the count it then sees, so the last of two racing
 * transitions wins with the right answer.  One lock serves every clock: a
 * request turns the global clock and its disk's together, and at queue
 * depth 1 it turns both on every request.
 */
struct iowprobe_busy {
	seqcount_raw_spinlock_t seq;
	atomic_t inflight;
	struct iowprobe_gclock g;
};

/* any request in flight, from any CPU to any disk */
extern struct iowprobe_busy iowprobe_busy_any;

static __always_inline u64 iowprobe_busy_read(struct iowprobe_busy *b,
					      u64 now)
{
	unsigned int seq;
	u64 v;

	do {
		seq = read_seqcount_begin(&b->seq);
		v = iowprobe_gclock_read(&b->g, now);
	} while (read_seqcount_retry(&b->seq, seq));
	return v;
}

/* iowprobe_blk_gclock() - the time any request was in flight, up to @now */
static __always_inline u64 iowprobe_blk_gclock(u64 now)
{
	return iowprobe_busy_read(&iowprobe_busy_any, now);
}

#endif /* IOWPROBE_BUSY_H */
