// SPDX-License-Identifier: GPL-2.0
/*
 * mq-as: anticipatory I/O scheduling for blk-mq.
 *
 * DOC: How mq-as serves the device
 *
 * Requests go in one of two directions: sync (reads, O_DIRECT and other
 * sync writes) and async (writeback).  Each direction keeps its requests
 * in sector order and in arrival order with a deadline (read_expire,
 * write_expire), and the device serves one direction at a time, in
 * batches: a sync batch lasts read_batch_expire and an async one
 * write_batch_expire, counted from the batch's first completion, and a
 * batch starts once the requests of the last one are back from the
 * device.  Within a batch, requests go in one sweep across the disk from
 * one head position shared by all processes; a request past its
 * deadline is served out of order, looked for at most once a deadline.
 * When the batch ends and the other direction has requests, it gets the
 * next batch, so writeback waits at most one sync batch (and the one
 * anticipation window that may end it) behind any number of readers.
 *
 * A batch's requests would all go to the device long before its time is
 * up when the device queue is deep, and the next batch would wait for
 * them.  So a write batch keeps at most a count of requests on the
 * device, and once sync requests wait for it, lets them wait for that
 * many writes at most: a count adapted from batch to batch so that they
 * wait about write_batch_expire.  The count is what a batch sends, not
 * its depth: a device with two scheduler tags gets one write at a time,
 * and its write batch waits for writeback's next write, which waits for
 * the tag of the last (see as_waits_for_writeback()).
 *
 * Anticipation: a process that reads a file in order, or a few files in
 * turn, sends its next read shortly after its last one completed.  If
 * the scheduler served another process's read, or writes, in that short
 * time, the head would move away and come back: two seeks for every
 * read.  So after a process's sync request, mq-as may hold the device for
 * up to antic_expire for that process's next request.  It does so only
 * where waiting is likely to pay: the process thinks for less than the
 * window (its decayed mean think time), and it does not seek further
 * than the request the scheduler would serve instead (its decayed mean
 * seek distance against that request's distance from the head).  A
 * request of that process, a sync request close to the head (the
 * distance counted as close doubles with every millisecond waited), the
 * process's exit, the end of the window, or a request sent past the
 * scheduler (one the driver gave back) ends anticipation.  It never
 * anticipates where blk-ioq counts several units (a RAID, or flash,
 * where another request is served meanwhile rather than instead), nor on
 * a non-rotational device unless antic_nonrot asks.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "blk-mq-sched.h"
#include "blk-ioq.h"

#define CREATE_TRACE_POINTS
#include <trace/events/mq_as.h>

enum as_dir {
	AS_SYNC,
	AS_ASYNC,
	AS_NR_DIRS,
};

/* Where anticipation stands. */
enum as_antic_state {
	AS_ANTIC_OFF,		/* nobody anticipated since the last dispatch */
	AS_ANTIC_WAIT_REQ,	/* until the process's request completes */
	AS_ANTIC_WAIT_NEXT,	/* then, for its next one: the window runs */
	AS_ANTIC_FINISHED,	/* over until the next sync dispatch */
};

/* Why anticipation ended, or did not start, as debugfs and tracing say. */
enum as_antic_why {
	AS_ANTIC_ARRIVED,	/* the process's next request came */
	AS_ANTIC_CLOSE,		/* a request close to the head came */
	AS_ANTIC_TIMEOUT,	/* the window ended */
	AS_ANTIC_EXITED,	/* the process went away */
	AS_ANTIC_BYPASS,	/* a request went past the policy, or back */
	AS_ANTIC_QUEUED,	/* not started: its next request is queued */
	AS_ANTIC_TAGS,		/* not started: every scheduler tag is taken */
	AS_ANTIC_NEAR,		/* not started: a close request is queued */
	AS_ANTIC_THINKS,	/* not started: it thinks longer than the window */
	AS_ANTIC_SEEKS,		/* not started: it seeks further than the next */
	AS_NR_ANTIC_WHYS,
};

/* A reason's name, which must fit the tracepoints' field whole. */
#define AS_ANTIC_NAME(name) \
	(BUILD_BUG_ON_ZERO(sizeof(name) > MQ_AS_NAME_LEN) + (name))

static const char *const as_antic_names[AS_NR_ANTIC_WHYS] = {
	[AS_ANTIC_ARRIVED] = AS_ANTIC_NAME("arrived"),
	[AS_ANTIC_CLOSE] = AS_ANTIC_NAME("close"),
	[AS_ANTIC_TIMEOUT] = AS_ANTIC_NAME("timeout"),
	[AS_ANTIC_EXITED] = AS_ANTIC_NAME("exited"),
	[AS_ANTIC_BYPASS] = AS_ANTIC_NAME("bypass"),
	[AS_ANTIC_QUEUED] = AS_ANTIC_NAME("queued"),
	[AS_ANTIC_TAGS] = AS_ANTIC_NAME("tags"),
	[AS_ANTIC_NEAR] = AS_ANTIC_NAME("near"),
	[AS_ANTIC_THINKS] = AS_ANTIC_NAME("thinks"),
	[AS_ANTIC_SEEKS] = AS_ANTIC_NAME("seeks"),
};

/*
 * A sync request this close to the head (sectors, 4 MiB) is served rather
 * than waited past; the distance doubles with every millisecond waited.
 */
#define AS_CLOSE_SECTORS	8192
#define AS_CLOSE_MAX_SHIFT	20
/*
 * A write batch's first count, in requests; as_size_write_batch() adapts
 * it.  The cap is blk-mq's default nr_requests of the deepest devices,
 * which sent as many writes per batch when the count was capped at
 * nr_requests (only one raised above it sends fewer), and a count the
 * device outgrew comes down in a few halvings.
 */
#define AS_WRITE_BATCH_INIT	8
#define AS_WRITE_BATCH_MAX	(2 * BLKDEV_DEFAULT_RQ)
/* How far back the sweep may step, and what a backward sector costs. */
#define AS_BACK_SECTORS		(16 * 1024 * 2)
#define AS_BACK_PENALTY		2

/* Tunables, in the units sysfs shows them. */
struct as_tunables {
	unsigned int expire[AS_NR_DIRS];	/* ms: read_, write_expire */
	unsigned int batch_expire[AS_NR_DIRS];	/* ms: read_, write_batch_ */
	unsigned int antic_expire;		/* ms, 0: never anticipate */
	unsigned int antic_nonrot;
};

struct as_data {
	struct ioq_sched core;		/* must be first: its lock guards all */
	struct as_tunables tun;

	struct ioq dir[AS_NR_DIRS];	/* one sweep and FIFO per direction */
	u64 fifo_checked_ns[AS_NR_DIRS];	/* last look at a deadline */
	enum as_dir batch;
	bool batch_changed;		/* the last batch's requests drain */
	bool batch_new;			/* no completion in this batch yet */
	u64 batch_end_ns;
	/*
	 * A write batch keeps at most write_batch_count requests on the
	 * device, and once sync requests wait, lets them wait for that many
	 * writes at most (writes_left: those it may still send): a count
	 * adapted so that they wait about write_batch_expire however deep
	 * the device queue is (see as_size_write_batch()).
	 */
	u64 write_batch_start_ns;	/* when the first sync request waited */
	unsigned int write_batch_count;
	unsigned int writes_left;
	bool write_batch_contended;	/* sync requests wait for it */
	bool write_batch_idled;		/* no write was queued nor on the device */
	bool write_batch_sizing;	/* it ended: a sync completion sizes it */
	/*
	 * The device is held for writeback's next write (see
	 * as_waits_for_writeback()); the windows opened, and those it came in.
	 */
	bool writeback_window;
	u64 writeback_waits;
	u64 writeback_arrived;

	enum as_antic_state antic;
	struct ioq_client *antic_client;	/* its last sync dispatch's */
	struct request *arrived;	/* the request that ended the wait */
	u64 antic_count[AS_NR_ANTIC_WHYS];
	u64 antic_waited_ns;

	struct ioq_client async_client;	/* writeback, whoever dirtied it */
	struct ioq_client oom_client;	/* when a process's can't be had */
};

/* The tunables' offsets are from the core, which the elevator data is. */
static_assert(offsetof(struct as_data, core) == 0);

static struct kmem_cache *as_client_cache;

static inline struct as_data *as_of(struct ioq_sched *s)
{
	return container_of(s, struct as_data, core);
}

static enum as_dir as_dir_of(const struct request *rq)
{
	return op_is_sync(rq->cmd_flags) ? AS_SYNC : AS_ASYNC;
}

static enum as_dir as_other_dir(enum as_dir dir)
{
	return dir == AS_SYNC ? AS_ASYNC : AS_SYNC;
}

static u64 as_ms(unsigned int ms)
{
	return (u64)ms * NSEC_PER_MSEC;
}

/* The process's client, or writeback's; the core takes a reference. */
static struct ioq_client *as_client_of(struct ioq_sched *s,
				       struct request *rq)
{
	struct as_data *ad = as_of(s);
	struct ioq_icq *qic = ioq_rq_icq(rq);
	struct ioq_client *c;

	if (!rq_is_sync(rq))
		return &ad->async_client;
	if (!qic)
		return &ad->oom_client;
	if (!qic->client) {
		c = kmem_cache_alloc(as_client_cache, GFP_NOWAIT | __GFP_NOWARN);
		if (!c)
			return &ad->oom_client;
		ioq_client_init(c);
		c->pid = current->pid;
		qic->client = c;
	}
	return qic->client;
}

static void as_free_client(struct ioq_sched *s, struct ioq_client *c)
{
	struct as_data *ad = as_of(s);

	/* Writeback's and the OOM client are part of as_data. */
	if (WARN_ON_ONCE(c == &ad->async_client || c == &ad->oom_client))
		return;
	kmem_cache_free(as_client_cache, c);
}

/* Anticipate @c from now on, or nobody (NULL). */
static void as_set_antic_client(struct as_data *ad, struct ioq_client *c)
{
	if (ad->antic_client == c)
		return;
	if (c)
		ioq_get_client(c);
	if (ad->antic_client)
		ioq_put_client(&ad->core, ad->antic_client);
	ad->antic_client = c;
}

static bool as_antic_waiting(const struct as_data *ad)
{
	return ad->antic == AS_ANTIC_WAIT_REQ ||
	       ad->antic == AS_ANTIC_WAIT_NEXT;
}

static pid_t as_antic_pid(const struct as_data *ad)
{
	return ad->antic_client ? ad->antic_client->pid : 0;
}

/* Anticipation ends, or does not start, for reason @why. */
static void as_antic_end(struct as_data *ad, u64 now, enum as_antic_why why)
{
	u64 waited = ioq_idle_stop(&ad->core, now);

	ad->antic_count[why]++;
	ad->antic_waited_ns += waited;
	ad->antic = AS_ANTIC_FINISHED;
	trace_mq_as_antic_end(ad->core.queue, as_antic_pid(ad), waited,
			      as_antic_names[why]);
}

/* The process's last request is back: its window opens. */
static void as_antic_wait_next(struct as_data *ad, u64 now)
{
	ad->antic = AS_ANTIC_WAIT_NEXT;
	ioq_idle_start(&ad->core, now, as_ms(ad->tun.antic_expire));
}

/*
 * Hold the device for the process: its window opens now, or when its
 * request on the device is back (the tracepoint's window is then 0).
 */
static void as_antic_begin(struct as_data *ad, u64 now)
{
	bool on_device = ad->antic_client->in_flight;

	trace_mq_as_antic_start(ad->core.queue, as_antic_pid(ad),
				on_device ? 0 : as_ms(ad->tun.antic_expire));
	if (on_device)
		ad->antic = AS_ANTIC_WAIT_REQ;
	else
		as_antic_wait_next(ad, now);
}

/* Sectors from the sync sweep's head to @rq. */
static sector_t as_head_distance(const struct as_data *ad,
				 const struct request *rq)
{
	return ioq_distance(blk_rq_pos(rq), ad->dir[AS_SYNC].head_pos);
}

/*
 * Whether @rq, sync, is close enough to the head to serve instead of
 * waiting: within AS_CLOSE_SECTORS, twice that for every millisecond the
 * window has run.
 */
static bool as_close(const struct as_data *ad, const struct request *rq,
		     u64 now)
{
	u64 waited_ms = 0;

	if (ad->antic == AS_ANTIC_WAIT_NEXT)
		waited_ms = div_u64(ioq_ns_since(now, ad->core.idle_start_ns),
				    NSEC_PER_MSEC);
	return as_head_distance(ad, rq) <= (sector_t)AS_CLOSE_SECTORS <<
			min_t(u64, waited_ms, AS_CLOSE_MAX_SHIFT);
}

/* Whether anticipation can pay on this device at all. */
static bool as_antic_enabled(struct as_data *ad, u64 now)
{
	struct ioq_sched *s = &ad->core;

	if (!ad->tun.antic_expire)
		return false;
	if (blk_queue_nonrot(s->queue) && !ad->tun.antic_nonrot)
		return false;
	/* With several units, another request is served meanwhile. */
	return ioq_units(s, now) == 1;
}

/* Every scheduler tag is taken: whoever waits for one cannot send. */
static bool as_tags_taken(const struct as_data *ad)
{
	const struct ioq_sched *s = &ad->core;

	return s->queued + s->in_flight >= s->queue->nr_requests;
}

/*
 * Why not to hold the device for the process of the last sync dispatch,
 * with @rq (sync, or NULL) the request that would go instead, @distance
 * sectors from the head; or AS_NR_ANTIC_WHYS to hold it.
 */
static enum as_antic_why as_antic_veto(const struct as_data *ad,
				       const struct request *rq,
				       sector_t distance, u64 now)
{
	const struct ioq_client *c = ad->antic_client;
	u64 window = as_ms(ad->tun.antic_expire);

	if (c->queued)
		return AS_ANTIC_QUEUED;
	/* The process may be asleep waiting for a tag: it cannot come. */
	if (as_tags_taken(ad))
		return AS_ANTIC_TAGS;
	if (rq && as_close(ad, rq, now))
		return AS_ANTIC_NEAR;
	if (!ioq_stats_thinks_within(&c->stats, window))
		return AS_ANTIC_THINKS;
	if (rq && c->stats.seek_samples && c->stats.seek_mean > distance)
		return AS_ANTIC_SEEKS;
	return AS_NR_ANTIC_WHYS;
}

/*
 * Why the device is not held for the last sync dispatch's process, and
 * the figures weighed, for the tracer.
 */
static void as_trace_veto(const struct as_data *ad, sector_t distance,
			  enum as_antic_why veto)
{
	const struct ioq_client *c = ad->antic_client;

	trace_mq_as_antic_veto(ad->core.queue, c->pid, as_antic_names[veto],
			       c->stats.think_time_ns, c->stats.think_samples,
			       as_ms(ad->tun.antic_expire), c->stats.seek_mean,
			       c->stats.seek_samples, distance);
}

/* Whether to wait for the last sync dispatch's process instead of @rq. */
static bool as_anticipate(struct as_data *ad, const struct request *rq,
			  u64 now)
{
	enum as_antic_why veto;
	sector_t distance;

	if (!ad->antic_client || ad->antic != AS_ANTIC_OFF ||
	    !as_antic_enabled(ad, now))
		return false;
	distance = rq ? as_head_distance(ad, rq) : 0;
	veto = as_antic_veto(ad, rq, distance, now);
	if (veto == AS_NR_ANTIC_WHYS)
		return true;
	ad->antic_count[veto]++;
	as_trace_veto(ad, distance, veto);
	ad->antic = AS_ANTIC_FINISHED;
	return false;
}

/*
 * The oldest request of @dir if its deadline has passed, looked for at
 * most once a deadline period: under a backlog every request is late,
 * and serving them all in arrival order would seek for each.
 */
static struct request *as_expired_request(struct as_data *ad, enum as_dir dir,
					  u64 now)
{
	if (ioq_ns_since(now, ad->fifo_checked_ns[dir]) <
	    as_ms(ad->tun.expire[dir]))
		return NULL;
	ad->fifo_checked_ns[dir] = now;
	return ioq_expired_request(&ad->dir[dir]);
}

static struct request *as_sweep_request(const struct as_data *ad,
					enum as_dir dir)
{
	static const struct ioq_sweep sweep = {
		.back_max = AS_BACK_SECTORS,
		.back_penalty = AS_BACK_PENALTY,
	};

	if (ioq_empty(&ad->dir[dir]))
		return NULL;
	return ioq_next_request(&ad->dir[dir], &sweep);
}

/*
 * Writeback's writes on the device hold every scheduler tag writes may
 * have (async_depth: the one tag of a device with nr_requests 2), so its
 * next write waits for one of them to be freed: its direction is empty,
 * yet writeback is not done.  Sync writes share the limit and are not
 * counted: missing them only ends a batch as if there were no wait.
 */
static bool as_writeback_tag_bound(const struct as_data *ad,
				   unsigned int on_device)
{
	return on_device && on_device >= READ_ONCE(ad->core.async_depth);
}

/* The window for writeback's next write closes; @arrived: it came. */
static void as_writeback_window_end(struct as_data *ad, u64 now,
				    bool arrived)
{
	if (!ad->writeback_window)
		return;
	ioq_idle_stop(&ad->core, now);
	ad->writeback_window = false;
	ad->writeback_arrived += arrived;
}

/*
 * A batch ends at batch_end_ns, counted from its first completion; one
 * whose first request is not back yet has not started to run out.  A
 * write batch that sync requests wait for also ends once it has sent
 * its count.
 */
static bool as_batch_expired(const struct as_data *ad, u64 now)
{
	if (ad->batch_changed)
		return false;
	if (ad->batch == AS_ASYNC && ad->write_batch_contended &&
	    !ad->writes_left)
		return true;
	return !ad->batch_new && now >= ad->batch_end_ns;
}

/* The write batch has time and writes left, and waiting can pay. */
static bool as_write_batch_may_wait(struct as_data *ad, u64 now)
{
	return !as_batch_expired(ad, now) && as_antic_enabled(ad, now);
}

/*
 * Whether the write batch under way holds the device for writeback's
 * next write although none is queued, where anticipation pays (see
 * as_antic_enabled()): its tag-bound writes are on the device, or one
 * is just back and its window is open, and the batch has time and
 * writes left.  Else a device that takes one write at a time would get
 * one per read batch.  Like anticipation, it is off while blk-ioq
 * probes the device for several units.
 */
static bool as_waits_for_writeback(struct as_data *ad, u64 now)
{
	bool waiting = ad->writeback_window ?
		       now < ad->core.idle_until_ns :
		       as_writeback_tag_bound(ad, ad->async_client.in_flight);

	/* Last: ioq_units() may start a probe, as before the wait existed. */
	return waiting && as_write_batch_may_wait(ad, now);
}

/*
 * A write of the batch under way is back, and writeback's next one may
 * be waiting for its tag: open a window of antic_expire for it, within
 * the batch's time (its clock runs: this completion started it if none
 * did).  Not if every tag is taken, writeback could not send.
 */
static void as_writeback_window_start(struct as_data *ad, u64 now)
{
	if (ad->batch != AS_ASYNC || ad->batch_changed ||
	    ad->writeback_window || !ioq_empty(&ad->dir[AS_ASYNC]) ||
	    !as_writeback_tag_bound(ad, ad->async_client.in_flight + 1) ||
	    !as_write_batch_may_wait(ad, now) || as_tags_taken(ad))
		return;
	ad->writeback_window = true;
	ad->writeback_waits++;
	ioq_idle_start(&ad->core, now, min(as_ms(ad->tun.antic_expire),
					   ad->batch_end_ns - now));
}

/*
 * Whether the write batch holds the device rather than send a write:
 * the requests on it reach the batch's depth, min(count, nr_requests),
 * and the next batch would wait for more (one per unit, on a device that
 * serves several, and while blk-ioq probes whether it does), or none is
 * queued and writeback's next is coming.  Held back, a completion or the
 * window's end runs the queue again.
 */
static bool as_write_batch_holds(struct as_data *ad, u64 now)
{
	unsigned int depth = min(ad->write_batch_count,
				 ad->core.queue->nr_requests);

	if (ioq_empty(&ad->dir[AS_ASYNC]))
		return as_waits_for_writeback(ad, now);
	return ad->core.in_flight >= max(depth, ioq_units(&ad->core, now));
}

/*
 * A sync request waits from @now for the write batch under way, if it is
 * the first: the batch's clock starts, and the writes it may still send
 * are its count less those already on the device.  A batch with no write
 * queued nor on the device is not timed unless it sends one: the wait
 * would be the sync request's own.
 */
static void as_contend_write_batch(struct as_data *ad, u64 now)
{
	unsigned int on_device = ad->async_client.in_flight;

	if (ad->batch != AS_ASYNC || ad->batch_changed ||
	    ad->write_batch_contended)
		return;
	ad->write_batch_contended = true;
	ad->write_batch_idled = ioq_empty(&ad->dir[AS_ASYNC]) && !on_device;
	ad->write_batch_start_ns = now;
	ad->writes_left = ad->write_batch_count -
			  min(ad->write_batch_count, on_device);
}

/*
 * A write batch begins sending at @now, the last batch's requests back:
 * contended from the start if sync requests are queued.  A measurement
 * still pending was lost to a requeued request; it is dropped.
 */
static void as_begin_write_batch(struct as_data *ad, u64 now)
{
	ad->write_batch_contended = false;
	ad->write_batch_sizing = false;
	ad->writes_left = ad->write_batch_count;
	if (!ioq_empty(&ad->dir[AS_SYNC]))
		as_contend_write_batch(ad, now);
}

/*
 * The first sync request after a contended write batch is back: @wait_ns
 * is how long sync requests waited for the batch, from the first one's
 * arrival (or the batch's start) to that completion, the writes left on
 * the device included.  Like 2.6's AS, shrink the count of a batch that
 * took longer than write_batch_expire and grow that of a batch that sent
 * its whole count in less: fast when far off.
 */
static void as_size_write_batch(struct as_data *ad, u64 wait_ns)
{
	u64 target = as_ms(ad->tun.batch_expire[AS_ASYNC]);
	unsigned int count = ad->write_batch_count;

	if (wait_ns > target)
		count = wait_ns > 3 * target ? count / 2 : count - 1;
	else if (wait_ns < target && !ad->writes_left)
		count = 3 * wait_ns < target ? count * 2 : count + 1;
	ad->write_batch_count = clamp_t(unsigned int, count, 1,
					AS_WRITE_BATCH_MAX);
}

/*
 * The next batch goes to the other direction: it waits for the last
 * batch's requests, and nobody is anticipated across it, the head will
 * have moved.  A write batch that sync requests waited for is sized by
 * the first of them to complete.  (A batch ends when it expired or its
 * direction is empty, so the direction always changes.)
 */
static void as_change_batch(struct as_data *ad)
{
	enum as_dir dir = as_other_dir(ad->batch);

	ad->batch_changed = true;
	as_set_antic_client(ad, NULL);
	if (dir == AS_SYNC) {
		ad->write_batch_sizing = ad->write_batch_contended &&
					 !ad->write_batch_idled;
		ad->write_batch_contended = false;
	}
	ad->batch = dir;
	ad->batch_new = true;
}

/*
 * The request to send next in the current batch: a late one, the one
 * that ended a wait, or the sweep's; NULL if the batch waits
 * (anticipation, or a write batch's count on the device) or has
 * nothing, and *@waits tells which.
 */
static struct request *as_batch_request(struct as_data *ad, u64 now,
					bool *waits)
{
	enum as_dir dir = ad->batch;
	struct request *rq;

	*waits = dir == AS_ASYNC && as_write_batch_holds(ad, now);
	if (*waits)
		return NULL;
	rq = as_expired_request(ad, dir, now);
	if (rq)
		return rq;
	if (dir == AS_SYNC && ad->arrived)
		return ad->arrived;
	rq = as_sweep_request(ad, dir);
	if (dir == AS_SYNC && as_anticipate(ad, rq, now)) {
		as_antic_begin(ad, now);
		*waits = true;
		return NULL;
	}
	return rq;
}

/*
 * The policy's choice, taken off its queue: the current batch's next
 * request, or, once the batch expired or ran out, the oldest of a new
 * batch (sync first, unless the last batch was sync and writes wait),
 * when the last batch's requests are back.
 */
static struct request *as_take_request(struct ioq_sched *s, u64 now)
{
	struct as_data *ad = as_of(s);
	bool reads = !ioq_empty(&ad->dir[AS_SYNC]);
	bool writes = !ioq_empty(&ad->dir[AS_ASYNC]);
	struct request *rq = NULL;
	bool waits;

	if (ad->antic == AS_ANTIC_WAIT_NEXT && now >= s->idle_until_ns)
		as_antic_end(ad, now, AS_ANTIC_TIMEOUT);
	if (as_antic_waiting(ad))
		return NULL;
	if (ad->writeback_window && !as_waits_for_writeback(ad, now))
		as_writeback_window_end(ad, now, false);
	if (!ad->batch_changed &&
	    !(reads && writes && as_batch_expired(ad, now))) {
		rq = as_batch_request(ad, now, &waits);
		if (waits)
			return NULL;
	}
	if (!rq && !ad->batch_changed) {
		if (!reads && !writes)
			return NULL;
		as_change_batch(ad);
	}
	if (ad->batch_changed) {
		/* The requests still on the device complete and run us. */
		if (s->in_flight)
			return NULL;
		ad->batch_changed = false;
		if (ad->batch == AS_ASYNC)
			as_begin_write_batch(ad, now);
	}
	if (!rq)
		rq = as_expired_request(ad, ad->batch, now) ?:
		     ioq_oldest_request(&ad->dir[ad->batch]);
	/* Requests leave a direction only here, or merged into its own. */
	if (WARN_ON_ONCE(!rq))
		return NULL;
	ioq_del_request(&ad->dir[as_dir_of(rq)], rq);
	as_writeback_window_end(ad, now, as_dir_of(rq) == AS_ASYNC);
	/* Alone, a batch runs on: its time counts against the other's. */
	if (ioq_empty(&ad->dir[as_other_dir(ad->batch)]))
		ad->batch_end_ns = now + as_ms(ad->tun.batch_expire[ad->batch]);
	if (ad->batch == AS_ASYNC && ad->write_batch_contended &&
	    ad->writes_left) {
		ad->writes_left--;
		ad->write_batch_idled = false;
	}
	return rq;
}

/*
 * @rq goes to the device: the head moves, and its process is the one to
 * anticipate next, if it is one process that is still there.  A wait in
 * progress, for a process or for writeback, ends: a requeued request went
 * out past the policy.
 */
static void as_dispatched(struct ioq_sched *s, struct request *rq, u64 now)
{
	struct as_data *ad = as_of(s);
	struct ioq_client *c = ioq_rq_client(rq);
	sector_t end = blk_rq_pos(rq) + blk_rq_sectors(rq);
	enum as_dir dir;

	if (as_antic_waiting(ad))
		as_antic_end(ad, now, AS_ANTIC_BYPASS);
	as_writeback_window_end(ad, now, false);
	if (rq == ad->arrived)
		ad->arrived = NULL;
	for (dir = 0; dir < AS_NR_DIRS; dir++)
		ad->dir[dir].head_pos = end;
	if (as_dir_of(rq) == AS_SYNC && !c->exited && c != &ad->oom_client)
		as_set_antic_client(ad, c);
	else
		as_set_antic_client(ad, NULL);
	ad->antic = AS_ANTIC_OFF;
}

static void as_insert(struct ioq_sched *s, struct request *rq, u64 now)
{
	struct as_data *ad = as_of(s);
	enum as_dir dir = as_dir_of(rq);

	ioq_add_request(&ad->dir[dir], rq,
			jiffies + msecs_to_jiffies(ad->tun.expire[dir]));
	if (dir == AS_SYNC) {
		as_contend_write_batch(ad, now);
		/*
		 * It may hold the tag writeback waits for (on a device of
		 * two tags, the one free): do not hold the device for a
		 * write that may not come.
		 */
		as_writeback_window_end(ad, now, false);
	}
	if (ad->antic == AS_ANTIC_WAIT_NEXT && now >= s->idle_until_ns)
		as_antic_end(ad, now, AS_ANTIC_TIMEOUT);
	if (!as_antic_waiting(ad) || dir != AS_SYNC)
		return;
	if (ioq_rq_client(rq) == ad->antic_client) {
		as_antic_end(ad, now, AS_ANTIC_ARRIVED);
		ad->arrived = rq;
	} else if (as_close(ad, rq, now)) {
		as_antic_end(ad, now, AS_ANTIC_CLOSE);
	}
}

/*
 * A request of @c is back: the batch's first starts its clock, the first
 * sync one after a write batch that sync requests waited for sizes the
 * next, and the anticipated process's last opens its window, as a write
 * does for writeback's next.  One in the new batch's direction while the
 * last batch drains was sent again past the policy: it does neither.
 */
static void as_completed(struct ioq_sched *s, struct ioq_client *c,
			 u64 service_ns, u64 now)
{
	struct as_data *ad = as_of(s);
	enum as_dir dir = c == &ad->async_client ? AS_ASYNC : AS_SYNC;
	bool resent = ad->batch_changed && ad->batch == dir;

	if (ad->batch_new && dir == ad->batch && !resent) {
		ad->batch_end_ns = now + as_ms(ad->tun.batch_expire[dir]);
		ad->batch_new = false;
	}
	if (dir == AS_SYNC && ad->write_batch_sizing && !resent) {
		as_size_write_batch(ad, ioq_ns_since(now,
						     ad->write_batch_start_ns));
		ad->write_batch_sizing = false;
	}
	if (ad->antic == AS_ANTIC_WAIT_REQ && c == ad->antic_client &&
	    !c->in_flight)
		as_antic_wait_next(ad, now);
	if (dir == AS_ASYNC)
		as_writeback_window_start(ad, now);
}

/*
 * A request of @c came back unserved.  If the wait was for it to
 * complete, it will not: the wait ends.  Nothing else is undone: the
 * request goes out first again, past the policy, and a batch that
 * started meanwhile waited for one request fewer.
 */
static void as_requeued(struct ioq_sched *s, struct ioq_client *c, u64 now)
{
	struct as_data *ad = as_of(s);

	if (ad->antic == AS_ANTIC_WAIT_REQ && c == ad->antic_client &&
	    !c->in_flight)
		as_antic_end(ad, now, AS_ANTIC_BYPASS);
}

/* @next left its direction's queue, merged into @rq of its client. */
static void as_merged(struct ioq_sched *s, struct request *rq,
		      struct request *next)
{
	struct as_data *ad = as_of(s);

	if (ad->arrived == next)
		ad->arrived = rq;
	ioq_merged_requests(&ad->dir[as_dir_of(next)], rq, next);
}

/* Nobody will send the request anticipation waits for. */
static void as_exited(struct ioq_sched *s, struct ioq_client *c, u64 now)
{
	struct as_data *ad = as_of(s);

	if (c != ad->antic_client)
		return;
	if (as_antic_waiting(ad))
		as_antic_end(ad, now, AS_ANTIC_EXITED);
	as_set_antic_client(ad, NULL);
}

/*
 * The client @bio of the current process would join: its own (the core's
 * merge client) for a sync bio, writeback's for an async one.
 */
static struct ioq_client *as_bio_client(struct ioq_sched *s, struct bio *bio)
{
	lockdep_assert_held(&s->lock);
	if (op_is_sync(bio->bi_opf))
		return s->merge_client;
	return &as_of(s)->async_client;
}

static const struct ioq_policy_ops as_policy_ops = {
	.client_of	= as_client_of,
	.insert		= as_insert,
	.next_request	= as_take_request,
	.dispatched	= as_dispatched,
	.completed	= as_completed,
	.requeued	= as_requeued,
	.merged		= as_merged,
	.exited		= as_exited,
	.bio_client	= as_bio_client,
	.free_client	= as_free_client,
};

/* Front merges: look in the bio's direction, among its client's requests. */
static int as_request_merge(struct request_queue *q, struct request **rq,
			    struct bio *bio)
{
	struct as_data *ad = as_of(q->elevator->elevator_data);
	enum as_dir dir = op_is_sync(bio->bi_opf) ? AS_SYNC : AS_ASYNC;
	struct request *found;

	found = ioq_front_merge_candidate(&ad->dir[dir], bio);
	if (!found)
		return ELEVATOR_NO_MERGE;
	*rq = found;
	return blk_discard_mergable(found) ? ELEVATOR_DISCARD_MERGE :
					     ELEVATOR_FRONT_MERGE;
}

static void as_request_merged(struct request_queue *q, struct request *rq,
			      enum elv_merge type)
{
	struct as_data *ad = as_of(q->elevator->elevator_data);
	struct ioq *ioq = &ad->dir[as_dir_of(rq)];

	if (type == ELEVATOR_FRONT_MERGE) {
		elv_rb_del(&ioq->sort_list, rq);
		elv_rb_add(&ioq->sort_list, rq);
	}
}

/*
 * 2.6 AS's defaults, but for read_batch_expire: halved to 250 ms, as a
 * write may wait for a whole read batch, one anticipation and the reads'
 * drain (see the DOC comment above).
 */
static const struct as_tunables as_defaults = {
	.expire = { [AS_SYNC] = 125, [AS_ASYNC] = 250 },
	.batch_expire = { [AS_SYNC] = 250, [AS_ASYNC] = 125 },
	.antic_expire = 6,
	.antic_nonrot = 0,
};

/* Set up a zeroed @ad to schedule @q with the default tunables. */
static void as_init_data(struct as_data *ad, struct request_queue *q)
{
	enum as_dir dir;

	ioq_sched_init(&ad->core, q, &as_policy_ops);
	ad->tun = as_defaults;
	for (dir = 0; dir < AS_NR_DIRS; dir++)
		ioq_init(&ad->dir[dir]);
	ad->batch = AS_SYNC;
	ad->batch_new = true;
	ad->write_batch_count = AS_WRITE_BATCH_INIT;
	ioq_client_init(&ad->async_client);
	ioq_client_init(&ad->oom_client);
}

static int as_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct as_data *ad;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	ad = kzalloc_node(sizeof(*ad), GFP_KERNEL, q->node);
	if (!ad) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	as_init_data(ad, q);
	eq->elevator_data = &ad->core;
	/* One sweep and one head for the device, not per hw queue. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	return 0;
}

static void as_exit_sched(struct elevator_queue *e)
{
	struct as_data *ad = as_of(e->elevator_data);

	ioq_sched_stop(&ad->core);
	spin_lock_irq(&ad->core.lock);
	as_set_antic_client(ad, NULL);
	spin_unlock_irq(&ad->core.lock);
	ioq_sched_exit(&ad->core);
	kfree(ad);
}

/*
 * Tunables under queue/iosched/, with 2.6's names, and the core's of the
 * device's units (IOQ_SPINDLES_TUNABLE).  Each is declared once, with its
 * limits, by AS_TUNABLE().
 */
#define AS_TUNABLE(name, member, lo, hi)				\
	IOQ_TUNABLE(as_##name, struct as_data, tun.member, lo, hi, false)

AS_TUNABLE(read_expire, expire[AS_SYNC], 1, 60000);
AS_TUNABLE(write_expire, expire[AS_ASYNC], 1, 60000);
AS_TUNABLE(read_batch_expire, batch_expire[AS_SYNC], 1, 60000);
AS_TUNABLE(write_batch_expire, batch_expire[AS_ASYNC], 1, 60000);
AS_TUNABLE(antic_expire, antic_expire, 0, 1000);
AS_TUNABLE(antic_nonrot, antic_nonrot, 0, 1);
#undef AS_TUNABLE
IOQ_SPINDLES_TUNABLE(as, struct as_data);

#define AS_ATTR(name)							\
	__ATTR(name, 0644, as_##name##_show, as_##name##_store)
static struct elv_fs_entry as_attrs[] = {
	AS_ATTR(read_expire),
	AS_ATTR(write_expire),
	AS_ATTR(read_batch_expire),
	AS_ATTR(write_batch_expire),
	AS_ATTR(antic_expire),
	AS_ATTR(antic_nonrot),
	AS_ATTR(spindles),
	__ATTR_NULL
};

#undef AS_ATTR

#ifdef CONFIG_BLK_DEBUG_FS
static const char *const as_dir_names[AS_NR_DIRS] = {
	[AS_SYNC] = "sync", [AS_ASYNC] = "async",
};

/*
 * The batch: its direction, the time left, the requests queued in each
 * direction, a write batch's count and what is left of it, and
 * anticipation: its state and the process it is for.
 */
static int as_batch_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct as_data *ad = as_of(q->elevator->elevator_data);
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&ad->core.lock, flags);
	now = ktime_get_ns();
	seq_printf(m, "batch %s\nbatch_left_us %lld\nsync_queued %u\nasync_queued %u\nwrite_batch_count %u\nwrites_left %u\nantic_state %d\nantic_pid %d\n",
		   as_dir_names[ad->batch],
		   ad->batch_new ? -1LL :
		   div_s64((s64)(ad->batch_end_ns - now), NSEC_PER_USEC),
		   ad->dir[AS_SYNC].queued, ad->dir[AS_ASYNC].queued,
		   ad->write_batch_count, ad->writes_left,
		   ad->antic, as_antic_pid(ad));
	spin_unlock_irqrestore(&ad->core.lock, flags);
	return 0;
}

/* How often anticipation ended, or was not started, for each reason. */
static int as_antic_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct as_data *ad = as_of(q->elevator->elevator_data);
	unsigned long flags;
	int why;

	spin_lock_irqsave(&ad->core.lock, flags);
	for (why = 0; why < AS_NR_ANTIC_WHYS; why++)
		seq_printf(m, "%s %llu\n", as_antic_names[why],
			   ad->antic_count[why]);
	seq_printf(m, "waited_ms %llu\n",
		   div_u64(ad->antic_waited_ns, NSEC_PER_MSEC));
	seq_printf(m, "writeback_waits %llu\nwriteback_arrived %llu\n",
		   ad->writeback_waits, ad->writeback_arrived);
	spin_unlock_irqrestore(&ad->core.lock, flags);
	return 0;
}

static const struct blk_mq_debugfs_attr as_queue_debugfs_attrs[] = {
	{"antic", 0400, as_antic_show},
	{"batch", 0400, as_batch_show},
	{"estimator", 0400, ioq_estimator_show},
	{"records", 0400, ioq_records_show},
	{},
};
#endif

static struct elevator_type mq_as = {
	/* ioq_elv_register() fills in the core's operations and icq. */
	.ops = {
		.request_merge		= as_request_merge,
		.request_merged		= as_request_merged,
		.init_sched		= as_init_sched,
		.exit_sched		= as_exit_sched,
	},
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = as_queue_debugfs_attrs,
#endif
	.elevator_attrs = as_attrs,
	.elevator_name = "mq-as",
	.elevator_owner = THIS_MODULE,
};
MODULE_ALIAS("mq-as-iosched");

static int __init as_init(void)
{
	int ret;

	as_client_cache = kmem_cache_create("mq_as_client",
					    sizeof(struct ioq_client), 0, 0,
					    NULL);
	if (!as_client_cache)
		return -ENOMEM;
	ret = ioq_elv_register(&mq_as);
	if (ret)
		kmem_cache_destroy(as_client_cache);
	return ret;
}

static void __exit as_exit(void)
{
	elv_unregister(&mq_as);
	kmem_cache_destroy(as_client_cache);
}

module_init(as_init);
module_exit(as_exit);

#ifdef CONFIG_MQ_IOSCHED_AS_KUNIT_TEST
#include "mq-as-iosched_kunit.c"
#endif

MODULE_AUTHOR("iosched team");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Anticipatory I/O scheduler for blk-mq");
