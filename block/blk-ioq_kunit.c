// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the shared I/O scheduler core: its pure logic (seek
 * classification, the seek history, think time, the parallelism estimator
 * on synthetic completion traces, ioprio slice scaling and the sweep),
 * and the scheduler core under a minimal policy (clients, records of
 * requests on the device, requeues, units, the idle window).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/ioprio.h>
#include <linux/kthread.h>

#include "elevator.h"
#include "blk-ioq.h"
#include "blk-ioq_kunit.h"

#define MS	NSEC_PER_MSEC

static const struct ioq_seek_params rotational = {
	.rotational = true, .max_distance = 800, .min_bytes = 0, .max_seeks = 4,
};

static const struct ioq_seek_params flash = {
	.rotational = false, .max_distance = 0, .min_bytes = 32 * 1024,
	.max_seeks = 4,
};

static void ioq_test_seek_rotational(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, ioq_request_is_seek(&rotational, 1000, 1000, 4096));
	KUNIT_EXPECT_FALSE(test, ioq_request_is_seek(&rotational, 1000, 1800, 4096));
	KUNIT_EXPECT_FALSE(test, ioq_request_is_seek(&rotational, 1000, 200, 4096));
	KUNIT_EXPECT_TRUE(test, ioq_request_is_seek(&rotational, 1000, 1801, 1 << 20));
	KUNIT_EXPECT_TRUE(test, ioq_request_is_seek(&rotational, 1000, 199, 1 << 20));
}

/* On flash a seek is a small request, wherever it is. */
static void ioq_test_seek_flash(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ioq_request_is_seek(&flash, 1000, 1000, 4096));
	KUNIT_EXPECT_TRUE(test, ioq_request_is_seek(&flash, 0, 1 << 30, 16384));
	KUNIT_EXPECT_FALSE(test, ioq_request_is_seek(&flash, 0, 1 << 30, 32768));
	KUNIT_EXPECT_FALSE(test, ioq_request_is_seek(&flash, 1000, 1000, 1 << 20));
}

/* Runs of @run sequential 4 KiB requests, each run starting far away. */
static void ioq_feed_runs(struct ioq_stats *s, const struct ioq_seek_params *p,
			  unsigned int run, unsigned int requests)
{
	sector_t pos = 0;
	unsigned int i;

	for (i = 0; i < requests; i++) {
		if (i % run == 0)
			pos += 1 << 20;
		ioq_stats_add_request(s, p, pos, 4096);
		pos += 8;
	}
}

static void ioq_test_seeky_history(struct kunit *test)
{
	struct ioq_stats random = {}, faults = {}, sequential = {};

	ioq_feed_runs(&random, &rotational, 1, 64);
	KUNIT_EXPECT_TRUE(test, ioq_stats_seeky(&random, &rotational));
	KUNIT_EXPECT_EQ(test, random.seek_mean, 1 << 20);

	/* A multi-page mmap fault reads its pages in order: not seeky. */
	ioq_feed_runs(&faults, &rotational, 16, 64);
	KUNIT_EXPECT_FALSE(test, ioq_stats_seeky(&faults, &rotational));

	ioq_feed_runs(&sequential, &rotational, 1000, 64);
	KUNIT_EXPECT_EQ(test, sequential.seek_history, 0U);
	KUNIT_EXPECT_EQ(test, sequential.seek_mean, 0);

	/* Random runs of 4 give 8 seeks in 32: over the threshold. */
	ioq_feed_runs(&faults, &rotational, 4, 64);
	KUNIT_EXPECT_TRUE(test, ioq_stats_seeky(&faults, &rotational));
}

/* On flash, small sequential requests are seeky, large random ones not. */
static void ioq_test_seeky_flash(struct kunit *test)
{
	struct ioq_stats small = {}, large = {};
	unsigned int i;

	ioq_feed_runs(&small, &flash, 1000, 64);
	KUNIT_EXPECT_TRUE(test, ioq_stats_seeky(&small, &flash));
	for (i = 0; i < 64; i++)
		ioq_stats_add_request(&large, &flash, (i * 7919) << 12, 1 << 20);
	KUNIT_EXPECT_FALSE(test, ioq_stats_seeky(&large, &flash));
	KUNIT_EXPECT_EQ(test, large.mean_bytes, 1U << 20);
}

static void ioq_test_think_time(struct kunit *test)
{
	struct ioq_stats s = {};
	u64 now = 1000 * MS;
	unsigned int i;

	/* Unmeasured: given the benefit of the doubt. */
	KUNIT_EXPECT_TRUE(test, ioq_stats_thinks_within(&s, 1));

	for (i = 0; i < 20; i++) {
		ioq_stats_completion(&s, now);
		now += 2 * MS;
		ioq_stats_arrival(&s, now, true);
	}
	KUNIT_EXPECT_EQ(test, s.think_time_ns, 2 * MS);
	KUNIT_EXPECT_TRUE(test, ioq_stats_thinks_within(&s, 8 * MS));

	/* Arrivals while the queue is busy are not thinking. */
	ioq_stats_completion(&s, now);
	ioq_stats_arrival(&s, now + 500 * MS, false);
	KUNIT_EXPECT_EQ(test, s.think_time_ns, 2 * MS);

	/* A slow thinker decays the mean past the idle window. */
	for (i = 0; i < 20; i++) {
		ioq_stats_completion(&s, now);
		now += 50 * MS;
		ioq_stats_arrival(&s, now, true);
	}
	KUNIT_EXPECT_FALSE(test, ioq_stats_thinks_within(&s, 8 * MS));
}

#define SIM_MAX_UNITS	16
#define SIM_MAX_DEPTH	16

/* Start a request on the unit that frees first; return its completion. */
static u64 sim_start(u64 *unit_free, unsigned int units, u64 now,
		     u64 service_ns)
{
	unsigned int i, best = 0;

	for (i = 1; i < units; i++)
		if (unit_free[i] < unit_free[best])
			best = i;
	unit_free[best] = max(unit_free[best], now) + service_ns;
	return unit_free[best];
}

/*
 * Drive @e with a device of @units units, each serving a request in
 * @service_ns, kept at @depth requests in flight for @requests
 * completions, starting at *@now.
 */
static void sim_drive(struct ioq_par_est *e, unsigned int units,
		      unsigned int depth, unsigned int requests,
		      u64 service_ns, bool small, u64 *now)
{
	u64 unit_free[SIM_MAX_UNITS] = {}, finish[SIM_MAX_DEPTH];
	unsigned int i, done;

	for (i = 0; i < depth; i++) {
		ioq_par_dispatch(e, *now);
		finish[i] = sim_start(unit_free, units, *now, service_ns);
	}
	for (done = 0; done < requests; done++) {
		unsigned int first = 0;

		for (i = 1; i < depth; i++)
			if (finish[i] < finish[first])
				first = i;
		*now = finish[first];
		ioq_par_complete(e, *now, small);
		ioq_par_dispatch(e, *now);
		finish[first] = sim_start(unit_free, units, *now, service_ns);
	}
	/* Let the last requests complete. */
	for (i = 0; i < depth; i++)
		ioq_par_complete(e, max(*now, finish[i]), small);
	*now += 100 * MS;
}

static unsigned int sim_units(unsigned int units, unsigned int deep,
			      u64 service_ns)
{
	struct ioq_par_est e;
	u64 now = 1000 * MS;

	ioq_par_init(&e);
	sim_drive(&e, units, 1, 256, service_ns, true, &now);
	sim_drive(&e, units, deep, 256, service_ns, true, &now);
	return ioq_par_units(&e, 99);
}

static void ioq_test_par_spindle(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sim_units(1, 4, 12 * MS), 1U);
	KUNIT_EXPECT_EQ(test, sim_units(1, 16, 12 * MS), 1U);
}

static void ioq_test_par_raid(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sim_units(4, 4, 12 * MS), 4U);
	KUNIT_EXPECT_EQ(test, sim_units(4, 8, 12 * MS), 4U);
	KUNIT_EXPECT_EQ(test, sim_units(2, 4, 12 * MS), 2U);
}

/* Flash at depth 8: at least 8 units, whatever its real count. */
static void ioq_test_par_flash(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sim_units(16, 8, 100 * NSEC_PER_USEC), 8U);
}

/* Before shallow and deep windows were both seen, the prior stands. */
static void ioq_test_par_prior(struct kunit *test)
{
	struct ioq_par_est e;
	u64 now = 1000 * MS;

	ioq_par_init(&e);
	KUNIT_EXPECT_EQ(test, ioq_par_units(&e, 7), 7U);
	sim_drive(&e, 4, 4, 256, 12 * MS, true, &now);
	KUNIT_EXPECT_EQ(test, ioq_par_units(&e, 7), 7U);
	KUNIT_EXPECT_GT(test, e.deep_windows, 0U);

	/* Large requests measure transfer, not units: ignored. */
	sim_drive(&e, 4, 1, 256, 12 * MS, false, &now);
	KUNIT_EXPECT_EQ(test, e.shallow_windows, 0U);
	KUNIT_EXPECT_EQ(test, ioq_par_units(&e, 7), 7U);
}

/* An event stamped before the previous one does not turn time back. */
static void ioq_test_par_out_of_order(struct kunit *test)
{
	struct ioq_par_est e;

	ioq_par_init(&e);
	ioq_par_dispatch(&e, 10 * MS);
	ioq_par_dispatch(&e, 10 * MS);
	ioq_par_complete(&e, 14 * MS, true);
	/* A dispatch read the clock at 12 ms, got the lock after that. */
	ioq_par_dispatch(&e, 12 * MS);
	ioq_par_complete(&e, 16 * MS, true);
	ioq_par_complete(&e, 18 * MS, true);
	KUNIT_EXPECT_EQ(test, e.window_busy_ns, 8 * MS);
	KUNIT_EXPECT_EQ(test, e.window_depth_ns,
			2 * 4 * MS + 2 * 2 * MS + 1 * 2 * MS);
	KUNIT_EXPECT_EQ(test, e.in_flight, 0U);
}

/*
 * A driver that takes one request and gives the others back at once: the
 * requeues are no completions, and one spindle stays one unit.
 */
static void ioq_test_par_requeue(struct kunit *test)
{
	struct ioq_par_est e;
	u64 now = 1000 * MS;
	unsigned int i, j;

	ioq_par_init(&e);
	sim_drive(&e, 1, 1, 256, 12 * MS, true, &now);
	for (i = 0; i < 256; i++) {
		for (j = 0; j < 4; j++)
			ioq_par_dispatch(&e, now);
		for (j = 0; j < 3; j++)
			ioq_par_requeue(&e, now);
		now += 12 * MS;
		ioq_par_complete(&e, now, true);
	}
	KUNIT_EXPECT_EQ(test, ioq_par_units(&e, 1), 1U);
	KUNIT_EXPECT_EQ(test, e.in_flight, 0U);
}

/* Stamps out of order: no time passed, and the last completion stays. */
static void ioq_test_out_of_order_stamps(struct kunit *test)
{
	struct ioq_stats s = {};

	KUNIT_EXPECT_EQ(test, ioq_ns_since(5 * MS, 2 * MS), 3 * MS);
	KUNIT_EXPECT_EQ(test, ioq_ns_since(2 * MS, 5 * MS), 0);
	KUNIT_EXPECT_EQ(test, ioq_ns_since(0, U64_MAX), 0);

	ioq_stats_completion(&s, 10 * MS);
	ioq_stats_completion(&s, 9 * MS);
	KUNIT_EXPECT_EQ(test, s.last_completion_ns, 10 * MS);
}

static void ioq_test_scale_by_level(struct kunit *test)
{
	unsigned int level;

	KUNIT_EXPECT_EQ(test, ioq_scale_by_level(100 * MS, IOPRIO_BE_NORM),
			100 * MS);
	KUNIT_EXPECT_EQ(test, ioq_scale_by_level(100 * MS, 0), 180 * MS);
	KUNIT_EXPECT_EQ(test, ioq_scale_by_level(100 * MS, 7), 40 * MS);
	for (level = 1; level < IOPRIO_NR_LEVELS; level++)
		KUNIT_EXPECT_LT(test, ioq_scale_by_level(40 * MS, level),
				ioq_scale_by_level(40 * MS, level - 1));
}

/* A RAID-0 of four disks with 64 KiB chunks, as md reports it. */
static void ioq_test_layout_raid(struct kunit *test)
{
	struct ioq_layout l;

	ioq_layout_init(&l, 64 * 1024, 256 * 1024, true);
	KUNIT_EXPECT_EQ(test, l.chunk_sectors, 128U);
	KUNIT_EXPECT_EQ(test, l.units, 4U);
	KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 0), 0U);
	KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 127), 0U);
	KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 128), 1U);
	KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 3 * 128 + 5), 3U);
	/* The next stripe starts on the first unit again. */
	KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 4 * 128), 0U);
	KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 1000000ULL * 512 + 130),
			1U);
}

/* A plain disk, or a topology that is no stripe, gives no layout. */
static void ioq_test_layout_none(struct kunit *test)
{
	static const unsigned int topologies[][2] = {
		{ 512, 0 },			/* a plain disk */
		{ 4096, 4096 },			/* one unit */
		{ 64 * 1024, 96 * 1024 },	/* not whole chunks */
		{ 4096, 4096 * (IOQ_PAR_MAX_UNITS + 1) },
		{ 0, 64 * 1024 },
		{ 1000, 4000 },			/* not whole sectors */
	};
	struct ioq_layout l;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(topologies); i++) {
		ioq_layout_init(&l, topologies[i][0], topologies[i][1], true);
		KUNIT_EXPECT_EQ_MSG(test, l.chunk_sectors, 0U, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, l.units, 1U, "case %u", i);
		KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 4096), 0U);
	}
}

/*
 * Flash reporting what would be a four-unit stripe on a disk (an NVMe
 * optimal write size, an SSD erase block) is no array of spindles.
 */
static void ioq_test_layout_flash(struct kunit *test)
{
	struct ioq_layout l;

	ioq_layout_init(&l, 64 * 1024, 256 * 1024, false);
	KUNIT_EXPECT_EQ(test, l.chunk_sectors, 0U);
	KUNIT_EXPECT_EQ(test, l.units, 1U);
	KUNIT_EXPECT_EQ(test, ioq_layout_unit(&l, 3 * 128), 0U);
}

/* A layout is taken anew only when the topology it came from changed. */
static void ioq_test_layout_update(struct kunit *test)
{
	struct ioq_layout l;

	ioq_layout_init(&l, 64 * 1024, 256 * 1024, true);
	KUNIT_EXPECT_FALSE(test, ioq_layout_update(&l, 64 * 1024, 256 * 1024,
						   true));
	KUNIT_EXPECT_EQ(test, l.units, 4U);
	/* queue/rotational written: flash is no array */
	KUNIT_EXPECT_TRUE(test, ioq_layout_update(&l, 64 * 1024, 256 * 1024,
						  false));
	KUNIT_EXPECT_EQ(test, l.units, 1U);
	KUNIT_EXPECT_EQ(test, l.chunk_sectors, 0U);
	/* a volume rescanned with another stripe */
	KUNIT_EXPECT_TRUE(test, ioq_layout_update(&l, 64 * 1024, 512 * 1024,
						  true));
	KUNIT_EXPECT_EQ(test, l.units, 8U);
	KUNIT_EXPECT_EQ(test, l.chunk_sectors, 128U);
}

static struct request *ioq_test_rq(struct kunit *test, struct ioq *ioq,
				   sector_t pos)
{
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->__sector = pos;
	rq->__data_len = 4096;
	elv_rb_add(&ioq->sort_list, rq);
	return rq;
}

static void ioq_test_sweep(struct kunit *test)
{
	struct ioq_sweep sweep = { .back_max = 200, .back_penalty = 2 };
	struct ioq ioq;
	struct request *behind, *ahead, *low;

	ioq_init(&ioq);
	low = ioq_test_rq(test, &ioq, 100);
	behind = ioq_test_rq(test, &ioq, 900);
	ahead = ioq_test_rq(test, &ioq, 1300);
	ioq.head_pos = 1000;

	/* 100 back, counted twice, beats 300 ahead. */
	KUNIT_EXPECT_PTR_EQ(test, ioq_next_request(&ioq, &sweep), behind);
	sweep.back_penalty = 4;
	KUNIT_EXPECT_PTR_EQ(test, ioq_next_request(&ioq, &sweep), ahead);
	sweep.back_penalty = 2;
	sweep.back_max = 50;
	KUNIT_EXPECT_PTR_EQ(test, ioq_next_request(&ioq, &sweep), ahead);

	/* Nothing ahead: a short step back, or start over at the bottom. */
	ioq.head_pos = 1400;
	sweep.back_max = 200;
	KUNIT_EXPECT_PTR_EQ(test, ioq_next_request(&ioq, &sweep), ahead);
	ioq.head_pos = 5000;
	KUNIT_EXPECT_PTR_EQ(test, ioq_next_request(&ioq, &sweep), low);
}

/* The oldest request, whatever its sector, once its deadline is near. */
static void ioq_test_request_due(struct kunit *test)
{
	struct request *old, *young;
	struct ioq ioq;

	ioq_init(&ioq);
	KUNIT_EXPECT_NULL(test, ioq_request_due(&ioq, 60 * HZ));
	young = ioq_test_rq(test, &ioq, 100);
	old = ioq_test_rq(test, &ioq, 900);
	old->fifo_time = jiffies + 10 * HZ;
	young->fifo_time = jiffies + 20 * HZ;
	list_add_tail(&old->queuelist, &ioq.fifo);
	list_add_tail(&young->queuelist, &ioq.fifo);

	KUNIT_EXPECT_NULL(test, ioq_expired_request(&ioq));
	KUNIT_EXPECT_NULL(test, ioq_request_due(&ioq, 5 * HZ));
	KUNIT_EXPECT_PTR_EQ(test, ioq_request_due(&ioq, 15 * HZ), old);
	old->fifo_time = jiffies - 1;
	KUNIT_EXPECT_PTR_EQ(test, ioq_expired_request(&ioq), old);
}

static struct kunit_case ioq_test_cases[] = {
	KUNIT_CASE(ioq_test_seek_rotational),
	KUNIT_CASE(ioq_test_seek_flash),
	KUNIT_CASE(ioq_test_seeky_history),
	KUNIT_CASE(ioq_test_seeky_flash),
	KUNIT_CASE(ioq_test_think_time),
	KUNIT_CASE(ioq_test_par_spindle),
	KUNIT_CASE(ioq_test_par_raid),
	KUNIT_CASE(ioq_test_par_flash),
	KUNIT_CASE(ioq_test_par_prior),
	KUNIT_CASE(ioq_test_par_out_of_order),
	KUNIT_CASE(ioq_test_par_requeue),
	KUNIT_CASE(ioq_test_out_of_order_stamps),
	KUNIT_CASE(ioq_test_scale_by_level),
	KUNIT_CASE(ioq_test_sweep),
	KUNIT_CASE(ioq_test_request_due),
	KUNIT_CASE(ioq_test_layout_raid),
	KUNIT_CASE(ioq_test_layout_none),
	KUNIT_CASE(ioq_test_layout_flash),
	KUNIT_CASE(ioq_test_layout_update),
	{}
};

static struct kunit_suite ioq_test_suite = {
	.name = "blk_ioq",
	.test_cases = ioq_test_cases,
};

/*
 * The scheduler core, driven by a policy for its tests: one FIFO for all
 * requests, one client for all processes, and counts of what the core
 * told it.
 */
struct fifo_sched {
	struct ioq_sched core;		/* first, as for any policy */
	struct ioq_client client;
	struct list_head fifo;
	unsigned int dispatched, completed, requeued, exited;
	u64 service_ns;
	u64 hold_ns;
	bool freed;
	struct request_queue *q;
};

static struct fifo_sched *fifo_of(struct ioq_sched *s)
{
	return container_of(s, struct fifo_sched, core);
}

static struct ioq_client *fifo_client_of(struct ioq_sched *s,
					 struct request *rq)
{
	return &fifo_of(s)->client;
}

static void fifo_insert(struct ioq_sched *s, struct request *rq, u64 now)
{
	list_add_tail(&rq->queuelist, &fifo_of(s)->fifo);
}

static struct request *fifo_next(struct ioq_sched *s, u64 now)
{
	struct request *rq;

	rq = list_first_entry_or_null(&fifo_of(s)->fifo, struct request,
				      queuelist);
	if (rq)
		list_del_init(&rq->queuelist);
	return rq;
}

static void fifo_dispatched(struct ioq_sched *s, struct request *rq, u64 now)
{
	fifo_of(s)->dispatched++;
}

static void fifo_completed(struct ioq_sched *s, struct ioq_client *c,
			   u64 service_ns, u64 now)
{
	fifo_of(s)->completed++;
	fifo_of(s)->service_ns += service_ns;
}

static void fifo_requeued(struct ioq_sched *s, struct ioq_client *c, u64 now)
{
	fifo_of(s)->requeued++;
}

static void fifo_exited(struct ioq_sched *s, struct ioq_client *c, u64 now)
{
	fifo_of(s)->exited++;
}

static u64 fifo_unit_hold_ns(struct ioq_sched *s, const struct ioq_client *c)
{
	return fifo_of(s)->hold_ns;
}

static void fifo_free_client(struct ioq_sched *s, struct ioq_client *c)
{
	fifo_of(s)->freed = true;
}

static const struct ioq_policy_ops fifo_ops = {
	.client_of	= fifo_client_of,
	.insert		= fifo_insert,
	.next_request	= fifo_next,
	.dispatched	= fifo_dispatched,
	.completed	= fifo_completed,
	.requeued	= fifo_requeued,
	.exited		= fifo_exited,
	.unit_hold_ns	= fifo_unit_hold_ns,
	.free_client	= fifo_free_client,
};

static int ioq_sched_test_init(struct kunit *test)
{
	struct fifo_sched *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->q = ioq_test_queue(test);
	INIT_LIST_HEAD(&t->fifo);
	ioq_sched_init(&t->core, t->q, &fifo_ops);
	ioq_test_attach(test, t->q, &t->core);
	t->core.run_queue = ioq_kunit_count_run;
	atomic_set(&ioq_kunit_runs, 0);
	ioq_client_init(&t->client);
	test->priv = t;
	return 0;
}

static void ioq_sched_test_exit(struct kunit *test)
{
	struct fifo_sched *t = test->priv;

	if (!t)		/* init failed */
		return;
	ioq_sched_stop(&t->core);
	ioq_test_queue_exit(t->q);
}

/* A 4 KiB sync read at @pos. */
static struct request *fifo_read(struct kunit *test, struct fifo_sched *t,
				 sector_t pos)
{
	return ioq_test_request(test, t->q, REQ_OP_READ | REQ_SYNC, pos);
}

/* Insert @rq at @now and dispatch it then: it must be the one sent. */
static void fifo_send(struct kunit *test, struct fifo_sched *t,
		      struct request *rq, u64 now)
{
	ioq_kunit_insert(&t->core, rq, 0, now);
	KUNIT_EXPECT_PTR_EQ(test, ioq_kunit_dispatch(&t->core, now), rq);
	KUNIT_EXPECT_TRUE(test, ioq_record_of(rq)->dispatched);
}

/*
 * A request holds a reference to its client from its insertion to its
 * end; the client is freed when the last reference goes.
 */
static void ioq_test_client_lifetime(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct request *rq = fifo_read(test, t, 2048);

	fifo_send(test, t, rq, 1 * MS);
	KUNIT_EXPECT_EQ(test, t->client.ref, 2);
	KUNIT_EXPECT_EQ(test, t->client.queued, 0);
	KUNIT_EXPECT_EQ(test, t->client.in_flight, 1);
	KUNIT_EXPECT_FALSE(test, ioq_kunit_done(&t->core, rq, 2 * MS));
	KUNIT_EXPECT_EQ(test, t->client.ref, 1);
	KUNIT_EXPECT_EQ(test, t->client.in_flight, 0);
	KUNIT_EXPECT_NULL(test, ioq_rq_client(rq));
	KUNIT_EXPECT_FALSE(test, t->freed);
	spin_lock_irq(&t->core.lock);
	ioq_put_client(&t->core, &t->client);
	spin_unlock_irq(&t->core.lock);
	KUNIT_EXPECT_TRUE(test, t->freed);
	KUNIT_EXPECT_EQ(test, t->completed, 1);
}

/*
 * A requeue is the exact undo of a dispatch: nothing in flight, no
 * service, no completion for the estimator.  When the request goes out
 * again from the head, it is in flight again.
 */
static void ioq_test_requeue_undoes_dispatch(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct request *rq = fifo_read(test, t, 2048);

	fifo_send(test, t, rq, 2 * MS);
	ioq_kunit_requeue(&t->core, rq, 5 * MS);
	KUNIT_EXPECT_EQ(test, t->requeued, 1);
	KUNIT_EXPECT_EQ(test, t->core.in_flight, 0);
	KUNIT_EXPECT_EQ(test, t->client.in_flight, 0);
	KUNIT_EXPECT_EQ(test, t->core.units[0].in_flight, 0);
	KUNIT_EXPECT_EQ(test, t->core.par.in_flight, 0);
	KUNIT_EXPECT_EQ(test, t->core.par.window_completions, 0);
	KUNIT_EXPECT_EQ(test, t->core.last_completion_ns, 0);
	KUNIT_EXPECT_EQ(test, t->completed, 0);

	ioq_kunit_insert(&t->core, rq, BLK_MQ_INSERT_AT_HEAD, 6 * MS);
	KUNIT_EXPECT_PTR_EQ(test, ioq_kunit_dispatch(&t->core, 7 * MS), rq);
	KUNIT_EXPECT_EQ(test, t->dispatched, 2);
	KUNIT_EXPECT_EQ(test, t->core.in_flight, 1);
	KUNIT_EXPECT_EQ(test, t->client.in_flight, 1);
	KUNIT_EXPECT_EQ(test, t->core.par.in_flight, 1);
}

/*
 * The record keeps the whole dispatch time: a request sent at 16.7 s and
 * back 20 s later (past 2^24 us, where a 32-bit stamp of microseconds
 * wrapped), with no completion before it, is charged those 20 s.
 */
static void ioq_test_record_keeps_dispatch_time(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct ioq_record_set *recs = ioq_test_hctx(t->q)->sched_data;
	struct request *rq = fifo_read(test, t, 2048);
	u64 sent = 16700 * MS, back = sent + 20ULL * NSEC_PER_SEC;

	fifo_send(test, t, rq, sent);
	KUNIT_EXPECT_EQ(test, recs->rec[IOQ_TEST_FIRST_TAG].dispatch_ns, sent);
	KUNIT_EXPECT_FALSE(test, recs->rec[0].dispatched);
	ioq_kunit_done(&t->core, rq, back);
	KUNIT_EXPECT_EQ(test, t->core.in_flight, 0);
	KUNIT_EXPECT_FALSE(test, recs->rec[IOQ_TEST_FIRST_TAG].dispatched);
	KUNIT_EXPECT_EQ(test, t->service_ns, back - sent);
	KUNIT_EXPECT_EQ(test, t->core.mean_service_ns, back - sent);
	KUNIT_EXPECT_EQ(test, t->core.last_completion_ns, back);
}

/*
 * nr_requests grew the hardware queue's tags: the set grows to them, and
 * a request on a new tag is counted and given back like any other.
 */
static void ioq_test_records_grow_with_tags(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct blk_mq_hw_ctx *hctx = ioq_test_hctx(t->q);
	struct blk_mq_tags *tags = kunit_kzalloc(test, sizeof(*tags),
						 GFP_KERNEL);
	struct request *rq = fifo_read(test, t, 2048);
	struct ioq_record_set *recs;

	KUNIT_ASSERT_NOT_NULL(test, tags);
	tags->nr_tags = 2 * IOQ_TEST_TAGS;
	hctx->sched_tags = tags;
	ioq_grow_records(&t->core, hctx);
	recs = hctx->sched_data;
	KUNIT_ASSERT_EQ(test, recs->nr, 2 * IOQ_TEST_TAGS);
	rq->internal_tag = 2 * IOQ_TEST_TAGS - 1;
	fifo_send(test, t, rq, 1 * MS);
	KUNIT_EXPECT_TRUE(test, recs->rec[2 * IOQ_TEST_TAGS - 1].dispatched);
	ioq_kunit_done(&t->core, rq, 2 * MS);
	KUNIT_EXPECT_EQ(test, t->core.in_flight, 0);
	KUNIT_EXPECT_EQ(test, t->core.last_completion_ns, 2 * MS);
}

/* What a four-disk RAID-0 of 64 KiB chunks reports. */
static void fifo_report_raid(struct fifo_sched *t)
{
	t->q->limits.io_min = SZ_64K;
	t->q->limits.io_opt = 4 * SZ_64K;
}

static void fifo_update_layout(struct fifo_sched *t)
{
	spin_lock_irq(&t->core.lock);
	ioq_update_layout(&t->core);
	spin_unlock_irq(&t->core.lock);
}

/*
 * A request counts on the unit it was sent to until it is back, whatever
 * the layout says by then: one sent to unit 3 of a four-unit array frees
 * unit 3 after the device stopped reporting the layout.
 */
static void ioq_test_unit_kept_across_layout_change(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct request *rq = fifo_read(test, t, 3 * (SZ_64K >> SECTOR_SHIFT));
	unsigned int i;

	fifo_report_raid(t);
	fifo_send(test, t, rq, 1 * MS);
	KUNIT_EXPECT_EQ(test, t->core.layout.units, 4);
	KUNIT_EXPECT_EQ(test, t->core.units[3].in_flight, 1);
	/* The device stops reporting it, seen at the next dispatch. */
	t->q->limits.io_min = 0;
	t->q->limits.io_opt = 0;
	fifo_update_layout(t);
	KUNIT_EXPECT_EQ(test, ioq_unit_of(&t->core, rq), 0);
	ioq_kunit_done(&t->core, rq, 2 * MS);
	for (i = 0; i < ARRAY_SIZE(t->core.units); i++)
		KUNIT_EXPECT_EQ_MSG(test, t->core.units[i].in_flight, 0,
				    "unit %u", i);
}

/*
 * Once a unit is idle, it stays its last client's for as long as the
 * policy holds it, and is free for another client after that.
 */
static void ioq_test_unit_held_for_its_client(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct request *rq = fifo_read(test, t, 2048);
	struct request *next = fifo_read(test, t, 2056);
	struct ioq_client other;

	ioq_client_init(&other);
	fifo_report_raid(t);
	t->hold_ns = 8 * MS;
	fifo_send(test, t, rq, 1 * MS);
	ioq_kunit_done(&t->core, rq, 2 * MS);
	KUNIT_EXPECT_TRUE(test, ioq_unit_free_for(&t->core, &t->client, next,
						  3 * MS));
	KUNIT_EXPECT_FALSE(test, ioq_unit_free_for(&t->core, &other, next,
						   10 * MS - 1));
	KUNIT_EXPECT_TRUE(test, ioq_unit_free_for(&t->core, &other, next,
						  10 * MS));
}

/* The idle window: how long the device waited, whatever the clocks say. */
static void ioq_test_idle_window(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct ioq_sched *s = &t->core;
	u64 none, early, waited, until;

	spin_lock_irq(&s->lock);
	none = ioq_idle_stop(s, 5 * MS);
	ioq_idle_start(s, 10 * MS, 8 * MS);
	until = s->idle_until_ns;
	/* A clock read before the idling started: no time waited. */
	early = ioq_idle_stop(s, 10 * MS - 1);
	ioq_idle_start(s, 20 * MS, 8 * MS);
	waited = ioq_idle_stop(s, 25 * MS);
	spin_unlock_irq(&s->lock);
	KUNIT_EXPECT_EQ(test, none, 0);
	KUNIT_EXPECT_EQ(test, until, 18 * MS);
	KUNIT_EXPECT_EQ(test, early, 0);
	KUNIT_EXPECT_EQ(test, waited, 5 * MS);
	KUNIT_EXPECT_FALSE(test, ioq_idling(s));
}

/*
 * One timer serves every wait: a kick (or a policy's own, earlier
 * expiry) while the device idles does not end the window early, nor
 * leave it without a run at its end.
 */
static void ioq_test_timer_keeps_idle_end(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	u64 window = 1000 * MS, start = ktime_get_ns();
	int early;

	spin_lock_irq(&t->core.lock);
	ioq_idle_start(&t->core, start, window);
	ioq_kick(&t->core);
	spin_unlock_irq(&t->core.lock);
	msleep(100);
	early = atomic_read(&ioq_kunit_runs);
	KUNIT_EXPECT_EQ(test, ioq_kunit_wait_run(3000), 1);
	KUNIT_EXPECT_EQ(test, early, 0);
	KUNIT_EXPECT_GE(test, ktime_get_ns(), start + window);
}

/* Units: forced, reported, or on one spindle one except while probed. */
static void ioq_test_units(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	u64 now = 100 * NSEC_PER_SEC;

	/*
	 * A probe is due on a rotational device never probed: the answer
	 * without one is one unit; the first dispatch's look starts it.
	 */
	KUNIT_EXPECT_EQ(test, ioq_units_peek(&t->core, now), 1);
	KUNIT_EXPECT_EQ(test, ioq_units(&t->core, now), IOQ_PAR_MAX_UNITS);
	KUNIT_EXPECT_EQ(test, ioq_units_peek(&t->core, now + 200 * MS),
			IOQ_PAR_MAX_UNITS);
	KUNIT_EXPECT_EQ(test, ioq_units(&t->core, now + 300 * MS), 1);
	fifo_report_raid(t);
	fifo_update_layout(t);
	KUNIT_EXPECT_EQ(test, ioq_units(&t->core, now + 300 * MS), 4);
	t->core.tun.spindles = 2;
	KUNIT_EXPECT_EQ(test, ioq_units(&t->core, now + 300 * MS), 2);
}

/* The core's seek classification, from its tunables and the device. */
static void ioq_test_seek_params(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct ioq_seek_params p = ioq_seek_params(&t->core);

	KUNIT_EXPECT_TRUE(test, p.rotational);
	KUNIT_EXPECT_EQ(test, p.max_distance, IOQ_SEEK_DISTANCE_AUTO);
	KUNIT_EXPECT_EQ(test, p.min_bytes, IOQ_SEEK_MIN_KB_AUTO * 1024);
	t->core.tun.seek_distance = 16;
	t->core.tun.seek_min_size = 64;
	t->q->limits.features = 0;
	p = ioq_seek_params(&t->core);
	KUNIT_EXPECT_FALSE(test, p.rotational);
	KUNIT_EXPECT_EQ(test, p.max_distance, 16);
	KUNIT_EXPECT_EQ(test, p.min_bytes, 64 * 1024);
}

/*
 * A process exits (exit_icq): its client is let go of and marked, later
 * requests of its icq go to the policy's fallback, and work dispatch held
 * back (to wait for the process) is run, from the timer.  An icq that
 * never had a client is marked too: a request prepared before the exit
 * must not make one that nobody would let go of.
 */
static void ioq_test_exit_icq(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct ioq_icq *qic = ioq_test_icq(test, t->q);
	struct ioq_icq *bare = ioq_test_icq(test, t->q);
	struct request *rq = fifo_read(test, t, 2048);
	struct request *late = fifo_read(test, t, 4096);

	ioq_get_client(&t->client);	/* the icq's reference */
	qic->client = &t->client;
	rq->elv.icq = &qic->icq;
	late->elv.icq = &bare->icq;
	KUNIT_EXPECT_PTR_EQ(test, ioq_rq_icq(rq), qic);
	KUNIT_EXPECT_PTR_EQ(test, ioq_rq_icq(late), bare);
	t->core.held_back = true;
	ioq_mq_ops.exit_icq(&qic->icq);
	KUNIT_EXPECT_EQ(test, ioq_kunit_wait_run(1000), 1);
	KUNIT_EXPECT_EQ(test, t->exited, 1);
	KUNIT_EXPECT_NULL(test, qic->client);
	KUNIT_EXPECT_TRUE(test, t->client.exited);
	KUNIT_EXPECT_EQ(test, t->client.ref, 1);
	KUNIT_EXPECT_NULL(test, ioq_rq_icq(rq));

	t->core.held_back = false;
	ioq_mq_ops.exit_icq(&bare->icq);
	KUNIT_EXPECT_EQ(test, t->exited, 1);
	KUNIT_EXPECT_NULL(test, ioq_rq_icq(late));
	/* Nothing held back: no run. */
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&ioq_kunit_runs), 1);
}

struct ioq_test_exit_call {
	struct blk_mq_hw_ctx *hctx;
	bool started;
	struct completion done;
};

static int ioq_test_exit_hctx_fn(void *data)
{
	struct ioq_test_exit_call *call = data;

	WRITE_ONCE(call->started, true);
	ioq_mq_ops.exit_hctx(call->hctx, 0);
	complete(&call->done);
	return 0;
}

/*
 * Whether @call's thread starts within a second.  Interrupts are off:
 * spin, do not sleep.
 */
static bool ioq_test_exit_started(struct ioq_test_exit_call *call)
{
	u64 end = ktime_get_ns() + NSEC_PER_SEC;

	while (!READ_ONCE(call->started)) {
		if (ktime_get_ns() > end)
			return false;
		cpu_relax();
	}
	return true;
}

/*
 * Whether @call's thread, started, takes @recs within 50 ms: one that does
 * not wait for the lock takes them within microseconds.  (Whether it
 * waits cannot be seen: in a guest without paravirt spinlocks, waiters
 * spin on a test-and-set lock, which spin_is_contended() does not see.)
 * Interrupts are off: spin, do not sleep.
 */
static bool ioq_test_records_taken(struct ioq_test_exit_call *call,
				   struct ioq_record_set *recs)
{
	u64 end = ktime_get_ns() + 50 * NSEC_PER_MSEC;

	while (READ_ONCE(call->hctx->sched_data) == recs) {
		if (ktime_get_ns() > end)
			return false;
		cpu_relax();
	}
	return true;
}

/*
 * The sched/ debugfs readers look at hctx->sched_data under the lock
 * without entering the queue, and the queue's sched/ directory goes only
 * after exit_hctx: so exit_hctx must swap the records out under the
 * lock.  Run it on another CPU while holding the lock: the records must
 * stay until the lock is let go.
 */
static void ioq_test_exit_hctx_waits_for_readers(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct blk_mq_hw_ctx *hctx = ioq_test_hctx(t->q);
	struct ioq_record_set *recs = hctx->sched_data;
	struct ioq_test_exit_call call = { .hctx = hctx };
	struct task_struct *task;
	bool started, taken;
	unsigned int other;

	init_completion(&call.done);
	migrate_disable();	/* the lock is taken on a CPU other than @other */
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (other >= nr_cpu_ids) {
		migrate_enable();
		kunit_skip(test, "one CPU: run with two (qemu -smp 2)");
	}
	task = kthread_create_on_cpu(ioq_test_exit_hctx_fn, &call, other,
				     "ioq-exit-hctx/%u");
	if (IS_ERR(task)) {
		migrate_enable();
		KUNIT_FAIL(test, "no thread for exit_hctx: %ld", PTR_ERR(task));
		return;
	}

	spin_lock_irq(&t->core.lock);	/* as a sched/ debugfs reader */
	wake_up_process(task);
	started = ioq_test_exit_started(&call);
	taken = started && ioq_test_records_taken(&call, recs);
	spin_unlock_irq(&t->core.lock);
	migrate_enable();

	/* @call is on this stack: the thread must be done with it. */
	wait_for_completion(&call.done);
	KUNIT_EXPECT_NULL(test, hctx->sched_data);
	if (!started)
		kunit_skip(test, "the exit_hctx thread did not start in 1 s");
	KUNIT_EXPECT_FALSE_MSG(test, taken,
			       "exit_hctx took the records from a reader");
}

/* Requests merge with their neighbours in a sort tree of their client. */
static void ioq_test_merge_neighbours(struct kunit *test)
{
	struct fifo_sched *t = test->priv;
	struct request *a = fifo_read(test, t, 2048);
	struct request *b = fifo_read(test, t, 2056);
	struct request *c = fifo_read(test, t, 2064);
	struct ioq_client other;
	struct ioq ioq;

	ioq_client_init(&other);
	ioq_init(&ioq);
	elv_rb_add(&ioq.sort_list, a);
	elv_rb_add(&ioq.sort_list, b);
	elv_rb_add(&ioq.sort_list, c);
	a->elv.priv[0] = &t->client;
	b->elv.priv[0] = &t->client;
	c->elv.priv[0] = &other;
	KUNIT_EXPECT_PTR_EQ(test, ioq_mq_ops.next_request(t->q, a), b);
	KUNIT_EXPECT_PTR_EQ(test, ioq_mq_ops.former_request(t->q, b), a);
	KUNIT_EXPECT_NULL(test, ioq_mq_ops.next_request(t->q, b));
	KUNIT_EXPECT_NULL(test, ioq_mq_ops.former_request(t->q, c));
}

static struct kunit_case ioq_sched_test_cases[] = {
	KUNIT_CASE(ioq_test_client_lifetime),
	KUNIT_CASE(ioq_test_requeue_undoes_dispatch),
	KUNIT_CASE(ioq_test_record_keeps_dispatch_time),
	KUNIT_CASE(ioq_test_records_grow_with_tags),
	KUNIT_CASE(ioq_test_unit_kept_across_layout_change),
	KUNIT_CASE(ioq_test_unit_held_for_its_client),
	KUNIT_CASE(ioq_test_idle_window),
	KUNIT_CASE(ioq_test_timer_keeps_idle_end),
	KUNIT_CASE(ioq_test_units),
	KUNIT_CASE(ioq_test_seek_params),
	KUNIT_CASE(ioq_test_exit_icq),
	KUNIT_CASE(ioq_test_exit_hctx_waits_for_readers),
	KUNIT_CASE(ioq_test_merge_neighbours),
	{}
};

static struct kunit_suite ioq_sched_test_suite = {
	.name = "blk_ioq_sched",
	.init = ioq_sched_test_init,
	.exit = ioq_sched_test_exit,
	.test_cases = ioq_sched_test_cases,
};

kunit_test_suites(&ioq_test_suite, &ioq_sched_test_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

MODULE_DESCRIPTION("KUnit tests for the shared I/O scheduler core");
MODULE_LICENSE("GPL");
