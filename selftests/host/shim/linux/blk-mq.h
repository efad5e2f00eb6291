/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/blk-mq.h - a request: its disk, CPU, operation and size */
#ifndef SHIM_LINUX_BLK_MQ_H
#define SHIM_LINUX_BLK_MQ_H

#include <linux/blkdev.h>

struct request {
	struct request_queue *q;
	unsigned int cpu;		/* of its software queue */
	blk_opf_t cmd_flags;
	unsigned int __data_len;
};

static inline unsigned int blk_mq_rq_cpu(struct request *rq)
{
	return rq->cpu;
}

static inline unsigned int blk_rq_bytes(const struct request *rq)
{
	return rq->__data_len;
}

static inline enum req_op req_op(const struct request *rq)
{
	return rq->cmd_flags & REQ_OP_MASK;
}

#endif /* SHIM_LINUX_BLK_MQ_H */
