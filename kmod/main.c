// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - iowprobe: an exact per-CPU split of idle time into true idle,
 * iowait (the kernel's own rule, integrated) and idle while the disk is busy
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>

#include "iowprobe.h"
#include "iowprobe_cc.h"

#define POOL_MIN	16U
#define POOL_MAX	SZ_1M
/* the requests in flight are counted in a count clock (busy.h) */
#define REQUEST_POOL_MAX	((unsigned int)IOWPROBE_CC_MAX)

static unsigned int task_pool = IOWPROBE_TASKS_DEFAULT;
static unsigned int request_pool = IOWPROBE_REQUESTS_DEFAULT;

/* pool sizes are checked at load: out of range refuses to load */
static int pool_set_upto(const char *val, const struct kernel_param *kp,
			 unsigned int max)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret || n < POOL_MIN || n > max) {
		pr_err("%s=%s is out of range: use %u..%u\n", kp->name, val,
		       POOL_MIN, max);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static int pool_set(const char *val, const struct kernel_param *kp)
{
	return pool_set_upto(val, kp, POOL_MAX);
}

static int request_pool_set(const char *val, const struct kernel_param *kp)
{
	return pool_set_upto(val, kp, REQUEST_POOL_MAX);
}

static const struct kernel_param_ops pool_ops = {
	.set = pool_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops request_pool_ops = {
	.set = request_pool_set,
	.get = param_get_uint,
};

module_param_cb(tasks, &pool_ops, &task_pool, 0444);
MODULE_PARM_DESC(tasks,
		 "sleeping iowait tasks followed at once (16..1048576, default "
		 __stringify(IOWPROBE_TASKS_DEFAULT) ")");
module_param_cb(requests, &request_pool_ops, &request_pool, 0444);
MODULE_PARM_DESC(requests,
		 "block requests followed in flight at once (16..262143, default "
		 __stringify(IOWPROBE_REQUESTS_DEFAULT) ")");

module_param_cb(procs, &pool_ops, &iowprobe_owner_pool[IOWPROBE_PROCS],
		0444);
MODULE_PARM_DESC(procs,
		 "processes whose iowait is kept apart (16..1048576, default "
		 __stringify(IOWPROBE_PROCS_DEFAULT) ")");
module_param_cb(cgroups, &pool_ops, &iowprobe_owner_pool[IOWPROBE_CGROUPS],
		0444);
MODULE_PARM_DESC(cgroups,
		 "cgroups whose iowait is kept apart (16..1048576, default "
		 __stringify(IOWPROBE_CGROUPS_DEFAULT) ")");

/*
 * The reaper, every IOWPROBE_REAP_EVERY, for what no event ends by itself:
 * requests that lost their completion and the in-flight clocks' snapshots
 * (blk.c), exited processes' and removed cgroups' rows (owners.c)
 */
#define IOWPROBE_REAP_EVERY	(5 * HZ)

static void reap_fn(struct work_struct *work)
{
	iowprobe_blk_reap();
	iowprobe_owners_reap();
	schedule_delayed_work(to_delayed_work(work), IOWPROBE_REAP_EVERY);
}

static DECLARE_DELAYED_WORK(reap_work, reap_fn);

static int __init iowprobe_init(void)
{
	int ret;

	ret = iowprobe_owners_init();
	if (ret)
		return ret;
	ret = iowprobe_acct_init(task_pool);
	if (ret)
		goto err_owners;
	ret = iowprobe_blk_init(request_pool);
	if (ret)
		goto err_acct;
	ret = iowprobe_probes_register();	/* unwinds itself */
	if (ret)
		goto err_blk;
	ret = iowprobe_hotplug_init();		/* starts every CPU's clock */
	if (ret)
		goto err_probes;
	iowprobe_seed();
	schedule_delayed_work(&reap_work, IOWPROBE_REAP_EVERY);
	iowprobe_debugfs_init();	/* last: readers appear once data exists */
	iowprobe_testing_run();
	return 0;

err_probes:
	iowprobe_probes_unregister();
err_blk:
	iowprobe_blk_exit();
err_acct:
	iowprobe_acct_exit();
err_owners:
	iowprobe_owners_exit();
	return ret;
}

static void __exit iowprobe_exit(void)
{
	iowprobe_debugfs_exit();	/* first: no reader races the frees */
	cancel_delayed_work_sync(&reap_work);
	iowprobe_hotplug_exit();
	iowprobe_probes_unregister();	/* waits for running probes */
	iowprobe_blk_exit();
	iowprobe_acct_exit();
	iowprobe_owners_exit();
}

module_init(iowprobe_init);
module_exit(iowprobe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("exact per-CPU idle, iowait and block-wait accounting");
MODULE_AUTHOR("iowprobe developers");
MODULE_VERSION(IOWPROBE_VERSION);
