/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_cc.h - the count clock: a count and the time it was above zero,
 * in one 64-bit word that any CPU changes with one compare-and-swap
 *
 * Shared by the module (its in-flight clocks, kmod/busy.h) and the BPF
 * backend (its mirror and request clocks, bpf/iowprobe_bpf.h).  A reader
 * keeps a 64-bit snapshot of each clock it integrates and unwraps the
 * 46-bit value against it, so it must read the clock at least every 9.7 h.
 */
#ifndef IOWPROBE_CC_H
#define IOWPROBE_CC_H

#if !defined(__bpf__)		/* clang -target bpf: vmlinux.h came first */
#include <linux/types.h>
#endif
#ifndef __always_inline		/* userspace has no such macro */
#define __always_inline inline
#endif

/*
 * A count clock word: bits 63..46 count, bits 45..0 the clock modulo 2^46
 * ns (19.5 h), stored so that the clock at @now is the low bits while the
 * count is 0, and low bits + @now while it is not (the 0->1 transition
 * subtracts its time, the 1->0 transition adds it).  Readers unwrap the
 * value against their last snapshot, which is right while the clock moves
 * less than half the modulus (9.7 h) between two reads.
 */
#define IOWPROBE_CC_SHIFT	46
#define IOWPROBE_CC_MASK	((1ULL << IOWPROBE_CC_SHIFT) - 1)
#define IOWPROBE_CC_MAX		((1ULL << (64 - IOWPROBE_CC_SHIFT)) - 1)
#define IOWPROBE_CC_ONE		(IOWPROBE_CC_MASK + 1)	/* count 1 */

static __always_inline __u64 iowprobe_cc_count(__u64 w)
{
	return w >> IOWPROBE_CC_SHIFT;
}

/* iowprobe_cc_value() - the clock at @now, modulo 2^46 */
static __always_inline __u64 iowprobe_cc_value(__u64 w, __u64 now)
{
	__u64 s = w & IOWPROBE_CC_MASK;

	return iowprobe_cc_count(w) ? (s + now) & IOWPROBE_CC_MASK : s;
}

/*
 * iowprobe_cc_next() - the word after count += @delta at @now
 * Return: 0, or -1 when the count would leave 0..IOWPROBE_CC_MAX.
 */
static __always_inline int iowprobe_cc_next(__u64 w, __s64 delta, __u64 now,
					    __u64 *out)
{
	__u64 n = iowprobe_cc_count(w), s = w & IOWPROBE_CC_MASK;

	if ((delta < 0 && n < (__u64)-delta) ||
	    (delta > 0 && (__u64)delta > IOWPROBE_CC_MAX - n))
		return -1;
	if (n == 0)
		s = (s - now) & IOWPROBE_CC_MASK;	/* starts running */
	n += delta;
	if (n == 0)
		s = (s + now) & IOWPROBE_CC_MASK;	/* stops */
	*out = n << IOWPROBE_CC_SHIFT | s;
	return 0;
}

/*
 * iowprobe_cc_start() - iowprobe_cc_next() of +1, for a caller whose count
 * cannot exceed IOWPROBE_CC_MAX: a few instructions instead of the general
 * step's range checks and shifts
 */
static __always_inline __u64 iowprobe_cc_start(__u64 w, __u64 now)
{
	if (w < IOWPROBE_CC_ONE)	/* count 0: starts running */
		return IOWPROBE_CC_ONE | ((w - now) & IOWPROBE_CC_MASK);
	return w + IOWPROBE_CC_ONE;
}

/* iowprobe_cc_stop() - iowprobe_cc_next() of -1, for a count above 0 */
static __always_inline __u64 iowprobe_cc_stop(__u64 w, __u64 now)
{
	w -= IOWPROBE_CC_ONE;
	if (w < IOWPROBE_CC_ONE)	/* count 0: stops */
		return (w + now) & IOWPROBE_CC_MASK;
	return w;
}

/*
 * iowprobe_cc_unwrap() - a 46-bit clock value as a 64-bit one, given the
 * reader's last 64-bit snapshot of the same clock
 *
 * A value slightly behind the snapshot (a transition stamped before, but
 * stored after, the snapshot was taken) reads as the snapshot: the core
 * books nothing until the clock passes it again.
 */
static __always_inline __u64 iowprobe_cc_unwrap(__u64 v, __u64 snap)
{
	__u64 d = (v - snap) & IOWPROBE_CC_MASK;

	return d > IOWPROBE_CC_MASK / 2 ? snap : snap + d;
}

/*
 * iowprobe_cc_since() - clock value @v less an earlier value @snap; 0 for
 * a @v behind @snap (an update stamped before, stored after, the snap)
 */
static __always_inline __u64 iowprobe_cc_since(__u64 v, __u64 snap)
{
	__u64 d = (v - snap) & IOWPROBE_CC_MASK;

	return d > IOWPROBE_CC_MASK / 2 ? 0 : d;
}

#endif /* IOWPROBE_CC_H */
