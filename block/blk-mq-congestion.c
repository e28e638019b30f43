// SPDX-License-Identifier: GPL-2.0
/*
 * Read congestion of the hardware queues of a blk-mq request queue.
 *
 * A hardware queue is read-congested when a read submitted to it now would
 * queue behind most of what its disk may hold there: the requests the disk
 * has allocated on it (queued in the scheduler or in flight in the driver)
 * reach 7/8 of the tags it may use.  It stays congested until they fall to
 * 13/16, so that the state does not flap around a single value (close to
 * the watermarks of the legacy request queue).
 *
 * Only the disk's own requests count: of driver tags shared with other
 * disks (the LUNs of a SCSI host, the namespaces of an NVMe controller),
 * its active requests, against the share of them hctx_may_queue() lets it
 * take.  That is a choice: another disk that holds all the tags makes this
 * one's reads wait too, but holding back this one's readahead would give
 * it nothing back.  Requests waiting for a tag do not count, reads or
 * writes: a scheduler may hold writes to fewer tags than reads, and a read
 * waits for a tag of its own disk only once they are all taken, which the
 * count shows.  Each hardware queue has its own state: a reader asks about
 * the one its CPU submits reads to, so that one busy queue of a
 * multi-queue device does not hold back the readers of the others.  The
 * state stored there (BLK_MQ_S_READ_CONGESTED, in blk-mq debugfs) is the
 * answer the last reader got.
 *
 * The state is evaluated when readahead asks, once per window, never on
 * the submission or completion path.  Bio-based queues (device mapper, md)
 * have no requests to count and cannot tell.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

#include "blk.h"
#include "blk-mq.h"

static unsigned int congestion_on_threshold(unsigned int depth)
{
	return max(depth - depth / 8, 1U);
}

static unsigned int congestion_off_threshold(unsigned int depth)
{
	return congestion_on_threshold(depth) - max(depth / 16, 1U);
}

/* The requests of a disk allocated on a hardware queue, and its room. */
struct hctx_load {
	unsigned int used;
	unsigned int depth;
};

/*
 * The load of @hctx's disk on @hctx.  Scheduler tags are the disk's own,
 * and so are driver tags no other disk uses: count what is allocated of
 * them (reserved tags are not for reads).  Of driver tags shared with other
 * disks, the disk's own are its active requests (reserved ones included).
 */
static struct hctx_load hctx_read_load(struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_tags *tags = hctx->sched_tags ?: hctx->tags;
	struct sbitmap_queue *bt;

	/* Reads go only to hardware queues with CPUs, which have tags. */
	if (WARN_ON_ONCE(!tags))
		return (struct hctx_load){ .depth = 1 };
	bt = &tags->bitmap_tags;
	if (hctx->sched_tags || !(hctx->flags & BLK_MQ_F_TAG_QUEUE_SHARED))
		return (struct hctx_load){ .used = sbitmap_weight(&bt->sb),
					   .depth = bt->sb.depth };
	return (struct hctx_load){
		.used = __blk_mq_active_requests(hctx),
		.depth = min(bt->sb.depth, hctx_shared_tags_limit(hctx, bt)),
	};
}

/* Whether @load is congested, given whether it was: the hysteresis. */
static bool load_congested(struct hctx_load load, bool was)
{
	if (load.used >= congestion_on_threshold(load.depth))
		return true;
	return was && load.used > congestion_off_threshold(load.depth);
}

static bool hctx_was_read_congested(struct blk_mq_hw_ctx *hctx)
{
	return test_bit(BLK_MQ_S_READ_CONGESTED, &hctx->state);
}

/* The hardware queue a read submitted from @ctx goes to. */
static struct blk_mq_hw_ctx *read_hctx(struct request_queue *q,
				       struct blk_mq_ctx *ctx)
{
	return blk_mq_map_queue(q, REQ_OP_READ, ctx);
}

/**
 * blk_queue_read_congestion - whether a read would wait behind a full queue
 * @q: the request queue
 *
 * Re-evaluates, against its watermarks, the state of the hardware queue of
 * @q that a read submitted from this CPU goes to, and stores it if it
 * changed.
 *
 * The hardware queues, their tags and the queue's flags are stable under
 * the queue usage reference: changing them (a scheduler switch, a new
 * nr_requests or number of hardware queues) freezes the queue.  The CPU
 * may change meanwhile; its hardware queue is still one of @q's.
 *
 * Context: any context that may take rcu_read_lock(); does not sleep.
 *
 * Return: BLK_READ_CONGESTED or BLK_READ_UNCONGESTED; BLK_READ_UNKNOWN for
 * a bio-based queue, which has no requests to count, and for a queue that
 * is frozen, dying or pm_only (suspended, quiesced).
 */
enum blk_read_congestion blk_queue_read_congestion(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	bool was, congested;

	/* Only try: waiting for a freeze here could deadlock against it. */
	if (!queue_is_mq(q) || !blk_try_enter_queue(q, false))
		return BLK_READ_UNKNOWN;
	hctx = read_hctx(q, blk_mq_get_ctx(q));
	/*
	 * The stored state is read once, and the answer and whether to store
	 * it both follow from that read.  Racing askers may store in either
	 * order; each stores what it computed from a load it saw, so the bit
	 * may lag by one evaluation, but is never made up.
	 */
	was = hctx_was_read_congested(hctx);
	congested = load_congested(hctx_read_load(hctx), was);
	if (congested != was)
		assign_bit(BLK_MQ_S_READ_CONGESTED, &hctx->state, congested);
	blk_queue_exit(q);
	return congested ? BLK_READ_CONGESTED : BLK_READ_UNCONGESTED;
}

/*
 * Whether a hardware queue that reads of @q go to is read-congested, for
 * sysfs: evaluated without storing the result, so that looking does not
 * change what readahead sees.  False while the queue is frozen, dying or
 * pm_only.
 */
bool blk_mq_any_read_congested(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	bool congested = false;
	unsigned long i;

	if (!blk_try_enter_queue(q, false))
		return false;
	queue_for_each_hw_ctx(q, hctx, i) {
		/* Only the queues reads go to: not poll or write-only ones. */
		if (!hctx->nr_ctx || read_hctx(q, hctx->ctxs[0]) != hctx)
			continue;
		if (load_congested(hctx_read_load(hctx),
				   hctx_was_read_congested(hctx))) {
			congested = true;
			break;
		}
	}
	blk_queue_exit(q);
	return congested;
}
