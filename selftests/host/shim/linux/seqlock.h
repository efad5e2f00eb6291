/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/seqlock.h - a sequence count tied to the raw spinlock its
 * writers must hold, as the kernel's lockdep checks it
 */
#ifndef SHIM_LINUX_SEQLOCK_H
#define SHIM_LINUX_SEQLOCK_H

#include <linux/spinlock.h>

typedef struct {
	unsigned int sequence;
	const raw_spinlock_t *lock;
} seqcount_raw_spinlock_t;

static inline void seqcount_raw_spinlock_init(seqcount_raw_spinlock_t *s,
					      const raw_spinlock_t *lock)
{
	s->sequence = 0;
	s->lock = lock;
}

static inline void write_seqcount_begin(seqcount_raw_spinlock_t *s)
{
	if (!shim_lock_held(s->lock))
		shim_bug("write_seqcount_begin() without the writers' lock");
	if (s->sequence & 1)
		shim_bug("write_seqcount_begin() inside a write section");
	s->sequence++;
}

static inline void write_seqcount_end(seqcount_raw_spinlock_t *s)
{
	if (!(s->sequence & 1))
		shim_bug("write_seqcount_end() without a begin");
	s->sequence++;
}

/* a reader that meets an open write section would spin forever */
static inline unsigned int
read_seqcount_begin(const seqcount_raw_spinlock_t *s)
{
	if (s->sequence & 1)
		shim_bug("read_seqcount_begin() inside a write section");
	return s->sequence;
}

static inline bool read_seqcount_retry(const seqcount_raw_spinlock_t *s,
				       unsigned int start)
{
	return s->sequence != start;
}

#endif /* SHIM_LINUX_SEQLOCK_H */
