/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * devs.h - the disks requests go to: a slot each, taken on first sight and
 * kept until unload, with each disk's figures (the devices and latency
 * files).  blk.c books every request on its disk's slot; owners.c names a
 * row's disk from the slot of its latest request.  The slot's lookup and
 * the booking are inline: the issue and the completion of every request
 * make them.
 */
#ifndef IOWPROBE_DEVS_H
#define IOWPROBE_DEVS_H

#include <linux/atomic.h>
#include <linux/blkdev.h>
#include <linux/types.h>

#include "busy.h"
#include "iowprobe_abi.h"
#include "iowprobe_core.h"

#define IOWPROBE_MAX_DEVS	64
#define IOWPROBE_NO_DEV		0xffff	/* a device slot: none */

struct seq_file;

/*
 * struct iowprobe_dev - one disk's slot: who it is, written once before
 * the slot is published; then its in-flight clock and figures, changed
 * without a lock
 */
struct iowprobe_dev {
	dev_t devt;
	char name[DISK_NAME_LEN];
	struct iowprobe_busy busy;
	atomic64_t requests;
	atomic64_t read_bytes;
	atomic64_t write_bytes;
	atomic64_t lat[IOWPROBE_LAT_SLOTS];
};

extern struct iowprobe_dev *iowprobe_devs;
extern unsigned int iowprobe_ndevs;

/*
 * iowprobe_devs_published() - how many slots are fully written
 *
 * Pairs with the smp_store_release() in iowprobe_dev_add(): a slot is
 * filled in before it is counted, so readers never see a half-written one.
 */
static __always_inline unsigned int iowprobe_devs_published(void)
{
	/* pairs with smp_store_release() in iowprobe_dev_add() */
	return smp_load_acquire(&iowprobe_ndevs);
}

u16 iowprobe_dev_add(struct gendisk *disk);

/* iowprobe_dev_index() - the slot of @disk, taken on first sight */
static __always_inline u16 iowprobe_dev_index(struct gendisk *disk)
{
	unsigned int i, n = iowprobe_devs_published();
	dev_t devt;

	if (!disk)
		return IOWPROBE_NO_DEV;
	devt = disk_devt(disk);
	for (i = 0; i < n; i++)
		if (iowprobe_devs[i].devt == devt)
			return i;
	return iowprobe_dev_add(disk);
}

/* iowprobe_dev_devt() - the disk of slot @dev, or 0 */
static inline dev_t iowprobe_dev_devt(u16 dev)
{
	return dev < iowprobe_devs_published() ? iowprobe_devs[dev].devt : 0;
}

/*
 * iowprobe_dev_done() - a request of slot @dev, an @op of @bytes issued at
 * @t_issue, completed at @now: the disk's figures
 */
static __always_inline void iowprobe_dev_done(u16 dev, u8 op, u32 bytes,
					      u64 t_issue, u64 now)
{
	struct iowprobe_dev *d;

	if (dev == IOWPROBE_NO_DEV)
		return;
	d = &iowprobe_devs[dev];
	atomic64_inc(&d->requests);
	if (op == IOWPROBE_OP_READ)
		atomic64_add(bytes, &d->read_bytes);
	if (op == IOWPROBE_OP_WRITE)
		atomic64_add(bytes, &d->write_bytes);
	atomic64_inc(&d->lat[iowprobe_lat_slot(now - t_issue)]);
}

int iowprobe_devs_init(void);
void iowprobe_devs_exit(void);
void iowprobe_devs_reap(u64 now);
void iowprobe_devs_show(struct seq_file *m);
void iowprobe_devs_latency_show(struct seq_file *m);
void iowprobe_devs_status(struct seq_file *m);
#ifdef IOWPROBE_TESTING
void iowprobe_devs_test_lock_order(void);
#endif

#endif /* IOWPROBE_DEVS_H */
