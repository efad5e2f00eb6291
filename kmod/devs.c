// SPDX-License-Identifier: GPL-2.0-only
/*
 * devs.c - the disks requests go to (devs.h): their slots, taken under
 * devs_lock, and their figures, shown in the devices and latency files;
 * and the in-flight clock of any disk, iowprobe_busy_any (busy.h)
 */
#include <linux/types.h>
#include <linux/kdev_t.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "devs.h"
#include "iowprobe.h"

struct iowprobe_busy iowprobe_busy_any;
struct iowprobe_dev *iowprobe_devs;
unsigned int iowprobe_ndevs;
static DEFINE_RAW_SPINLOCK(devs_lock);
static atomic64_t devs_overflow;

int iowprobe_devs_init(void)
{
	iowprobe_busy_init(&iowprobe_busy_any);
	iowprobe_devs = kcalloc(IOWPROBE_MAX_DEVS, sizeof(*iowprobe_devs),
				GFP_KERNEL);
	return iowprobe_devs ? 0 : -ENOMEM;
}

void iowprobe_devs_exit(void)
{
	kfree(iowprobe_devs);
	iowprobe_devs = NULL;
	iowprobe_ndevs = 0;
}

/*
 * iowprobe_dev_add() - the slot of @disk, not found among the published
 * ones: taken now, unless another CPU just took it or none is left
 */
u16 iowprobe_dev_add(struct gendisk *disk)
{
	dev_t devt = disk_devt(disk);
	struct iowprobe_dev *d;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&devs_lock, flags);
	for (i = 0; i < iowprobe_ndevs; i++)
		if (iowprobe_devs[i].devt == devt)
			goto out;
	if (i == IOWPROBE_MAX_DEVS) {
		atomic64_inc(&devs_overflow);
		i = IOWPROBE_NO_DEV;
		goto out;
	}
	d = &iowprobe_devs[i];
	d->devt = devt;
	strscpy(d->name, disk->disk_name, sizeof(d->name));
	iowprobe_busy_init(&d->busy);
	/* publish the filled slot; pairs with iowprobe_devs_published() */
	smp_store_release(&iowprobe_ndevs, i + 1);
out:
	raw_spin_unlock_irqrestore(&devs_lock, flags);
	return i;
}

/*
 * iowprobe_devs_reap() - the reaper's part: the snapshots of any disk's and
 * every disk's in-flight clock moved on
 */
void iowprobe_devs_reap(u64 now)
{
	unsigned int i, n = iowprobe_devs_published();

	iowprobe_busy_snap(&iowprobe_busy_any, now);
	for (i = 0; i < n; i++)
		iowprobe_busy_snap(&iowprobe_devs[i].busy, now);
}

void iowprobe_devs_show(struct seq_file *m)
{
	unsigned int i, n = iowprobe_devs_published();
	u64 now = iowprobe_now();
	struct iowprobe_dev *d;

	seq_puts(m, IOWPROBE_ABI_LINE "\n" IOWPROBE_DEVICES_HEADER "\n");
	for (i = 0; i < n; i++) {
		d = &iowprobe_devs[i];
		seq_printf(m, "%s %u:%u %lld %lld %lld %u %llu\n", d->name,
			   MAJOR(d->devt), MINOR(d->devt),
			   atomic64_read(&d->requests),
			   atomic64_read(&d->read_bytes),
			   atomic64_read(&d->write_bytes),
			   iowprobe_busy_count(&d->busy),
			   iowprobe_busy_at(&d->busy, now,
					    READ_ONCE(d->busy.snap)));
	}
}

void iowprobe_devs_latency_show(struct seq_file *m)
{
	unsigned int i, s, n = iowprobe_devs_published();
	struct iowprobe_dev *d;
	u64 count, hi;

	seq_puts(m, IOWPROBE_ABI_LINE "\n" IOWPROBE_LATENCY_HEADER "\n");
	for (i = 0; i < n; i++) {
		d = &iowprobe_devs[i];
		for (s = 0; s < IOWPROBE_LAT_SLOTS; s++) {
			count = atomic64_read(&d->lat[s]);
			if (!count)
				continue;
			hi = s == IOWPROBE_LAT_SLOTS - 1 ? U64_MAX :
							   (2ULL << s) - 1;
			seq_printf(m, "%s %u:%u %llu %llu %llu\n", d->name,
				   MAJOR(d->devt), MINOR(d->devt),
				   s ? 1ULL << s : 0, hi, count);
		}
	}
}

void iowprobe_devs_status(struct seq_file *m)
{
	seq_printf(m, "devices: %u\n", iowprobe_devs_published());
	seq_printf(m, "devices_overflow: %lld\n",
		   atomic64_read(&devs_overflow));
}

#ifdef IOWPROBE_TESTING
/*
 * iowprobe_devs_test_lock_order() - testing builds only: this CPU's lock
 * and devs_lock in one order, then in the other, for lockdep to report as a
 * possible deadlock.  Both orders are taken here, so that lockdep knows
 * the first without waiting for any probe.
 */
void iowprobe_devs_test_lock_order(void)
{
	struct iowprobe_cpu *c = get_cpu_ptr(iowprobe_cpus);
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	raw_spin_lock(&devs_lock);
	raw_spin_unlock(&devs_lock);
	raw_spin_unlock_irqrestore(&c->lock, flags);

	raw_spin_lock_irqsave(&devs_lock, flags);
	raw_spin_lock(&c->lock);
	raw_spin_unlock(&c->lock);
	raw_spin_unlock_irqrestore(&devs_lock, flags);
	put_cpu_ptr(iowprobe_cpus);
}
#endif
