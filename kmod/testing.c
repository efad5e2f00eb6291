// SPDX-License-Identifier: GPL-2.0-only
/*
 * testing.c - testing builds only (make modules-testing): deliberate bugs,
 * each behind a parameter, that the debug kernel's checkers must report
 * (selftests/guest/test_zz_debug_net.sh).  Kbuild leaves this file out of a
 * default build.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/printk.h>

#include "devs.h"
#include "iowprobe.h"

static bool test_lock_order;
module_param(test_lock_order, bool, 0444);
MODULE_PARM_DESC(test_lock_order,
		 "testing build: at load, take two locks in the wrong order (lockdep reports it)");

static bool test_use_after_free;
module_param(test_use_after_free, bool, 0444);
MODULE_PARM_DESC(test_use_after_free,
		 "testing build: at load, read a task entry after its pool is freed (KASAN reports it)");

/*
 * use_after_free() - what a probe still running after unload freed the
 * task pool would do, had iowprobe_probes_unregister() not waited for it:
 * read an entry of a task table destroyed under it.  A table of its own,
 * so the module's tables stay sound.
 */
static void use_after_free(void)
{
	struct iowprobe_table t;
	struct iowprobe_entry *e;
	unsigned long flags;

	if (iowprobe_table_init(&t, "test", 16, true))
		return;
	local_irq_save(flags);	/* as a probe takes it */
	e = iowprobe_entry_get(&t);
	local_irq_restore(flags);
	iowprobe_table_destroy(&t);
	if (e)
		pr_info("test_use_after_free: read key %p of a freed entry\n",
			READ_ONCE(e->key));
}

/* iowprobe_testing_run() - the bugs asked for, once everything is up */
void iowprobe_testing_run(void)
{
	if (test_lock_order)
		iowprobe_devs_test_lock_order();
	if (test_use_after_free)
		use_after_free();
}
