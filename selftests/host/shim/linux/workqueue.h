/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/workqueue.h - delayed work that runs only when the test
 * says its timer expired (shim_run_delayed_work())
 */
#ifndef SHIM_LINUX_WORKQUEUE_H
#define SHIM_LINUX_WORKQUEUE_H

#include <linux/sched.h>	/* cond_resched() */

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
};

struct delayed_work {
	struct work_struct work;
	unsigned long delay;
	bool pending;
};

#define DECLARE_DELAYED_WORK(n, f)					\
	struct delayed_work n = { .work = { .func = (f) } }

bool schedule_delayed_work(struct delayed_work *dw, unsigned long delay);
bool cancel_delayed_work_sync(struct delayed_work *dw);

/* test knob: run every pending delayed work once; how many ran */
int shim_run_delayed_work(void);

#endif /* SHIM_LINUX_WORKQUEUE_H */
