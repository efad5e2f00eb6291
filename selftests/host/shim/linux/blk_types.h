/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/blk_types.h - a request's status and operation */
#ifndef SHIM_LINUX_BLK_TYPES_H
#define SHIM_LINUX_BLK_TYPES_H

#include <linux/types.h>

typedef u8 blk_status_t;
typedef u32 blk_opf_t;

#define REQ_OP_MASK	0xffU

enum req_op {
	REQ_OP_READ = 0,
	REQ_OP_WRITE = 1,
	REQ_OP_FLUSH = 2,
	REQ_OP_DISCARD = 3,
};

#endif /* SHIM_LINUX_BLK_TYPES_H */
