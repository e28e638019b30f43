// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mq-cfq's accounting: stamps that arrive out of order
 * and tunables at the ends of their ranges.  Included at the end of
 * mq-cfq-iosched.c, so that the tests call the scheduler's own functions
 * on a cfq_data set up by its own cfq_init_data().
 */
#include "blk-ioq_kunit.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static int cfq_test_init(struct kunit *test)
{
	struct cfq_data *cfqd = kunit_kzalloc(test, sizeof(*cfqd), GFP_KERNEL);
	struct request_queue *q;

	KUNIT_ASSERT_NOT_NULL(test, cfqd);
	q = ioq_test_queue(test);
	cfq_init_data(cfqd, q);
	ioq_test_attach(test, q, &cfqd->core);
	cfqd->core.run_queue = ioq_kunit_count_run;
	test->priv = cfqd;
	return 0;
}

static void cfq_test_exit(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;

	if (!cfqd)	/* init failed */
		return;
	ioq_sched_stop(&cfqd->core);
	ioq_test_queue_exit(cfqd->core.queue);
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
						   1 * IOQ_TEST_MS);
	u64 vtime = cfqq->vtime;

	spin_lock_irq(&cfqd->core.lock);
	cfq_start_idling(cfqd, 10 * IOQ_TEST_MS, 8 * IOQ_TEST_MS);
	cfq_stop_idling(cfqd, 10 * IOQ_TEST_MS - 1);
	spin_unlock_irq(&cfqd->core.lock);
	KUNIT_EXPECT_EQ(test, cfqq->vtime, vtime);
	KUNIT_EXPECT_EQ(test, cfqd->core.idle_start_ns, 0);

	/* In order, the wait is charged as a share of the slice. */
	spin_lock_irq(&cfqd->core.lock);
	cfq_start_idling(cfqd, 20 * IOQ_TEST_MS, 8 * IOQ_TEST_MS);
	cfq_stop_idling(cfqd, 25 * IOQ_TEST_MS);
	spin_unlock_irq(&cfqd->core.lock);
	KUNIT_EXPECT_EQ(test, cfqq->vtime,
			vtime + div_u64(CFQ_VTIME_SLICE * 5,
					cfqd->tun.slice_sync));
}

/* The class to serve at @now, as dispatch asks under the lock. */
static enum cfq_class cfq_test_next_class(struct cfq_data *cfqd, u64 now)
{
	enum cfq_class class;

	spin_lock_irq(&cfqd->core.lock);
	class = cfq_next_class(cfqd, now);
	spin_unlock_irq(&cfqd->core.lock);
	return class;
}

/*
 * The IDLE class waits CFQ_IDLE_GRACE_NS after the last RT or BE request;
 * a clock read before that request's stamp is inside the grace period.
 */
static void cfq_test_idle_class_grace(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;

	cfq_add_busy(cfqd, &cfqd->async_queues[CFQ_IDLE][IOPRIO_BE_NORM]);
	cfqd->last_nonidle_ns = 500 * IOQ_TEST_MS;
	KUNIT_EXPECT_EQ(test, cfq_test_next_class(cfqd, 500 * IOQ_TEST_MS - 1),
			CFQ_NR_CLASSES);
	KUNIT_EXPECT_EQ(test, cfq_test_next_class(cfqd, 699 * IOQ_TEST_MS),
			CFQ_NR_CLASSES);
	KUNIT_EXPECT_EQ(test, cfq_test_next_class(cfqd, 700 * IOQ_TEST_MS),
			CFQ_IDLE);
}

/* Async depth starts from one after a sync completion, whenever stamped. */
static void cfq_test_async_ramp(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	u64 ramp = div_u64(cfq_ms(cfqd->tun.slice_async), CFQ_ASYNC_RAMP_PARTS);

	cfqd->last_sync_completion_ns = 100 * IOQ_TEST_MS;
	KUNIT_EXPECT_EQ(test, cfq_async_depth(cfqd, 100 * IOQ_TEST_MS - 1), 1);
	KUNIT_EXPECT_EQ(test,
			cfq_async_depth(cfqd, 100 * IOQ_TEST_MS + ramp / 2),
			cfqd->tun.quantum / 2);
	KUNIT_EXPECT_EQ(test, cfq_async_depth(cfqd, 100 * IOQ_TEST_MS + ramp),
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
	KUNIT_EXPECT_EQ(test, cfq_latency_slice_ns(cfqd, cfqq), 5000 * IOQ_TEST_MS);

	/* Alone, the queue's round is its slice, cut to target_latency. */
	cfqd->trees[CFQ_BE].busy_slice_ns = 0;
	KUNIT_EXPECT_EQ(test, cfq_latency_slice_ns(cfqd, cfqq), 10000 * IOQ_TEST_MS);
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

/* Whether tunable @attr takes @value, as a write to its sysfs file would. */
static bool cfq_test_store(struct elevator_queue *eq,
			   const struct elv_fs_entry *attr, u32 value)
{
	char buf[16];
	size_t len = snprintf(buf, sizeof(buf), "%u\n", value);

	return attr->store(eq, buf, len) == (ssize_t)len;
}

/*
 * The last value @attr takes beyond @from, which it takes, going down to 0
 * (@up false) or up to U32_MAX.  Accepted values are an interval, so
 * halving the gap to the nearest refused one finds its end.
 */
static u32 cfq_test_range_end(struct elevator_queue *eq,
			      const struct elv_fs_entry *attr, u32 from,
			      bool up)
{
	s64 taken = from, refused = up ? (s64)U32_MAX + 1 : -1;

	while (up ? refused - taken > 1 : taken - refused > 1) {
		s64 mid = taken + (refused - taken) / 2;

		if (cfq_test_store(eq, attr, mid))
			taken = mid;
		else
			refused = mid;
	}
	return taken;
}

/*
 * With the tunables as they are, for queues of both kinds and of the
 * highest and lowest levels: slices are positive; low_latency's cut and a
 * starved turn never lengthen them; a day's service is charged in full,
 * without wrapping; and the async depth ramps from 1 to quantum.
 */
static void cfq_test_arithmetic_holds(struct kunit *test,
				      struct cfq_data *cfqd,
				      const char *setting)
{
	struct cfq_queue *queues[] = {
		&cfqd->oom_queue,
		&cfqd->async_queues[CFQ_RT][0],
		&cfqd->async_queues[CFQ_BE][IOPRIO_NR_LEVELS - 1],
	};
	u64 day = 24ULL * 3600 * NSEC_PER_SEC;
	u64 ramp = div_u64(cfq_ms(cfqd->tun.slice_async), CFQ_ASYNC_RAMP_PARTS);
	/* Since the last sync completion, in order: through the ramp, past. */
	u64 since[] = { 0, 1, ramp / 2, ramp - 1, ramp, day };
	unsigned int i, depth, last_depth = 1;

	for (i = 0; i < ARRAY_SIZE(queues); i++) {
		struct cfq_queue *cfqq = queues[i];
		struct cfq_tree *tree = &cfqd->trees[cfqq->class];
		u64 slice = cfq_slice_ns(cfqd, cfqq), cut;

		KUNIT_EXPECT_GT_MSG(test, slice, 0, "%s", setting);
		/* A round of eight such queues. */
		tree->busy_slice_ns = 7 * slice;
		cut = cfq_latency_slice_ns(cfqd, cfqq);
		KUNIT_EXPECT_GT_MSG(test, cut, 0, "%s", setting);
		KUNIT_EXPECT_LE_MSG(test, cut, slice, "%s: queue %u", setting, i);
		cfqq->turn = CFQ_TURN_STARVED;
		cfq_start_slice(cfqd, cfqq, day);
		KUNIT_EXPECT_GT_MSG(test, cfqq->slice_end_ns, day, "%s", setting);
		KUNIT_EXPECT_LE_MSG(test, cfqq->slice_end_ns - day, cut,
				    "%s: queue %u", setting, i);
		cfqq->turn = CFQ_TURN_SLICE;
		tree->busy_slice_ns = 0;

		cfqq->vtime = 0;
		cfq_charge(cfqd, cfqq, day);
		KUNIT_EXPECT_GE_MSG(test, cfqq->vtime,
				    div64_u64(day, slice) * CFQ_VTIME_SLICE,
				    "%s: queue %u", setting, i);
		cfqq->vtime = 0;
		if (!cfqq->sync)
			KUNIT_EXPECT_GE_MSG(test,
					    cfq_async_slice_requests(cfqd, cfqq),
					    1, "%s", setting);
	}

	cfqd->last_sync_completion_ns = day;
	for (i = 0; i < ARRAY_SIZE(since); i++) {
		depth = cfq_async_depth(cfqd, day + since[i]);
		KUNIT_EXPECT_GE_MSG(test, depth, last_depth, "%s", setting);
		KUNIT_EXPECT_LE_MSG(test, depth, cfqd->tun.quantum, "%s",
				    setting);
		last_depth = depth;
	}
	if (cfqd->tun.low_latency)
		KUNIT_EXPECT_EQ_MSG(test, cfq_async_depth(cfqd, day), 1, "%s",
				    setting);
	KUNIT_EXPECT_EQ_MSG(test, last_depth, cfqd->tun.quantum, "%s", setting);
}

/*
 * The value tunable @attr shows: a number, or 1 where it shows "auto"
 * (every tunable that takes "auto" takes 1).
 */
static u32 cfq_test_shown(struct kunit *test, struct elevator_queue *eq,
			  const struct elv_fs_entry *attr, char *page)
{
	u32 value;

	KUNIT_ASSERT_GT_MSG(test, attr->show(eq, page), 0, "%s shows nothing",
			    attr->attr.name);
	if (sysfs_streq(page, "auto"))
		return 1;
	KUNIT_ASSERT_EQ_MSG(test, kstrtou32(page, 10, &value), 0,
			    "%s shows \"%s\"", attr->attr.name, page);
	return value;
}

/*
 * Every tunable sysfs offers, at both ends of the range it accepts (found
 * by writing to it, so that none is left out), alone and all at once.
 * Each case starts from a fresh cfq_data, with the defaults.
 */
static void cfq_test_every_tunable_at_its_ends(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	const struct cfq_tunables defaults = cfqd->tun;
	const struct ioq_tunables core_defaults = cfqd->core.tun;
	/*
	 * The tunables' show and store use elevator_data alone; one that
	 * took e->sysfs_lock or looked at e->type would need a real one.
	 */
	struct elevator_queue *eq = kunit_kzalloc(test, sizeof(*eq), GFP_KERNEL);
	/* Page-aligned, as sysfs_emit() wants (kmalloc aligns a page). */
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	u32 ends[ARRAY_SIZE(cfq_attrs)][2];
	const struct elv_fs_entry *attr;
	char setting[48];
	unsigned int i, end;

	KUNIT_ASSERT_NOT_NULL(test, eq);
	KUNIT_ASSERT_NOT_NULL(test, page);
	eq->elevator_data = &cfqd->core;
	for (attr = cfq_attrs, i = 0; attr->attr.name; attr++, i++) {
		u32 from = cfq_test_shown(test, eq, attr, page);

		KUNIT_ASSERT_TRUE_MSG(test, cfq_test_store(eq, attr, from),
				      "%s refuses %u", attr->attr.name, from);
		ends[i][0] = cfq_test_range_end(eq, attr, from, false);
		ends[i][1] = cfq_test_range_end(eq, attr, from, true);
		KUNIT_EXPECT_LT_MSG(test, ends[i][1], U32_MAX, "%s",
				    attr->attr.name);
		for (end = 0; end < 2; end++) {
			cfqd->tun = defaults;
			cfqd->core.tun = core_defaults;
			snprintf(setting, sizeof(setting), "%s=%u",
				 attr->attr.name, ends[i][end]);
			KUNIT_ASSERT_TRUE_MSG(test,
					      cfq_test_store(eq, attr,
							     ends[i][end]),
					      "%s refused", setting);
			cfq_test_arithmetic_holds(test, cfqd, setting);
		}
	}
	for (end = 0; end < 2; end++) {
		for (attr = cfq_attrs, i = 0; attr->attr.name; attr++, i++)
			KUNIT_ASSERT_TRUE_MSG(test,
					      cfq_test_store(eq, attr,
							     ends[i][end]),
					      "%s refuses %u", attr->attr.name,
					      ends[i][end]);
		cfq_test_arithmetic_holds(test, cfqd,
					  end ? "every tunable at its maximum" :
						"every tunable at its minimum");
	}
}

/* A 4 KiB sync read at @pos of @q. */
static struct request *cfq_test_read(struct kunit *test,
				     struct request_queue *q, sector_t pos)
{
	return ioq_test_request(test, q, REQ_OP_READ | REQ_SYNC, pos);
}

/* A 4 KiB request of @opf at @pos, inserted at @now and due since then. */
static struct request *cfq_test_insert_due(struct kunit *test,
					   struct cfq_data *cfqd,
					   blk_opf_t opf, sector_t pos, u64 now)
{
	struct request *rq = ioq_test_request(test, cfqd->core.queue, opf, pos);

	ioq_kunit_insert(&cfqd->core, rq, 0, now);
	rq->fifo_time = jiffies - 1;
	return rq;
}

/* Insert @rq at @now and dispatch it then: it must be the one sent. */
static void cfq_test_dispatch(struct kunit *test, struct cfq_data *cfqd,
			      struct request *rq, u64 now)
{
	ioq_kunit_insert(&cfqd->core, rq, 0, now);
	KUNIT_EXPECT_PTR_EQ(test, ioq_kunit_dispatch(&cfqd->core, now), rq);
	KUNIT_EXPECT_TRUE(test, ioq_record_of(rq)->dispatched);
	KUNIT_EXPECT_EQ(test, cfqd->core.in_flight, 1);
}

/*
 * A requeue undoes mq-cfq's part of a dispatch too: the request no longer
 * counts against the slice, and no service is charged and no slice
 * started.  (The core's part is blk-ioq's test.)
 */
static void cfq_test_requeue_undoes_dispatch(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct request *rq = cfq_test_read(test, cfqd->core.queue, 2048);
	struct cfq_queue *cfqq;
	u64 vtime;

	cfq_test_dispatch(test, cfqd, rq, 2 * IOQ_TEST_MS);
	cfqq = rq_cfqq(rq);
	KUNIT_EXPECT_PTR_EQ(test, cfqd->active, cfqq);
	KUNIT_EXPECT_EQ(test, cfqq->slice_dispatched, 1);
	vtime = cfqq->vtime;

	ioq_kunit_requeue(&cfqd->core, rq, 5 * IOQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, cfqq->client.in_flight, 0);
	KUNIT_EXPECT_EQ(test, cfqq->slice_dispatched, 0);
	KUNIT_EXPECT_EQ(test, cfqq->vtime, vtime);
	KUNIT_EXPECT_EQ(test, cfqq->slice_end_ns, U64_MAX);
}

/* Whether @bio may join @rq, with @cfqq the current process's queue. */
static bool cfq_test_allows(struct cfq_data *cfqd, struct request *rq,
			    struct bio *bio, struct cfq_queue *cfqq)
{
	bool ok;

	spin_lock_irq(&cfqd->core.lock);
	cfqd->core.merge_client = &cfqq->client;
	ok = ioq_mq_ops.allow_merge(cfqd->core.queue, rq, bio);
	cfqd->core.merge_client = NULL;
	spin_unlock_irq(&cfqd->core.lock);
	return ok;
}

/*
 * A bio joins only a request of the queue it would join itself: not a
 * request another process queued, and not queued async writeback if the
 * bio is sync.
 */
static void cfq_test_merges_stay_in_queue(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct cfq_queue *other = kunit_kzalloc(test, sizeof(*other),
						GFP_KERNEL);
	struct request *rq = cfq_test_read(test, cfqd->core.queue, 2048);
	struct bio bio;

	KUNIT_ASSERT_NOT_NULL(test, other);
	cfq_init_queue(other, true, CFQ_BE, IOPRIO_BE_NORM);
	rq->elv.priv[0] = &cfqd->oom_queue.client;
	bio_init(&bio, NULL, NULL, 0, REQ_OP_READ | REQ_SYNC);
	bio.bi_iter.bi_sector = 2048 + 8;

	KUNIT_EXPECT_TRUE(test, cfq_test_allows(cfqd, rq, &bio,
						&cfqd->oom_queue));
	KUNIT_EXPECT_FALSE(test, cfq_test_allows(cfqd, rq, &bio, other));

	/* An async request takes async bios of its ioprio only. */
	rq->elv.priv[0] = &cfqd->async_queues[CFQ_BE][IOPRIO_BE_NORM].client;
	KUNIT_EXPECT_FALSE(test, cfq_test_allows(cfqd, rq, &bio,
						 &cfqd->oom_queue));
	bio.bi_opf = REQ_OP_WRITE;
	KUNIT_EXPECT_TRUE(test, cfq_test_allows(cfqd, rq, &bio,
						&cfqd->oom_queue));
	rq->elv.priv[0] = &cfqd->async_queues[CFQ_BE][0].client;
	KUNIT_EXPECT_FALSE(test, cfq_test_allows(cfqd, rq, &bio,
						 &cfqd->oom_queue));
}

/*
 * RT first, but a BE request that waited prio_aging_expire goes next, for
 * its aged requests only: a turn out of order, with no slice to idle in
 * while RT waits.
 */
static void cfq_test_be_ages_past_rt(struct kunit *test)
{
	struct cfq_data *cfqd = test->priv;
	struct request *rq = cfq_test_read(test, cfqd->core.queue, 2048);
	struct cfq_queue *rt = &cfqd->async_queues[CFQ_RT][IOPRIO_BE_NORM];
	u64 aged = 1 * IOQ_TEST_MS + cfq_ms(cfqd->tun.prio_aging_expire);

	rq->start_time_ns = 1 * IOQ_TEST_MS;
	ioq_kunit_insert(&cfqd->core, rq, 0, 1 * IOQ_TEST_MS);
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
	struct request *rq = cfq_test_read(test, cfqd->core.queue, 2048);
	struct request *other = cfq_test_read(test, cfqd->core.queue, 1 << 20);
	struct cfq_queue *cfqq;
	bool waits;

	cfqd->core.queue->nr_requests = 2;
	ioq_kunit_insert(&cfqd->core, rq, 0, 1 * IOQ_TEST_MS);
	KUNIT_ASSERT_PTR_EQ(test, ioq_kunit_dispatch(&cfqd->core,
						     2 * IOQ_TEST_MS), rq);
	cfqq = cfqd->active;
	/* One tag free: the active queue is worth waiting for. */
	spin_lock_irq(&cfqd->core.lock);
	waits = cfq_wait_for_active(cfqd, 3 * IOQ_TEST_MS);
	spin_unlock_irq(&cfqd->core.lock);
	KUNIT_EXPECT_TRUE(test, waits);

	/* The other tag goes to a request of another queue. */
	other->elv.priv[0] = &cfqd->async_queues[CFQ_BE][IOPRIO_BE_NORM].client;
	ioq_kunit_insert(&cfqd->core, other, 0, 4 * IOQ_TEST_MS);
	spin_lock_irq(&cfqd->core.lock);
	waits = cfq_wait_for_active(cfqd, 5 * IOQ_TEST_MS);
	spin_unlock_irq(&cfqd->core.lock);
	KUNIT_EXPECT_FALSE(test, waits);
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
	u64 served = 1000 * IOQ_TEST_MS;
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
	async->client.in_flight = 1;
	KUNIT_EXPECT_TRUE(test, cfq_may_dispatch(cfqd, async, starved + 1));
	async->client.in_flight = 0;

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
	u64 now = 1000 * IOQ_TEST_MS;
	u64 wait = cfq_ms(cfqd->tun.fifo_expire_async);
	struct request *rq;

	rq = cfq_test_insert_due(test, cfqd, REQ_OP_WRITE, 1 << 20, now);
	KUNIT_ASSERT_PTR_EQ(test, rq_cfqq(rq), norm);

	/* A turn that sent nothing is no service. */
	spin_lock_irq(&cfqd->core.lock);
	cfq_test_activate(cfqd, high, now);
	cfq_expire(cfqd, now, CFQ_EXPIRED_EMPTY);
	spin_unlock_irq(&cfqd->core.lock);
	KUNIT_EXPECT_TRUE(test, cfq_async_starved(cfqd, norm, now));

	/* The level-0 queue sends a request in its turn. */
	spin_lock_irq(&cfqd->core.lock);
	cfq_test_activate(cfqd, high, now);
	high->slice_dispatched = 1;
	cfq_expire(cfqd, now, CFQ_EXPIRED_SLICE);
	spin_unlock_irq(&cfqd->core.lock);
	KUNIT_EXPECT_FALSE(test, cfq_async_starved(cfqd, norm, now + wait - 1));
	KUNIT_EXPECT_TRUE(test, cfq_async_starved(cfqd, norm, now + wait));

	norm->client.in_flight = 1;
	KUNIT_EXPECT_FALSE(test, cfq_async_starved(cfqd, norm, now + wait));
	norm->client.in_flight = 0;
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
	u64 now = 1000 * IOQ_TEST_MS;
	struct request *rq;

	rq = cfq_test_insert_due(test, cfqd, REQ_OP_WRITE, 1 << 20, now);
	KUNIT_ASSERT_PTR_EQ(test, rq_cfqq(rq), async);
	/* The reader is active, waiting for its next request. */
	cfq_test_activate(cfqd, reader, now);
	reader->client.in_flight = 1;
	cfqd->core.in_flight = 1;
	now += 1000 * IOQ_TEST_MS;

	/* A striped device's layout: the write's unit is free. */
	KUNIT_ASSERT_TRUE(test, ioq_layout_update(&cfqd->core.layout, SZ_64K,
						  4 * SZ_64K, true));
	KUNIT_ASSERT_NE(test, ioq_unit_of(&cfqd->core, rq), 1);
	cfqd->core.units[1].owner = &reader->client;
	cfqd->core.units[1].in_flight = 1;
	cfq_test_expect_no_starved_filler(test, async, now);

	/* No layout: four spindles, one request out. */
	KUNIT_ASSERT_TRUE(test, ioq_layout_update(&cfqd->core.layout, 0, 0, true));
	cfqd->core.tun.spindles = 4;
	cfq_test_expect_no_starved_filler(test, async, now);
}

static struct kunit_case cfq_test_cases[] = {
	KUNIT_CASE(cfq_test_idle_ends_before_it_started),
	KUNIT_CASE(cfq_test_idle_class_grace),
	KUNIT_CASE(cfq_test_async_ramp),
	KUNIT_CASE(cfq_test_latency_slice_extremes),
	KUNIT_CASE(cfq_test_charge_extremes),
	KUNIT_CASE(cfq_test_every_tunable_at_its_ends),
	KUNIT_CASE(cfq_test_requeue_undoes_dispatch),
	KUNIT_CASE(cfq_test_merges_stay_in_queue),
	KUNIT_CASE(cfq_test_be_ages_past_rt),
	KUNIT_CASE(cfq_test_no_idling_without_tags),
	KUNIT_CASE(cfq_test_starved_writeback_goes_next),
	KUNIT_CASE(cfq_test_starvation_clock_per_class),
	KUNIT_CASE(cfq_test_starved_queue_is_no_filler),
	{}
};

static struct kunit_suite cfq_test_suite = {
	.name = "mq_cfq",
	.init = cfq_test_init,
	.exit = cfq_test_exit,
	.test_cases = cfq_test_cases,
};

kunit_test_suite(cfq_test_suite);
