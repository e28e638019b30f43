// SPDX-License-Identifier: GPL-2.0
/*
 * Shared core of the time-slice I/O schedulers (mq-cfq and the policies
 * that follow it).
 *
 * DOC: What the core provides
 *
 * A policy keeps one &struct ioq per process (per io_context) and asks the
 * core three kinds of question about it:
 *
 * - Which request next?  Requests sit in a sector-sorted tree and in a FIFO
 *   with a deadline each.  ioq_next_request() continues the sweep from
 *   where the last dispatch ended, taking a short backward seek when it is
 *   cheaper than the forward one; ioq_expired_request() returns the oldest
 *   request once its deadline has passed.
 *
 * - How does the process behave?  &struct ioq_stats keeps a bit history of
 *   the last 32 requests (was each one a seek?), a decayed mean think time
 *   (from a completion to the process's next request) and a decayed mean
 *   request size.  On a rotational device a seek is a jump of more than
 *   a distance; on a non-rotational device position costs nothing and a
 *   "seek" is a request too small to use the device's bandwidth.  A queue
 *   is seeky when more than a threshold of its last 32 requests were
 *   seeks, so short sequential runs (a multi-page mmap fault reads its
 *   pages in order) are not seeky even though every run starts with one.
 *
 * - How many units does the device have?  &struct ioq_par_est measures
 *   whether throughput grows with depth (see ioq_par_units()).  A policy
 *   uses it to idle where idling pays: on one spindle, not on a RAID.
 *   A RAID that reports its chunk and stripe sizes also tells which unit
 *   holds a sector (&struct ioq_layout), so a policy can idle per unit.
 */
#include <linux/bitops.h>
#include <linux/ioprio.h>
#include <linux/math64.h>
#include <linux/module.h>

#include "elevator.h"
#include "blk.h"
#include "blk-ioq.h"

/**
 * ioq_decay - fold a sample into a decayed mean
 * @mean: the mean so far
 * @sample: the new sample
 * @samples: samples seen so far, saturating at 1 << IOQ_DECAY_SHIFT
 *
 * The plain mean of the first samples, then an exponential decay by 1/8.
 */
u64 ioq_decay(u64 mean, u64 sample, u32 *samples)
{
	if (*samples < (1U << IOQ_DECAY_SHIFT))
		(*samples)++;
	if (sample >= mean)
		return mean + div_u64(sample - mean, *samples);
	return mean - div_u64(mean - sample, *samples);
}
EXPORT_SYMBOL_GPL(ioq_decay);

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
bool ioq_request_is_seek(const struct ioq_seek_params *p, sector_t last_end,
			 sector_t pos, unsigned int bytes)
{
	sector_t distance = pos > last_end ? pos - last_end : last_end - pos;

	if (p->rotational)
		return distance > p->max_distance;
	return bytes < p->min_bytes;
}
EXPORT_SYMBOL_GPL(ioq_request_is_seek);

void ioq_stats_add_request(struct ioq_stats *s,
			   const struct ioq_seek_params *p,
			   sector_t pos, unsigned int bytes)
{
	u32 size_samples = min(s->requests, 1U << IOQ_DECAY_SHIFT);

	/* The first request has nothing to seek from. */
	if (s->requests)
		s->seek_history = s->seek_history << 1 |
			ioq_request_is_seek(p, s->last_end, pos, bytes);
	if (s->requests < IOQ_SEEK_HISTORY)
		s->requests++;
	s->last_end = pos + (bytes >> SECTOR_SHIFT);
	s->mean_bytes = ioq_decay(s->mean_bytes, bytes, &size_samples);
}
EXPORT_SYMBOL_GPL(ioq_stats_add_request);

bool ioq_stats_seeky(const struct ioq_stats *s,
		     const struct ioq_seek_params *p)
{
	return hweight32(s->seek_history) > p->max_seeks;
}
EXPORT_SYMBOL_GPL(ioq_stats_seeky);

/**
 * ioq_stats_arrival - a request of the process arrives
 * @s: the process's statistics
 * @now_ns: current time
 * @idle_queue: the process had nothing queued or in flight, so the time
 *	since its last completion is time it spent thinking
 */
void ioq_stats_arrival(struct ioq_stats *s, u64 now_ns, bool idle_queue)
{
	if (!idle_queue || !s->last_completion_ns ||
	    now_ns < s->last_completion_ns)
		return;
	s->think_time_ns = ioq_decay(s->think_time_ns,
				     now_ns - s->last_completion_ns,
				     &s->think_samples);
}
EXPORT_SYMBOL_GPL(ioq_stats_arrival);

/* Completions may be accounted out of order: keep the latest. */
void ioq_stats_completion(struct ioq_stats *s, u64 now_ns)
{
	s->last_completion_ns = max(s->last_completion_ns, now_ns);
}
EXPORT_SYMBOL_GPL(ioq_stats_completion);

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

void ioq_par_init(struct ioq_par_est *e)
{
	memset(e, 0, sizeof(*e));
}
EXPORT_SYMBOL_GPL(ioq_par_init);

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

void ioq_par_dispatch(struct ioq_par_est *e, u64 now_ns)
{
	ioq_par_advance(e, now_ns);
	e->in_flight++;
}
EXPORT_SYMBOL_GPL(ioq_par_dispatch);

/*
 * A dispatched request came back unserved (the driver was busy): it no
 * longer counts as in flight, and the window it was counted in measured a
 * device that refused work, not its parallelism, so the window is dropped.
 */
void ioq_par_requeue(struct ioq_par_est *e, u64 now_ns)
{
	ioq_par_advance(e, now_ns);
	if (e->in_flight)
		e->in_flight--;
	ioq_par_reset_window(e);
}
EXPORT_SYMBOL_GPL(ioq_par_requeue);

void ioq_par_complete(struct ioq_par_est *e, u64 now_ns, bool small)
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
EXPORT_SYMBOL_GPL(ioq_par_complete);

/**
 * ioq_par_units - how many requests the device serves in parallel
 * @e: the estimator
 * @prior: the answer until both shallow and deep windows were measured
 *
 * Return: 1 when deep windows are not markedly faster than shallow ones,
 * otherwise the throughput gain, a lower bound on the number of units.
 */
unsigned int ioq_par_units(const struct ioq_par_est *e, unsigned int prior)
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
EXPORT_SYMBOL_GPL(ioq_par_units);

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
void ioq_layout_init(struct ioq_layout *l, unsigned int io_min,
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
EXPORT_SYMBOL_GPL(ioq_layout_init);

/**
 * ioq_layout_update - take the layout anew if the topology changed
 * @l: the layout, set before by ioq_layout_init()
 * @io_min: the chunk size in bytes, now
 * @io_opt: the full stripe in bytes, now
 * @rotational: whether the device spins, now
 *
 * Queue limits change while a scheduler is attached (a RAID controller's
 * volume rescanned, a disk revalidated, queue/rotational written); a
 * policy calls this with the current limits where it uses the layout.
 *
 * Context: the caller serialises its calls on @l.
 * Return: true when the layout was taken anew.
 */
bool ioq_layout_update(struct ioq_layout *l, unsigned int io_min,
		       unsigned int io_opt, bool rotational)
{
	if (io_min == l->io_min && io_opt == l->io_opt &&
	    rotational == l->rotational)
		return false;
	ioq_layout_init(l, io_min, io_opt, rotational);
	return true;
}
EXPORT_SYMBOL_GPL(ioq_layout_update);

/* The unit that holds sector @pos; 0 without a layout. */
unsigned int ioq_layout_unit(const struct ioq_layout *l, sector_t pos)
{
	if (!l->chunk_sectors)
		return 0;
	sector_div(pos, l->chunk_sectors);
	return sector_div(pos, l->units);
}
EXPORT_SYMBOL_GPL(ioq_layout_unit);

void ioq_init(struct ioq *ioq)
{
	ioq->sort_list = RB_ROOT;
	INIT_LIST_HEAD(&ioq->fifo);
	ioq->queued = 0;
	ioq->head_pos = 0;
	memset(&ioq->stats, 0, sizeof(ioq->stats));
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

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shared core of the time-slice I/O schedulers");
