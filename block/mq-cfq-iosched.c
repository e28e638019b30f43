// SPDX-License-Identifier: GPL-2.0
/*
 * mq-cfq: fair time-slice I/O scheduling for blk-mq.
 *
 * DOC: How mq-cfq shares the device
 *
 * Every process has a sync queue (keyed by its io_context); async writes
 * share one queue per ioprio class and level, as writeback does not know
 * which process dirtied a page.  Busy queues wait in a tree per ioprio
 * class (RT before BE before IDLE), ordered by virtual time: the device
 * time each queue has received, divided by its slice length.  So a queue's
 * share of the device is proportional to its slice: slice_sync for sync
 * queues, slice_async for async ones, both scaled by the ioprio level.
 * Device time is charged at completion (the time since the later of
 * dispatch and the previous completion), plus the time the device sat
 * idle waiting for the queue, so fairness is in service time, not in
 * request counts: a seeky reader is charged for its seeks.
 *
 * The queue with the least virtual time becomes active for one slice,
 * counted from its first completion; with low_latency, slices shrink so
 * that a round over a class's busy queues takes about target_latency.
 * When it runs empty the scheduler may idle, waiting slice_idle for the
 * process's next request, instead of seeking away: only for sync queues
 * whose think time is short, only on rotational devices (or when
 * idle_nonrot asks), and for a seeky queue only when no other seeky queue
 * waits (group_idle; otherwise the writers would take the disk from a
 * random reader after every read).  On a device with several units
 * (see the parallelism estimator in blk-ioq.c) idling does not leave the
 * other units dry: while the active queue idles, other queues dispatch
 * until all but one unit are busy.  A RAID that reports its chunk and
 * stripe sizes gets idling per unit instead: a unit stays reserved for
 * the non-seeky queue it just served, for slice_idle, and the other
 * queues fill the units nobody holds, so that each process's sequential
 * run on its unit is not broken up by the others.
 *
 * A sync request preempts an async slice when its queue is owed service
 * (low_latency) or, for a seeky queue, its oldest request is due
 * (past fifo_expire_sync; with fifo_drain, early enough to complete by
 * it); a queue served for its deadline gets its due requests, not a
 * slice.  That could keep writeback out for as long as reads are due, so
 * an async queue kept out for fifo_expire_async is served next, for a
 * slice that sync requests do not cut short and that lasts no longer than
 * a read's deadline.  A higher class preempts a lower one.  After sync
 * completions, async dispatch depth ramps from one request to quantum
 * over a quarter of an async slice, so a sync reader is not buried under
 * a full queue of writes, while writes still get their share.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/ioprio.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "blk-mq-sched.h"
#include "blk-ioq.h"
#include "blk-wbt.h"

#define CREATE_TRACE_POINTS
#include <trace/events/mq_cfq.h>

enum cfq_class {
	CFQ_RT,
	CFQ_BE,
	CFQ_IDLE,
	CFQ_NR_CLASSES,
};

/* Why a slice ended, as the tracepoint and debugfs "slices" name it. */
enum cfq_expiry {
	CFQ_EXPIRED_SLICE,	/* time, request budget or due requests used */
	CFQ_EXPIRED_OVERDUE,	/* async, and a seeky queue's deadline is due */
	CFQ_EXPIRED_EMPTY,	/* ran empty with no reason to idle */
	CFQ_EXPIRED_CLASS,	/* a higher ioprio class arrived */
	CFQ_EXPIRED_SYNC,	/* async, and a sync queue arrived */
	CFQ_EXPIRED_EXIT,	/* its process or the scheduler went away */
	CFQ_NR_EXPIRIES,
};

/* What a queue's turn on the device is owed. */
enum cfq_turn {
	CFQ_TURN_SLICE,		/* its slice: in virtual time order */
	CFQ_TURN_DEADLINE,	/* out of order, due or aged: those requests */
	CFQ_TURN_STARVED,	/* async, kept out fifo_expire_async: a slice */
	CFQ_NR_TURNS,
};

static const char *const cfq_expiry_names[CFQ_NR_EXPIRIES] = {
	[CFQ_EXPIRED_SLICE] = "slice",
	[CFQ_EXPIRED_OVERDUE] = "overdue",
	[CFQ_EXPIRED_EMPTY] = "empty",
	[CFQ_EXPIRED_CLASS] = "class",
	[CFQ_EXPIRED_SYNC] = "sync",
	[CFQ_EXPIRED_EXIT] = "exit",
};

/* Slices that ended for one reason: how many, how long, how much. */
struct cfq_expiry_stats {
	u64 slices;
	u64 used_ns;
	u64 dispatched;
};

static const char *const cfq_turn_names[CFQ_NR_TURNS] = {
	[CFQ_TURN_SLICE] = "slice",
	[CFQ_TURN_DEADLINE] = "deadline",
	[CFQ_TURN_STARVED] = "starved",
};

static const char *const cfq_class_names[CFQ_NR_CLASSES] = {
	[CFQ_RT] = "rt", [CFQ_BE] = "be", [CFQ_IDLE] = "idle",
};

/* The IDLE class is served once the others left the disk alone this long. */
#define CFQ_IDLE_GRACE_NS	(200 * NSEC_PER_MSEC)
/* Virtual time advances by this much for a full slice of service. */
#define CFQ_VTIME_SLICE		1000000ULL
/* The async ramp takes this fraction (1/n) of slice_async. */
#define CFQ_ASYNC_RAMP_PARTS	4

struct cfq_queue {
	struct ioq_client client;	/* its process, or writeback's */
	struct ioq ioq;
	struct rb_node tree_node;
	bool on_tree;
	bool counted_seeky;		/* in its tree's busy_seeky */
	u64 counted_slice_ns;		/* in its tree's busy_slice_ns */
	bool sync;
	enum cfq_class class;
	unsigned short level;
	u64 vtime;
	u64 slice_start_ns;
	u64 slice_end_ns;		/* U64_MAX until the first completion */
	unsigned int slice_dispatched;
	enum cfq_turn turn;		/* while it is active */
	unsigned int turn_draining;	/* async: its last turn's, in flight */
};

struct cfq_tree {
	struct rb_root_cached root;
	u64 min_vtime;
	unsigned int busy_seeky;	/* sync queues counted seeky when added */
	u64 busy_slice_ns;		/* slices of the queues waiting */
	/* an async queue of the class last served in a turn of its own */
	u64 async_served_ns;
};

/* Tunables, in the units sysfs shows them. */
struct cfq_tunables {
	unsigned int slice_idle;	/* ms */
	unsigned int slice_sync;	/* ms */
	unsigned int slice_async;	/* ms */
	unsigned int slice_async_rq;
	unsigned int quantum;
	unsigned int fifo_expire_sync;	/* ms */
	unsigned int fifo_expire_async;	/* ms */
	unsigned int fifo_drain;
	unsigned int back_seek_max;	/* KiB */
	unsigned int back_seek_penalty;
	unsigned int group_idle;	/* ms */
	unsigned int target_latency;	/* ms */
	unsigned int prio_aging_expire;	/* ms */
	unsigned int low_latency;
	unsigned int idle_nonrot;
};

struct cfq_data {
	struct ioq_sched core;		/* must be first: its lock guards all */
	struct cfq_tunables tun;

	struct cfq_tree trees[CFQ_NR_CLASSES];
	struct cfq_queue *active;
	u64 last_sync_completion_ns;
	u64 last_nonidle_ns;		/* RT or BE request out or done */
	struct cfq_expiry_stats expired[2][CFQ_NR_EXPIRIES];	/* [sync] */

	struct cfq_queue async_queues[CFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct cfq_queue oom_queue;	/* when a sync queue can't be had */
};

/* The tunables' offsets are from the core, which the elevator data is. */
static_assert(offsetof(struct cfq_data, core) == 0);

static struct kmem_cache *cfq_queue_cache;

static inline struct cfq_data *cfq_of(struct ioq_sched *s)
{
	return container_of(s, struct cfq_data, core);
}

/* The queue of client @c, const if @c is. */
#define cfqq_of(c)	container_of_const((c), struct cfq_queue, client)

static inline struct cfq_queue *rq_cfqq(const struct request *rq)
{
	struct ioq_client *c = ioq_rq_client(rq);

	return c ? cfqq_of(c) : NULL;
}

static u64 cfq_ms(unsigned int ms)
{
	return (u64)ms * NSEC_PER_MSEC;
}

static u64 cfq_slice_ns(const struct cfq_data *cfqd,
			const struct cfq_queue *cfqq)
{
	unsigned int ms = cfqq->sync ? cfqd->tun.slice_sync :
				       cfqd->tun.slice_async;

	return ioq_scale_by_level(cfq_ms(ms), cfqq->level);
}

/* Requests an async queue may dispatch in one slice, as CFQ allowed. */
static unsigned int cfq_async_slice_requests(const struct cfq_data *cfqd,
					     const struct cfq_queue *cfqq)
{
	return 2 * cfqd->tun.slice_async_rq * (IOPRIO_NR_LEVELS - cfqq->level);
}

static bool cfq_seeky(const struct cfq_data *cfqd,
		      const struct cfq_queue *cfqq)
{
	return ioq_client_seeky(&cfqd->core, &cfqq->client);
}

/* The last reference to a process's queue is gone. */
static void cfq_free_client(struct ioq_sched *s, struct ioq_client *c)
{
	struct cfq_queue *cfqq = cfqq_of(c);

	/* The async and OOM queues are part of cfq_data: never let go of. */
	if (WARN_ON_ONCE(!cfqq->sync || cfqq == &cfq_of(s)->oom_queue))
		return;
	WARN_ON_ONCE(cfqq->on_tree || cfqq->ioq.queued);
	kmem_cache_free(cfq_queue_cache, cfqq);
}

static void cfq_init_queue(struct cfq_queue *cfqq, bool sync,
			   enum cfq_class class, unsigned short level)
{
	ioq_client_init(&cfqq->client);
	ioq_init(&cfqq->ioq);
	RB_CLEAR_NODE(&cfqq->tree_node);
	cfqq->sync = sync;
	cfqq->class = class;
	cfqq->level = level;
}

static enum cfq_class cfq_class_of(unsigned short ioprio)
{
	switch (IOPRIO_PRIO_CLASS(ioprio)) {
	case IOPRIO_CLASS_RT:
		return CFQ_RT;
	case IOPRIO_CLASS_IDLE:
		return CFQ_IDLE;
	default:
		return CFQ_BE;
	}
}

static unsigned short cfq_level_of(unsigned short ioprio)
{
	if (IOPRIO_PRIO_CLASS(ioprio) == IOPRIO_CLASS_NONE ||
	    IOPRIO_PRIO_CLASS(ioprio) == IOPRIO_CLASS_IDLE)
		return IOPRIO_BE_NORM;
	return IOPRIO_PRIO_LEVEL(ioprio);
}

/*
 * The queue @rq belongs to: its process's, or the async queue of its
 * ioprio.  The core takes a reference for @rq.
 */
static struct ioq_client *cfq_client_of(struct ioq_sched *s,
					struct request *rq)
{
	struct cfq_data *cfqd = cfq_of(s);
	unsigned short ioprio = req_get_ioprio(rq);
	enum cfq_class class = cfq_class_of(ioprio);
	unsigned short level = cfq_level_of(ioprio);
	struct ioq_icq *qic = ioq_rq_icq(rq);
	struct cfq_queue *cfqq;

	if (!rq_is_sync(rq))
		return &cfqd->async_queues[class][level].client;
	if (!qic)
		return &cfqd->oom_queue.client;
	if (!qic->client) {
		cfqq = kmem_cache_zalloc(cfq_queue_cache,
					 GFP_NOWAIT | __GFP_NOWARN);
		if (!cfqq)
			return &cfqd->oom_queue.client;
		cfq_init_queue(cfqq, true, class, level);
		cfqq->client.pid = current->pid;
		qic->client = &cfqq->client;
	}
	cfqq = cfqq_of(qic->client);
	/* A changed ioprio applies from the next time the queue is idle. */
	if (!cfqq->on_tree && cfqd->active != cfqq) {
		cfqq->class = class;
		cfqq->level = level;
	}
	return &cfqq->client;
}

static struct cfq_queue *cfq_tree_first(struct cfq_tree *tree)
{
	struct rb_node *node = rb_first_cached(&tree->root);

	return node ? rb_entry(node, struct cfq_queue, tree_node) : NULL;
}

static void cfq_tree_insert(struct cfq_tree *tree, struct cfq_queue *cfqq)
{
	struct rb_node **link = &tree->root.rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		struct cfq_queue *other;

		parent = *link;
		other = rb_entry(parent, struct cfq_queue, tree_node);
		if (cfqq->vtime < other->vtime) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&cfqq->tree_node, parent, link);
	rb_insert_color_cached(&cfqq->tree_node, &tree->root, leftmost);
}

/* A queue with requests waits for its turn; it brings no saved credit. */
static void cfq_add_busy(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_tree *tree = &cfqd->trees[cfqq->class];

	cfqq->vtime = max(cfqq->vtime, tree->min_vtime);
	cfq_tree_insert(tree, cfqq);
	cfqq->on_tree = true;
	cfqq->counted_seeky = cfqq->sync && cfq_seeky(cfqd, cfqq);
	tree->busy_seeky += cfqq->counted_seeky;
	cfqq->counted_slice_ns = cfq_slice_ns(cfqd, cfqq);
	tree->busy_slice_ns += cfqq->counted_slice_ns;
}

static void cfq_del_busy(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_tree *tree = &cfqd->trees[cfqq->class];

	rb_erase_cached(&cfqq->tree_node, &tree->root);
	RB_CLEAR_NODE(&cfqq->tree_node);
	cfqq->on_tree = false;
	tree->busy_seeky -= cfqq->counted_seeky;
	tree->busy_slice_ns -= cfqq->counted_slice_ns;
}

/* Charge @cfqq for @service_ns of device time. */
static void cfq_charge(struct cfq_data *cfqd, struct cfq_queue *cfqq,
		       u64 service_ns)
{
	u64 delta = mul_u64_u64_div_u64(service_ns, CFQ_VTIME_SLICE,
					cfq_slice_ns(cfqd, cfqq) ?: 1);

	if (!cfqq->on_tree) {
		cfqq->vtime += delta;
		return;
	}
	cfq_del_busy(cfqd, cfqq);
	cfqq->vtime += delta;
	cfq_add_busy(cfqd, cfqq);
}

/* The active queue is charged for the time the device waited for it. */
static void cfq_stop_idling(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active;
	u64 idled;

	if (!ioq_idling(&cfqd->core))
		return;
	idled = ioq_idle_stop(&cfqd->core, now);
	trace_mq_cfq_idle_end(cfqd->core.queue, cfqq->client.pid, idled);
	cfq_charge(cfqd, cfqq, idled);
}

static void cfq_start_idling(struct cfq_data *cfqd, u64 now, u64 window)
{
	ioq_idle_start(&cfqd->core, now, window);
	trace_mq_cfq_idle_start(cfqd->core.queue, cfqd->active->client.pid,
				window);
}

static void cfq_async_served(struct cfq_data *cfqd,
			     const struct cfq_queue *cfqq, u64 now)
{
	struct cfq_tree *tree = &cfqd->trees[cfqq->class];

	tree->async_served_ns = max(tree->async_served_ns, now);
}

/*
 * An async queue's turn ended: served, if it sent anything, until its
 * requests still on the device are done.  Those are the first completions
 * counted next (a filler request may be counted in one's place): the
 * requests an async queue sends as a filler between its turns do not
 * hold off its starvation.
 */
static void cfq_async_turn_ended(struct cfq_data *cfqd,
				 struct cfq_queue *cfqq, u64 now)
{
	if (!cfqq->slice_dispatched)
		return;
	cfq_async_served(cfqd, cfqq, now);
	cfqq->turn_draining = cfqq->client.in_flight;
}

/* A request of async @cfqq completed: of its last turn, while any is out. */
static void cfq_async_completed(struct cfq_data *cfqd,
				struct cfq_queue *cfqq, u64 now)
{
	if (cfqq == cfqd->active) {
		cfq_async_served(cfqd, cfqq, now);
	} else if (cfqq->turn_draining) {
		cfqq->turn_draining--;
		cfq_async_served(cfqd, cfqq, now);
	}
}

static void cfq_expire(struct cfq_data *cfqd, u64 now, enum cfq_expiry why)
{
	struct cfq_queue *cfqq = cfqd->active;
	struct cfq_expiry_stats *stats = &cfqd->expired[cfqq->sync][why];
	u64 used = ioq_ns_since(now, cfqq->slice_start_ns);

	cfq_stop_idling(cfqd, now);
	trace_mq_cfq_slice_expire(cfqd->core.queue, cfqq->client.pid,
				  cfqq->sync, used,
				  cfqq->slice_dispatched,
				  cfq_expiry_names[why]);
	stats->slices++;
	stats->used_ns += used;
	stats->dispatched += cfqq->slice_dispatched;
	if (!cfqq->sync)
		cfq_async_turn_ended(cfqd, cfqq, now);
	cfqd->active = NULL;
	if (!ioq_empty(&cfqq->ioq))
		cfq_add_busy(cfqd, cfqq);
	ioq_put_client(&cfqd->core, &cfqq->client);
}

/*
 * How far ahead of a sync deadline its request must be dispatched.  With
 * fifo_drain, the requests already on the device are counted: a read
 * dispatched behind them completes only once they have, so it goes out
 * early enough to complete by its deadline rather than start at it.
 */
static unsigned long cfq_deadline_margin(const struct cfq_data *cfqd)
{
	if (!cfqd->tun.fifo_drain)
		return 0;
	return nsecs_to_jiffies(cfqd->core.in_flight *
				cfqd->core.mean_service_ns);
}

/*
 * A sync queue of @class whose oldest request is due (and which is
 * seeky, if @seeky_only): the deadline bounds how long writes keep a
 * reader waiting, whatever the virtual times say.
 */
static struct cfq_queue *cfq_due_sync_queue(struct cfq_data *cfqd,
					    enum cfq_class class,
					    bool seeky_only)
{
	unsigned long margin = cfq_deadline_margin(cfqd);
	struct rb_node *node;

	for (node = rb_first_cached(&cfqd->trees[class].root); node;
	     node = rb_next(node)) {
		struct cfq_queue *cfqq = rb_entry(node, struct cfq_queue,
						  tree_node);

		if (cfqq->sync && (!seeky_only || cfq_seeky(cfqd, cfqq)) &&
		    ioq_request_due(&cfqq->ioq, margin))
			return cfqq;
	}
	return NULL;
}

/*
 * Whether async @cfqq is starved: its oldest request is past
 * fifo_expire_async, none of its requests is on the device, and no async
 * queue of its class was served in a turn of its own (see
 * cfq_async_turn_ended()) for fifo_expire_async.  Due sync requests come
 * before writeback that is first in virtual time, and a random reader's
 * cuts an async slice short: with enough random readers, or a host slow
 * enough, some read is always due.  A starved queue is served next in
 * its class, for a short slice that sync requests do not cut (see
 * cfq_start_slice()).  The clock is the class's, so that async queues of
 * several levels do not take such turns one after another: the class's
 * sync queues keep the device for fifo_expire_async between them.
 */
static bool cfq_async_starved(const struct cfq_data *cfqd,
			      const struct cfq_queue *cfqq, u64 now)
{
	const struct cfq_tree *tree = &cfqd->trees[cfqq->class];

	return !cfqq->sync && !cfqq->client.in_flight &&
	       ioq_request_due(&cfqq->ioq, 0) &&
	       ioq_ns_since(now, tree->async_served_ns) >=
			cfq_ms(cfqd->tun.fifo_expire_async);
}

/* The FIFO deadline, in jiffies, of the oldest request @cfqq holds. */
static unsigned long cfq_oldest_deadline(const struct cfq_queue *cfqq)
{
	return (unsigned long)ioq_oldest_request(&cfqq->ioq)->fifo_time;
}

/* The starved async queue of @class whose oldest request came first. */
static struct cfq_queue *cfq_starved_async_queue(struct cfq_data *cfqd,
						 enum cfq_class class, u64 now)
{
	struct cfq_queue *starved = NULL;
	unsigned short level;

	for (level = 0; level < IOPRIO_NR_LEVELS; level++) {
		struct cfq_queue *cfqq = &cfqd->async_queues[class][level];

		if (!cfqq->on_tree || !cfq_async_starved(cfqd, cfqq, now))
			continue;
		if (!starved || time_before(cfq_oldest_deadline(cfqq),
					    cfq_oldest_deadline(starved)))
			starved = cfqq;
	}
	return starved;
}

/* Whether @cfqq is the active queue, in a turn it has for starving. */
static bool cfq_in_starved_turn(const struct cfq_data *cfqd,
				const struct cfq_queue *cfqq)
{
	return cfqq == cfqd->active && cfqq->turn == CFQ_TURN_STARVED;
}

/*
 * Whether @cfqq, about to be activated, jumps the queue: a queue of a
 * higher class waits (ioprio aging), or one before it in virtual time
 * (a due sync request).
 */
static bool cfq_out_of_order(struct cfq_data *cfqd,
			     const struct cfq_queue *cfqq)
{
	enum cfq_class class;

	for (class = CFQ_RT; class < cfqq->class; class++)
		if (cfq_tree_first(&cfqd->trees[class]))
			return true;
	return cfqq != cfq_tree_first(&cfqd->trees[cfqq->class]);
}

static void cfq_activate(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			 u64 now)
{
	struct cfq_tree *tree = &cfqd->trees[cfqq->class];
	bool out_of_order = cfq_out_of_order(cfqd, cfqq);

	/*
	 * A queue taken out of order was taken for its deadline, its age or
	 * (async) its wait, and the queues it jumped keep their place.  For
	 * a deadline or its age it is owed its due requests, not a slice
	 * (nor idling).  Starved writeback is owed a short slice with its
	 * request budget: under a backlog every request it holds is due.
	 */
	if (cfq_async_starved(cfqd, cfqq, now) &&
	    (out_of_order || cfq_due_sync_queue(cfqd, cfqq->class, false)))
		cfqq->turn = CFQ_TURN_STARVED;
	else
		cfqq->turn = out_of_order ? CFQ_TURN_DEADLINE : CFQ_TURN_SLICE;
	cfq_del_busy(cfqd, cfqq);
	if (!out_of_order)
		tree->min_vtime = max(tree->min_vtime, cfqq->vtime);
	ioq_get_client(&cfqq->client);
	cfqd->active = cfqq;
	cfqq->slice_start_ns = now;
	cfqq->slice_end_ns = U64_MAX;
	cfqq->slice_dispatched = 0;
}

/*
 * With low_latency, slices shrink in proportion when a round over the
 * class's busy queues would take longer than target_latency, so that no
 * queue waits much longer than that for its turn; shares stay the same.
 * A slice is not cut below two idle windows, the seek to the queue, but
 * that floor never makes it longer than it was.
 */
static u64 cfq_latency_slice_ns(const struct cfq_data *cfqd,
				const struct cfq_queue *cfqq)
{
	u64 slice = cfq_slice_ns(cfqd, cfqq);
	u64 round = slice + cfqd->trees[cfqq->class].busy_slice_ns;
	u64 target = cfq_ms(cfqd->tun.target_latency);
	u64 least = min(slice, 2 * cfq_ms(cfqd->tun.slice_idle));

	if (!cfqd->tun.low_latency || round <= target)
		return slice;
	return max(mul_u64_u64_div_u64(slice, target, round), least);
}

/*
 * The slice starts when the queue's first request completes, as in CFQ:
 * the requests of the previous queue still draining from the device
 * would otherwise eat into it.
 */
static void cfq_start_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    u64 now)
{
	u64 slice = cfq_latency_slice_ns(cfqd, cfqq);

	/*
	 * Due reads wait while starved writeback has its turn: about as long
	 * as their own deadline, but not so short a turn that it is no more
	 * than the seek to it (two idle windows), nor longer than the slice.
	 */
	if (cfqq->turn == CFQ_TURN_STARVED)
		slice = min(slice, max(cfq_ms(cfqd->tun.fifo_expire_sync),
				       2 * cfq_ms(cfqd->tun.slice_idle)));
	cfqq->slice_start_ns = now;
	cfqq->slice_end_ns = now + slice;
	trace_mq_cfq_slice_start(cfqd->core.queue, cfqq->client.pid, cfqq->sync,
				 cfq_class_names[cfqq->class], cfqq->vtime,
				 slice, cfq_turn_names[cfqq->turn]);
}

/* The class to serve next, or CFQ_NR_CLASSES if none may be served now. */
static enum cfq_class cfq_next_class(struct cfq_data *cfqd, u64 now)
{
	enum cfq_class class;
	u64 since;

	for (class = CFQ_RT; class < CFQ_IDLE; class++)
		if (cfq_tree_first(&cfqd->trees[class]))
			return class;
	if (!cfq_tree_first(&cfqd->trees[CFQ_IDLE]))
		return CFQ_NR_CLASSES;
	since = ioq_ns_since(now, cfqd->last_nonidle_ns);
	if (since >= CFQ_IDLE_GRACE_NS)
		return CFQ_IDLE;
	ioq_arm_timer(&cfqd->core, CFQ_IDLE_GRACE_NS - since);
	return CFQ_NR_CLASSES;
}

/*
 * A BE queue whose oldest request has waited prio_aging_expire: RT comes
 * first, but not without end (mq-deadline bounds it the same way).
 */
static struct cfq_queue *cfq_aged_queue(struct cfq_data *cfqd, u64 now)
{
	u64 limit = cfq_ms(cfqd->tun.prio_aging_expire);
	struct rb_node *node;

	for (node = rb_first_cached(&cfqd->trees[CFQ_BE].root); node;
	     node = rb_next(node)) {
		struct cfq_queue *cfqq = rb_entry(node, struct cfq_queue,
						  tree_node);
		struct request *oldest = ioq_oldest_request(&cfqq->ioq);

		if (oldest && ioq_ns_since(now, oldest->start_time_ns) >= limit)
			return cfqq;
	}
	return NULL;
}

static struct cfq_queue *cfq_next_queue(struct cfq_data *cfqd, u64 now)
{
	enum cfq_class class = cfq_next_class(cfqd, now);
	struct cfq_queue *cfqq;

	if (class == CFQ_NR_CLASSES)
		return NULL;
	if (class == CFQ_RT) {
		cfqq = cfq_aged_queue(cfqd, now);
		if (cfqq)
			return cfqq;
	}
	cfqq = cfq_starved_async_queue(cfqd, class, now);
	if (cfqq)
		return cfqq;
	cfqq = cfq_tree_first(&cfqd->trees[class]);
	if (!cfqq->sync)
		return cfq_due_sync_queue(cfqd, class, false) ?: cfqq;
	return cfqq;
}

static bool cfq_slice_used(const struct cfq_data *cfqd,
			   const struct cfq_queue *cfqq, u64 now)
{
	if (now >= cfqq->slice_end_ns)
		return true;
	if (cfqq->turn == CFQ_TURN_DEADLINE)
		return !ioq_request_due(&cfqq->ioq, cfq_deadline_margin(cfqd));
	return !cfqq->sync &&
	       cfqq->slice_dispatched >= cfq_async_slice_requests(cfqd, cfqq);
}

/* How long to idle for the active queue's next request; 0: not at all. */
static u64 cfq_idle_window(const struct cfq_data *cfqd,
			   const struct cfq_queue *cfqq)
{
	const struct cfq_tunables *t = &cfqd->tun;
	u64 window = cfq_ms(t->slice_idle);

	if (!cfqq->sync || cfqq->class == CFQ_IDLE || !window)
		return 0;
	if (!ioq_stats_thinks_within(&cfqq->client.stats, window))
		return 0;
	/* RT comes first on any device: BE waits while RT thinks briefly. */
	if (cfqq->class == CFQ_RT)
		return window;
	if (blk_queue_nonrot(cfqd->core.queue) && !t->idle_nonrot)
		return 0;
	if (!cfq_seeky(cfqd, cfqq))
		return window;
	/*
	 * Seeky queues are served one request per turn, but the last of them
	 * keeps the disk: otherwise writers would take it from a random
	 * reader after every read (CFQ's idling at the end of its sync-noidle
	 * workload).
	 */
	if (cfqd->trees[cfqq->class].busy_seeky)
		return 0;
	return cfq_ms(t->group_idle);
}

/*
 * The active queue ran empty: keep the device for it (idling, or waiting
 * for its requests in flight to see whether it comes back) or let go?
 */
static bool cfq_wait_for_active(struct cfq_data *cfqd, u64 now)
{
	const struct ioq_sched *s = &cfqd->core;
	struct cfq_queue *cfqq = cfqd->active;
	u64 window;

	/*
	 * With every scheduler tag held by requests queued or in flight, the
	 * process may be sleeping for a tag: its next request cannot come
	 * while the device waits for it (ata_piix has two tags in all).
	 */
	if (s->queued + s->in_flight >= s->queue->nr_requests)
		return false;
	if (ioq_idling(s))
		return now < s->idle_until_ns;
	window = cfq_idle_window(cfqd, cfqq);
	if (!window)
		return false;
	if (!cfqq->client.in_flight)
		cfq_start_idling(cfqd, now, window);
	return true;
}

/* A queue that @cfqq's arrival takes the device from, if it should. */
static void cfq_preempt(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			u64 now)
{
	struct cfq_queue *active = cfqd->active;

	if (!active || active == cfqq)
		return;
	if (cfqq->class < active->class)
		cfq_expire(cfqd, now, CFQ_EXPIRED_CLASS);
	else if (cfqd->tun.low_latency && cfqq->sync && !active->sync &&
		 !cfq_in_starved_turn(cfqd, active) &&
		 cfqq->class == active->class &&
		 cfqq->vtime <= active->vtime)
		cfq_expire(cfqd, now, CFQ_EXPIRED_SYNC);
}

/*
 * Async dispatch depth after sync completions: one request at first,
 * growing to quantum over the first part of an async slice (CFQ's ramp,
 * from "Do not overload dispatch queue", linux-kernel, October 2009).  A
 * random reader's deadline ends async slices after about
 * fifo_expire_sync; ramping over the whole slice would leave them one to
 * three requests deep for most of their length.
 */
static unsigned int cfq_async_depth(const struct cfq_data *cfqd, u64 now)
{
	const struct cfq_tunables *t = &cfqd->tun;
	u64 since = ioq_ns_since(now, cfqd->last_sync_completion_ns);
	u64 ramp = div_u64(cfq_ms(t->slice_async), CFQ_ASYNC_RAMP_PARTS);

	if (!t->low_latency || since >= ramp)
		return t->quantum;
	return max_t(u64, 1, div64_u64(since * t->quantum, ramp));
}

static bool cfq_may_dispatch(const struct cfq_data *cfqd,
			     const struct cfq_queue *cfqq, u64 now)
{
	unsigned int depth = cfqd->tun.quantum;
	bool alone = cfqd->core.queued == cfqq->ioq.queued;

	/* A starved turn is short: no ramp, it is writeback's only chance. */
	if (!cfqq->sync && !cfq_in_starved_turn(cfqd, cfqq))
		depth = min(depth, cfq_async_depth(cfqd, now));
	else if (cfqq->sync && alone)
		return true;	/* nobody to be fair to */
	return cfqq->client.in_flight < depth;
}

/* The request @cfqq would dispatch next: an overdue one, or the sweep's. */
static struct request *cfq_next_request(const struct cfq_data *cfqd,
					const struct cfq_queue *cfqq)
{
	struct ioq_sweep sweep = {
		.back_max = (sector_t)cfqd->tun.back_seek_max * 2,
		.back_penalty = cfqd->tun.back_seek_penalty,
	};

	return ioq_expired_request(&cfqq->ioq) ?:
	       ioq_next_request(&cfqq->ioq, &sweep);
}

/* @rq of the active queue or a filler goes to the device: count it. */
static void cfq_dispatched(struct ioq_sched *s, struct request *rq, u64 now)
{
	struct cfq_data *cfqd = cfq_of(s);
	struct cfq_queue *cfqq = rq_cfqq(rq);

	cfqq->ioq.head_pos = blk_rq_pos(rq) + blk_rq_sectors(rq);
	cfqq->slice_dispatched++;
	if (cfqq->class != CFQ_IDLE)
		cfqd->last_nonidle_ns = max(cfqd->last_nonidle_ns, now);
}

/* Queues of a class looked at for a free unit, in virtual time order. */
#define CFQ_FILL_CANDIDATES	8

/*
 * The first few waiting queues of the active queue's class, in virtual
 * time order: the first whose next request goes to a unit free for it.
 */
static struct cfq_queue *cfq_queue_for_free_unit(struct cfq_data *cfqd,
						 u64 now)
{
	struct cfq_tree *tree = &cfqd->trees[cfqd->active->class];
	struct rb_node *node = rb_first_cached(&tree->root);
	unsigned int looked;

	for (looked = 0; node && looked < CFQ_FILL_CANDIDATES;
	     node = rb_next(node), looked++) {
		struct cfq_queue *cfqq = rb_entry(node, struct cfq_queue,
						  tree_node);

		/* Starved writeback is owed a turn, not a filler request. */
		if (cfq_async_starved(cfqd, cfqq, now))
			continue;
		if (cfq_may_dispatch(cfqd, cfqq, now) &&
		    ioq_unit_free_for(&cfqd->core, &cfqq->client,
				      cfq_next_request(cfqd, cfqq), now))
			return cfqq;
	}
	return NULL;
}

/*
 * While the active queue keeps a device with several units, requests of
 * the next queues go to the units it leaves free: by the layout when the
 * device reports one, otherwise up to all units but one.  This is the
 * queue that may send one there now.
 */
static struct cfq_queue *cfq_fill_queue(struct cfq_data *cfqd, u64 now)
{
	struct ioq_sched *s = &cfqd->core;
	struct cfq_queue *cfqq;

	if (s->layout.chunk_sectors && s->tun.spindles == IOQ_AUTO)
		return cfq_queue_for_free_unit(cfqd, now);
	if (s->in_flight + 1 >= ioq_units(s, now))
		return NULL;
	cfqq = cfq_next_queue(cfqd, now);
	/*
	 * Units are shared within a class: RT idling keeps BE out.  Starved
	 * writeback is owed a turn, which starts when the active queue's
	 * ends, not a request now and then.
	 */
	if (!cfqq || cfqq->class != cfqd->active->class ||
	    cfq_async_starved(cfqd, cfqq, now) ||
	    !cfq_may_dispatch(cfqd, cfqq, now))
		return NULL;
	return cfqq;
}

/*
 * The queue to dispatch from: the active one, one that fills a unit the
 * active one leaves free, or the next one, made active.
 */
static struct cfq_queue *cfq_select_queue(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active;

	if (cfqq && cfq_slice_used(cfqd, cfqq, now)) {
		cfq_expire(cfqd, now, CFQ_EXPIRED_SLICE);
	} else if (cfqq && !cfqq->sync && !cfq_in_starved_turn(cfqd, cfqq) &&
		   cfq_due_sync_queue(cfqd, cfqq->class, true)) {
		/*
		 * Only a random reader cuts an async slice short.  A streaming
		 * reader waits for the slice to end: it wants bandwidth, and
		 * cutting every async slice for it would cost two seeks each
		 * time and most of the writer's share (dd beside a writer in
		 * "Do not overload dispatch queue", linux-kernel, 2009).
		 */
		cfq_expire(cfqd, now, CFQ_EXPIRED_OVERDUE);
	} else if (cfqq) {
		if (!ioq_empty(&cfqq->ioq))
			return cfqq;
		if (cfq_wait_for_active(cfqd, now))
			return cfq_fill_queue(cfqd, now);
		/*
		 * Where nothing seeks, a queue that ran empty keeps the rest
		 * of its slice while the others use the free units: with two
		 * submitters, switching the slice after every request cost
		 * more than the request itself.
		 */
		if (blk_queue_nonrot(cfqd->core.queue) &&
		    cfqq->slice_end_ns != U64_MAX) {
			struct cfq_queue *fill = cfq_fill_queue(cfqd, now);

			if (fill)
				return fill;
		}
		cfq_expire(cfqd, now, CFQ_EXPIRED_EMPTY);
	}
	cfqq = cfq_next_queue(cfqd, now);
	if (cfqq)
		cfq_activate(cfqd, cfqq, now);
	return cfqq;
}

/* The policy's choice: the next request, taken off its queue. */
static struct request *cfq_take_request(struct ioq_sched *s, u64 now)
{
	struct cfq_data *cfqd = cfq_of(s);
	struct cfq_queue *cfqq = cfq_select_queue(cfqd, now);
	struct request *rq;

	if (!cfqq || !cfq_may_dispatch(cfqd, cfqq, now))
		return NULL;
	rq = cfq_next_request(cfqd, cfqq);
	ioq_del_request(&cfqq->ioq, rq);
	if (cfqq->on_tree && ioq_empty(&cfqq->ioq))
		cfq_del_busy(cfqd, cfqq);
	return rq;
}

/*
 * Once a unit of a striped device is idle, it stays reserved for the
 * non-seeky queue it served as long as the queue would be idled for: its
 * next request is likely to continue the run on that unit.
 */
static u64 cfq_unit_hold_ns(struct ioq_sched *s, const struct ioq_client *c)
{
	const struct cfq_data *cfqd = cfq_of(s);
	const struct cfq_queue *cfqq = cfqq_of(c);

	return cfq_seeky(cfqd, cfqq) ? 0 : cfq_idle_window(cfqd, cfqq);
}

/*
 * A request of @c is back after @service_ns of device time: charge it,
 * start the queue's slice at its first completion.
 */
static void cfq_completed(struct ioq_sched *s, struct ioq_client *c,
			  u64 service_ns, u64 now)
{
	struct cfq_data *cfqd = cfq_of(s);
	struct cfq_queue *cfqq = cfqq_of(c);

	cfq_charge(cfqd, cfqq, service_ns);
	if (cfqq == cfqd->active && cfqq->slice_end_ns == U64_MAX)
		cfq_start_slice(cfqd, cfqq, now);
	if (cfqq->sync)
		cfqd->last_sync_completion_ns =
			max(cfqd->last_sync_completion_ns, now);
	else
		cfq_async_completed(cfqd, cfqq, now);
	if (cfqq->class != CFQ_IDLE)
		cfqd->last_nonidle_ns = max(cfqd->last_nonidle_ns, now);
}

/*
 * A request of @c came back unserved: it no longer counts against the
 * active queue's slice.  The head position and the last non-IDLE
 * dispatch stay as they are: the request will be sent there again.
 */
static void cfq_requeued(struct ioq_sched *s, struct ioq_client *c, u64 now)
{
	struct cfq_queue *cfqq = cfqq_of(c);

	if (cfqq == cfq_of(s)->active && cfqq->slice_dispatched)
		cfqq->slice_dispatched--;
}

/*
 * No merge of requests on insertion: the block layer offers no hook that
 * would keep it within one queue (see ioq_allow_merge()).  A process's
 * bios still merge into its queued requests when they are submitted.
 */
static void cfq_insert(struct ioq_sched *s, struct request *rq, u64 now)
{
	struct cfq_data *cfqd = cfq_of(s);
	struct cfq_queue *cfqq = rq_cfqq(rq);
	unsigned int expire_ms = rq_is_sync(rq) ? cfqd->tun.fifo_expire_sync :
						 cfqd->tun.fifo_expire_async;

	ioq_add_request(&cfqq->ioq, rq, jiffies + msecs_to_jiffies(expire_ms));
	if (cfqq == cfqd->active)
		cfq_stop_idling(cfqd, now);
	else if (!cfqq->on_tree)
		cfq_add_busy(cfqd, cfqq);
	cfq_preempt(cfqd, cfqq, now);
}

/* The process of @c is gone: nobody will send what idling waits for. */
static void cfq_exited(struct ioq_sched *s, struct ioq_client *c, u64 now)
{
	struct cfq_data *cfqd = cfq_of(s);
	struct cfq_queue *cfqq = cfqq_of(c);

	if (cfqd->active == cfqq && ioq_empty(&cfqq->ioq))
		cfq_expire(cfqd, now, CFQ_EXPIRED_EXIT);
}

/*
 * The queue @bio of the current process would join: its sync queue (the
 * core's merge client; NULL before its first request), or the async
 * queue of its ioprio.  A bio joins only a request of that queue, as in
 * CFQ: otherwise a sync write could also wait behind async writeback.
 */
static struct ioq_client *cfq_bio_client(struct ioq_sched *s,
					 struct bio *bio)
{
	struct cfq_data *cfqd = cfq_of(s);
	unsigned short ioprio = bio_prio(bio);
	enum cfq_class class = cfq_class_of(ioprio);

	lockdep_assert_held(&s->lock);
	if (op_is_sync(bio->bi_opf))
		return s->merge_client;
	return &cfqd->async_queues[class][cfq_level_of(ioprio)].client;
}

/* Front merges: look in the bio's own queue. */
static int cfq_request_merge(struct request_queue *q, struct request **rq,
			     struct bio *bio)
{
	struct ioq_client *c = cfq_bio_client(q->elevator->elevator_data, bio);
	struct request *found;

	if (!c)
		return ELEVATOR_NO_MERGE;
	found = ioq_front_merge_candidate(&cfqq_of(c)->ioq, bio);
	if (!found)
		return ELEVATOR_NO_MERGE;
	*rq = found;
	return blk_discard_mergable(found) ? ELEVATOR_DISCARD_MERGE :
					     ELEVATOR_FRONT_MERGE;
}

static void cfq_request_merged(struct request_queue *q, struct request *rq,
			       enum elv_merge type)
{
	struct cfq_queue *cfqq = rq_cfqq(rq);

	if (type == ELEVATOR_FRONT_MERGE && cfqq) {
		elv_rb_del(&cfqq->ioq.sort_list, rq);
		elv_rb_add(&cfqq->ioq.sort_list, rq);
	}
}

/* @next left its queue, merged into @rq. */
static void cfq_merged(struct ioq_sched *s, struct request *rq,
		       struct request *next)
{
	struct cfq_queue *cfqq = rq_cfqq(next);

	/* Only neighbours in one queue's sort order merge (next_request). */
	if (WARN_ON_ONCE(rq_cfqq(rq) != cfqq))
		ioq_del_request(&cfqq->ioq, next);
	else
		ioq_merged_requests(&cfqq->ioq, rq, next);
	if (cfqq->on_tree && ioq_empty(&cfqq->ioq))
		cfq_del_busy(cfq_of(s), cfqq);
}

static const struct cfq_tunables cfq_defaults = {
	.slice_idle = 8,
	.slice_sync = 100,
	.slice_async = 300,
	.slice_async_rq = 8,
	.quantum = 8,
	.fifo_expire_sync = 125,
	.fifo_expire_async = 250,
	.fifo_drain = 0,
	.back_seek_max = 16 * 1024,
	.back_seek_penalty = 2,
	.group_idle = 8,
	.target_latency = 300,
	.prio_aging_expire = 10000,
	.low_latency = 1,
	.idle_nonrot = 0,
};

static const struct ioq_policy_ops cfq_policy_ops = {
	.client_of	= cfq_client_of,
	.insert		= cfq_insert,
	.next_request	= cfq_take_request,
	.dispatched	= cfq_dispatched,
	.completed	= cfq_completed,
	.requeued	= cfq_requeued,
	.merged		= cfq_merged,
	.exited		= cfq_exited,
	.bio_client	= cfq_bio_client,
	.unit_hold_ns	= cfq_unit_hold_ns,
	.free_client	= cfq_free_client,
};

/* Set up a zeroed @cfqd to schedule @q with the default tunables. */
static void cfq_init_data(struct cfq_data *cfqd, struct request_queue *q)
{
	int class, level;

	ioq_sched_init(&cfqd->core, q, &cfq_policy_ops);
	cfqd->tun = cfq_defaults;
	for (class = 0; class < CFQ_NR_CLASSES; class++) {
		cfqd->trees[class].root = RB_ROOT_CACHED;
		for (level = 0; level < IOPRIO_NR_LEVELS; level++)
			cfq_init_queue(&cfqd->async_queues[class][level], false,
				       class, level);
	}
	cfq_init_queue(&cfqd->oom_queue, true, CFQ_BE, IOPRIO_BE_NORM);
}

static int cfq_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct cfq_data *cfqd;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	cfqd = kzalloc_node(sizeof(*cfqd), GFP_KERNEL, q->node);
	if (!cfqd) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	cfq_init_data(cfqd, q);
	eq->elevator_data = &cfqd->core;

	/* Dispatch from the request queue as a whole, not per hw queue. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	/*
	 * Slices and the async ramp already keep writeback from burying
	 * reads; writeback throttling on top would starve the async slices.
	 */
	set_bit(ELEVATOR_FLAG_DISABLE_WBT, &eq->flags);
	wbt_disable_default(q->disk);
	q->elevator = eq;
	return 0;
}

static void cfq_exit_sched(struct elevator_queue *e)
{
	struct cfq_data *cfqd = cfq_of(e->elevator_data);

	ioq_sched_stop(&cfqd->core);
	spin_lock_irq(&cfqd->core.lock);
	if (cfqd->active)
		cfq_expire(cfqd, ktime_get_ns(), CFQ_EXPIRED_EXIT);
	spin_unlock_irq(&cfqd->core.lock);
	ioq_sched_exit(&cfqd->core);
	clear_bit(ELEVATOR_FLAG_DISABLE_WBT, &e->flags);
	wbt_enable_default(cfqd->core.queue->disk);
	kfree(cfqd);
}

/*
 * Tunables under queue/iosched/, and the core's (blk-ioq.h declares
 * theirs).  Each is declared once, with its limits, by CFQ_TUNABLE()
 * below, which also makes its sysfs show and store functions; cfq_attrs[]
 * then names it, and a tunable missing there leaves its functions unused,
 * which the compiler reports.
 */
#define CFQ_TUNABLE(field, lo, hi)					\
	IOQ_TUNABLE(cfq_##field, struct cfq_data, tun.field, lo, hi, false)

CFQ_TUNABLE(slice_idle, 0, 1000);
CFQ_TUNABLE(slice_sync, 1, 10000);
CFQ_TUNABLE(slice_async, 1, 10000);
CFQ_TUNABLE(slice_async_rq, 1, 1024);
CFQ_TUNABLE(quantum, 1, 1024);
CFQ_TUNABLE(fifo_expire_sync, 1, 60000);
CFQ_TUNABLE(fifo_expire_async, 1, 60000);
CFQ_TUNABLE(fifo_drain, 0, 1);
CFQ_TUNABLE(back_seek_max, 0, 1 << 30);
CFQ_TUNABLE(back_seek_penalty, 1, 1000);
CFQ_TUNABLE(group_idle, 0, 1000);
CFQ_TUNABLE(target_latency, 1, 10000);
CFQ_TUNABLE(prio_aging_expire, 1, 600000);
CFQ_TUNABLE(low_latency, 0, 1);
CFQ_TUNABLE(idle_nonrot, 0, 1);
#undef CFQ_TUNABLE
IOQ_SEEK_DISTANCE_TUNABLE(cfq, struct cfq_data);
IOQ_SEEK_MIN_SIZE_TUNABLE(cfq, struct cfq_data);
IOQ_SEEKY_REQUESTS_TUNABLE(cfq, struct cfq_data);
IOQ_SPINDLES_TUNABLE(cfq, struct cfq_data);

#define CFQ_ATTR(field)							\
	__ATTR(field, 0644, cfq_##field##_show, cfq_##field##_store)
static struct elv_fs_entry cfq_attrs[] = {
	CFQ_ATTR(slice_idle),
	CFQ_ATTR(slice_sync),
	CFQ_ATTR(slice_async),
	CFQ_ATTR(slice_async_rq),
	CFQ_ATTR(quantum),
	CFQ_ATTR(fifo_expire_sync),
	CFQ_ATTR(fifo_expire_async),
	CFQ_ATTR(fifo_drain),
	CFQ_ATTR(back_seek_max),
	CFQ_ATTR(back_seek_penalty),
	CFQ_ATTR(group_idle),
	CFQ_ATTR(target_latency),
	CFQ_ATTR(prio_aging_expire),
	CFQ_ATTR(low_latency),
	CFQ_ATTR(idle_nonrot),
	CFQ_ATTR(seek_distance),
	CFQ_ATTR(seek_min_size),
	CFQ_ATTR(seeky_requests),
	CFQ_ATTR(spindles),
	__ATTR_NULL
};

#undef CFQ_ATTR

#ifdef CONFIG_BLK_DEBUG_FS
static void cfq_show_queue(struct seq_file *m, struct cfq_data *cfqd,
			   struct cfq_queue *cfqq)
{
	seq_printf(m, "pid %d %s %s/%u vtime %llu queued %u in_flight %u seeky %d think_us %llu mean_bytes %u\n",
		   cfqq->client.pid, cfqq->sync ? "sync" : "async",
		   cfq_class_names[cfqq->class], cfqq->level, cfqq->vtime,
		   cfqq->ioq.queued, cfqq->client.in_flight,
		   cfq_seeky(cfqd, cfqq),
		   div_u64(cfqq->client.stats.think_time_ns, NSEC_PER_USEC),
		   cfqq->client.stats.mean_bytes);
}

static int cfq_active_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = cfq_of(q->elevator->elevator_data);
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&cfqd->core.lock, flags);
	now = ktime_get_ns();
	if (cfqd->active) {
		cfq_show_queue(m, cfqd, cfqd->active);
		seq_printf(m, "slice_left_us %lld idling %d\n",
			   div_s64((s64)(cfqd->active->slice_end_ns - now),
				   NSEC_PER_USEC),
			   ioq_idling(&cfqd->core));
	}
	spin_unlock_irqrestore(&cfqd->core.lock, flags);
	return 0;
}

static int cfq_busy_queues_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = cfq_of(q->elevator->elevator_data);
	unsigned long flags;
	struct rb_node *node;
	int class;

	spin_lock_irqsave(&cfqd->core.lock, flags);
	for (class = 0; class < CFQ_NR_CLASSES; class++)
		for (node = rb_first_cached(&cfqd->trees[class].root); node;
		     node = rb_next(node))
			cfq_show_queue(m, cfqd, rb_entry(node, struct cfq_queue,
							 tree_node));
	spin_unlock_irqrestore(&cfqd->core.lock, flags);
	return 0;
}

static int cfq_slices_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = cfq_of(q->elevator->elevator_data);
	unsigned long flags;
	int sync, why;

	spin_lock_irqsave(&cfqd->core.lock, flags);
	for (sync = 1; sync >= 0; sync--)
		for (why = 0; why < CFQ_NR_EXPIRIES; why++) {
			const struct cfq_expiry_stats *st =
				&cfqd->expired[sync][why];

			seq_printf(m, "%s %s slices %llu used_ms %llu dispatched %llu\n",
				   sync ? "sync" : "async",
				   cfq_expiry_names[why], st->slices,
				   div_u64(st->used_ns, NSEC_PER_MSEC),
				   st->dispatched);
		}
	spin_unlock_irqrestore(&cfqd->core.lock, flags);
	return 0;
}

static const struct blk_mq_debugfs_attr cfq_queue_debugfs_attrs[] = {
	{"active", 0400, cfq_active_show},
	{"busy_queues", 0400, cfq_busy_queues_show},
	{"slices", 0400, cfq_slices_show},
	{"estimator", 0400, ioq_estimator_show},
	{"records", 0400, ioq_records_show},
	{},
};
#endif

static struct elevator_type mq_cfq = {
	/* ioq_elv_register() fills in the core's operations and icq. */
	.ops = {
		.request_merge		= cfq_request_merge,
		.request_merged		= cfq_request_merged,
		.init_sched		= cfq_init_sched,
		.exit_sched		= cfq_exit_sched,
	},
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = cfq_queue_debugfs_attrs,
#endif
	.elevator_attrs = cfq_attrs,
	.elevator_name = "mq-cfq",
	.elevator_owner = THIS_MODULE,
};
MODULE_ALIAS("mq-cfq-iosched");

static int __init cfq_init(void)
{
	int ret;

	cfq_queue_cache = KMEM_CACHE(cfq_queue, 0);
	if (!cfq_queue_cache)
		return -ENOMEM;
	ret = ioq_elv_register(&mq_cfq);
	if (ret)
		kmem_cache_destroy(cfq_queue_cache);
	return ret;
}

static void __exit cfq_exit(void)
{
	elv_unregister(&mq_cfq);
	kmem_cache_destroy(cfq_queue_cache);
}

module_init(cfq_init);
module_exit(cfq_exit);

#ifdef CONFIG_MQ_IOSCHED_CFQ_KUNIT_TEST
#include "mq-cfq-iosched_kunit.c"
#endif

MODULE_AUTHOR("iosched team");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Fair time-slice I/O scheduler for blk-mq");
