// SPDX-License-Identifier: GPL-2.0
/*
 * Shared core of the time-slice I/O schedulers (mq-cfq and the policies
 * that follow it).
 *
 * DOC: What the core provides
 *
 * A policy keeps its requests in &struct ioq containers (one per process,
 * as CFQ did, or one per direction for all processes, as AS did) and
 * asks the core three kinds of question:
 *
 * - Which request next?  Requests sit in a sector-sorted tree and in a FIFO
 *   with a deadline each.  ioq_next_request() continues the sweep from
 *   where the last dispatch ended, taking a short backward seek when it is
 *   cheaper than the forward one; ioq_expired_request() returns the oldest
 *   request once its deadline has passed.
 *
 * - How does the process behave?  &struct ioq_stats keeps a bit history of
 *   the last 32 requests (was each one a seek?), a decayed mean think time
 *   (from a completion to the process's next request), a decayed mean
 *   request size and a decayed mean seek distance.  On a rotational
 *   device a seek is a jump of more than a distance; on a non-rotational
 *   device position costs nothing and a "seek" is a request too small to
 *   use the device's bandwidth.  A queue is seeky when more than a
 *   threshold of its last 32 requests were seeks, so short sequential
 *   runs (a multi-page mmap fault reads its pages in order) are not seeky
 *   even though every run starts with one.
 *
 * - How many units does the device have?  &struct ioq_par_est measures
 *   whether throughput grows with depth (ioq_units() gives its answer).
 *   A policy uses it to idle where idling pays: on one spindle, not on a
 *   RAID.
 *   A RAID that reports its chunk and stripe sizes also tells which unit
 *   holds a sector (&struct ioq_layout), so a policy can idle per unit.
 */
#include <linux/bitops.h>
#include <linux/blk-mq.h>
#include <linux/ioprio.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <kunit/visibility.h>
#include <trace/events/block.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-ioq.h"

/**
 * ioq_decay - fold a sample into a decayed mean
 * @mean: the mean so far
 * @sample: the new sample
 * @samples: samples seen so far, saturating at 1 << IOQ_DECAY_SHIFT
 *
 * The plain mean of the first samples, then an exponential decay by 1/8.
 */
static u64 ioq_decay(u64 mean, u64 sample, u32 *samples)
{
	if (*samples < (1U << IOQ_DECAY_SHIFT))
		(*samples)++;
	if (sample >= mean)
		return mean + div_u64(sample - mean, *samples);
	return mean - div_u64(mean - sample, *samples);
}

/**
 * ioq_scale_by_level - scale a time slice by ioprio level, as CFQ did
 * @base: the slice of level 4 (IOPRIO_BE_NORM)
 * @level: 0 (highest) to 7 (lowest)
 *
 * Levels are a fifth of @base apart: level 0 gets 1.8 times @base, level 7
 * gets 0.4 times.
 */
u64 ioq_scale_by_level(u64 base, unsigned int level)
{
	u64 step = div_u64(base, 5);

	if (level <= IOPRIO_BE_NORM)
		return base + step * (IOPRIO_BE_NORM - level);
	return base - step * (level - IOPRIO_BE_NORM);
}
EXPORT_SYMBOL_GPL(ioq_scale_by_level);

/**
 * ioq_request_is_seek - would serving this request cost a seek?
 * @p: classification parameters of the device
 * @last_end: sector after the previous request of the same process
 * @pos: first sector of the request
 * @bytes: size of the request
 */
VISIBLE_IF_KUNIT bool ioq_request_is_seek(const struct ioq_seek_params *p,
					  sector_t last_end, sector_t pos,
					  unsigned int bytes)
{
	sector_t distance = ioq_distance(pos, last_end);

	if (p->rotational)
		return distance > p->max_distance;
	return bytes < p->min_bytes;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_request_is_seek);

VISIBLE_IF_KUNIT void ioq_stats_add_request(struct ioq_stats *s,
					    const struct ioq_seek_params *p,
					    sector_t pos, unsigned int bytes)
{
	u32 size_samples = min(s->requests, 1U << IOQ_DECAY_SHIFT);

	/* The first request has nothing to seek from. */
	if (s->requests) {
		s->seek_history = s->seek_history << 1 |
			ioq_request_is_seek(p, s->last_end, pos, bytes);
		s->seek_mean = ioq_decay(s->seek_mean,
					 ioq_distance(pos, s->last_end),
					 &s->seek_samples);
	}
	if (s->requests < IOQ_SEEK_HISTORY)
		s->requests++;
	s->last_end = pos + (bytes >> SECTOR_SHIFT);
	s->mean_bytes = ioq_decay(s->mean_bytes, bytes, &size_samples);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_stats_add_request);

VISIBLE_IF_KUNIT bool ioq_stats_seeky(const struct ioq_stats *s,
				      const struct ioq_seek_params *p)
{
	return hweight32(s->seek_history) > p->max_seeks;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_stats_seeky);

/**
 * ioq_stats_arrival - a request of the process arrives
 * @s: the process's statistics
 * @now_ns: current time
 * @idle_queue: the process had nothing queued or in flight, so the time
 *	since its last completion is time it spent thinking
 */
VISIBLE_IF_KUNIT void ioq_stats_arrival(struct ioq_stats *s, u64 now_ns,
					bool idle_queue)
{
	if (!idle_queue || !s->last_completion_ns ||
	    now_ns < s->last_completion_ns)
		return;
	s->think_time_ns = ioq_decay(s->think_time_ns,
				     now_ns - s->last_completion_ns,
				     &s->think_samples);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_stats_arrival);

/* Completions may be accounted out of order: keep the latest. */
VISIBLE_IF_KUNIT void ioq_stats_completion(struct ioq_stats *s, u64 now_ns)
{
	s->last_completion_ns = max(s->last_completion_ns, now_ns);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_stats_completion);

/* A process not measured yet is given the benefit of the doubt. */
bool ioq_stats_thinks_within(const struct ioq_stats *s, u64 limit_ns)
{
	return !s->think_samples || s->think_time_ns <= limit_ns;
}
EXPORT_SYMBOL_GPL(ioq_stats_thinks_within);

/* Mean depths (in eighths) that file a window as shallow or deep. */
#define IOQ_PAR_SHALLOW_X8	12	/* at most 1.5 */
#define IOQ_PAR_DEEP_X8		16	/* at least 2 */
/* Deep throughput this many eighths of the shallow one: several units. */
#define IOQ_PAR_GAIN_X8		12

static void ioq_par_reset_window(struct ioq_par_est *e)
{
	e->window_busy_ns = 0;
	e->window_depth_ns = 0;
	e->window_completions = 0;
}

VISIBLE_IF_KUNIT void ioq_par_init(struct ioq_par_est *e)
{
	memset(e, 0, sizeof(*e));
}
EXPORT_SYMBOL_IF_KUNIT(ioq_par_init);

/*
 * Busy time and the depth integral advance only while requests are out.
 * Completions may be stamped before the caller takes its lock, so an
 * event may come stamped earlier than the one before it: time never runs
 * backwards here, or the next interval would be counted twice.
 */
static void ioq_par_advance(struct ioq_par_est *e, u64 now_ns)
{
	u64 dt;

	dt = ioq_ns_since(now_ns, e->last_event_ns);
	if (!dt)
		return;
	if (e->in_flight) {
		e->window_busy_ns += dt;
		e->window_depth_ns += dt * e->in_flight;
	}
	e->last_event_ns = now_ns;
}

static void ioq_par_close_window(struct ioq_par_est *e, u64 now_ns)
{
	u64 depth_x8, rate;

	if (!e->window_busy_ns)
		goto reset;
	depth_x8 = div64_u64(e->window_depth_ns * 8, e->window_busy_ns);
	rate = div64_u64((u64)e->window_completions * NSEC_PER_SEC <<
			 IOQ_DECAY_SHIFT, e->window_busy_ns);
	if (depth_x8 <= IOQ_PAR_SHALLOW_X8) {
		e->shallow_rate = ioq_decay(e->shallow_rate, rate,
					    &e->shallow_windows);
	} else if (depth_x8 >= IOQ_PAR_DEEP_X8) {
		e->deep_rate = ioq_decay(e->deep_rate, rate, &e->deep_windows);
		e->last_deep_ns = now_ns;
	}
reset:
	ioq_par_reset_window(e);
}

VISIBLE_IF_KUNIT void ioq_par_dispatch(struct ioq_par_est *e, u64 now_ns)
{
	ioq_par_advance(e, now_ns);
	e->in_flight++;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_par_dispatch);

/*
 * A dispatched request came back unserved (the driver was busy): it no
 * longer counts as in flight, and the window it was counted in measured a
 * device that refused work, not its parallelism, so the window is dropped.
 */
VISIBLE_IF_KUNIT void ioq_par_requeue(struct ioq_par_est *e, u64 now_ns)
{
	ioq_par_advance(e, now_ns);
	if (e->in_flight)
		e->in_flight--;
	ioq_par_reset_window(e);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_par_requeue);

VISIBLE_IF_KUNIT void ioq_par_complete(struct ioq_par_est *e, u64 now_ns,
				       bool small)
{
	ioq_par_advance(e, now_ns);
	if (e->in_flight)
		e->in_flight--;
	if (!small) {
		ioq_par_reset_window(e);
		return;
	}
	if (++e->window_completions >= IOQ_PAR_WINDOW)
		ioq_par_close_window(e, now_ns);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_par_complete);

/**
 * ioq_par_units - how many requests the device serves in parallel
 * @e: the estimator
 * @prior: the answer until both shallow and deep windows were measured
 *
 * Return: 1 when deep windows are not markedly faster than shallow ones,
 * otherwise the throughput gain, a lower bound on the number of units.
 */
VISIBLE_IF_KUNIT unsigned int ioq_par_units(const struct ioq_par_est *e,
					    unsigned int prior)
{
	u64 gain_x8;

	if (!e->shallow_windows || !e->deep_windows || !e->shallow_rate)
		return prior;
	gain_x8 = div64_u64(e->deep_rate * 8, e->shallow_rate);
	if (gain_x8 < IOQ_PAR_GAIN_X8)
		return 1;
	return clamp_t(u64, DIV_ROUND_CLOSEST_ULL(gain_x8, 8), 2,
		       IOQ_PAR_MAX_UNITS);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_par_units);

/**
 * ioq_layout_init - the layout of a striped device, from its topology
 * @l: the layout to set
 * @io_min: the chunk size in bytes (queue_io_min())
 * @io_opt: the full stripe in bytes (queue_io_opt())
 * @rotational: whether the device spins
 *
 * A rotational device reports a layout when its full stripe is at least
 * two chunks of whole sectors and at most %IOQ_PAR_MAX_UNITS; otherwise
 * @l says one unit and no chunk.  Flash (an NVMe drive with an optimal
 * write size, an SSD with an erase block) reports such sizes without
 * being an array of independent units, and its parallelism is measured
 * instead.
 */
VISIBLE_IF_KUNIT void ioq_layout_init(struct ioq_layout *l, unsigned int io_min,
				      unsigned int io_opt, bool rotational)
{
	l->chunk_sectors = 0;
	l->units = 1;
	l->io_min = io_min;
	l->io_opt = io_opt;
	l->rotational = rotational;
	if (!rotational)
		return;
	if (io_min < SECTOR_SIZE || io_min % SECTOR_SIZE || io_opt % io_min)
		return;
	if (io_opt / io_min < 2 || io_opt / io_min > IOQ_PAR_MAX_UNITS)
		return;
	l->chunk_sectors = io_min >> SECTOR_SHIFT;
	l->units = io_opt / io_min;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_layout_init);

/**
 * ioq_layout_update - take the layout anew if the topology changed
 * @l: the layout, set before by ioq_layout_init()
 * @io_min: the chunk size in bytes, now
 * @io_opt: the full stripe in bytes, now
 * @rotational: whether the device spins, now
 *
 * Queue limits change while a scheduler is attached (a RAID controller's
 * volume rescanned, a disk revalidated, queue/rotational written); the
 * core calls this from ioq_update_layout() before a policy chooses by the
 * layout.
 *
 * Context: the caller serialises its calls on @l.
 * Return: true when the layout was taken anew.
 */
VISIBLE_IF_KUNIT bool ioq_layout_update(struct ioq_layout *l,
					unsigned int io_min,
					unsigned int io_opt, bool rotational)
{
	if (io_min == l->io_min && io_opt == l->io_opt &&
	    rotational == l->rotational)
		return false;
	ioq_layout_init(l, io_min, io_opt, rotational);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_layout_update);

/* The unit that holds sector @pos; 0 without a layout. */
VISIBLE_IF_KUNIT unsigned int ioq_layout_unit(const struct ioq_layout *l,
					      sector_t pos)
{
	if (!l->chunk_sectors)
		return 0;
	sector_div(pos, l->chunk_sectors);
	return sector_div(pos, l->units);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_layout_unit);

void ioq_init(struct ioq *ioq)
{
	ioq->sort_list = RB_ROOT;
	INIT_LIST_HEAD(&ioq->fifo);
	ioq->queued = 0;
	ioq->head_pos = 0;
}
EXPORT_SYMBOL_GPL(ioq_init);

/* Queue @rq, to be served by jiffies value @expire at the latest. */
void ioq_add_request(struct ioq *ioq, struct request *rq,
		     unsigned long expire)
{
	struct request_queue *q = rq->q;

	elv_rb_add(&ioq->sort_list, rq);
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	rq->fifo_time = expire;
	list_add_tail(&rq->queuelist, &ioq->fifo);
	ioq->queued++;
}
EXPORT_SYMBOL_GPL(ioq_add_request);

void ioq_del_request(struct ioq *ioq, struct request *rq)
{
	struct request_queue *q = rq->q;

	list_del_init(&rq->queuelist);
	if (!RB_EMPTY_NODE(&rq->rb_node))
		elv_rb_del(&ioq->sort_list, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
	ioq->queued--;
}
EXPORT_SYMBOL_GPL(ioq_del_request);

/*
 * @next was merged into @rq, both queued in @ioq: @rq keeps the earlier
 * deadline and its place in the FIFO, and @next leaves the queue.
 */
void ioq_merged_requests(struct ioq *ioq, struct request *rq,
			 struct request *next)
{
	if (time_before((unsigned long)next->fifo_time,
			(unsigned long)rq->fifo_time)) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	ioq_del_request(ioq, next);
}
EXPORT_SYMBOL_GPL(ioq_merged_requests);

/**
 * ioq_request_due - the oldest request, if its deadline is near
 * @ioq: the queue
 * @within: how near, in jiffies; 0 asks whether it has passed
 */
struct request *ioq_request_due(const struct ioq *ioq, unsigned long within)
{
	struct request *rq = ioq_oldest_request(ioq);

	if (!rq)
		return NULL;
	return time_after_eq(jiffies + within, (unsigned long)rq->fifo_time) ?
	       rq : NULL;
}
EXPORT_SYMBOL_GPL(ioq_request_due);

struct request *ioq_expired_request(const struct ioq *ioq)
{
	return ioq_request_due(ioq, 0);
}
EXPORT_SYMBOL_GPL(ioq_expired_request);

/* The first request at or after @sector, and the last one before it. */
static struct request *ioq_around(const struct rb_root *root, sector_t sector,
				  struct request **before)
{
	struct rb_node *node = root->rb_node;
	struct request *after = NULL;

	*before = NULL;
	while (node) {
		struct request *rq = rb_entry_rq(node);

		if (blk_rq_pos(rq) < sector) {
			*before = rq;
			node = node->rb_right;
		} else {
			after = rq;
			node = node->rb_left;
		}
	}
	return after;
}

/**
 * ioq_next_request - the request that continues the sweep
 * @ioq: a queue with requests
 * @sweep: how far back the head may go, and at what cost
 *
 * Return: the nearest request ahead of the head, or the nearest one behind
 * it when that is within @sweep->back_max and, counted with the penalty,
 * closer; when nothing is ahead, the sweep starts over from the lowest
 * sector.
 */
struct request *ioq_next_request(const struct ioq *ioq,
				 const struct ioq_sweep *sweep)
{
	sector_t head = ioq->head_pos;
	struct request *ahead, *behind;

	ahead = ioq_around(&ioq->sort_list, head, &behind);
	if (behind && head - blk_rq_pos(behind) > sweep->back_max)
		behind = NULL;
	if (!ahead)
		return behind ?: rb_entry_rq(rb_first(&ioq->sort_list));
	if (!behind)
		return ahead;
	if ((head - blk_rq_pos(behind)) * sweep->back_penalty <
	    blk_rq_pos(ahead) - head)
		return behind;
	return ahead;
}
EXPORT_SYMBOL_GPL(ioq_next_request);

/* A queued request that @bio could be front-merged into, or NULL. */
struct request *ioq_front_merge_candidate(struct ioq *ioq, struct bio *bio)
{
	struct request *rq = elv_rb_find(&ioq->sort_list, bio_end_sector(bio));

	return rq && elv_bio_merge_ok(rq, bio) ? rq : NULL;
}
EXPORT_SYMBOL_GPL(ioq_front_merge_candidate);

/*
 * DOC: The scheduler core
 *
 * A policy puts &struct ioq_sched first in its data and registers its
 * elevator_type with ioq_elv_register(), which fills in the core's
 * elevator operations (ioq_mq_ops).  The core then does what any
 * per-process scheduler on blk-mq has to: it keeps each process's client
 * (&struct ioq_client, in the policy's per-process object) through the
 * process's icq, restricts merges to the bio's own client, keeps a record
 * of each request on the device (when it was sent, on which unit) in
 * memory per scheduler tag, measures service times and the device's
 * parallelism from them, and runs the queue when an idle window ends.
 * Requests the block layer inserts at the head, or hands back, bypass the
 * policy.  The policy (&struct ioq_policy_ops) keeps the requests in its
 * own queues and decides which goes next, whom to idle for and what each
 * client is charged.
 */

static const struct ioq_tunables ioq_default_tunables = {
	.seek_distance = IOQ_AUTO,
	.seek_min_size = IOQ_AUTO,
	.seeky_requests = 4,
	.spindles = IOQ_AUTO,
};

/* How long and how often to probe a rotational device's parallelism. */
#define IOQ_PROBE_NS		(250 * NSEC_PER_MSEC)
#define IOQ_PROBE_EVERY_NS	(2 * NSEC_PER_SEC)
#define IOQ_REPROBE_EVERY_NS	(10 * NSEC_PER_SEC)

static inline struct ioq_sched *ioq_sched_of(const struct request_queue *q)
{
	return q->elevator->elevator_data;
}

VISIBLE_IF_KUNIT struct ioq_seek_params
ioq_seek_params(const struct ioq_sched *s)
{
	const struct ioq_tunables *t = &s->tun;

	return (struct ioq_seek_params) {
		.rotational = !blk_queue_nonrot(s->queue),
		.max_distance = t->seek_distance == IOQ_AUTO ?
				IOQ_SEEK_DISTANCE_AUTO : t->seek_distance,
		.min_bytes = (t->seek_min_size == IOQ_AUTO ?
			      IOQ_SEEK_MIN_KB_AUTO : t->seek_min_size) * 1024,
		.max_seeks = t->seeky_requests,
	};
}
EXPORT_SYMBOL_IF_KUNIT(ioq_seek_params);

bool ioq_client_seeky(const struct ioq_sched *s, const struct ioq_client *c)
{
	struct ioq_seek_params p = ioq_seek_params(s);

	return ioq_stats_seeky(&c->stats, &p);
}
EXPORT_SYMBOL_GPL(ioq_client_seeky);

void ioq_client_init(struct ioq_client *c)
{
	memset(c, 0, sizeof(*c));
	c->ref = 1;
}
EXPORT_SYMBOL_GPL(ioq_client_init);

/* A freed client holds no unit: its memory may become another client. */
static void ioq_release_units(struct ioq_sched *s, const struct ioq_client *c)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s->units); i++)
		if (s->units[i].owner == c)
			s->units[i].owner = NULL;
}

void ioq_put_client(struct ioq_sched *s, struct ioq_client *c)
{
	lockdep_assert_held(&s->lock);
	if (--c->ref)
		return;
	WARN_ON_ONCE(c->queued || c->in_flight);
	ioq_release_units(s, c);
	s->ops->free_client(s, c);
}
EXPORT_SYMBOL_GPL(ioq_put_client);

/*
 * Run the queue in @delay_ns at the latest: one timer serves every wait,
 * so a later expiry never replaces an earlier one.  Context: the lock.
 */
void ioq_arm_timer(struct ioq_sched *s, u64 delay_ns)
{
	ktime_t at = ktime_add_ns(ktime_get(), delay_ns);

	lockdep_assert_held(&s->lock);
	if (hrtimer_is_queued(&s->timer) &&
	    ktime_before(hrtimer_get_expires(&s->timer), at))
		return;
	hrtimer_start(&s->timer, at, HRTIMER_MODE_ABS_SOFT);
}
EXPORT_SYMBOL_GPL(ioq_arm_timer);

/* Hold the device for @window: the timer runs the queue when it ends. */
void ioq_idle_start(struct ioq_sched *s, u64 now, u64 window)
{
	s->idle_start_ns = now;
	s->idle_until_ns = now + window;
	ioq_arm_timer(s, window);
}
EXPORT_SYMBOL_GPL(ioq_idle_start);

/* Idling is over: return how long the device waited, 0 if it did not. */
u64 ioq_idle_stop(struct ioq_sched *s, u64 now)
{
	u64 idled;

	if (!ioq_idling(s))
		return 0;
	idled = ioq_ns_since(now, s->idle_start_ns);
	s->idle_start_ns = 0;
	s->idle_until_ns = 0;
	hrtimer_try_to_cancel(&s->timer);
	return idled;
}
EXPORT_SYMBOL_GPL(ioq_idle_stop);

/*
 * Run the queue soon, from the timer: work was held back and neither a
 * completion nor a timer would run it.  Called with @s->lock held.
 */
VISIBLE_IF_KUNIT void ioq_kick(struct ioq_sched *s)
{
	ioq_arm_timer(s, 0);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_kick);

static void ioq_run_queue(struct ioq_sched *s)
{
	blk_mq_run_hw_queues(s->queue, true);
}

/*
 * The timer ran: the dispatch path decides what the end of a wait means.
 * An earlier expiry (a kick, a policy's own timer) may end up here while
 * the device idles: then the queue would find the window still open and
 * nobody would run it at its end, so the timer moves on to that end.
 */
static enum hrtimer_restart ioq_timer_fn(struct hrtimer *timer)
{
	struct ioq_sched *s = container_of(timer, struct ioq_sched, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (ioq_idling(s) && ktime_get_ns() < s->idle_until_ns &&
	    !hrtimer_is_queued(timer)) {
		hrtimer_set_expires(timer, ns_to_ktime(s->idle_until_ns));
		ret = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (ret == HRTIMER_NORESTART)
		s->run_queue(s);
	return ret;
}

/* Whether the device's units are learnt by probing it (see below). */
static bool ioq_may_probe(const struct ioq_sched *s)
{
	return s->tun.spindles == IOQ_AUTO && !s->layout.chunk_sectors &&
	       !blk_queue_nonrot(s->queue);
}

static bool ioq_probe_running(const struct ioq_sched *s, u64 now)
{
	return ioq_ns_since(now, s->probe_start_ns) < IOQ_PROBE_NS;
}

/* Whether the device counts as many units now because it is probed. */
static bool ioq_probing(const struct ioq_sched *s, u64 now)
{
	return ioq_may_probe(s) && ioq_probe_running(s, now);
}

/*
 * Start a probe of a rotational device when one is due: for a short
 * while, any number of requests may be out at once, so that the
 * estimator sees deep windows.  Without it, idling would keep the depth
 * at one on a RAID and the estimator could never learn otherwise; with
 * it, a RAID's estimate is not capped by the depth its own idling allowed.
 */
static void ioq_start_probe_if_due(struct ioq_sched *s, u64 now)
{
	const struct ioq_par_est *par = &s->par;
	u64 every = par->deep_windows ? IOQ_REPROBE_EVERY_NS :
					IOQ_PROBE_EVERY_NS;
	u64 last = max(par->last_deep_ns, s->probe_start_ns);

	if (!ioq_probe_running(s, now) && ioq_ns_since(now, last) >= every)
		s->probe_start_ns = now;
}

/*
 * The units the device counts as at @now, changing nothing: forced by the
 * spindles tunable, reported by a striped device, measured, or assumed:
 * many on flash until measured, one on a rotational device except while
 * it is probed.  The debugfs readers use it: a read must not start a
 * probe.
 */
VISIBLE_IF_KUNIT unsigned int ioq_units_peek(const struct ioq_sched *s, u64 now)
{
	if (ioq_probing(s, now))
		return IOQ_PAR_MAX_UNITS;
	if (s->tun.spindles != IOQ_AUTO)
		return s->tun.spindles;
	if (s->layout.chunk_sectors)
		return s->layout.units;
	return ioq_par_units(&s->par, blk_queue_nonrot(s->queue) ?
				      IOQ_PAR_MAX_UNITS : 1);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_units_peek);

/**
 * ioq_units - requests the device serves in parallel, for a scheduling decision
 * @s: the scheduler
 * @now: current time
 *
 * Starts a probe of a rotational device when one is due.
 *
 * Return: the units the device counts as now (see ioq_units_peek()).
 */
unsigned int ioq_units(struct ioq_sched *s, u64 now)
{
	if (ioq_may_probe(s))
		ioq_start_probe_if_due(s, now);
	return ioq_units_peek(s, now);
}
EXPORT_SYMBOL_GPL(ioq_units);

VISIBLE_IF_KUNIT unsigned int ioq_unit_of(const struct ioq_sched *s,
					  const struct request *rq)
{
	return ioq_layout_unit(&s->layout, blk_rq_pos(rq));
}
EXPORT_SYMBOL_IF_KUNIT(ioq_unit_of);

/*
 * Whether @rq of @c may go to its unit: the unit is @c's, or has nothing
 * in flight and is no longer reserved for the client it served.
 */
bool ioq_unit_free_for(const struct ioq_sched *s, const struct ioq_client *c,
		       const struct request *rq, u64 now)
{
	const struct ioq_unit *unit = &s->units[ioq_unit_of(s, rq)];

	return unit->owner == c ||
	       (!unit->in_flight && now >= unit->free_at_ns);
}
EXPORT_SYMBOL_GPL(ioq_unit_free_for);

/*
 * Queue limits can change under the scheduler (a RAID controller's volume
 * rescanned, a disk revalidated, queue/rotational written): take the
 * layout anew before a policy chooses by it.  Requests in flight keep the
 * unit they were counted on; the old layout's reservations are dropped.
 * Most limit updates freeze the queue, and requests are queued here, so
 * the reads do not race with them; a read that races with an update
 * that does not freeze is taken anew at the next dispatch.
 */
VISIBLE_IF_KUNIT void ioq_update_layout(struct ioq_sched *s)
{
	struct request_queue *q = s->queue;
	unsigned int i;

	lockdep_assert_held(&s->lock);
	if (!ioq_layout_update(&s->layout, queue_io_min(q), queue_io_opt(q),
			       !blk_queue_nonrot(q)))
		return;
	for (i = 0; i < ARRAY_SIZE(s->units); i++) {
		s->units[i].owner = NULL;
		s->units[i].free_at_ns = 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ioq_update_layout);

VISIBLE_IF_KUNIT struct ioq_record *ioq_record_of(const struct request *rq)
{
	struct ioq_record_set *recs = rq->mq_hctx->sched_data;

	return &recs->rec[rq->internal_tag];
}
EXPORT_SYMBOL_IF_KUNIT(ioq_record_of);

/* Count @rq as sent to the device at @now, and tell the policy. */
static void ioq_account_dispatch(struct ioq_sched *s, struct request *rq,
				 u64 now)
{
	struct ioq_record *rec = ioq_record_of(rq);
	struct ioq_client *c = ioq_rq_client(rq);
	unsigned int unit = ioq_unit_of(s, rq);

	/* Counted twice, it would stay in flight for ever. */
	if (WARN_ON_ONCE(rec->dispatched))
		return;
	c->in_flight++;
	s->in_flight++;
	s->units[unit].owner = c;
	s->units[unit].in_flight++;
	ioq_par_dispatch(&s->par, now);
	rec->dispatch_ns = now;
	rec->unit = unit;
	rec->small = blk_rq_bytes(rq) <= IOQ_PAR_SMALL_BYTES;
	rec->dispatched = true;
	s->ops->dispatched(s, rq, now);
}

/*
 * The policy's next request.  Counted out of the scheduler here, so that
 * the policy's queues and the core's counts change together.
 */
static struct request *ioq_dispatch_queued(struct ioq_sched *s, u64 now)
{
	struct request *rq;

	if (!s->queued)
		return NULL;
	ioq_update_layout(s);
	rq = s->ops->next_request(s, now);
	if (!rq)
		return NULL;
	ioq_rq_client(rq)->queued--;
	s->queued--;
	ioq_account_dispatch(s, rq, now);
	return rq;
}

/*
 * With the lock held: the request to send now, if any.  One inserted at
 * the head goes first; one the driver gave back is counted as dispatched
 * again: on the device, it is in flight.
 */
VISIBLE_IF_KUNIT struct request *ioq_sched_dispatch(struct ioq_sched *s,
						    u64 now)
{
	struct request *rq;

	rq = list_first_entry_or_null(&s->dispatch, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		if (ioq_rq_client(rq))
			ioq_account_dispatch(s, rq, now);
	} else {
		rq = ioq_dispatch_queued(s, now);
	}
	if (rq)
		rq->rq_flags |= RQF_STARTED;
	s->held_back = !rq && s->queued;
	return rq;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_sched_dispatch);

static struct request *ioq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct ioq_sched *s = ioq_sched_of(hctx->queue);
	unsigned long flags;
	struct request *rq;

	spin_lock_irqsave(&s->lock, flags);
	/* Under the lock: idling and slices started before it are earlier. */
	rq = ioq_sched_dispatch(s, ktime_get_ns());
	spin_unlock_irqrestore(&s->lock, flags);
	return rq;
}

/* A new request of @c arrives: what it says about its process. */
static void ioq_client_arrival(struct ioq_sched *s, struct ioq_client *c,
			       const struct request *rq, u64 now)
{
	struct ioq_seek_params seek = ioq_seek_params(s);

	ioq_stats_arrival(&c->stats, now, !c->queued && !c->in_flight);
	ioq_stats_add_request(&c->stats, &seek, blk_rq_pos(rq),
			      blk_rq_bytes(rq));
}

VISIBLE_IF_KUNIT void ioq_sched_insert(struct ioq_sched *s, struct request *rq,
				       blk_insert_t flags, u64 now)
{
	struct ioq_client *c;

	trace_block_rq_insert(rq);
	if (flags & BLK_MQ_INSERT_AT_HEAD) {
		list_add(&rq->queuelist, &s->dispatch);
		return;
	}
	c = ioq_rq_client(rq);
	/* A requeued request is no news about its process. */
	if (!c) {
		c = s->ops->client_of(s, rq);
		ioq_get_client(c);
		rq->elv.priv[0] = c;
		ioq_client_arrival(s, c, rq, now);
	}
	c->queued++;
	s->queued++;
	s->ops->insert(s, rq, now);
}
EXPORT_SYMBOL_IF_KUNIT(ioq_sched_insert);

static void ioq_insert_requests(struct blk_mq_hw_ctx *hctx,
				struct list_head *list, blk_insert_t flags)
{
	struct ioq_sched *s = ioq_sched_of(hctx->queue);
	unsigned long irq_flags;
	u64 now;

	spin_lock_irqsave(&s->lock, irq_flags);
	/* Under the lock: idling and slices started before it are earlier. */
	now = ktime_get_ns();
	while (!list_empty(list)) {
		struct request *rq;

		rq = list_first_entry(list, struct request, queuelist);
		list_del_init(&rq->queuelist);
		ioq_sched_insert(s, rq, flags, now);
	}
	spin_unlock_irqrestore(&s->lock, irq_flags);
}

static bool ioq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct ioq_sched *s = ioq_sched_of(hctx->queue);

	return !list_empty_careful(&s->dispatch) || READ_ONCE(s->queued);
}

/*
 * A request of @c on @unit completed.  Once the unit is idle, it stays
 * reserved for @c as long as the policy holds it: the client's next
 * request is likely to continue its run on that unit.
 */
static void ioq_unit_completed(struct ioq_sched *s, const struct ioq_client *c,
			       unsigned int unit, u64 now)
{
	struct ioq_unit *u = &s->units[unit];

	if (--u->in_flight || !s->layout.chunk_sectors)
		return;
	u->free_at_ns = now;
	if (u->owner == c && s->ops->unit_hold_ns)
		u->free_at_ns += s->ops->unit_hold_ns(s, c);
}

/*
 * The request of @c that @rec records is back from the device.  Its
 * service is the time since the later of its dispatch and the previous
 * completion: with several requests out, the device served them one
 * after another as far as anyone can tell.  Returns whether dispatch held
 * back work that may go now.
 */
static bool ioq_completed(struct ioq_sched *s, struct ioq_client *c,
			  const struct ioq_record *rec, u64 now)
{
	u64 service = min(ioq_ns_since(now, rec->dispatch_ns),
			  ioq_ns_since(now, s->last_completion_ns));
	bool held_back = s->held_back;

	s->last_completion_ns = max(s->last_completion_ns, now);
	s->mean_service_ns = ioq_decay(s->mean_service_ns, service,
				       &s->service_samples);
	s->in_flight--;
	c->in_flight--;
	ioq_unit_completed(s, c, rec->unit, now);
	ioq_par_complete(&s->par, now, rec->small);
	ioq_stats_completion(&c->stats, now);
	s->ops->completed(s, c, service, now);
	s->held_back = false;
	return held_back;
}

/*
 * With the lock held: @rq, of a client, is freed at @now.  Returns
 * whether the queue must be run again for work dispatch held back.
 */
VISIBLE_IF_KUNIT bool ioq_sched_done(struct ioq_sched *s, struct request *rq,
				     u64 now)
{
	struct ioq_record *rec = ioq_record_of(rq);
	struct ioq_client *c = ioq_rq_client(rq);
	bool rerun = false;

	rq->elv.priv[0] = NULL;
	if (rec->dispatched) {
		rerun = ioq_completed(s, c, rec, now);
		rec->dispatched = false;
	}
	ioq_put_client(s, c);
	return rerun;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_sched_done);

static void ioq_prepare_request(struct request *rq)
{
	rq->elv.icq = ioc_find_get_icq(rq->q);
	rq->elv.priv[0] = NULL;
}

static void ioq_finish_request(struct request *rq)
{
	struct ioq_sched *s = ioq_sched_of(rq->q);
	unsigned long flags;
	bool rerun;

	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
	if (!ioq_rq_client(rq))
		return;
	spin_lock_irqsave(&s->lock, flags);
	rerun = ioq_sched_done(s, rq, ktime_get_ns());
	spin_unlock_irqrestore(&s->lock, flags);
	/* No completion will come to run it for work held back. */
	if (rerun)
		blk_mq_run_hw_queues(rq->q, true);
}

/*
 * With the lock held: the driver gave @rq back unserved, to go through
 * the scheduler again.  Undo the counts of its dispatch: no service to
 * charge, no completion for the estimator (a busy driver would otherwise
 * teach it that one spindle serves several requests at once; the
 * estimator drops its current window instead).  The unit's owner stays:
 * the request will be sent there again.
 */
VISIBLE_IF_KUNIT void ioq_sched_requeue(struct ioq_sched *s,
					struct request *rq, u64 now)
{
	struct ioq_record *rec = ioq_record_of(rq);
	struct ioq_client *c = ioq_rq_client(rq);

	/*
	 * A request the driver keeps prepared goes back to the device from
	 * the hardware queue's dispatch list, not through the scheduler: it
	 * stays in flight, and its completion accounts for it.
	 */
	if (!rec->dispatched || (rq->rq_flags & RQF_DONTPREP))
		return;
	s->units[rec->unit].in_flight--;
	c->in_flight--;
	s->in_flight--;
	if (s->ops->requeued)
		s->ops->requeued(s, c, now);
	ioq_par_requeue(&s->par, now);
	rec->dispatched = false;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_sched_requeue);

static void ioq_requeue_request(struct request *rq)
{
	struct ioq_sched *s = ioq_sched_of(rq->q);
	unsigned long flags;

	if (!ioq_rq_client(rq))
		return;
	spin_lock_irqsave(&s->lock, flags);
	ioq_sched_requeue(s, rq, ktime_get_ns());
	spin_unlock_irqrestore(&s->lock, flags);
}

static void ioq_exit_icq(struct io_cq *icq)
{
	struct ioq_icq *qic = container_of(icq, struct ioq_icq, icq);
	struct ioq_sched *s = ioq_sched_of(icq->q);
	struct ioq_client *c;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	/* A request prepared before the exit must not make a client now. */
	qic->exited = true;
	c = qic->client;
	qic->client = NULL;
	if (c) {
		c->exited = true;
		s->ops->exited(s, c, ktime_get_ns());
		ioq_put_client(s, c);
	}
	/*
	 * Dispatch may have held work back to wait for this process (idling,
	 * anticipation): the wait is over, and no completion may come to
	 * run the queue.
	 */
	if (s->held_back)
		ioq_kick(s);
	spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * The neighbours a request may merge with once a bio grew it: only
 * requests of the same client, as for bios (ioq_allow_merge()); a policy
 * whose sort tree holds several clients' requests needs that.
 */
static struct request *ioq_latter_request(struct request_queue *q,
					  struct request *rq)
{
	struct request *next = elv_rb_latter_request(q, rq);

	return next && ioq_rq_client(next) == ioq_rq_client(rq) ? next : NULL;
}

static struct request *ioq_former_request(struct request_queue *q,
					  struct request *rq)
{
	struct request *prev = elv_rb_former_request(q, rq);

	return prev && ioq_rq_client(prev) == ioq_rq_client(rq) ? prev : NULL;
}

/*
 * A bio joins only a request of the client it would join itself:
 * otherwise one process's I/O would be served and charged as another's.
 */
static bool ioq_allow_merge(struct request_queue *q, struct request *rq,
			    struct bio *bio)
{
	struct ioq_sched *s = ioq_sched_of(q);

	return ioq_rq_client(rq) &&
	       ioq_rq_client(rq) == s->ops->bio_client(s, bio);
}

/*
 * The icq of the current task on @q, from the lookup hint the block layer
 * keeps or else its tree: icqs are freed after an RCU grace period, so
 * under rcu_read_lock() this needs no queue_lock, which ioc_lookup_icq()
 * takes for every bio.  Without it, no sync bio of the task may merge.
 */
static struct io_cq *ioq_current_icq(struct request_queue *q)
{
	struct io_context *ioc = current->io_context;
	struct io_cq *icq;

	if (!ioc)
		return NULL;
	icq = rcu_dereference(ioc->icq_hint);
	if (!icq || icq->q != q)
		icq = radix_tree_lookup(&ioc->icq_tree, q->id);
	return icq && icq->q == q ? icq : NULL;
}

static bool ioq_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct ioq_sched *s = ioq_sched_of(q);
	struct request *free = NULL;
	unsigned long flags;
	struct io_cq *icq;
	bool merged;

	rcu_read_lock();
	icq = ioq_current_icq(q);
	spin_lock_irqsave(&s->lock, flags);
	/* exit_icq() clears the client under the lock */
	s->merge_client = icq ?
		container_of(icq, struct ioq_icq, icq)->client : NULL;
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	s->merge_client = NULL;
	spin_unlock_irqrestore(&s->lock, flags);
	rcu_read_unlock();

	if (free)
		blk_mq_free_request(free);
	return merged;
}

static void ioq_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct ioq_sched *s = ioq_sched_of(q);
	struct ioq_client *c = ioq_rq_client(next);

	lockdep_assert_held(&s->lock);
	if (!c)
		return;
	c->queued--;
	s->queued--;
	s->ops->merged(s, rq, next);
}

/*
 * Writes and async requests may hold at most three quarters of the
 * scheduler tags.  Otherwise writeback takes them all, a reader cannot
 * even allocate its request, and the scheduler idles for a request that
 * cannot arrive.  The IDLE class, served only once the others leave the
 * disk alone, may hold an eighth: it must not sit on the tags that the
 * others would need to end its wait.  The class is the submitting task's
 * (the allocation does not see the bio): a bio that a cgroup's ioprio
 * policy or a per-I/O priority makes IDLE is not limited here.
 */
static void ioq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct ioq_sched *s = ioq_sched_of(data->q);

	if (IOPRIO_PRIO_CLASS(get_current_ioprio()) == IOPRIO_CLASS_IDLE)
		data->shallow_depth = READ_ONCE(s->idle_depth);
	else if (!op_is_sync(opf) || op_is_write(opf))
		data->shallow_depth = READ_ONCE(s->async_depth);
}

/*
 * Records are allocated with GFP_NOIO: the queue is frozen, or being set
 * up, and reclaim must not wait for I/O to it.  @gfp adds to that.
 */
VISIBLE_IF_KUNIT struct ioq_record_set *
ioq_alloc_records(unsigned int nr, int node, gfp_t gfp)
{
	struct ioq_record_set *recs;

	recs = kvzalloc_node(struct_size(recs, rec, nr), GFP_NOIO | gfp, node);
	if (recs)
		recs->nr = nr;
	return recs;
}
EXPORT_SYMBOL_IF_KUNIT(ioq_alloc_records);

/*
 * Give @hctx the records @recs (NULL: none) and return those it had.  The
 * queue is frozen or not yet running; the lock is for the sched/ debugfs
 * readers, which walk hctx->sched_data under it and whose files exist
 * from before init_hctx to after exit_hctx.
 */
static struct ioq_record_set *ioq_replace_records(struct ioq_sched *s,
						  struct blk_mq_hw_ctx *hctx,
						  struct ioq_record_set *recs)
{
	struct ioq_record_set *old;

	spin_lock_irq(&s->lock);
	old = hctx->sched_data;
	hctx->sched_data = recs;
	spin_unlock_irq(&s->lock);
	return old;
}

/*
 * nr_requests grew beyond the tags @hctx's records were made for: blk-mq
 * gave the hardware queue new tags, with the queue frozen.  Make records
 * for them.  depth_updated cannot fail, and the tags are already given,
 * so this allocation (at most MAX_SCHED_RQ records, 32 KiB) may not fail
 * either.  Shared tags are allocated at their maximum and never grow.
 */
VISIBLE_IF_KUNIT void ioq_grow_records(struct ioq_sched *s,
				       struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_tags *tags = hctx->sched_tags;
	struct ioq_record_set *recs = hctx->sched_data;

	if (recs == s->shared_records) {
		WARN_ON_ONCE(tags->nr_tags > recs->nr);
		return;
	}
	if (tags->nr_tags <= recs->nr)
		return;
	recs = ioq_alloc_records(tags->nr_tags, hctx->numa_node, __GFP_NOFAIL);
	kvfree(ioq_replace_records(s, hctx, recs));
}
EXPORT_SYMBOL_IF_KUNIT(ioq_grow_records);

static void ioq_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct ioq_sched *s = ioq_sched_of(hctx->queue);
	unsigned int nr;

	ioq_grow_records(s, hctx);
	/* Called before q->nr_requests changes: the map has the new depth. */
	nr = hctx->sched_tags->bitmap_tags.sb.depth;
	WRITE_ONCE(s->async_depth, max(1U, nr * 3 / 4));
	WRITE_ONCE(s->idle_depth, max(1U, nr / 8));
	/*
	 * The smallest shallow depth in use, or wakeups may be missed.
	 * IDLE's eighth makes sbitmap wake tag waiters in small batches (at
	 * each freed tag with 64 tags), as mq-deadline and bfq always do.
	 */
	sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags,
					s->idle_depth);
}

/*
 * The records for @hctx's tags: its own, or the request queue's when its
 * hardware queues share their tags, made for the first of them.  Set
 * under the lock, for the sched/ debugfs readers.
 */
static struct ioq_record_set *ioq_hctx_records(struct ioq_sched *s,
					       struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct ioq_record_set *shared;

	if (!blk_mq_is_shared_tags(q->tag_set->flags))
		return ioq_alloc_records(hctx->sched_tags->nr_tags,
					 hctx->numa_node, __GFP_NOWARN);
	if (s->shared_records)
		return s->shared_records;
	shared = ioq_alloc_records(q->sched_shared_tags->nr_tags, q->node,
				   __GFP_NOWARN);
	spin_lock_irq(&s->lock);
	s->shared_records = shared;
	spin_unlock_irq(&s->lock);
	return shared;
}

static int ioq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	struct ioq_sched *s = ioq_sched_of(hctx->queue);
	struct ioq_record_set *recs = ioq_hctx_records(s, hctx);

	if (!recs)
		return -ENOMEM;
	/* Under the lock: the sched/ debugfs files are already there. */
	ioq_replace_records(s, hctx, recs);
	ioq_depth_updated(hctx);
	return 0;
}

static void ioq_exit_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	struct ioq_sched *s = ioq_sched_of(hctx->queue);
	struct ioq_record_set *recs = ioq_replace_records(s, hctx, NULL);

	if (recs != s->shared_records)
		kvfree(recs);
}

/**
 * ioq_sched_init - set up the core of a scheduler for @q
 * @s: the core, in zeroed memory
 * @q: the request queue
 * @ops: the policy
 *
 * The records of requests on the device are made by init_hctx.
 */
void ioq_sched_init(struct ioq_sched *s, struct request_queue *q,
		    const struct ioq_policy_ops *ops)
{
	spin_lock_init(&s->lock);
	s->queue = q;
	s->ops = ops;
	s->tun = ioq_default_tunables;
	INIT_LIST_HEAD(&s->dispatch);
	ioq_par_init(&s->par);
	ioq_layout_init(&s->layout, queue_io_min(q), queue_io_opt(q),
			!blk_queue_nonrot(q));
	hrtimer_init(&s->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	s->timer.function = ioq_timer_fn;
	s->run_queue = ioq_run_queue;
}
EXPORT_SYMBOL_GPL(ioq_sched_init);

/* The scheduler goes away: its timer must not run the queue any more. */
void ioq_sched_stop(struct ioq_sched *s)
{
	hrtimer_cancel(&s->timer);
}
EXPORT_SYMBOL_GPL(ioq_sched_stop);

/*
 * After ioq_sched_stop(), once the policy let go of every client it held;
 * the queue is frozen, so every request was freed and none is on the
 * device.
 */
void ioq_sched_exit(struct ioq_sched *s)
{
	WARN_ON_ONCE(s->queued || !list_empty(&s->dispatch) || s->in_flight);
	kvfree(s->shared_records);
}
EXPORT_SYMBOL_GPL(ioq_sched_exit);

/*
 * The elevator operations of every scheduler on the core; a policy adds
 * its own (see ioq_elv_register()).  Tests call the core through them.
 */
VISIBLE_IF_KUNIT const struct elevator_mq_ops ioq_mq_ops = {
	.depth_updated		= ioq_depth_updated,
	.init_hctx		= ioq_init_hctx,
	.exit_hctx		= ioq_exit_hctx,
	.limit_depth		= ioq_limit_depth,
	.allow_merge		= ioq_allow_merge,
	.bio_merge		= ioq_bio_merge,
	.requests_merged	= ioq_requests_merged,
	.prepare_request	= ioq_prepare_request,
	.finish_request		= ioq_finish_request,
	.requeue_request	= ioq_requeue_request,
	.insert_requests	= ioq_insert_requests,
	.dispatch_request	= ioq_dispatch_request,
	.has_work		= ioq_has_work,
	.next_request		= ioq_latter_request,
	.former_request		= ioq_former_request,
	.exit_icq		= ioq_exit_icq,
};
EXPORT_SYMBOL_IF_KUNIT(ioq_mq_ops);

/**
 * ioq_elv_register - register an I/O scheduler built on the core
 * @e: its elevator type, with the policy's operations set: init_sched and
 *	exit_sched, and optionally request_merge and request_merged
 *
 * Fills in the core's elevator operations (ioq_mq_ops) and the icq the
 * core keeps its clients in.  Each operation has one owner: a policy
 * that sets any operation but those four, or an icq of its own, is
 * refused.  The counterpart is elv_unregister().
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL if @e sets any other operation or an icq, or lacks
 * init_sched or exit_sched; or the error of elv_register().
 */
int ioq_elv_register(struct elevator_type *e)
{
	struct elevator_mq_ops policy = e->ops, core_part = e->ops;

	core_part.init_sched = NULL;
	core_part.exit_sched = NULL;
	core_part.request_merge = NULL;
	core_part.request_merged = NULL;
	if (WARN_ONCE(!policy.init_sched || !policy.exit_sched ||
		      memchr_inv(&core_part, 0, sizeof(core_part)) ||
		      e->icq_size || e->icq_align,
		      "blk-ioq: %s lacks init_sched or exit_sched, or sets what the core owns\n",
		      e->elevator_name))
		return -EINVAL;
	e->ops = ioq_mq_ops;
	e->ops.init_sched = policy.init_sched;
	e->ops.exit_sched = policy.exit_sched;
	e->ops.request_merge = policy.request_merge;
	e->ops.request_merged = policy.request_merged;
	e->icq_size = sizeof(struct ioq_icq);
	e->icq_align = __alignof__(struct ioq_icq);
	return elv_register(e);
}
EXPORT_SYMBOL_GPL(ioq_elv_register);

static unsigned int *ioq_tunable_ptr(struct ioq_sched *s,
				     const struct ioq_tunable *t)
{
	return (unsigned int *)((char *)s + t->offset);
}

ssize_t ioq_tunable_show(struct elevator_queue *e, char *page,
			 const struct ioq_tunable *t)
{
	unsigned int value = READ_ONCE(*ioq_tunable_ptr(e->elevator_data, t));

	if (value == IOQ_AUTO)
		return sysfs_emit(page, "auto\n");
	return sysfs_emit(page, "%u\n", value);
}
EXPORT_SYMBOL_GPL(ioq_tunable_show);

ssize_t ioq_tunable_store(struct elevator_queue *e, const char *page,
			  size_t count, const struct ioq_tunable *t)
{
	struct ioq_sched *s = e->elevator_data;
	unsigned long flags;
	unsigned int value;

	if (t->has_auto && sysfs_streq(page, "auto"))
		value = IOQ_AUTO;
	else if (kstrtouint(page, 10, &value) ||
		 value < t->min || value > t->max)
		return -EINVAL;

	spin_lock_irqsave(&s->lock, flags);
	*ioq_tunable_ptr(s, t) = value;
	spin_unlock_irqrestore(&s->lock, flags);
	return count;
}
EXPORT_SYMBOL_GPL(ioq_tunable_store);

#ifdef CONFIG_BLK_DEBUG_FS
int ioq_estimator_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct ioq_sched *s = ioq_sched_of(q);
	const struct ioq_par_est *par = &s->par;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&s->lock, flags);
	now = ktime_get_ns();
	seq_printf(m, "units %u\nprobing %d\nforced %d\nlayout_chunk_bytes %u\nshallow_iops %llu\nshallow_windows %u\ndeep_iops %llu\ndeep_windows %u\nin_flight %u\n",
		   ioq_units_peek(s, now),
		   ioq_probing(s, now),
		   s->tun.spindles != IOQ_AUTO,
		   s->layout.chunk_sectors << SECTOR_SHIFT,
		   par->shallow_rate >> IOQ_DECAY_SHIFT, par->shallow_windows,
		   par->deep_rate >> IOQ_DECAY_SHIFT, par->deep_windows,
		   s->in_flight);
	spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(ioq_estimator_show);

/*
 * The records of requests on the device: how many tag spaces have them
 * (one when the hardware queues share their tags), and how many records
 * and bytes of them in all.
 */
int ioq_records_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct ioq_sched *s = ioq_sched_of(q);
	struct ioq_record_set *shared;
	unsigned int spaces, nr;
	struct blk_mq_hw_ctx *hctx;
	unsigned long flags, i;

	spin_lock_irqsave(&s->lock, flags);
	shared = s->shared_records;
	spaces = !!shared;
	nr = shared ? shared->nr : 0;
	queue_for_each_hw_ctx(q, hctx, i) {
		struct ioq_record_set *recs = hctx->sched_data;

		if (recs && recs != shared) {
			spaces++;
			nr += recs->nr;
		}
	}
	seq_printf(m, "tag_spaces %u\nrecords %u\nbytes %zu\n", spaces, nr,
		   spaces * sizeof(struct ioq_record_set) +
		   nr * sizeof(struct ioq_record));
	spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(ioq_records_show);
#endif

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shared core of the time-slice I/O schedulers");
