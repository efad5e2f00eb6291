/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/blkdev.h - a disk's name and number */
#ifndef SHIM_LINUX_BLKDEV_H
#define SHIM_LINUX_BLKDEV_H

#include <linux/blk_types.h>
#include <linux/kdev_t.h>
#include <linux/slab.h>

#define DISK_NAME_LEN	32

struct gendisk {
	int major;
	int first_minor;
	char disk_name[DISK_NAME_LEN];
};

struct request_queue {
	struct gendisk *disk;
};

static inline dev_t disk_devt(struct gendisk *disk)
{
	return MKDEV(disk->major, disk->first_minor);
}

#endif /* SHIM_LINUX_BLKDEV_H */
