// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mq-as's decisions: when to hold the device for a
 * process's next read and what ends the wait, and the batches that keep
 * writes from being locked out.  Included at the end of mq-as-iosched.c,
 * so that the tests run the scheduler's own functions on an as_data set
 * up by its own as_init_data(), through the blk-ioq core's steps.
 */
#include "blk-ioq_kunit.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* A process: its icq, and the client the icq holds. */
struct as_test_proc {
	struct ioq_icq qic;
	struct ioq_client client;
};

static int as_test_init(struct kunit *test)
{
	struct as_data *ad = kunit_kzalloc(test, sizeof(*ad), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ad);
	as_init_data(ad, ioq_test_queue(test));
	ad->core.timer.function = ioq_test_timer_fn;
	/* One spindle, not probed: the tests that want more say so. */
	ad->core.tun.spindles = 1;
	test->priv = ad;
	return 0;
}

static void as_test_exit(struct kunit *test)
{
	struct as_data *ad = test->priv;

	if (!ad)	/* init failed */
		return;
	hrtimer_cancel(&ad->core.timer);
	ioq_test_queue_exit(ad->core.queue);
}

/* A process that thinks @think_ns and seeks @seek_mean sectors. */
static struct as_test_proc *as_test_proc(struct kunit *test, u64 think_ns,
					 u64 seek_mean)
{
	struct as_test_proc *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	ioq_client_init(&p->client);
	p->client.pid = 100;
	p->client.stats.think_time_ns = think_ns;
	p->client.stats.think_samples = 1 << IOQ_DECAY_SHIFT;
	p->client.stats.seek_mean = seek_mean;
	p->client.stats.seek_samples = 1 << IOQ_DECAY_SHIFT;
	p->qic.client = &p->client;
	return p;
}

/* A request of @opf at @pos of process @p (NULL: writeback), queued at @now. */
static struct request *as_test_queue_rq(struct kunit *test,
					struct as_data *ad,
					struct as_test_proc *p, blk_opf_t opf,
					sector_t pos, u64 now)
{
	struct request *rq = ioq_test_request(test, ad->core.queue, opf, pos);

	if (p)
		rq->elv.icq = &p->qic.icq;
	ioq_sched_insert(&ad->core, rq, 0, now);
	return rq;
}

static struct request *as_test_read(struct kunit *test, struct as_data *ad,
				    struct as_test_proc *p, sector_t pos,
				    u64 now)
{
	return as_test_queue_rq(test, ad, p, REQ_OP_READ | REQ_SYNC, pos, now);
}

/*
 * Process @p reads at sector 1000 at 1 ms and the read is back at 5 ms;
 * process @q's read far away waits.  Returns @q's read.
 */
static struct request *as_test_setup(struct kunit *test, struct as_data *ad,
				     struct as_test_proc *p,
				     struct as_test_proc *q, sector_t q_pos)
{
	struct request *rq = as_test_read(test, ad, p, 1000, 1 * IOQ_TEST_MS);
	struct request *other;

	KUNIT_EXPECT_PTR_EQ(test, ioq_sched_dispatch(&ad->core, IOQ_TEST_MS),
			    rq);
	other = as_test_read(test, ad, q, q_pos, 2 * IOQ_TEST_MS);
	ioq_sched_done(&ad->core, rq, 5 * IOQ_TEST_MS);
	return other;
}

/* The next request sent at @now, with the lock held as blk-ioq does. */
static struct request *as_test_dispatch(struct as_data *ad, u64 now)
{
	struct request *rq;

	spin_lock_irq(&ad->core.lock);
	rq = ioq_sched_dispatch(&ad->core, now);
	spin_unlock_irq(&ad->core.lock);
	return rq;
}

/*
 * A process that thinks briefly and reads nearby is waited for: another
 * process's far read does not go while the window runs, and the process's
 * next read ends the wait and goes first.
 */
static void as_test_waits_for_close_thinker(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct as_test_proc *p = as_test_proc(test, IOQ_TEST_MS, 8);
	struct as_test_proc *q = as_test_proc(test, IOQ_TEST_MS, 8);
	struct request *next;

	spin_lock_irq(&ad->core.lock);
	as_test_setup(test, ad, p, q, 1 << 20);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS));
	KUNIT_EXPECT_EQ(test, ad->antic, AS_ANTIC_WAIT_NEXT);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 10 * IOQ_TEST_MS));

	spin_lock_irq(&ad->core.lock);
	next = as_test_read(test, ad, p, 1008, 7 * IOQ_TEST_MS);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_ARRIVED], 1);
	KUNIT_EXPECT_EQ(test, ad->antic_waited_ns, 2 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 7 * IOQ_TEST_MS), next);
}

/* The window ends: the other process's read goes. */
static void as_test_window_times_out(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct as_test_proc *p = as_test_proc(test, IOQ_TEST_MS, 8);
	struct as_test_proc *q = as_test_proc(test, IOQ_TEST_MS, 8);
	u64 end = 5 * IOQ_TEST_MS + as_ms(ad->tun.antic_expire);
	struct request *other;

	spin_lock_irq(&ad->core.lock);
	other = as_test_setup(test, ad, p, q, 1 << 20);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS));
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, end - 1));
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, end), other);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_TIMEOUT], 1);
}

/*
 * Whom not to wait for: a process that thinks longer than the window, or
 * seeks further than the read that would go instead; nor past a read
 * close to the head.  Each time the other read goes at once.
 */
static void as_test_expect_no_wait(struct kunit *test, u64 think_ns,
				   u64 seek_mean, sector_t q_pos,
				   enum as_antic_why why)
{
	struct as_data *ad = test->priv;
	struct as_test_proc *p = as_test_proc(test, think_ns, seek_mean);
	struct as_test_proc *q = as_test_proc(test, IOQ_TEST_MS, 8);
	struct request *other;

	spin_lock_irq(&ad->core.lock);
	other = as_test_setup(test, ad, p, q, q_pos);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS), other);
	KUNIT_EXPECT_EQ_MSG(test, ad->antic_count[why], 1, "reason %s",
			    as_antic_names[why]);
}

static void as_test_no_wait_for_slow_thinker(struct kunit *test)
{
	as_test_expect_no_wait(test, 50 * IOQ_TEST_MS, 8, 1 << 20,
			       AS_ANTIC_THINKS);
}

static void as_test_no_wait_for_far_seeker(struct kunit *test)
{
	as_test_expect_no_wait(test, IOQ_TEST_MS, 1 << 22, 1 << 20,
			       AS_ANTIC_SEEKS);
}

static void as_test_no_wait_past_close_read(struct kunit *test)
{
	as_test_expect_no_wait(test, IOQ_TEST_MS, 8, 1008 + 100,
			       AS_ANTIC_NEAR);
}

/*
 * No anticipation where another request is served meanwhile: a device
 * with several units, or flash unless antic_nonrot asks.
 */
static void as_test_no_wait_on_parallel_devices(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct as_test_proc *p = as_test_proc(test, IOQ_TEST_MS, 8);
	struct as_test_proc *q = as_test_proc(test, IOQ_TEST_MS, 8);
	struct request *other;

	ad->core.tun.spindles = 4;
	spin_lock_irq(&ad->core.lock);
	other = as_test_setup(test, ad, p, q, 1 << 20);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS), other);

	ad->core.tun.spindles = 1;
	ad->core.queue->limits.features &= ~BLK_FEAT_ROTATIONAL;
	KUNIT_EXPECT_FALSE(test, as_antic_enabled(ad, 6 * IOQ_TEST_MS));
	ad->tun.antic_nonrot = 1;
	KUNIT_EXPECT_TRUE(test, as_antic_enabled(ad, 6 * IOQ_TEST_MS));
	ad->tun.antic_expire = 0;
	KUNIT_EXPECT_FALSE(test, as_antic_enabled(ad, 6 * IOQ_TEST_MS));
}

/* The process exits while it is waited for: the wait ends. */
static void as_test_exit_ends_wait(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct as_test_proc *p = as_test_proc(test, IOQ_TEST_MS, 8);
	struct as_test_proc *q = as_test_proc(test, IOQ_TEST_MS, 8);
	struct request *other;

	spin_lock_irq(&ad->core.lock);
	other = as_test_setup(test, ad, p, q, 1 << 20);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS));
	spin_lock_irq(&ad->core.lock);
	as_exited(&ad->core, &p->client, 6 * IOQ_TEST_MS);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_EXITED], 1);
	KUNIT_EXPECT_NULL(test, ad->antic_client);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 6 * IOQ_TEST_MS), other);
}

/*
 * A process that reads without pause beside queued writeback: its reads
 * go while the read batch lasts, and once read_batch_expire has passed
 * since the batch's first completion, the write goes as soon as the last
 * read is back.
 */
static void as_test_writes_get_their_batch(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct as_test_proc *p = as_test_proc(test, 0, 0);
	u64 batch = as_ms(ad->tun.batch_expire[AS_SYNC]);
	u64 now = IOQ_TEST_MS, end = 0;
	struct request *write, *rq, *sent;
	sector_t pos = 1000;
	unsigned int reads;

	spin_lock_irq(&ad->core.lock);
	write = as_test_queue_rq(test, ad, NULL, REQ_OP_WRITE, 1 << 24, now);
	rq = as_test_read(test, ad, p, pos, now);
	spin_unlock_irq(&ad->core.lock);
	/* One read a millisecond, for at most twice the batch. */
	for (reads = 0; reads < 2 * div_u64(batch, IOQ_TEST_MS); reads++) {
		sent = as_test_dispatch(ad, now);
		if (sent != rq)
			break;
		spin_lock_irq(&ad->core.lock);
		now += IOQ_TEST_MS;
		ioq_sched_done(&ad->core, rq, now);
		end = end ?: now + batch;
		pos += 8;
		rq = as_test_read(test, ad, p, pos, now);
		spin_unlock_irq(&ad->core.lock);
	}
	KUNIT_EXPECT_EQ(test, now, end);
	KUNIT_EXPECT_PTR_EQ(test, sent, write);
	KUNIT_EXPECT_EQ(test, ad->batch, AS_ASYNC);
}

/* A new direction waits until the last batch's requests are back. */
static void as_test_batch_starts_drained(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct as_test_proc *p = as_test_proc(test, 50 * IOQ_TEST_MS, 8);
	struct request *read, *write;

	spin_lock_irq(&ad->core.lock);
	read = as_test_read(test, ad, p, 1000, IOQ_TEST_MS);
	write = as_test_queue_rq(test, ad, NULL, REQ_OP_WRITE, 1 << 24,
				 IOQ_TEST_MS);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, IOQ_TEST_MS), read);
	/* Nothing more to read, and the reader thinks too long to wait. */
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 2 * IOQ_TEST_MS));
	KUNIT_EXPECT_EQ(test, ad->batch, AS_ASYNC);
	spin_lock_irq(&ad->core.lock);
	ioq_sched_done(&ad->core, read, 3 * IOQ_TEST_MS);
	spin_unlock_irq(&ad->core.lock);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 3 * IOQ_TEST_MS), write);
}

static struct kunit_case as_test_cases[] = {
	KUNIT_CASE(as_test_waits_for_close_thinker),
	KUNIT_CASE(as_test_window_times_out),
	KUNIT_CASE(as_test_no_wait_for_slow_thinker),
	KUNIT_CASE(as_test_no_wait_for_far_seeker),
	KUNIT_CASE(as_test_no_wait_past_close_read),
	KUNIT_CASE(as_test_no_wait_on_parallel_devices),
	KUNIT_CASE(as_test_exit_ends_wait),
	KUNIT_CASE(as_test_writes_get_their_batch),
	KUNIT_CASE(as_test_batch_starts_drained),
	{}
};

static struct kunit_suite as_test_suite = {
	.name = "mq-as",
	.init = as_test_init,
	.exit = as_test_exit,
	.test_cases = as_test_cases,
};

kunit_test_suite(as_test_suite);
