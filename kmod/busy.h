/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * busy.h - the in-flight clocks of blk.c and devs.c, and the read of the
 * global one that every idle switch makes (inline: a call per switch
 * costs the pipe)
 */
#ifndef IOWPROBE_BUSY_H
#define IOWPROBE_BUSY_H

#include <linux/atomic.h>

#include "iowprobe_cc.h"
#include "iowprobe_core.h"

/*
 * struct iowprobe_busy - the time requests were in flight, and how many are
 * @w:    a count clock (iowprobe_cc.h): every issue and completion changes
 *        it with one compare-and-swap, with no lock, so a request at queue
 *        depth 1, which starts and stops the clock every time, costs two
 *        atomic operations a clock instead of a shared lock and a seqcount
 * @snap: the clock unwrapped to 64 bits by the reaper (iowprobe_blk_reap())
 *        every few seconds, so that a reader with no snapshot of its own (the
 *        devices file) can unwrap it too; written by the reaper only
 */
struct iowprobe_busy {
	atomic64_t w;
	u64 snap;
};

/* any request in flight, from any CPU to any disk (devs.c) */
extern struct iowprobe_busy iowprobe_busy_any;

static inline void iowprobe_busy_init(struct iowprobe_busy *b)
{
	atomic64_set(&b->w, 0);
	b->snap = 0;
}

/*
 * iowprobe_busy_turn() - one request starts (@start) or ends on @b at @now
 *
 * The count never leaves the clock's range: it counts request entries, and
 * requests= is capped to IOWPROBE_CC_MAX.
 * Return: true when none is in flight any more.
 */
static __always_inline bool iowprobe_busy_turn(struct iowprobe_busy *b,
					       bool start, u64 now)
{
	s64 old = atomic64_read(&b->w);
	u64 new;

	do {
		new = start ? iowprobe_cc_start(old, now) :
			      iowprobe_cc_stop(old, now);
	} while (!atomic64_try_cmpxchg(&b->w, &old, new));
	return new < IOWPROBE_CC_ONE;
}

/*
 * iowprobe_busy_at() - @b's clock at @now, unwrapped against @snap.  A word
 * still at the snapshot, stopped, is the snapshot: the unwrap without its
 * arithmetic, at every idle switch of a machine with no request in flight.
 */
static __always_inline u64 iowprobe_busy_at(struct iowprobe_busy *b,
					    u64 now, u64 snap)
{
	u64 w = atomic64_read(&b->w);

	if (w == (snap & IOWPROBE_CC_MASK))
		return snap;
	return iowprobe_cc_unwrap(iowprobe_cc_value(w, now), snap);
}

/* iowprobe_busy_snap() - move @b's snapshot on to @now; the reaper's alone */
static inline void iowprobe_busy_snap(struct iowprobe_busy *b, u64 now)
{
	WRITE_ONCE(b->snap, iowprobe_busy_at(b, now, b->snap));
}

/* iowprobe_busy_count() - @b's requests in flight */
static __always_inline unsigned int iowprobe_busy_count(struct iowprobe_busy *b)
{
	return iowprobe_cc_count(atomic64_read(&b->w));
}

/*
 * iowprobe_blk_gclock() - the time any request was in flight, up to @now,
 * for @a's next close: unwrapped against its snapshot, which every close
 * moves on (the reaper closes every CPU's segment at least every few
 * seconds, far inside the count clock's 9.7 h)
 */
static __always_inline u64 iowprobe_blk_gclock(const struct iowprobe_acct *a,
					       u64 now)
{
	return iowprobe_busy_at(&iowprobe_busy_any, now, a->g_snap);
}

#endif /* IOWPROBE_BUSY_H */
