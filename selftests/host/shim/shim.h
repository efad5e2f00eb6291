/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim.h - just enough of the kernel's environment to run kmod/acct.c,
 * kmod/table.c and kmod/blk.c in a host test, and the knobs a test turns
 *
 * One thread plays every CPU: a test says which CPU runs the next call
 * (shim_cpu) and what time it is (shim_now), so every result is
 * deterministic.  Locks are flags that catch what would deadlock or
 * corrupt on a real machine: a lock taken twice, an unlock by a CPU that
 * does not hold it, a seqcount written without its lock.  Anything the
 * shim finds wrong aborts the test through shim_bug().
 *
 * No libc header is included here: the kernel files see only the kernel
 * names, and shim.c does the work that needs libc.
 */
#ifndef SHIM_H
#define SHIM_H

#include <linux/types.h>

#define SHIM_NR_CPUS	4

/* ---- compiler ---- */
#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define __maybe_unused	__attribute__((__unused__))
#define notrace		/* no function tracer here */
#define __percpu
#define __read_mostly
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#define BUILD_BUG_ON(c)	_Static_assert(!(c), #c)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

/* ---- numbers ---- */
#define U64_MAX		(~0ULL)
#define NSEC_PER_SEC	1000000000ULL
#define HZ		250
#ifndef ENOMEM
#define ENOMEM		12
#endif

/* min()/max() refuse operands of different types, as the kernel's do */
#define __shim_cmp(x, y, op) ({					\
	typeof(x) _x = (x);					\
	typeof(y) _y = (y);					\
	(void)(&_x == &_y);					\
	_x op _y ? _x : _y; })
#define min(x, y)		__shim_cmp(x, y, <)
#define max(x, y)		__shim_cmp(x, y, >)
#define min_t(t, x, y)		__shim_cmp((t)(x), (t)(y), <)
#define max_t(t, x, y)		__shim_cmp((t)(x), (t)(y), >)

/* ---- strings: libc's, declared here so no libc header is needed ---- */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *s, int c, size_t n);
ssize_t strscpy(char *dst, const char *src, size_t size);

/* ---- atomics: one thread, but the real builtins all the same ---- */
#define atomic_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i) __atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_add_return(i, v)						\
	__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_inc_return(v)	atomic_add_return(1, v)
#define atomic_inc(v)	((void)__atomic_add_fetch(&(v)->counter, 1,	\
						 __ATOMIC_RELAXED))
#define atomic_dec(v)	((void)__atomic_sub_fetch(&(v)->counter, 1,	\
						 __ATOMIC_RELAXED))
#define atomic64_read(v) __atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic64_set(v, i)						\
	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic64_add(i, v)						\
	((void)__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic64_inc(v)	atomic64_add(1, v)
#define atomic64_try_cmpxchg(v, old, new)				\
	__atomic_compare_exchange_n(&(v)->counter, (old), (new), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* a full barrier is also where a test may slip in another CPU's event */
#define smp_mb()		shim_mb()

/* ---- the shim's own state and knobs ---- */
extern int shim_cpu;		/* the CPU the caller runs on */
extern u64 shim_now;		/* the time: every CPU's clock but ... */
extern u64 shim_clock_skew[SHIM_NR_CPUS];	/* ... ahead by this */
extern struct task_struct *shim_curr[SHIM_NR_CPUS];	/* current */

void shim_bug(const char *fmt, ...)
	__attribute__((__noreturn__, __format__(__printf__, 1, 2)));
void shim_mb(void);

/*
 * A test's hook, run once at the next smp_mb() or before the next
 * acquisition of @shim_hook_lock (NULL: any lock): another CPU's event
 * landing exactly there.  The hook is disarmed before it runs.
 */
struct raw_spinlock;
extern void (*shim_hook)(void *arg);
extern void *shim_hook_arg;
extern const struct raw_spinlock *shim_hook_lock;
extern bool shim_hook_at_mb;

/* no lock held, interrupts on and no RCU reader, on every CPU */
void shim_assert_quiet(void);
/* kvcalloc()/kcalloc(): fail the allocation after @n more (-1: never) */
extern int shim_alloc_fail_after;

#endif /* SHIM_H */
