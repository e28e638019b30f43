// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mq-as's decisions: when to hold the device for a
 * process's next read and what ends the wait, and the batches that keep
 * writes from being locked out.  Included at the end of mq-as-iosched.c,
 * so that the tests run the scheduler's own functions on an as_data set
 * up by its own as_init_data(), through the blk-ioq core's steps.
 * Requests are made before the scheduler's lock is taken: their memory
 * comes from allocations that may sleep.
 */
#include "blk-ioq_kunit.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* Where the first read of a test is: room to seek either way. */
#define AS_TEST_POS	(SZ_1G >> SECTOR_SHIFT)
/* Far from it: not close, and past a backward step of the sweep. */
#define AS_TEST_FAR	(SZ_512M >> SECTOR_SHIFT)

/* Set up a zeroed @ad on @q, of q->nr_requests scheduler tags. */
static void as_test_init_data(struct as_data *ad, struct request_queue *q)
{
	as_init_data(ad, q);
	ad->core.run_queue = ioq_kunit_count_run;
	/* One spindle, not probed: the tests that want more say so. */
	ad->core.tun.spindles = 1;
	/* What ioq_depth_updated() gives writes of those tags. */
	ad->core.async_depth = max(1U, q->nr_requests * 3 / 4);
}

static int as_test_init(struct kunit *test)
{
	struct as_data *ad = kunit_kzalloc(test, sizeof(*ad), GFP_KERNEL);
	struct request_queue *q;

	KUNIT_ASSERT_NOT_NULL(test, ad);
	q = ioq_test_queue(test);
	as_test_init_data(ad, q);
	ioq_test_attach(test, q, &ad->core);
	atomic_set(&ioq_kunit_runs, 0);
	test->priv = ad;
	return 0;
}

/* The scheduler is set up again, idle, on a queue of @tags tags. */
static void as_test_reinit(struct kunit *test, unsigned int tags)
{
	struct as_data *ad = test->priv;
	struct request_queue *q = ad->core.queue;

	KUNIT_ASSERT_EQ(test, ad->core.queued + ad->core.in_flight, 0);
	ioq_sched_stop(&ad->core);
	memset(ad, 0, sizeof(*ad));
	q->nr_requests = tags;
	as_test_init_data(ad, q);
}

static void as_test_exit(struct kunit *test)
{
	struct as_data *ad = test->priv;

	if (!ad)	/* init failed */
		return;
	ioq_sched_stop(&ad->core);
	ioq_test_queue_exit(ad->core.queue);
}

/*
 * A process that thinks @think_ns and seeks @seek_mean sectors: its icq,
 * with its client made already (the icq holds the client's first
 * reference, so no test frees it).
 */
static struct ioq_icq *as_test_process(struct kunit *test, u64 think_ns,
				       u64 seek_mean)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *qic = ioq_test_icq(test, ad->core.queue);
	struct ioq_client *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	ioq_client_init(c);
	c->pid = 100;
	c->stats.think_time_ns = think_ns;
	c->stats.think_samples = 1 << IOQ_DECAY_SHIFT;
	c->stats.seek_mean = seek_mean;
	c->stats.seek_samples = 1 << IOQ_DECAY_SHIFT;
	qic->client = c;
	return qic;
}

/* A sync read at @pos of @process (NULL: a write of writeback). */
static struct request *as_test_rq(struct kunit *test, struct ioq_icq *process,
				  sector_t pos)
{
	struct as_data *ad = test->priv;
	blk_opf_t opf = process ? REQ_OP_READ | REQ_SYNC : REQ_OP_WRITE;
	struct request *rq = ioq_test_request(test, ad->core.queue, opf, pos);

	if (process)
		rq->elv.icq = &process->icq;
	return rq;
}

static void as_test_insert(struct as_data *ad, struct request *rq, u64 now)
{
	ioq_kunit_insert(&ad->core, rq, 0, now);
}

static struct request *as_test_dispatch(struct as_data *ad, u64 now)
{
	return ioq_kunit_dispatch(&ad->core, now);
}

static void as_test_done(struct as_data *ad, struct request *rq, u64 now)
{
	ioq_kunit_done(&ad->core, rq, now);
}

/*
 * @reader reads at AS_TEST_POS at 1 ms, and the read is back at 5 ms;
 * @other's read at @other_pos waits meanwhile.  Returns @other's read.
 */
static struct request *as_test_setup(struct kunit *test,
				     struct ioq_icq *reader,
				     struct ioq_icq *other, sector_t other_pos)
{
	struct as_data *ad = test->priv;
	struct request *first = as_test_rq(test, reader, AS_TEST_POS);
	struct request *next = as_test_rq(test, other, other_pos);

	as_test_insert(ad, first, 1 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 1 * IOQ_TEST_MS), first);
	as_test_insert(ad, next, 2 * IOQ_TEST_MS);
	as_test_done(ad, first, 5 * IOQ_TEST_MS);
	return next;
}

/*
 * A process that thinks briefly and reads nearby is waited for: another
 * process's far read does not go while the window runs, and the process's
 * next read ends the wait and goes first.
 */
static void as_test_waits_for_close_thinker(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct request *next = as_test_rq(test, reader, AS_TEST_POS + 8);

	as_test_setup(test, reader, other, AS_TEST_POS + AS_TEST_FAR);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS));
	KUNIT_EXPECT_EQ(test, ad->antic, AS_ANTIC_WAIT_NEXT);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 10 * IOQ_TEST_MS));

	as_test_insert(ad, next, 7 * IOQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_ARRIVED], 1);
	KUNIT_EXPECT_EQ(test, ad->antic_waited_ns, 2 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 7 * IOQ_TEST_MS), next);
}

/*
 * The request that ended the wait goes first, even where the sweep would
 * take another: here it lies behind the head, the other read ahead.
 */
static void as_test_arrived_goes_first(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct request *back = as_test_rq(test, reader,
					  AS_TEST_POS - AS_TEST_FAR);

	as_test_setup(test, reader, other, AS_TEST_POS + AS_TEST_FAR);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS));
	as_test_insert(ad, back, 6 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 6 * IOQ_TEST_MS), back);
}

/* The window ends: the other process's read goes. */
static void as_test_window_times_out(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	u64 end = 5 * IOQ_TEST_MS + as_ms(ad->tun.antic_expire);
	struct request *next;

	next = as_test_setup(test, reader, other, AS_TEST_POS + AS_TEST_FAR);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS));
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, end - 1));
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, end), next);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_TIMEOUT], 1);
}

/*
 * Whom not to wait for: a process that thinks longer than the window, or
 * seeks further than the read that would go instead; nor past a read
 * close to the head.  Each time the other read goes at once.
 */
static void as_test_expect_no_wait(struct kunit *test, u64 think_ns,
				   u64 seek_mean, sector_t other_pos,
				   enum as_antic_why why)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, think_ns, seek_mean);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct request *next = as_test_setup(test, reader, other, other_pos);

	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS), next);
	KUNIT_EXPECT_EQ_MSG(test, ad->antic_count[why], 1, "reason %s",
			    as_antic_names[why]);
}

static void as_test_no_wait_for_slow_thinker(struct kunit *test)
{
	as_test_expect_no_wait(test, 50 * IOQ_TEST_MS, 8,
			       AS_TEST_POS + AS_TEST_FAR, AS_ANTIC_THINKS);
}

static void as_test_no_wait_for_far_seeker(struct kunit *test)
{
	as_test_expect_no_wait(test, IOQ_TEST_MS, 2 * AS_TEST_FAR,
			       AS_TEST_POS + AS_TEST_FAR, AS_ANTIC_SEEKS);
}

static void as_test_no_wait_past_close_read(struct kunit *test)
{
	as_test_expect_no_wait(test, IOQ_TEST_MS, 8, AS_TEST_POS + 108,
			       AS_ANTIC_NEAR);
}

/* Nor for a process whose next read is queued already, behind another. */
static void as_test_no_wait_with_request_queued(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct request *far = as_test_rq(test, reader,
					 AS_TEST_POS + 2 * AS_TEST_FAR);
	struct request *next;

	next = as_test_setup(test, reader, other, AS_TEST_POS + AS_TEST_FAR);
	as_test_insert(ad, far, 3 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS), next);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_QUEUED], 1);
}

/*
 * No anticipation where another request is served meanwhile: a device
 * with several units, or flash unless antic_nonrot asks.
 */
static void as_test_no_wait_on_parallel_devices(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct request *next;

	ad->core.tun.spindles = 4;
	next = as_test_setup(test, reader, other, AS_TEST_POS + AS_TEST_FAR);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS), next);

	ad->core.tun.spindles = 1;
	ad->core.queue->limits.features &= ~BLK_FEAT_ROTATIONAL;
	KUNIT_EXPECT_FALSE(test, as_antic_enabled(ad, 6 * IOQ_TEST_MS));
	ad->tun.antic_nonrot = 1;
	KUNIT_EXPECT_TRUE(test, as_antic_enabled(ad, 6 * IOQ_TEST_MS));
	ad->tun.antic_expire = 0;
	KUNIT_EXPECT_FALSE(test, as_antic_enabled(ad, 6 * IOQ_TEST_MS));
}

/*
 * The process exits while it is waited for (blk-ioq's exit_icq): the
 * wait ends, the process is not waited for again, and the queue is run,
 * as no completion would run it.
 */
static void as_test_exit_ends_wait(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_client *c = reader->client;
	struct request *next;

	struct request *late = as_test_rq(test, reader, AS_TEST_POS + 8);

	ioq_get_client(c);	/* for the test, past the exit */
	next = as_test_setup(test, reader, other, AS_TEST_POS + AS_TEST_FAR);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS));
	KUNIT_EXPECT_TRUE(test, ad->core.held_back);
	/* The window's own timer: not the run this test is after. */
	ioq_sched_stop(&ad->core);
	atomic_set(&ioq_kunit_runs, 0);
	ioq_mq_ops.exit_icq(&reader->icq);
	KUNIT_EXPECT_EQ(test, ioq_kunit_wait_run(1000), 1);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_EXITED], 1);
	KUNIT_EXPECT_NULL(test, ad->antic_client);
	KUNIT_EXPECT_TRUE(test, c->exited);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 6 * IOQ_TEST_MS), next);
	/* A read its icq prepared before the exit is nobody's to wait for. */
	as_test_insert(ad, late, 7 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, ioq_rq_client(late), &ad->oom_client);
}

/*
 * The process's read is still on the device when the scheduler decides to
 * wait: the window opens when it completes, not before.
 */
static void as_test_window_opens_at_completion(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct request *first = as_test_rq(test, reader, AS_TEST_POS);
	struct request *far = as_test_rq(test, other, AS_TEST_POS + AS_TEST_FAR);
	u64 done = 9 * IOQ_TEST_MS;

	as_test_insert(ad, first, 1 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 1 * IOQ_TEST_MS), first);
	as_test_insert(ad, far, 2 * IOQ_TEST_MS);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 3 * IOQ_TEST_MS));
	KUNIT_EXPECT_EQ(test, ad->antic, AS_ANTIC_WAIT_REQ);
	KUNIT_EXPECT_FALSE(test, ioq_idling(&ad->core));
	as_test_done(ad, first, done);
	KUNIT_EXPECT_EQ(test, ad->antic, AS_ANTIC_WAIT_NEXT);
	KUNIT_EXPECT_EQ(test, ad->core.idle_until_ns,
			done + as_ms(ad->tun.antic_expire));
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, done + 1));
}

/*
 * The read waited for comes back unserved (the driver was busy): its
 * completion will not come, so the wait ends; and a request sent past
 * the scheduler (from the head) ends a wait too.
 */
static void as_test_bypass_ends_wait(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, IOQ_TEST_MS, 8);
	struct ioq_icq *other = as_test_process(test, IOQ_TEST_MS, 8);
	struct request *first = as_test_rq(test, reader, AS_TEST_POS);
	struct request *far = as_test_rq(test, other, AS_TEST_POS + AS_TEST_FAR);
	struct request *extra = as_test_rq(test, other,
					   AS_TEST_POS + 2 * AS_TEST_FAR);

	as_test_insert(ad, first, 1 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 1 * IOQ_TEST_MS), first);
	as_test_insert(ad, far, 2 * IOQ_TEST_MS);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 3 * IOQ_TEST_MS));
	KUNIT_EXPECT_EQ(test, ad->antic, AS_ANTIC_WAIT_REQ);
	ioq_kunit_requeue(&ad->core, first, 4 * IOQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_BYPASS], 1);
	KUNIT_EXPECT_EQ(test, ad->antic, AS_ANTIC_FINISHED);

	/* It goes out again first, from the head, past the policy. */
	ioq_kunit_insert(&ad->core, first, BLK_MQ_INSERT_AT_HEAD,
			 5 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 5 * IOQ_TEST_MS), first);
	as_test_done(ad, first, 6 * IOQ_TEST_MS);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 6 * IOQ_TEST_MS));
	KUNIT_EXPECT_EQ(test, ad->antic, AS_ANTIC_WAIT_NEXT);

	/* A requeued request of another process goes out past the policy. */
	ioq_get_client(other->client);		/* the request's reference */
	extra->elv.priv[0] = other->client;
	ioq_kunit_insert(&ad->core, extra, BLK_MQ_INSERT_AT_HEAD,
			 7 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 7 * IOQ_TEST_MS), extra);
	KUNIT_EXPECT_EQ(test, ad->antic_count[AS_ANTIC_BYPASS], 2);
	KUNIT_EXPECT_FALSE(test, ioq_idling(&ad->core));
}

/*
 * A process that reads beside queued writeback, its next read 2 ms after
 * the last (anticipated each time): its reads go while the read batch
 * lasts, and once read_batch_expire has passed since the batch's first
 * completion, the write goes as soon as the last read is back.
 */
static void as_test_writes_get_their_batch(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, 2 * IOQ_TEST_MS, 8);
	u64 batch = as_ms(ad->tun.batch_expire[AS_SYNC]);
	struct request *write = as_test_rq(test, NULL,
					   AS_TEST_POS + AS_TEST_FAR);
	struct request *rq = as_test_rq(test, reader, AS_TEST_POS);
	unsigned int tag = rq->internal_tag, reads;
	u64 now = IOQ_TEST_MS, end = 0;
	struct request *sent = NULL;
	sector_t pos = AS_TEST_POS;

	as_test_insert(ad, write, now);
	as_test_insert(ad, rq, now);
	/* A read every 3 ms, for at most twice the batch. */
	for (reads = 0; reads < 2 * div_u64(batch, 3 * IOQ_TEST_MS); reads++) {
		sent = as_test_dispatch(ad, now);
		if (sent != rq)
			break;
		now += IOQ_TEST_MS;
		as_test_done(ad, rq, now);
		end = end ?: now + batch;
		/* Waited for, not the write. */
		KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, now));
		now += 2 * IOQ_TEST_MS;
		pos += 8;
		ioq_test_request_init(rq, ad->core.queue,
				      REQ_OP_READ | REQ_SYNC, pos, tag);
		rq->elv.icq = &reader->icq;
		as_test_insert(ad, rq, now);
	}
	KUNIT_EXPECT_GE(test, now, end);
	KUNIT_EXPECT_LT(test, now, end + 3 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, sent, write);
	KUNIT_EXPECT_EQ(test, ad->batch, AS_ASYNC);
	/* Each read but the first was waited for. */
	KUNIT_EXPECT_GE(test, ad->antic_count[AS_ANTIC_ARRIVED], reads - 1);
}

/*
 * @read, of a process that thinks too long to be waited for, goes at
 * 1 ms with @write queued beside it; at 2 ms there is nothing more to
 * read, and the write batch is chosen: it waits for the read.
 */
static void as_test_write_batch_chosen(struct kunit *test,
				       struct request *read,
				       struct request *write)
{
	struct as_data *ad = test->priv;

	as_test_insert(ad, read, IOQ_TEST_MS);
	as_test_insert(ad, write, IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, IOQ_TEST_MS), read);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 2 * IOQ_TEST_MS));
	KUNIT_EXPECT_EQ(test, ad->batch, AS_ASYNC);
}

/* A new direction waits until the last batch's requests are back. */
static void as_test_batch_starts_drained(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct request *read = as_test_rq(test, reader, AS_TEST_POS);
	struct request *write = as_test_rq(test, NULL, AS_TEST_POS + AS_TEST_FAR);

	as_test_write_batch_chosen(test, read, write);
	as_test_done(ad, read, 3 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 3 * IOQ_TEST_MS), write);
}

/*
 * On a device of @tags scheduler tags (2 for one that takes a request at
 * a time: writes may hold one), a write batch sends @write, writeback's
 * only one, and a read comes: returns the read.
 */
static struct request *as_test_small_queue_write(struct kunit *test,
						 unsigned int tags,
						 struct request *write)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct request *first = as_test_rq(test, reader, AS_TEST_POS);
	struct request *read = as_test_rq(test, reader, AS_TEST_POS + 8);

	as_test_reinit(test, tags);
	as_test_write_batch_chosen(test, first, write);
	as_test_done(ad, first, 3 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 3 * IOQ_TEST_MS), write);
	as_test_insert(ad, read, 3 * IOQ_TEST_MS);
	return read;
}

/*
 * Writeback's next write waits for the tag of the one on the device: the
 * write batch holds the device until it is back, and for a window after,
 * and the write that comes goes before the read.
 */
static void as_test_write_batch_waits_for_tag_bound_writeback(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct request *write = as_test_rq(test, NULL, AS_TEST_POS + AS_TEST_FAR);
	struct request *next = as_test_rq(test, NULL,
					  AS_TEST_POS + AS_TEST_FAR + 8);
	struct request *read = as_test_small_queue_write(test, 2, write);

	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 3 * IOQ_TEST_MS));
	KUNIT_EXPECT_FALSE(test, ad->batch_changed);
	as_test_done(ad, write, 10 * IOQ_TEST_MS);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 11 * IOQ_TEST_MS));
	as_test_insert(ad, next, 12 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 12 * IOQ_TEST_MS), next);
	KUNIT_EXPECT_EQ(test, ad->writeback_arrived, 1);
	/* Held with the write on the device: its completion runs the queue. */
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 13 * IOQ_TEST_MS));
	KUNIT_EXPECT_TRUE(test, ioq_kunit_done(&ad->core, next,
					       20 * IOQ_TEST_MS));
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 21 * IOQ_TEST_MS));
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 26 * IOQ_TEST_MS), read);
}

/*
 * So a read waits for the write batch's count of writes, not one: each
 * write is back 4 ms after it went, its completion runs the queue, and
 * writeback's next write comes 0.5 ms later.  The count is not capped by
 * nr_requests, which limits only the depth.
 */
static void as_test_tag_bound_batch_sends_its_count(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct request *write = as_test_rq(test, NULL, AS_TEST_POS + AS_TEST_FAR);
	struct request *read = as_test_small_queue_write(test, 2, write);
	u64 t = 3 * IOQ_TEST_MS;
	unsigned int sent = 1;
	struct request *rq;

	/* The read's insert ran the queue. */
	rq = as_test_dispatch(ad, t);
	while (!rq && sent <= 4 * AS_WRITE_BATCH_INIT) {
		t += 4 * IOQ_TEST_MS;
		as_test_done(ad, write, t);
		rq = as_test_dispatch(ad, t);
		if (rq)
			break;
		t += IOQ_TEST_MS / 2;
		write = as_test_rq(test, NULL,
				   AS_TEST_POS + AS_TEST_FAR + sent * 8);
		as_test_insert(ad, write, t);
		rq = as_test_dispatch(ad, t);
		if (rq != write)
			break;
		sent++;
		rq = as_test_dispatch(ad, t);
	}
	KUNIT_EXPECT_PTR_EQ(test, rq, read);
	KUNIT_EXPECT_EQ(test, sent, AS_WRITE_BATCH_INIT);
}

/*
 * The window for writeback's next write is antic_expire: with no write
 * by then, the read batch comes.
 */
static void as_test_writeback_wait_is_bounded(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct request *write = as_test_rq(test, NULL, AS_TEST_POS + AS_TEST_FAR);
	struct request *read = as_test_small_queue_write(test, 2, write);
	u64 end = 10 * IOQ_TEST_MS + as_ms(ad->tun.antic_expire);

	as_test_done(ad, write, 10 * IOQ_TEST_MS);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, end - 1));
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, end), read);
	KUNIT_EXPECT_EQ(test, ad->writeback_waits, 1);
	KUNIT_EXPECT_EQ(test, ad->writeback_arrived, 0);
}

/*
 * A sync request that comes in the window ends it: it may hold the tag
 * writeback waits for.  The batch ends, and the reads go.
 */
static void as_test_sync_request_ends_writeback_wait(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *other = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct request *write = as_test_rq(test, NULL, AS_TEST_POS + AS_TEST_FAR);
	struct request *late = as_test_rq(test, other, AS_TEST_POS + 16);
	struct request *rq;

	as_test_small_queue_write(test, 2, write);
	as_test_done(ad, write, 10 * IOQ_TEST_MS);
	KUNIT_EXPECT_TRUE(test, ad->writeback_window);
	as_test_insert(ad, late, 11 * IOQ_TEST_MS);
	rq = as_test_dispatch(ad, 11 * IOQ_TEST_MS);
	KUNIT_ASSERT_NOT_NULL(test, rq);
	KUNIT_EXPECT_EQ(test, as_dir_of(rq), AS_SYNC);
	KUNIT_EXPECT_EQ(test, ad->writeback_arrived, 0);
}

/*
 * Writes that are not short of tags (three of four) get no wait: with
 * none queued, the batch ends.
 */
static void as_test_no_writeback_wait_with_tags_free(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct request *write = as_test_rq(test, NULL, AS_TEST_POS + AS_TEST_FAR);
	struct request *read = as_test_small_queue_write(test, 4, write);

	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 3 * IOQ_TEST_MS));
	KUNIT_EXPECT_TRUE(test, ad->batch_changed);
	as_test_done(ad, write, 10 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 10 * IOQ_TEST_MS), read);
	KUNIT_EXPECT_EQ(test, ad->writeback_waits, 0);
}

/* More writes than a write batch's first count. */
#define AS_TEST_WRITES	(3 * AS_WRITE_BATCH_INIT)

/* @nr writes of writeback, queued at 1 ms in ascending sectors. */
static void as_test_queue_writes(struct kunit *test, struct request **writes,
				 unsigned int nr)
{
	struct as_data *ad = test->priv;
	unsigned int i;

	KUNIT_ASSERT_LE(test, nr, AS_TEST_WRITES);
	for (i = 0; i < nr; i++)
		writes[i] = as_test_rq(test, NULL,
				       AS_TEST_POS + AS_TEST_FAR + i * 8);
	for (i = 0; i < nr; i++)
		as_test_insert(ad, writes[i], IOQ_TEST_MS);
}

/*
 * Writeback queues @nr_writes writes at 1 ms and the first goes alone; a
 * read comes then, and the write batch goes on, each write back as the
 * next goes, or when the batch holds the device, until the batch ends.
 * The last write is back at @back_ms; the read goes, and while it is on
 * the device the next dispatch finds nothing for it to do (or starts the
 * next write batch, which waits for the read); the read is back 1 ms
 * later.  Returns how many writes went.
 */
static unsigned int as_test_write_batch(struct kunit *test,
					unsigned int nr_writes, u64 back_ms)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct request *read = as_test_rq(test, reader, AS_TEST_POS);
	struct request *writes[AS_TEST_WRITES], *rq, *last;
	u64 back = back_ms * IOQ_TEST_MS;
	unsigned int sent = 1;

	as_test_queue_writes(test, writes, nr_writes);
	last = as_test_dispatch(ad, IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, last, writes[0]);
	as_test_insert(ad, read, IOQ_TEST_MS);
	while ((rq = as_test_dispatch(ad, IOQ_TEST_MS)) || ad->batch == AS_ASYNC) {
		KUNIT_ASSERT_PTR_NE(test, rq, read);
		/* Held: the batch's count is on the device; one comes back. */
		KUNIT_ASSERT_TRUE(test, rq || last);
		if (last)
			as_test_done(ad, last, IOQ_TEST_MS);
		last = rq;
		sent += !!rq;
	}
	/* The read waits for the batch's last write. */
	KUNIT_EXPECT_TRUE(test, ad->batch_changed);
	if (last)
		as_test_done(ad, last, back);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, back), read);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, back));
	as_test_done(ad, read, back + IOQ_TEST_MS);
	return sent;
}

/*
 * However deep the device queue, a write batch with a read waiting stops
 * once the read would wait for its count of writes, the one already on
 * the device included, not for all that writeback queued.
 */
static void as_test_write_batch_ends_after_its_count(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, as_test_write_batch(test, AS_TEST_WRITES, 3),
			AS_WRITE_BATCH_INIT);
}

/*
 * Alone, a write batch keeps at most its count on the device: a read that
 * comes would wait for all of them.  One back, one more goes.
 */
static void as_test_write_batch_holds_its_count_alone(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct request *writes[AS_TEST_WRITES];
	unsigned int i;

	as_test_queue_writes(test, writes, AS_TEST_WRITES);
	for (i = 0; i < AS_WRITE_BATCH_INIT; i++)
		KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, IOQ_TEST_MS),
				    writes[i]);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, IOQ_TEST_MS));
	/* Held back: the completion runs the queue again. */
	KUNIT_EXPECT_TRUE(test, ioq_kunit_done(&ad->core, writes[0],
					       2 * IOQ_TEST_MS));
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 2 * IOQ_TEST_MS),
			    writes[AS_WRITE_BATCH_INIT]);
}

/*
 * A read that comes after writeback went idle does not time the write
 * batch, however long it takes itself: it waited for no write.
 */
static void as_test_idle_write_batch_is_not_sized(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct request *read = as_test_rq(test, reader, AS_TEST_POS);
	struct request *writes[2];

	as_test_queue_writes(test, writes, 2);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, IOQ_TEST_MS), writes[0]);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, IOQ_TEST_MS), writes[1]);
	as_test_done(ad, writes[0], 2 * IOQ_TEST_MS);
	as_test_done(ad, writes[1], 2 * IOQ_TEST_MS);
	as_test_insert(ad, read, 600 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 600 * IOQ_TEST_MS), read);
	as_test_done(ad, read, 1000 * IOQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, ad->write_batch_count, AS_WRITE_BATCH_INIT);
}

/*
 * A write batch that starts with a read queued is timed from when it can
 * send, not from when it was chosen: the reads of the last batch, which
 * it waits for, are not its.  Here the read waits 201 ms for it: one
 * request fewer next time (from its choice, 499 ms, would halve it).
 */
static void as_test_write_batch_timed_after_the_drain(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *reader = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct request *first = as_test_rq(test, reader, AS_TEST_POS);
	struct request *next = as_test_rq(test, reader, AS_TEST_POS + 8);
	struct request *write = as_test_rq(test, NULL,
					   AS_TEST_POS + AS_TEST_FAR);

	/* The read on the device takes 300 ms. */
	as_test_write_batch_chosen(test, first, write);
	as_test_insert(ad, next, 3 * IOQ_TEST_MS);
	as_test_done(ad, first, 300 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 300 * IOQ_TEST_MS),
			    write);
	KUNIT_EXPECT_TRUE(test, ad->write_batch_contended);
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, 300 * IOQ_TEST_MS));
	as_test_done(ad, write, 500 * IOQ_TEST_MS);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 500 * IOQ_TEST_MS), next);
	as_test_done(ad, next, 501 * IOQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, ad->write_batch_count, AS_WRITE_BATCH_INIT - 1);
}

/*
 * A read the driver gave back during a write batch goes out again past
 * the policy; when it completes while the batch's writes drain, it is
 * not the read batch's first completion: the batch is timed by the read
 * that waited for it, 200 ms (one request fewer), not this one's 50 ms.
 */
static void as_test_resent_read_does_not_size(struct kunit *test)
{
	struct as_data *ad = test->priv;
	struct ioq_icq *other = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct ioq_icq *reader = as_test_process(test, 50 * IOQ_TEST_MS, 8);
	struct request *resent = as_test_rq(test, other, AS_TEST_POS);
	struct request *read = as_test_rq(test, reader, AS_TEST_POS + 8);
	struct request *writes[AS_TEST_WRITES], *rq, *last;
	const u64 t = IOQ_TEST_MS;

	as_test_insert(ad, resent, t);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, t), resent);
	as_test_queue_writes(test, writes, AS_TEST_WRITES);
	/* The write batch is chosen; the read comes back unserved. */
	KUNIT_EXPECT_NULL(test, as_test_dispatch(ad, t));
	ioq_kunit_requeue(&ad->core, resent, t);
	last = as_test_dispatch(ad, t);
	KUNIT_EXPECT_PTR_EQ(test, last, writes[0]);
	ioq_kunit_insert(&ad->core, resent, BLK_MQ_INSERT_AT_HEAD, t);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, t), resent);
	as_test_insert(ad, read, t);
	while ((rq = as_test_dispatch(ad, t))) {
		as_test_done(ad, last, t);
		last = rq;
	}
	KUNIT_EXPECT_EQ(test, ad->batch, AS_SYNC);
	as_test_done(ad, resent, 50 * t);
	KUNIT_EXPECT_EQ(test, ad->write_batch_count, AS_WRITE_BATCH_INIT);
	KUNIT_EXPECT_TRUE(test, ad->batch_new);
	as_test_done(ad, last, 200 * t);
	KUNIT_EXPECT_PTR_EQ(test, as_test_dispatch(ad, 200 * t), read);
	as_test_done(ad, read, 201 * t);
	KUNIT_EXPECT_EQ(test, ad->write_batch_count, AS_WRITE_BATCH_INIT - 1);
}

struct as_test_batch_case {
	const char *name;
	unsigned int writes;	/* queued by writeback */
	u64 back_ms;		/* the batch took this long, for the read */
	unsigned int from;	/* the count before (0: the first) */
	unsigned int count;	/* the next batch's count */
};

/*
 * With write_batch_expire at its default, 125 ms: a third of it is
 * 41.7 ms, three times 375 ms.
 */
static const struct as_test_batch_case as_test_batch_cases[] = {
	{ "far_too_long_halves", AS_TEST_WRITES, 500, 0,
	  AS_WRITE_BATCH_INIT / 2 },
	{ "too_long_shrinks", AS_TEST_WRITES, 300, 0, AS_WRITE_BATCH_INIT - 1 },
	{ "on_target_stays", AS_TEST_WRITES, 125, 0, AS_WRITE_BATCH_INIT },
	{ "too_short_grows", AS_TEST_WRITES, 50, 0, AS_WRITE_BATCH_INIT + 1 },
	{ "far_too_short_doubles", AS_TEST_WRITES, 20, 0,
	  AS_WRITE_BATCH_INIT * 2 },
	{ "short_of_writes_stays", AS_WRITE_BATCH_INIT / 2, 20, 0,
	  AS_WRITE_BATCH_INIT },
	{ "never_below_one", AS_TEST_WRITES, 500, 1, 1 },
};

static void as_test_batch_case_desc(const struct as_test_batch_case *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(as_test_batch, as_test_batch_cases, as_test_batch_case_desc);

/*
 * The read's first completion times the write batch before it, even if
 * the next write batch was chosen meanwhile: a batch that kept the read
 * waiting longer than write_batch_expire gives a smaller count, one that
 * sent its whole count in less a larger one.
 */
static void as_test_write_batch_count_adapts(struct kunit *test)
{
	const struct as_test_batch_case *c = test->param_value;
	struct as_data *ad = test->priv;

	if (c->from)
		ad->write_batch_count = c->from;
	as_test_write_batch(test, c->writes, c->back_ms);
	KUNIT_EXPECT_EQ(test, ad->write_batch_count, c->count);
}

/* A batch that sent a count at the cap quickly does not raise it. */
static void as_test_write_batch_count_capped(struct kunit *test)
{
	struct as_data *ad = test->priv;

	ad->write_batch_count = AS_WRITE_BATCH_MAX;
	ad->writes_left = 0;
	as_size_write_batch(ad, IOQ_TEST_MS);
	KUNIT_EXPECT_EQ(test, ad->write_batch_count, AS_WRITE_BATCH_MAX);
}

static struct kunit_case as_test_cases[] = {
	KUNIT_CASE(as_test_waits_for_close_thinker),
	KUNIT_CASE(as_test_arrived_goes_first),
	KUNIT_CASE(as_test_window_times_out),
	KUNIT_CASE(as_test_no_wait_for_slow_thinker),
	KUNIT_CASE(as_test_no_wait_for_far_seeker),
	KUNIT_CASE(as_test_no_wait_past_close_read),
	KUNIT_CASE(as_test_no_wait_with_request_queued),
	KUNIT_CASE(as_test_no_wait_on_parallel_devices),
	KUNIT_CASE(as_test_exit_ends_wait),
	KUNIT_CASE(as_test_window_opens_at_completion),
	KUNIT_CASE(as_test_bypass_ends_wait),
	KUNIT_CASE(as_test_writes_get_their_batch),
	KUNIT_CASE(as_test_batch_starts_drained),
	KUNIT_CASE(as_test_write_batch_ends_after_its_count),
	KUNIT_CASE(as_test_write_batch_waits_for_tag_bound_writeback),
	KUNIT_CASE(as_test_writeback_wait_is_bounded),
	KUNIT_CASE(as_test_tag_bound_batch_sends_its_count),
	KUNIT_CASE(as_test_sync_request_ends_writeback_wait),
	KUNIT_CASE(as_test_no_writeback_wait_with_tags_free),
	KUNIT_CASE(as_test_write_batch_holds_its_count_alone),
	KUNIT_CASE(as_test_idle_write_batch_is_not_sized),
	KUNIT_CASE(as_test_write_batch_timed_after_the_drain),
	KUNIT_CASE(as_test_resent_read_does_not_size),
	KUNIT_CASE(as_test_write_batch_count_capped),
	KUNIT_CASE_PARAM(as_test_write_batch_count_adapts,
			 as_test_batch_gen_params),
	{}
};

static struct kunit_suite as_test_suite = {
	.name = "mq_as",
	.init = as_test_init,
	.exit = as_test_exit,
	.test_cases = as_test_cases,
};

kunit_test_suite(as_test_suite);
