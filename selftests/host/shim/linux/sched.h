/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/sched.h - the task fields the probes read, and current */
#ifndef SHIM_LINUX_SCHED_H
#define SHIM_LINUX_SCHED_H

#include <shim.h>

#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_WAKING		0x0200

#define TASK_ON_RQ_QUEUED	1
#define TASK_ON_RQ_MIGRATING	2

#define PF_IDLE			0x00000002
#define PF_IO_WORKER		0x00000010
#define PF_KTHREAD		0x00200000

#define TASK_COMM_LEN		16

struct sched_entity {
	unsigned char sched_delayed;	/* 6.12 and later */
};

/* the saved user registers: the system call number, -1 outside one */
struct pt_regs {
	long orig_ax;
};

struct task_struct {
	unsigned int __state;
	unsigned int flags;
	int on_cpu;
	int on_rq;
	unsigned int cpu;		/* task_cpu() */
	struct sched_entity se;
	unsigned int in_iowait:1;
	int tgid;
	u64 start_time;
	struct task_struct *group_leader;
	char comm[TASK_COMM_LEN];
	struct pt_regs shim_regs;	/* task_pt_regs() */
	struct task_struct *shim_next;	/* for_each_process_thread() */
};

#define current		(shim_curr[shim_cpu])

static inline unsigned int task_cpu(const struct task_struct *p)
{
	return READ_ONCE(p->cpu);
}

static inline bool is_idle_task(const struct task_struct *p)
{
	return p->flags & PF_IDLE;
}

static inline void cond_resched(void)
{
}

/* the probes run from the test's own calls: process context */
static inline bool in_task(void)
{
	return true;
}

static inline bool thread_group_leader(const struct task_struct *p)
{
	return p->group_leader == p;
}

#endif /* SHIM_LINUX_SCHED_H */
