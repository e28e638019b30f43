// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mq-cfq's accounting: stamps that arrive out of order
 * and tunables at the ends of their ranges.  Included at the end of
 * mq-cfq-iosched.c, so that the tests call the scheduler's own functions
 * on a cfq_data set up by its own cfq_init_data().
 */
#include <kunit/test.h>

#define CFQ_TEST_MS	((u64)NSEC_PER_MSEC)
#define CFQ_TEST_TAGS	64
/* Tags from here on: a record looked up by anything else is wrong. */
#define CFQ_TEST_FIRST_TAG	5

/* A request queue with one hardware queue, whose tags have records. */
struct cfq_test_queue {
	struct request_queue q;
	struct blk_mq_hw_ctx hctx;
	unsigned int next_tag;
};

/* The idle and grace timer must not run a queue the test made up. */
static enum hrtimer_restart cfq_test_timer_fn(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

static int cfq_test_init(struct kunit *test)
{
	struct cfq_test_queue *tq = kunit_kzalloc(test, sizeof(*tq), GFP_KERNEL);
	struct cfq_data *cfqd = kunit_kzalloc(test, sizeof(*cfqd), GFP_KERNEL);
	struct request_queue *q = &tq->q;

	KUNIT_ASSERT_NOT_NULL(test, tq);
	KUNIT_ASSERT_NOT_NULL(test, cfqd);
	/* A disk for the tracepoints, which name it, if they are on. */
	q->disk = kunit_kzalloc(test, sizeof(*q->disk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q->disk);
	tq->hctx.queue = q;
	tq->hctx.sched_data = cfq_alloc_records(CFQ_TEST_TAGS, NUMA_NO_NODE,
						0);
	tq->next_tag = CFQ_TEST_FIRST_TAG;
	KUNIT_ASSERT_NOT_NULL(test, tq->hctx.sched_data);
	q->limits.features = BLK_FEAT_ROTATIONAL;
	cfq_init_data(cfqd, q);
	cfqd->timer.function = cfq_test_timer_fn;
	test->priv = cfqd;
	return 0;
}

/* The one hardware queue of the test's request queue. */
static struct blk_mq_hw_ctx *cfq_test_hctx(struct cfq_data *cfqd)
{
	return &container_of(cfqd->queue, struct cfq_test_queue, q)->hctx;
}

static void cfq_test_exit(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;

	if (!cfqd)	/* init failed */
		return;
	hrtimer_cancel(&cfqd->timer);
	kvfree(cfq_test_hctx(cfqd)->sched_data);
}

/* Make @cfqq, which has no requests, the active queue at @now. */
static struct cfq_queue *cfq_test_activate(struct cfq_data *cfqd,
					   struct cfq_queue *cfqq, u64 now)
{
	cfq_add_busy(cfqd, cfqq);
	cfq_activate(cfqd, cfqq, now);
	return cfqq;
}

/*
 * An insert whose clock was read before a dispatcher, with a later clock,
 * started idling: the device waited no time for the queue, so the queue
 * is charged nothing.  A wrapped difference charged it about 10^11 slices.
 */
static void cfq_test_idle_ends_before_it_started(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_queue *cfqq = cfq_test_activate(cfqd, &cfqd->oom_queue,
						   1 * CFQ_TEST_MS);
	u64 vtime = cfqq->vtime;

	cfq_start_idling(cfqd, 10 * CFQ_TEST_MS, 8 * CFQ_TEST_MS);
	cfq_stop_idling(cfqd, 10 * CFQ_TEST_MS - 1);
	KUNIT_EXPECT_EQ(test, cfqq->vtime, vtime);
	KUNIT_EXPECT_EQ(test, cfqd->idle_start_ns, 0);

	/* In order, the wait is charged as a share of the slice. */
	cfq_start_idling(cfqd, 20 * CFQ_TEST_MS, 8 * CFQ_TEST_MS);
	cfq_stop_idling(cfqd, 25 * CFQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, cfqq->vtime,
			vtime + div_u64(CFQ_VTIME_SLICE * 5,
					cfqd->tun.slice_sync));
}

/*
 * The IDLE class waits CFQ_IDLE_GRACE_NS after the last RT or BE request;
 * a clock read before that request's stamp is inside the grace period.
 */
static void cfq_test_idle_class_grace(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;

	cfq_add_busy(cfqd, &cfqd->async_queues[CFQ_IDLE][IOPRIO_BE_NORM]);
	cfqd->last_nonidle_ns = 500 * CFQ_TEST_MS;
	KUNIT_EXPECT_EQ(test, cfq_next_class(cfqd, 500 * CFQ_TEST_MS - 1),
			CFQ_NR_CLASSES);
	KUNIT_EXPECT_EQ(test, cfq_next_class(cfqd, 500 * CFQ_TEST_MS + 199 * CFQ_TEST_MS),
			CFQ_NR_CLASSES);
	KUNIT_EXPECT_EQ(test, cfq_next_class(cfqd, 500 * CFQ_TEST_MS + 200 * CFQ_TEST_MS),
			CFQ_IDLE);
}

/* Async depth starts from one after a sync completion, whenever stamped. */
static void cfq_test_async_ramp(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	u64 ramp = div_u64(cfq_ms(cfqd->tun.slice_async), CFQ_ASYNC_RAMP_PARTS);

	cfqd->last_sync_completion_ns = 100 * CFQ_TEST_MS;
	KUNIT_EXPECT_EQ(test, cfq_async_depth(cfqd, 100 * CFQ_TEST_MS - 1), 1);
	KUNIT_EXPECT_EQ(test, cfq_async_depth(cfqd, 100 * CFQ_TEST_MS + ramp / 2),
			cfqd->tun.quantum / 2);
	KUNIT_EXPECT_EQ(test, cfq_async_depth(cfqd, 100 * CFQ_TEST_MS + ramp),
			cfqd->tun.quantum);
}

/*
 * The largest slice_async and target_latency sysfs accepts: slice times
 * target is about 1.8 * 10^20 ns^2, past u64.  A round of twice the slice halves
 * it.
 */
static void cfq_test_latency_slice_extremes(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_queue *cfqq = &cfqd->async_queues[CFQ_BE][0];
	u64 slice;

	cfqd->tun.slice_async = 10000;
	cfqd->tun.target_latency = 10000;
	slice = cfq_slice_ns(cfqd, cfqq);
	cfqd->trees[CFQ_BE].busy_slice_ns = slice;
	KUNIT_EXPECT_EQ(test, cfq_latency_slice_ns(cfqd, cfqq), 5000 * CFQ_TEST_MS);

	/* Alone, the queue's round is its slice, cut to target_latency. */
	cfqd->trees[CFQ_BE].busy_slice_ns = 0;
	KUNIT_EXPECT_EQ(test, cfq_latency_slice_ns(cfqd, cfqq), 10000 * CFQ_TEST_MS);
}

/* A charge of a day's service at the shortest slice still adds up. */
static void cfq_test_charge_extremes(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_queue *cfqq = &cfqd->oom_queue;
	u64 day = 24ULL * 3600 * NSEC_PER_SEC;

	cfqd->tun.slice_sync = 1;
	cfqq->vtime = 0;
	cfq_charge(cfqd, cfqq, day);
	KUNIT_EXPECT_EQ(test, cfqq->vtime,
			CFQ_VTIME_SLICE * 24 * 3600 * MSEC_PER_SEC);
}

/* A 4 KiB sync read at @pos of @q, as blk-mq hands it to insert. */
static struct request *cfq_test_read(struct kunit *test,
				     struct request_queue *q, sector_t pos)
{
	struct cfq_test_queue *tq = container_of(q, struct cfq_test_queue, q);
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->q = q;
	rq->mq_hctx = &tq->hctx;
	rq->internal_tag = tq->next_tag++;
	rq->tag = BLK_MQ_NO_TAG;
	/* Not mergeable: the test has no elevator_queue for its hash. */
	rq->cmd_flags = REQ_OP_READ | REQ_SYNC | REQ_NOMERGE;
	rq->__sector = pos;
	rq->__data_len = SZ_4K;
	RB_CLEAR_NODE(&rq->rb_node);
	INIT_HLIST_NODE(&rq->hash);
	INIT_LIST_HEAD(&rq->queuelist);
	return rq;
}

/* A 4 KiB request of @opf at @pos, inserted at @now and due since then. */
static struct request *cfq_test_insert_due(struct kunit *test,
					   struct cfq_data *cfqd,
					   blk_opf_t opf, sector_t pos, u64 now)
{
	struct request *rq = cfq_test_read(test, cfqd->queue, pos);

	rq->cmd_flags = opf | REQ_NOMERGE;
	cfq_insert_request(cfqd, rq, 0, now);
	rq->fifo_time = jiffies - 1;
	return rq;
}

/*
 * Insert @rq at @now and dispatch it then.  The caller holds the lock, so
 * a failure here is an expectation, not an assertion that would leave
 * the test with the lock held.
 */
static void cfq_test_dispatch(struct kunit *test, struct cfq_data *cfqd,
			      struct request *rq, u64 now)
{
	cfq_insert_request(cfqd, rq, 0, now);
	KUNIT_EXPECT_PTR_EQ(test, cfq_dispatch_queued(cfqd, now), rq);
	KUNIT_EXPECT_TRUE(test, cfq_record_of(rq)->dispatched);
	KUNIT_EXPECT_EQ(test, cfqd->in_flight, 1);
}

/*
 * A requeue is the exact undo of a dispatch: nothing in flight, no
 * service charged, no slice started, no completion for the estimator.
 * When the request goes out again from the head, it is in flight again.
 */
static void cfq_test_requeue_undoes_dispatch(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct request *rq = cfq_test_read(test, cfqd->queue, 2048);
	struct cfq_queue *cfqq;
	u64 vtime;

	spin_lock_irq(&cfqd->lock);
	cfq_test_dispatch(test, cfqd, rq, 2 * CFQ_TEST_MS);
	cfqq = rq_cfqq(rq);
	KUNIT_EXPECT_PTR_EQ(test, cfqd->active, cfqq);
	vtime = cfqq->vtime;

	cfq_undispatch(cfqd, rq, 5 * CFQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, cfqd->in_flight, 0);
	KUNIT_EXPECT_EQ(test, cfqq->in_flight, 0);
	KUNIT_EXPECT_EQ(test, cfqq->slice_dispatched, 0);
	KUNIT_EXPECT_EQ(test, cfqd->units[0].in_flight, 0);
	KUNIT_EXPECT_EQ(test, cfqd->par.in_flight, 0);
	KUNIT_EXPECT_EQ(test, cfqd->par.window_completions, 0);
	KUNIT_EXPECT_EQ(test, cfqq->vtime, vtime);
	KUNIT_EXPECT_EQ(test, cfqq->slice_end_ns, U64_MAX);
	KUNIT_EXPECT_EQ(test, cfqd->last_completion_ns, 0);

	cfq_insert_request(cfqd, rq, BLK_MQ_INSERT_AT_HEAD, 6 * CFQ_TEST_MS);
	cfq_dispatch_head(cfqd, rq, 7 * CFQ_TEST_MS);
	spin_unlock_irq(&cfqd->lock);
	KUNIT_EXPECT_EQ(test, cfqd->in_flight, 1);
	KUNIT_EXPECT_EQ(test, cfqq->in_flight, 1);
	KUNIT_EXPECT_EQ(test, cfqd->par.in_flight, 1);
}

/* The accounting cfq_finish_request() does under the lock, at @now. */
static void cfq_test_finish(struct cfq_data *cfqd, struct request *rq,
			    u64 now)
{
	cfq_request_done(cfqd, rq_cfqq(rq), cfq_record_of(rq), now);
}

/*
 * The record keeps the whole dispatch time: a request sent at 16.7 s and
 * back 20 s later (past 2^24 us, where a 32-bit stamp of microseconds
 * wrapped), with no completion before it, is charged those 20 s.
 */
static void cfq_test_record_keeps_dispatch_time(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_record_set *recs = cfq_test_hctx(cfqd)->sched_data;
	struct request *rq = cfq_test_read(test, cfqd->queue, 2048);
	u64 sent = 16700 * CFQ_TEST_MS, back = sent + 20ULL * NSEC_PER_SEC;
	struct cfq_queue *cfqq;

	spin_lock_irq(&cfqd->lock);
	cfq_test_dispatch(test, cfqd, rq, sent);
	KUNIT_EXPECT_EQ(test, recs->rec[CFQ_TEST_FIRST_TAG].dispatch_ns, sent);
	KUNIT_EXPECT_FALSE(test, recs->rec[0].dispatched);
	cfqq = rq_cfqq(rq);
	cfq_test_finish(cfqd, rq, back);
	spin_unlock_irq(&cfqd->lock);

	KUNIT_EXPECT_EQ(test, cfqd->in_flight, 0);
	KUNIT_EXPECT_EQ(test, cfqq->in_flight, 0);
	KUNIT_EXPECT_FALSE(test, cfq_record_of(rq)->dispatched);
	KUNIT_EXPECT_EQ(test, cfqd->mean_service_ns, back - sent);
	KUNIT_EXPECT_EQ(test, cfqd->last_completion_ns, back);
}

/*
 * nr_requests grew the hardware queue's tags: the set grows to them, and
 * a request on a new tag is counted and given back like any other.
 */
static void cfq_test_records_grow_with_tags(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct blk_mq_hw_ctx *hctx = cfq_test_hctx(cfqd);
	struct blk_mq_tags *tags = kunit_kzalloc(test, sizeof(*tags),
						 GFP_KERNEL);
	struct request *rq = cfq_test_read(test, cfqd->queue, 2048);
	struct cfq_record_set *recs;

	KUNIT_ASSERT_NOT_NULL(test, tags);
	tags->nr_tags = 2 * CFQ_TEST_TAGS;
	hctx->sched_tags = tags;
	cfq_grow_records(cfqd, hctx);
	recs = hctx->sched_data;
	KUNIT_ASSERT_EQ(test, recs->nr, 2 * CFQ_TEST_TAGS);
	rq->internal_tag = 2 * CFQ_TEST_TAGS - 1;
	spin_lock_irq(&cfqd->lock);
	cfq_test_dispatch(test, cfqd, rq, 1 * CFQ_TEST_MS);
	KUNIT_EXPECT_TRUE(test, recs->rec[2 * CFQ_TEST_TAGS - 1].dispatched);
	cfq_test_finish(cfqd, rq, 2 * CFQ_TEST_MS);
	spin_unlock_irq(&cfqd->lock);
	KUNIT_EXPECT_EQ(test, cfqd->in_flight, 0);
	KUNIT_EXPECT_EQ(test, cfqd->last_completion_ns, 2 * CFQ_TEST_MS);
}

/*
 * A request counts on the unit it was sent to until it is back, whatever
 * the layout says by then: one sent to unit 3 of a four-unit array frees
 * unit 3 after the device stopped reporting the layout.
 */
static void cfq_test_unit_kept_across_layout_change(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct request_queue *q = cfqd->queue;
	sector_t unit3 = 3 * (SZ_64K >> SECTOR_SHIFT);
	struct request *rq = cfq_test_read(test, q, unit3);
	unsigned int i;

	/* What a four-disk RAID-0 of 64 KiB chunks reports. */
	q->limits.io_min = SZ_64K;
	q->limits.io_opt = 4 * SZ_64K;
	spin_lock_irq(&cfqd->lock);
	cfq_test_dispatch(test, cfqd, rq, 1 * CFQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, cfqd->layout.units, 4);
	KUNIT_EXPECT_EQ(test, cfqd->units[3].in_flight, 1);
	/* The device stops reporting it, seen at the next dispatch. */
	q->limits.io_min = 0;
	q->limits.io_opt = 0;
	cfq_update_layout(cfqd);
	KUNIT_EXPECT_EQ(test, cfq_unit_of(cfqd, rq), 0);
	cfq_test_finish(cfqd, rq, 2 * CFQ_TEST_MS);
	spin_unlock_irq(&cfqd->lock);
	for (i = 0; i < ARRAY_SIZE(cfqd->units); i++)
		KUNIT_EXPECT_EQ_MSG(test, cfqd->units[i].in_flight, 0,
				    "unit %u", i);
}

/*
 * A bio joins only a request of the queue it would join itself: not a
 * request another process queued, and not queued async writeback if the
 * bio is sync.
 */
static void cfq_test_merges_stay_in_queue(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct request_queue *q = cfqd->queue;
	struct elevator_queue *eq = kunit_kzalloc(test, sizeof(*eq), GFP_KERNEL);
	struct cfq_queue *other = kunit_kzalloc(test, sizeof(*other),
						GFP_KERNEL);
	struct request *rq = cfq_test_read(test, q, 2048);
	struct bio bio;

	KUNIT_ASSERT_NOT_NULL(test, eq);
	KUNIT_ASSERT_NOT_NULL(test, other);
	eq->elevator_data = cfqd;
	q->elevator = eq;
	cfq_init_queue(cfqd, other, true, CFQ_BE, IOPRIO_BE_NORM);
	rq->elv.priv[0] = &cfqd->oom_queue;
	bio_init(&bio, NULL, NULL, 0, REQ_OP_READ | REQ_SYNC);
	bio.bi_iter.bi_sector = 2048 + 8;

	spin_lock_irq(&cfqd->lock);
	cfqd->merge_queue = &cfqd->oom_queue;
	KUNIT_EXPECT_TRUE(test, cfq_allow_bio_merge(q, rq, &bio));
	cfqd->merge_queue = other;
	KUNIT_EXPECT_FALSE(test, cfq_allow_bio_merge(q, rq, &bio));

	/* An async request takes async bios of its ioprio only. */
	rq->elv.priv[0] = &cfqd->async_queues[CFQ_BE][IOPRIO_BE_NORM];
	KUNIT_EXPECT_FALSE(test, cfq_allow_bio_merge(q, rq, &bio));
	bio.bi_opf = REQ_OP_WRITE;
	KUNIT_EXPECT_TRUE(test, cfq_allow_bio_merge(q, rq, &bio));
	rq->elv.priv[0] = &cfqd->async_queues[CFQ_BE][0];
	KUNIT_EXPECT_FALSE(test, cfq_allow_bio_merge(q, rq, &bio));
	cfqd->merge_queue = NULL;
	spin_unlock_irq(&cfqd->lock);
	q->elevator = NULL;
}

/*
 * RT first, but a BE request that waited prio_aging_expire goes next, for
 * its aged requests only: a turn out of order, with no slice to idle in
 * while RT waits.
 */
static void cfq_test_be_ages_past_rt(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct request *rq = cfq_test_read(test, cfqd->queue, 2048);
	struct cfq_queue *rt = &cfqd->async_queues[CFQ_RT][IOPRIO_BE_NORM];
	u64 aged = 1 * CFQ_TEST_MS + cfq_ms(cfqd->tun.prio_aging_expire);

	rq->start_time_ns = 1 * CFQ_TEST_MS;
	cfq_insert_request(cfqd, rq, 0, 1 * CFQ_TEST_MS);
	cfq_add_busy(cfqd, rt);
	KUNIT_EXPECT_PTR_EQ(test, cfq_next_queue(cfqd, aged - 1), rt);
	KUNIT_EXPECT_PTR_EQ(test, cfq_next_queue(cfqd, aged), rq_cfqq(rq));
	cfq_activate(cfqd, rq_cfqq(rq), aged);
	KUNIT_EXPECT_EQ(test, rq_cfqq(rq)->turn, CFQ_TURN_DEADLINE);
}

/*
 * No idling for the active queue's next request while every scheduler
 * tag is taken: the process may be asleep waiting for one.
 */
static void cfq_test_no_idling_without_tags(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct request *rq = cfq_test_read(test, cfqd->queue, 2048);
	struct request *other = cfq_test_read(test, cfqd->queue, 1 << 20);
	struct cfq_queue *cfqq;

	cfqd->queue->nr_requests = 2;
	cfq_insert_request(cfqd, rq, 0, 1 * CFQ_TEST_MS);
	KUNIT_ASSERT_PTR_EQ(test, cfq_dispatch_queued(cfqd, 2 * CFQ_TEST_MS), rq);
	cfqq = cfqd->active;
	/* One tag free: the active queue is worth waiting for. */
	KUNIT_EXPECT_TRUE(test, cfq_wait_for_active(cfqd, 3 * CFQ_TEST_MS));

	/* The other tag goes to a request of another queue. */
	other->elv.priv[0] = &cfqd->async_queues[CFQ_BE][IOPRIO_BE_NORM];
	cfq_insert_request(cfqd, other, 0, 4 * CFQ_TEST_MS);
	KUNIT_EXPECT_FALSE(test, cfq_wait_for_active(cfqd, 5 * CFQ_TEST_MS));
	KUNIT_EXPECT_PTR_EQ(test, cfqd->active, cfqq);
}

/*
 * Due reads come before writeback, but not for longer than
 * fifo_expire_async after an async queue of the class was last served:
 * then the starved queue goes next, for a short slice that no sync
 * arrival cuts, at full depth.
 */
static void cfq_test_starved_writeback_goes_next(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_queue *async = &cfqd->async_queues[CFQ_BE][IOPRIO_BE_NORM];
	u64 served = 1000 * CFQ_TEST_MS;
	u64 starved = served + cfq_ms(cfqd->tun.fifo_expire_async);
	struct request *read;

	/* The reader is owed service: before the writer in virtual time. */
	cfqd->oom_queue.vtime = 0;
	async->vtime = CFQ_VTIME_SLICE;
	cfq_test_insert_due(test, cfqd, REQ_OP_WRITE, 1 << 20, served);
	read = cfq_test_insert_due(test, cfqd, REQ_OP_READ | REQ_SYNC, 2048,
				   served);
	KUNIT_ASSERT_PTR_EQ(test, rq_cfqq(read), &cfqd->oom_queue);
	cfqd->trees[CFQ_BE].async_served_ns = served;
	KUNIT_EXPECT_PTR_EQ(test, cfq_next_queue(cfqd, starved - 1),
			    rq_cfqq(read));
	KUNIT_ASSERT_PTR_EQ(test, cfq_next_queue(cfqd, starved), async);

	cfq_activate(cfqd, async, starved);
	KUNIT_EXPECT_EQ(test, async->turn, CFQ_TURN_STARVED);
	cfq_preempt(cfqd, rq_cfqq(read), starved + 1);
	KUNIT_EXPECT_PTR_EQ(test, cfqd->active, async);
	/* No ramp from one request after the reader's completion. */
	cfqd->last_sync_completion_ns = starved;
	async->in_flight = 1;
	KUNIT_EXPECT_TRUE(test, cfq_may_dispatch(cfqd, async, starved + 1));
	async->in_flight = 0;

	cfq_start_slice(cfqd, async, starved + 2);
	KUNIT_EXPECT_EQ(test, async->slice_end_ns - (starved + 2),
			cfq_ms(cfqd->tun.fifo_expire_sync));
}

/*
 * The clock is the class's: once an async queue's turn sent something,
 * another level's async queue waits fifo_expire_async too.  Nor is a
 * queue with a request on the device starved: it is being served.
 */
static void cfq_test_starvation_clock_per_class(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_queue *norm = &cfqd->async_queues[CFQ_BE][IOPRIO_BE_NORM];
	struct cfq_queue *high = &cfqd->async_queues[CFQ_BE][0];
	u64 now = 1000 * CFQ_TEST_MS;
	u64 wait = cfq_ms(cfqd->tun.fifo_expire_async);
	struct request *rq;

	rq = cfq_test_insert_due(test, cfqd, REQ_OP_WRITE, 1 << 20, now);
	KUNIT_ASSERT_PTR_EQ(test, rq_cfqq(rq), norm);

	/* A turn that sent nothing is no service. */
	cfq_test_activate(cfqd, high, now);
	cfq_expire(cfqd, now, CFQ_EXPIRED_EMPTY);
	KUNIT_EXPECT_TRUE(test, cfq_async_starved(cfqd, norm, now));

	/* The level-0 queue sends a request in its turn. */
	cfq_test_activate(cfqd, high, now);
	high->slice_dispatched = 1;
	cfq_expire(cfqd, now, CFQ_EXPIRED_SLICE);
	KUNIT_EXPECT_FALSE(test, cfq_async_starved(cfqd, norm, now + wait - 1));
	KUNIT_EXPECT_TRUE(test, cfq_async_starved(cfqd, norm, now + wait));

	norm->in_flight = 1;
	KUNIT_EXPECT_FALSE(test, cfq_async_starved(cfqd, norm, now + wait));
	norm->in_flight = 0;
}

/*
 * Whether cfq_fill_queue() takes @async as a filler beside the active
 * reader at @now, and at @now when @async is not starved.
 */
static void cfq_test_expect_no_starved_filler(struct kunit *test,
					      struct cfq_queue *async, u64 now)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_tree *tree = &cfqd->trees[async->class];

	tree->async_served_ns = now - cfq_ms(cfqd->tun.fifo_expire_async);
	KUNIT_ASSERT_TRUE(test, cfq_async_starved(cfqd, async, now));
	KUNIT_EXPECT_NULL(test, cfq_fill_queue(cfqd, now));
	tree->async_served_ns = now - 1;
	KUNIT_ASSERT_FALSE(test, cfq_async_starved(cfqd, async, now));
	KUNIT_EXPECT_PTR_EQ(test, cfq_fill_queue(cfqd, now), async);
}

/*
 * Starved writeback is owed a turn of its own, not a filler request now
 * and then: neither fill path takes it, not by a reported layout's free
 * units, nor up to the units the scheduler counts; both take the same
 * queue once it is not starved.
 */
static void cfq_test_starved_queue_is_no_filler(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_queue *async = &cfqd->async_queues[CFQ_BE][IOPRIO_BE_NORM];
	struct cfq_queue *reader = &cfqd->oom_queue;
	u64 now = 1000 * CFQ_TEST_MS;
	struct request *rq;

	rq = cfq_test_insert_due(test, cfqd, REQ_OP_WRITE, 1 << 20, now);
	KUNIT_ASSERT_PTR_EQ(test, rq_cfqq(rq), async);
	/* The reader is active, waiting for its next request. */
	cfq_test_activate(cfqd, reader, now);
	reader->in_flight = 1;
	cfqd->in_flight = 1;
	now += 1000 * CFQ_TEST_MS;

	/* A striped device's layout: the write's unit is free. */
	KUNIT_ASSERT_TRUE(test, ioq_layout_update(&cfqd->layout, SZ_64K,
						  4 * SZ_64K, true));
	KUNIT_ASSERT_NE(test, cfq_unit_of(cfqd, rq), 1);
	cfqd->units[1].owner = reader;
	cfqd->units[1].in_flight = 1;
	cfq_test_expect_no_starved_filler(test, async, now);

	/* No layout: four spindles, one request out. */
	KUNIT_ASSERT_TRUE(test, ioq_layout_update(&cfqd->layout, 0, 0, true));
	cfqd->tun.spindles = 4;
	cfq_test_expect_no_starved_filler(test, async, now);
}

static struct kunit_case cfq_test_cases[] = {
	KUNIT_CASE(cfq_test_idle_ends_before_it_started),
	KUNIT_CASE(cfq_test_idle_class_grace),
	KUNIT_CASE(cfq_test_async_ramp),
	KUNIT_CASE(cfq_test_latency_slice_extremes),
	KUNIT_CASE(cfq_test_charge_extremes),
	KUNIT_CASE(cfq_test_requeue_undoes_dispatch),
	KUNIT_CASE(cfq_test_record_keeps_dispatch_time),
	KUNIT_CASE(cfq_test_records_grow_with_tags),
	KUNIT_CASE(cfq_test_unit_kept_across_layout_change),
	KUNIT_CASE(cfq_test_merges_stay_in_queue),
	KUNIT_CASE(cfq_test_be_ages_past_rt),
	KUNIT_CASE(cfq_test_no_idling_without_tags),
	KUNIT_CASE(cfq_test_starved_writeback_goes_next),
	KUNIT_CASE(cfq_test_starvation_clock_per_class),
	KUNIT_CASE(cfq_test_starved_queue_is_no_filler),
	{}
};

static struct kunit_suite cfq_test_suite = {
	.name = "mq-cfq",
	.init = cfq_test_init,
	.exit = cfq_test_exit,
	.test_cases = cfq_test_cases,
};

kunit_test_suite(cfq_test_suite);

#undef CFQ_TEST_MS
