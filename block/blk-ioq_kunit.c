// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the pure logic of the shared I/O scheduler core: seek
 * classification, the seek history, think time, the parallelism estimator
 * on synthetic completion traces, ioprio slice scaling and the sweep.
 */
#include <kunit/test.h>
#include <linux/ioprio.h>

#include "elevator.h"
#include "blk-ioq.h"

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

	/* A multi-page mmap fault reads its pages in order: not seeky. */
	ioq_feed_runs(&faults, &rotational, 16, 64);
	KUNIT_EXPECT_FALSE(test, ioq_stats_seeky(&faults, &rotational));

	ioq_feed_runs(&sequential, &rotational, 1000, 64);
	KUNIT_EXPECT_EQ(test, sequential.seek_history, 0U);

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
	.name = "blk-ioq",
	.test_cases = ioq_test_cases,
};

kunit_test_suite(ioq_test_suite);

MODULE_DESCRIPTION("KUnit tests for the shared I/O scheduler core");
MODULE_LICENSE("GPL");
