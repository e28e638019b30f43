// SPDX-License-Identifier: GPL-2.0
/*
 * Read congestion of a blk-mq request queue.
 *
 * A queue is read-congested when a read submitted now would queue behind
 * most of the queue's capacity: the requests allocated on one of its
 * hardware queues (queued in the scheduler or in flight in the driver)
 * reach a high watermark of nr_requests, or an allocation had to sleep for
 * a tag.  It stays congested until the allocated requests fall to a low
 * watermark, so that the state does not flap around a single value.
 *
 * The state is evaluated when somebody asks (readahead, once per window, and
 * queue/read_congested in sysfs), not on every request, so the fast path
 * pays nothing but the flag set by a tag allocation that sleeps.  Bio-based
 * queues (device mapper, md) have no requests to count and never report
 * congestion.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

#include "blk.h"
#include "blk-mq.h"

/* The watermarks of the legacy request queue: 7/8 on, 13/16 off. */
static unsigned int congestion_on_threshold(unsigned int nr_requests)
{
	return max(nr_requests - nr_requests / 8, 1U);
}

static unsigned int congestion_off_threshold(unsigned int nr_requests)
{
	return congestion_on_threshold(nr_requests) -
		max(nr_requests / 16, 1U);
}

/* Requests allocated on @hctx: queued in the scheduler or in the driver. */
static unsigned int hctx_requests_in_use(struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_tags *tags = hctx->sched_tags ?: hctx->tags;

	if (!tags)
		return 0;
	return sbitmap_weight(&tags->bitmap_tags.sb) +
		sbitmap_weight(&tags->breserved_tags.sb);
}

/* The most requests in use on any hardware queue of @q. */
static unsigned int queue_requests_in_use(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned int used = 0;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i)
		used = max(used, hctx_requests_in_use(hctx));
	return used;
}

/*
 * Mark @q congested.  Also called when a request allocation on @q is about
 * to sleep for a tag: the queue is congested whatever the counts say (tags
 * shared with other queues of the same host may be the ones that ran out).
 */
void blk_queue_mark_read_congested(struct request_queue *q)
{
	if (!test_bit(QUEUE_FLAG_READ_CONGESTED, &q->queue_flags))
		set_bit(QUEUE_FLAG_READ_CONGESTED, &q->queue_flags);
}

/**
 * blk_queue_read_congested - whether a read would wait behind a full queue
 * @q: the request queue
 *
 * Re-evaluates the congestion state of @q against its watermarks and
 * returns it.  While @q is frozen (its scheduler or nr_requests changing)
 * the state is not re-evaluated, only returned.
 *
 * Context: any context; does not sleep.
 */
bool blk_queue_read_congested(struct request_queue *q)
{
	unsigned long *flags = &q->queue_flags;
	unsigned int used;

	if (!queue_is_mq(q))
		return false;
	/*
	 * The usage reference keeps the scheduler tags from being freed under
	 * us.  Only try for it: a caller that waited for a freeze here could
	 * deadlock against it, so there is nothing for lockdep to track.
	 */
	if (!blk_try_enter_queue(q, false))
		return test_bit(QUEUE_FLAG_READ_CONGESTED, flags);

	used = queue_requests_in_use(q);
	if (used >= congestion_on_threshold(q->nr_requests)) {
		blk_queue_mark_read_congested(q);
	} else if (used <= congestion_off_threshold(q->nr_requests)) {
		if (test_bit(QUEUE_FLAG_READ_CONGESTED, flags))
			clear_bit(QUEUE_FLAG_READ_CONGESTED, flags);
	}
	blk_queue_exit(q);
	return test_bit(QUEUE_FLAG_READ_CONGESTED, flags);
}
EXPORT_SYMBOL_GPL(blk_queue_read_congested);
