/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of blk-ioq and of the policies on it share: a
 * request queue made up for a test, with one hardware queue whose tags
 * have records, and requests on it as blk-mq hands them to insert.
 */
#ifndef BLK_IOQ_KUNIT_H
#define BLK_IOQ_KUNIT_H

#include <kunit/test.h>
#include <linux/blk-mq.h>
#include <linux/sizes.h>

#include "blk-ioq.h"

#define IOQ_TEST_MS		((u64)NSEC_PER_MSEC)
#define IOQ_TEST_TAGS		64
/* Tags from here on: a record looked up by anything else is wrong. */
#define IOQ_TEST_FIRST_TAG	5

struct ioq_test_queue {
	struct request_queue q;
	struct blk_mq_hw_ctx hctx;
	unsigned int next_tag;
};

/* A rotational request queue for @test; ioq_test_queue_exit() ends it. */
static inline struct request_queue *ioq_test_queue(struct kunit *test)
{
	struct ioq_test_queue *tq = kunit_kzalloc(test, sizeof(*tq),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tq);
	/* A disk for the tracepoints, which name it, if they are on. */
	tq->q.disk = kunit_kzalloc(test, sizeof(*tq->q.disk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tq->q.disk);
	tq->q.limits.features = BLK_FEAT_ROTATIONAL;
	tq->hctx.queue = &tq->q;
	tq->hctx.sched_data = ioq_alloc_records(IOQ_TEST_TAGS, NUMA_NO_NODE,
						0);
	KUNIT_ASSERT_NOT_NULL(test, tq->hctx.sched_data);
	tq->next_tag = IOQ_TEST_FIRST_TAG;
	return &tq->q;
}

/* The one hardware queue of a test's request queue. */
static inline struct blk_mq_hw_ctx *ioq_test_hctx(struct request_queue *q)
{
	return &container_of(q, struct ioq_test_queue, q)->hctx;
}

static inline void ioq_test_queue_exit(struct request_queue *q)
{
	kvfree(ioq_test_hctx(q)->sched_data);
}

/*
 * A 4 KiB request of @opf at @pos of @q, on the next tag, as blk-mq hands
 * it to insert; never merged, as the test has no elevator queue whose
 * hash would find it.
 */
static inline struct request *ioq_test_request(struct kunit *test,
					       struct request_queue *q,
					       blk_opf_t opf, sector_t pos)
{
	struct ioq_test_queue *tq = container_of(q, struct ioq_test_queue, q);
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->q = q;
	rq->mq_hctx = &tq->hctx;
	rq->internal_tag = tq->next_tag++;
	rq->tag = BLK_MQ_NO_TAG;
	rq->cmd_flags = opf | REQ_NOMERGE;
	rq->__sector = pos;
	rq->__data_len = SZ_4K;
	RB_CLEAR_NODE(&rq->rb_node);
	INIT_HLIST_NODE(&rq->hash);
	INIT_LIST_HEAD(&rq->queuelist);
	return rq;
}

/* The idle timer must not run a queue the test made up. */
static inline enum hrtimer_restart ioq_test_timer_fn(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

#endif /* BLK_IOQ_KUNIT_H */
