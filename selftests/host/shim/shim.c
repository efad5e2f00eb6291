// SPDX-License-Identifier: GPL-2.0-only
/*
 * shim.c - the shim's state and everything of it that needs libc
 *
 * See shim.h.  A bug the shim finds prints one line and aborts, which
 * the kselftest harness reports as a failed test.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/cpuhotplug.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

int shim_cpu;
u64 shim_now;
u64 shim_clock_skew[SHIM_NR_CPUS];
struct task_struct *shim_curr[SHIM_NR_CPUS];
struct task_struct *shim_tasks;
void (*shim_hook)(void *arg);
void *shim_hook_arg;
const struct raw_spinlock *shim_hook_lock;
bool shim_hook_at_mb;
int shim_alloc_fail_after = -1;
long shim_allocs;

static int irqs_off[SHIM_NR_CPUS];	/* saved-flags depth */
static int locks_held[SHIM_NR_CPUS];
static int rcu_depth[SHIM_NR_CPUS];

void shim_bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "# shim: CPU %d at %llu: ", shim_cpu,
		(unsigned long long)shim_now);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void check_cpu(void)
{
	if (shim_cpu < 0 || shim_cpu >= SHIM_NR_CPUS)
		shim_bug("no such CPU");
}

/* run_hook() - the armed hook, once; the CPU it ran on is restored */
static void run_hook(void)
{
	void (*fn)(void *arg) = shim_hook;
	int cpu = shim_cpu;

	shim_hook = NULL;
	shim_hook_lock = NULL;
	shim_hook_at_mb = false;
	fn(shim_hook_arg);
	shim_cpu = cpu;
}

void shim_mb(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (shim_hook && shim_hook_at_mb)
		run_hook();
}

void shim_lock(raw_spinlock_t *l)
{
	check_cpu();
	if (shim_hook && !shim_hook_at_mb &&
	    (!shim_hook_lock || shim_hook_lock == l))
		run_hook();
	if (l->holder)
		shim_bug("deadlock: lock %p already held by CPU %d", (void *)l,
			 l->holder - 1);
	l->holder = shim_cpu + 1;
	locks_held[shim_cpu]++;
}

void shim_unlock(raw_spinlock_t *l)
{
	check_cpu();
	if (l->holder != shim_cpu + 1)
		shim_bug("unlock of lock %p not held by this CPU", (void *)l);
	l->holder = 0;
	locks_held[shim_cpu]--;
}

unsigned long shim_lock_irqsave(raw_spinlock_t *l)
{
	unsigned long flags;

	check_cpu();
	/* another CPU's event may land before this CPU disables irqs */
	if (shim_hook && !shim_hook_at_mb &&
	    (!shim_hook_lock || shim_hook_lock == l))
		run_hook();
	flags = irqs_off[shim_cpu]++;
	shim_lock(l);
	return flags;
}

void shim_unlock_irqrestore(raw_spinlock_t *l, unsigned long flags)
{
	shim_unlock(l);
	if ((unsigned long)irqs_off[shim_cpu] != flags + 1)
		shim_bug("irqrestore out of order");
	irqs_off[shim_cpu] = flags;
}

bool shim_lock_held(const raw_spinlock_t *l)
{
	return l && l->holder == shim_cpu + 1;
}

void shim_irq_disable(void)
{
	check_cpu();
	irqs_off[shim_cpu]++;
}

void shim_irq_enable(void)
{
	check_cpu();
	if (!irqs_off[shim_cpu])
		shim_bug("interrupts enabled twice");
	irqs_off[shim_cpu]--;
}

unsigned long shim_irq_save(void)
{
	check_cpu();
	return irqs_off[shim_cpu]++;
}

void shim_irq_restore(unsigned long flags)
{
	check_cpu();
	if ((unsigned long)irqs_off[shim_cpu] != flags + 1)
		shim_bug("local_irq_restore out of order");
	irqs_off[shim_cpu] = flags;
}

void shim_assert_irqs_off(void)
{
	check_cpu();
	if (!irqs_off[shim_cpu])
		shim_bug("interrupts are on");
}

void rcu_read_lock(void)
{
	check_cpu();
	rcu_depth[shim_cpu]++;
}

void rcu_read_unlock(void)
{
	check_cpu();
	if (!rcu_depth[shim_cpu]--)
		shim_bug("rcu_read_unlock() without a reader");
}

void shim_assert_rcu_reader(void)
{
	check_cpu();
	if (!rcu_depth[shim_cpu])
		shim_bug("task list walked outside an RCU reader");
}

void shim_assert_quiet(void)
{
	int cpu;

	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++)
		if (irqs_off[cpu] || locks_held[cpu] || rcu_depth[cpu])
			shim_bug("CPU %d left irqs off %d, locks %d, rcu %d",
				 cpu, irqs_off[cpu], locks_held[cpu],
				 rcu_depth[cpu]);
}

void *shim_calloc(size_t n, size_t size)
{
	void *p;

	if (shim_alloc_fail_after == 0)
		return NULL;
	if (shim_alloc_fail_after > 0)
		shim_alloc_fail_after--;
	p = calloc(n, size);
	if (p)
		shim_allocs++;
	return p;
}

void shim_free(const void *p)
{
	if (p)
		shim_allocs--;
	free((void *)p);
}

void *shim_alloc_percpu(size_t size)
{
	if (size > SHIM_PCPU_UNIT)
		shim_bug("per-CPU object of %zu bytes: raise SHIM_PCPU_UNIT",
			 size);
	return shim_calloc(SHIM_NR_CPUS, SHIM_PCPU_UNIT);
}

void free_percpu(void *p)
{
	shim_free(p);
}

ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size);

	if (!size)
		return -7;	/* -E2BIG */
	if (n == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -7;
	}
	memcpy(dst, src, n + 1);
	return n;
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= m->size - m->count)
		shim_bug("seq_file buffer of %zu bytes too small", m->size);
	m->count += n;
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_printf(m, "%s", s);
}

void seq_putc(struct seq_file *m, char c)
{
	seq_printf(m, "%c", c);
}

/* ---- hotplug: one dynamic state ---- */

static int (*cpuhp_startup)(unsigned int cpu);
static int (*cpuhp_teardown)(unsigned int cpu);
static bool cpu_up[SHIM_NR_CPUS] = { true, true, true, true };

/* on_cpu() - run @fn as @cpu does, from the test's CPU */
static int on_cpu(int (*fn)(unsigned int cpu), int cpu)
{
	int from = shim_cpu, ret;

	shim_cpu = cpu;
	ret = fn ? fn(cpu) : 0;
	shim_cpu = from;
	return ret;
}

int cpuhp_setup_state(enum cpuhp_state state, const char *name,
		      int (*startup)(unsigned int cpu),
		      int (*teardown)(unsigned int cpu))
{
	int cpu, ret;

	if (state != CPUHP_AP_ONLINE_DYN || cpuhp_startup || !name)
		shim_bug("cpuhp_setup_state(%d, %s)", state, name);
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		if (!cpu_up[cpu])
			continue;
		ret = on_cpu(startup, cpu);
		if (ret)
			return ret;	/* no rollback: the module has none */
	}
	cpuhp_startup = startup;
	cpuhp_teardown = teardown;
	return CPUHP_AP_ONLINE_DYN + 1;	/* the dynamic state allocated */
}

void cpuhp_remove_state_nocalls(enum cpuhp_state state)
{
	if (state != CPUHP_AP_ONLINE_DYN + 1)
		shim_bug("cpuhp_remove_state_nocalls(%d)", state);
	cpuhp_startup = NULL;
	cpuhp_teardown = NULL;
}

int shim_cpu_up(int cpu)
{
	if (cpu_up[cpu])
		shim_bug("CPU %d is up already", cpu);
	cpu_up[cpu] = true;
	return on_cpu(cpuhp_startup, cpu);
}

int shim_cpu_down(int cpu)
{
	if (!cpu_up[cpu])
		shim_bug("CPU %d is down already", cpu);
	cpu_up[cpu] = false;
	return on_cpu(cpuhp_teardown, cpu);
}
