/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of blk-ioq and of the policies on it share: a
 * request queue made up for a test, with one hardware queue whose tags
 * have records, and requests on it as blk-mq hands them to insert.
 */
#ifndef BLK_IOQ_KUNIT_H
#define BLK_IOQ_KUNIT_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include <linux/sizes.h>

#include "elevator.h"
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
	tq->q.nr_requests = IOQ_TEST_TAGS;
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
 * A 4 KiB request of @opf at @pos of @q, on @tag, as blk-mq hands it to
 * insert; never merged, as the test has no elevator queue whose hash
 * would find it.  A test reuses a freed request's memory and tag so.
 */
static inline void ioq_test_request_init(struct request *rq,
					 struct request_queue *q,
					 blk_opf_t opf, sector_t pos,
					 unsigned int tag)
{
	/* Past the records, a request would be counted in freed memory. */
	if (WARN_ON(tag >= IOQ_TEST_TAGS))
		tag = IOQ_TEST_TAGS - 1;
	memset(rq, 0, sizeof(*rq));
	rq->q = q;
	rq->mq_hctx = ioq_test_hctx(q);
	rq->internal_tag = tag;
	rq->tag = BLK_MQ_NO_TAG;
	rq->cmd_flags = opf | REQ_NOMERGE;
	rq->__sector = pos;
	rq->__data_len = SZ_4K;
	RB_CLEAR_NODE(&rq->rb_node);
	INIT_HLIST_NODE(&rq->hash);
	INIT_LIST_HEAD(&rq->queuelist);
}

/* A new request (see above) on the next of the queue's tags. */
static inline struct request *ioq_test_request(struct kunit *test,
					       struct request_queue *q,
					       blk_opf_t opf, sector_t pos)
{
	struct ioq_test_queue *tq = container_of(q, struct ioq_test_queue, q);
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	KUNIT_ASSERT_LT(test, tq->next_tag, IOQ_TEST_TAGS);
	ioq_test_request_init(rq, q, opf, pos, tq->next_tag++);
	return rq;
}

/*
 * Make @s the scheduler of @q, for the core's elevator operations, which
 * find it through q->elevator.
 */
static inline void ioq_test_attach(struct kunit *test,
				   struct request_queue *q,
				   struct ioq_sched *s)
{
	struct elevator_queue *eq = kunit_kzalloc(test, sizeof(*eq),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, eq);
	eq->elevator_data = s;
	q->elevator = eq;
}

/* A process on @q: its icq, with no client until its first request. */
static inline struct ioq_icq *ioq_test_icq(struct kunit *test,
					   struct request_queue *q)
{
	struct ioq_icq *qic = kunit_kzalloc(test, sizeof(*qic), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qic);
	qic->icq.q = q;
	return qic;
}

/*
 * The core's steps, each under the scheduler's lock as its elevator
 * operations take it, so that a test checks their results unlocked (a
 * failed expectation allocates).
 */
static inline void ioq_kunit_insert(struct ioq_sched *s, struct request *rq,
				    blk_insert_t flags, u64 now)
{
	spin_lock_irq(&s->lock);
	ioq_sched_insert(s, rq, flags, now);
	spin_unlock_irq(&s->lock);
}

static inline struct request *ioq_kunit_dispatch(struct ioq_sched *s,
						 u64 now)
{
	struct request *rq;

	spin_lock_irq(&s->lock);
	rq = ioq_sched_dispatch(s, now);
	spin_unlock_irq(&s->lock);
	return rq;
}

static inline bool ioq_kunit_done(struct ioq_sched *s, struct request *rq,
				  u64 now)
{
	bool rerun;

	spin_lock_irq(&s->lock);
	rerun = ioq_sched_done(s, rq, now);
	spin_unlock_irq(&s->lock);
	return rerun;
}

static inline void ioq_kunit_requeue(struct ioq_sched *s, struct request *rq,
				     u64 now)
{
	spin_lock_irq(&s->lock);
	ioq_sched_requeue(s, rq, now);
	spin_unlock_irq(&s->lock);
}

/*
 * The queue runs of a test's scheduler, from its timer: counted, as the
 * test's request queue cannot be run.
 */
static atomic_t ioq_kunit_runs;

static inline void ioq_kunit_count_run(struct ioq_sched *s)
{
	atomic_inc(&ioq_kunit_runs);
}

/* Wait up to @ms for a queue run; returns the runs so far. */
static inline int ioq_kunit_wait_run(unsigned int ms)
{
	while (ms-- && !atomic_read(&ioq_kunit_runs))
		usleep_range(1000, 2000);
	return atomic_read(&ioq_kunit_runs);
}

#endif /* BLK_IOQ_KUNIT_H */
