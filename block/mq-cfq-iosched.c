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
#include <linux/hrtimer.h>
#include <linux/ioprio.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <trace/events/block.h>

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
/* How long and how often to probe a rotational device's parallelism. */
#define CFQ_PROBE_NS		(250 * NSEC_PER_MSEC)
#define CFQ_PROBE_EVERY_NS	(2 * NSEC_PER_SEC)
#define CFQ_REPROBE_EVERY_NS	(10 * NSEC_PER_SEC)
/* Virtual time advances by this much for a full slice of service. */
#define CFQ_VTIME_SLICE		1000000ULL
/* Value of a tunable left to the scheduler's own judgement. */
#define CFQ_AUTO		UINT_MAX
/* The async ramp takes this fraction (1/n) of slice_async. */
#define CFQ_ASYNC_RAMP_PARTS	4

struct cfq_data;

struct cfq_queue {
	struct ioq ioq;
	struct cfq_data *cfqd;
	int ref;
	struct rb_node tree_node;
	bool on_tree;
	bool counted_seeky;		/* in its tree's busy_seeky */
	u64 counted_slice_ns;		/* in its tree's busy_slice_ns */
	bool sync;
	enum cfq_class class;
	unsigned short level;
	u64 vtime;
	unsigned int in_flight;
	u64 slice_start_ns;
	u64 slice_end_ns;		/* U64_MAX until the first completion */
	unsigned int slice_dispatched;
	enum cfq_turn turn;		/* while it is active */
	unsigned int turn_draining;	/* async: its last turn's, in flight */
	pid_t pid;
};

/* One unit of a striped device: who it is reserved for, and until when. */
struct cfq_unit {
	/* cleared when the queue is freed or the layout changes */
	const struct cfq_queue *owner;
	unsigned int in_flight;
	u64 free_at_ns;			/* once nothing is in flight */
};

struct cfq_io_cq {
	struct io_cq icq;		/* must be first */
	struct cfq_queue *sync_queue;
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
	unsigned int seek_distance;	/* sectors, or CFQ_AUTO */
	unsigned int seek_min_size;	/* KiB, or CFQ_AUTO */
	unsigned int seeky_requests;	/* of IOQ_SEEK_HISTORY */
	unsigned int spindles;		/* or CFQ_AUTO */
};

/*
 * What mq-cfq keeps of a request it sent to the driver, from dispatch to
 * completion, both under the lock: one record per scheduler tag, as a tag
 * names one request at a time.
 */
struct cfq_record {
	u64 dispatch_ns;
	u8 unit;			/* of a striped device */
	bool dispatched;		/* on the device, not requeued */
	bool small;			/* counts for the parallelism estimator */
};

static_assert(IOQ_PAR_MAX_UNITS - 1 <= U8_MAX);

/*
 * The records of one tag space: a hardware queue's own scheduler tags, or
 * the request queue's when its hardware queues share them
 * (BLK_MQ_F_TAG_HCTX_SHARED: SAS HBAs, RAID controllers), where a tag is
 * unique across the queue.  hctx->sched_data points at them, and every
 * tag that can be allocated has its record (cfq_grow_records()).
 */
struct cfq_record_set {
	unsigned int nr;
	struct cfq_record rec[] __counted_by(nr);
};

struct cfq_data {
	spinlock_t lock;		/* everything below */
	struct request_queue *queue;
	struct cfq_record_set *shared_records;	/* or NULL, see the type */
	struct cfq_tunables tun;

	struct cfq_tree trees[CFQ_NR_CLASSES];
	struct cfq_queue *active;
	struct list_head dispatch;	/* inserted at head: served first */
	unsigned int queued;
	unsigned int in_flight;
	bool held_back;			/* returned nothing with work queued */
	unsigned int async_depth;	/* scheduler tags async requests may hold */
	unsigned int idle_depth;	/* and IDLE-class requests */
	struct cfq_queue *merge_queue;	/* of the bio being merged */

	struct hrtimer timer;		/* idle window and IDLE-class grace */
	u64 idle_start_ns;		/* 0: not idling */
	u64 idle_until_ns;

	u64 last_completion_ns;
	u64 last_sync_completion_ns;
	u64 mean_service_ns;		/* decayed, per request */
	u32 service_samples;
	u64 last_nonidle_ns;		/* RT or BE request out or done */
	struct ioq_par_est par;
	u64 probe_start_ns;
	struct ioq_layout layout;	/* taken anew when the limits change */
	struct cfq_unit units[IOQ_PAR_MAX_UNITS];
	struct cfq_expiry_stats expired[2][CFQ_NR_EXPIRIES];	/* [sync] */

	struct cfq_queue async_queues[CFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct cfq_queue oom_queue;	/* when a sync queue can't be had */
};

static struct kmem_cache *cfq_queue_cache;

static inline struct cfq_io_cq *icq_to_cic(struct io_cq *icq)
{
	return container_of(icq, struct cfq_io_cq, icq);
}

static inline struct cfq_queue *rq_cfqq(struct request *rq)
{
	return rq->elv.priv[0];
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

static struct ioq_seek_params cfq_seek_params(const struct cfq_data *cfqd)
{
	const struct cfq_tunables *t = &cfqd->tun;
	bool rotational = !blk_queue_nonrot(cfqd->queue);

	return (struct ioq_seek_params) {
		.rotational = rotational,
		.max_distance = t->seek_distance == CFQ_AUTO ? 800 :
				t->seek_distance,
		.min_bytes = (t->seek_min_size == CFQ_AUTO ? 32 :
			      t->seek_min_size) * 1024,
		.max_seeks = t->seeky_requests,
	};
}

static bool cfq_seeky(const struct cfq_data *cfqd,
		      const struct cfq_queue *cfqq)
{
	struct ioq_seek_params p = cfq_seek_params(cfqd);

	return ioq_stats_seeky(&cfqq->ioq.stats, &p);
}

/*
 * Whether a rotational device is due a probe: for a short while, any
 * number of queues may dispatch at once, so that the estimator sees deep
 * windows.  Without it, idling would keep the depth at one on a RAID and
 * the estimator could never learn otherwise; with it, a RAID's estimate
 * is not capped by the depth its own idling allowed.
 */
static bool cfq_probing(struct cfq_data *cfqd, u64 now)
{
	const struct ioq_par_est *par = &cfqd->par;
	u64 every = par->deep_windows ? CFQ_REPROBE_EVERY_NS :
					CFQ_PROBE_EVERY_NS;
	u64 last = max(par->last_deep_ns, cfqd->probe_start_ns);

	if (ioq_ns_since(now, cfqd->probe_start_ns) < CFQ_PROBE_NS)
		return true;
	if (ioq_ns_since(now, last) < every)
		return false;
	cfqd->probe_start_ns = now;
	return true;
}

/*
 * Requests the device serves in parallel: forced, reported by a striped
 * device, measured or assumed.
 */
static unsigned int cfq_units(struct cfq_data *cfqd, u64 now)
{
	if (cfqd->tun.spindles != CFQ_AUTO)
		return cfqd->tun.spindles;
	if (cfqd->layout.chunk_sectors)
		return cfqd->layout.units;
	if (blk_queue_nonrot(cfqd->queue))
		return ioq_par_units(&cfqd->par, IOQ_PAR_MAX_UNITS);
	if (cfq_probing(cfqd, now))
		return IOQ_PAR_MAX_UNITS;
	return ioq_par_units(&cfqd->par, 1);
}

static void cfq_get_queue(struct cfq_queue *cfqq)
{
	cfqq->ref++;
}

/* A freed queue holds no unit: its memory may become another queue. */
static void cfq_release_units(struct cfq_data *cfqd,
			      const struct cfq_queue *cfqq)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cfqd->units); i++)
		if (cfqd->units[i].owner == cfqq)
			cfqd->units[i].owner = NULL;
}

static void cfq_put_queue(struct cfq_queue *cfqq)
{
	if (--cfqq->ref)
		return;
	WARN_ON_ONCE(cfqq->on_tree || cfqq->in_flight || cfqq->ioq.queued);
	cfq_release_units(cfqq->cfqd, cfqq);
	kmem_cache_free(cfq_queue_cache, cfqq);
}

static void cfq_init_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			   bool sync, enum cfq_class class,
			   unsigned short level)
{
	ioq_init(&cfqq->ioq);
	cfqq->cfqd = cfqd;
	cfqq->ref = 1;
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

/* The queue @rq belongs to; the caller takes a reference for @rq. */
static struct cfq_queue *cfq_queue_for(struct cfq_data *cfqd,
				       struct request *rq)
{
	unsigned short ioprio = req_get_ioprio(rq);
	enum cfq_class class = cfq_class_of(ioprio);
	unsigned short level = cfq_level_of(ioprio);
	struct cfq_io_cq *cic;
	struct cfq_queue *cfqq;

	if (!rq_is_sync(rq))
		return &cfqd->async_queues[class][level];
	if (!rq->elv.icq)
		return &cfqd->oom_queue;
	cic = icq_to_cic(rq->elv.icq);
	cfqq = cic->sync_queue;
	if (!cfqq) {
		cfqq = kmem_cache_zalloc(cfq_queue_cache,
					 GFP_NOWAIT | __GFP_NOWARN);
		if (!cfqq)
			return &cfqd->oom_queue;
		cfq_init_queue(cfqd, cfqq, true, class, level);
		cfqq->pid = current->pid;
		cic->sync_queue = cfqq;
	}
	/* A changed ioprio applies from the next time the queue is idle. */
	if (!cfqq->on_tree && cfqd->active != cfqq) {
		cfqq->class = class;
		cfqq->level = level;
	}
	return cfqq;
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

static void cfq_stop_idling(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active;
	u64 idled;

	if (!cfqd->idle_start_ns)
		return;
	idled = ioq_ns_since(now, cfqd->idle_start_ns);
	trace_mq_cfq_idle_end(cfqd->queue, cfqq->pid, idled);
	cfq_charge(cfqd, cfqq, idled);
	cfqd->idle_start_ns = 0;
	cfqd->idle_until_ns = 0;
	hrtimer_try_to_cancel(&cfqd->timer);
}

static void cfq_arm_timer(struct cfq_data *cfqd, u64 delay_ns)
{
	hrtimer_start(&cfqd->timer, ns_to_ktime(delay_ns), HRTIMER_MODE_REL);
}

static void cfq_start_idling(struct cfq_data *cfqd, u64 now, u64 window)
{
	cfqd->idle_start_ns = now;
	cfqd->idle_until_ns = now + window;
	trace_mq_cfq_idle_start(cfqd->queue, cfqd->active->pid, window);
	cfq_arm_timer(cfqd, window);
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
	cfqq->turn_draining = cfqq->in_flight;
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
	trace_mq_cfq_slice_expire(cfqd->queue, cfqq->pid, cfqq->sync, used,
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
	cfq_put_queue(cfqq);
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
	return nsecs_to_jiffies(cfqd->in_flight * cfqd->mean_service_ns);
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

	return !cfqq->sync && !cfqq->in_flight &&
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
	cfq_get_queue(cfqq);
	cfqd->active = cfqq;
	cfqq->slice_start_ns = now;
	cfqq->slice_end_ns = U64_MAX;
	cfqq->slice_dispatched = 0;
}

/*
 * With low_latency, slices shrink in proportion when a round over the
 * class's busy queues would take longer than target_latency, so that no
 * queue waits much longer than that for its turn; shares stay the same.
 */
static u64 cfq_latency_slice_ns(const struct cfq_data *cfqd,
				const struct cfq_queue *cfqq)
{
	u64 slice = cfq_slice_ns(cfqd, cfqq);
	u64 round = slice + cfqd->trees[cfqq->class].busy_slice_ns;
	u64 target = cfq_ms(cfqd->tun.target_latency);

	if (!cfqd->tun.low_latency || round <= target)
		return slice;
	return max(mul_u64_u64_div_u64(slice, target, round),
		   2 * cfq_ms(cfqd->tun.slice_idle));
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
	 * than the seek to it (the floor of cfq_latency_slice_ns()).
	 */
	if (cfqq->turn == CFQ_TURN_STARVED)
		slice = min(slice, max(cfq_ms(cfqd->tun.fifo_expire_sync),
				       2 * cfq_ms(cfqd->tun.slice_idle)));
	cfqq->slice_start_ns = now;
	cfqq->slice_end_ns = now + slice;
	trace_mq_cfq_slice_start(cfqd->queue, cfqq->pid, cfqq->sync,
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
	cfq_arm_timer(cfqd, CFQ_IDLE_GRACE_NS - since);
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
	if (!ioq_stats_thinks_within(&cfqq->ioq.stats, window))
		return 0;
	/* RT comes first on any device: BE waits while RT thinks briefly. */
	if (cfqq->class == CFQ_RT)
		return window;
	if (blk_queue_nonrot(cfqd->queue) && !t->idle_nonrot)
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
	struct cfq_queue *cfqq = cfqd->active;
	u64 window;

	/*
	 * With every scheduler tag held by requests queued or in flight, the
	 * process may be sleeping for a tag: its next request cannot come
	 * while the device waits for it (ata_piix has two tags in all).
	 */
	if (cfqd->queued + cfqd->in_flight >= cfqd->queue->nr_requests)
		return false;
	if (cfqd->idle_start_ns)
		return now < cfqd->idle_until_ns;
	window = cfq_idle_window(cfqd, cfqq);
	if (!window)
		return false;
	if (!cfqq->in_flight)
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
 * growing to quantum over the first part of an async slice (the seeds/003
 * ramp).  A random reader's deadline ends async slices after about
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
	bool alone = cfqd->queued == cfqq->ioq.queued;

	/* A starved turn is short: no ramp, it is writeback's only chance. */
	if (!cfqq->sync && !cfq_in_starved_turn(cfqd, cfqq))
		depth = min(depth, cfq_async_depth(cfqd, now));
	else if (cfqq->sync && alone)
		return true;	/* nobody to be fair to */
	return cfqq->in_flight < depth;
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

static unsigned int cfq_unit_of(const struct cfq_data *cfqd,
				const struct request *rq)
{
	return ioq_layout_unit(&cfqd->layout, blk_rq_pos(rq));
}

static struct cfq_record *cfq_record_of(const struct request *rq)
{
	struct cfq_record_set *recs = rq->mq_hctx->sched_data;

	return &recs->rec[rq->internal_tag];
}

/* Count @rq of @cfqq as sent to the device at @now. */
static void cfq_account_dispatch(struct cfq_data *cfqd,
				 struct cfq_queue *cfqq, struct request *rq,
				 u64 now)
{
	struct cfq_record *rec = cfq_record_of(rq);
	unsigned int unit = cfq_unit_of(cfqd, rq);

	/* Counted twice, it would stay in flight for ever. */
	if (WARN_ON_ONCE(rec->dispatched))
		return;
	cfqq->ioq.head_pos = blk_rq_pos(rq) + blk_rq_sectors(rq);
	cfqq->in_flight++;
	cfqq->slice_dispatched++;
	cfqd->in_flight++;
	if (cfqq->class != CFQ_IDLE)
		cfqd->last_nonidle_ns = max(cfqd->last_nonidle_ns, now);
	cfqd->units[unit].owner = cfqq;
	cfqd->units[unit].in_flight++;
	ioq_par_dispatch(&cfqd->par, now);
	rec->dispatch_ns = now;
	rec->unit = unit;
	rec->small = blk_rq_bytes(rq) <= IOQ_PAR_SMALL_BYTES;
	rec->dispatched = true;
}

static struct request *cfq_dispatch_from(struct cfq_data *cfqd,
					 struct cfq_queue *cfqq, u64 now)
{
	struct request *rq = cfq_next_request(cfqd, cfqq);

	ioq_del_request(&cfqq->ioq, rq);
	cfqd->queued--;
	if (cfqq->on_tree && ioq_empty(&cfqq->ioq))
		cfq_del_busy(cfqd, cfqq);
	cfq_account_dispatch(cfqd, cfqq, rq, now);
	rq->rq_flags |= RQF_STARTED;
	return rq;
}

/*
 * A request inserted at the head goes first.  One the driver gave back is
 * counted as dispatched again: on the device, it is in flight.
 */
static void cfq_dispatch_head(struct cfq_data *cfqd, struct request *rq,
			      u64 now)
{
	list_del_init(&rq->queuelist);
	if (rq_cfqq(rq))
		cfq_account_dispatch(cfqd, rq_cfqq(rq), rq, now);
	rq->rq_flags |= RQF_STARTED;
}

/*
 * Whether @rq of @cfqq may go to its unit: the unit is @cfqq's, or has
 * nothing in flight and is no longer reserved for the queue it served.
 */
static bool cfq_unit_free_for(const struct cfq_data *cfqd,
			      const struct cfq_queue *cfqq,
			      const struct request *rq, u64 now)
{
	const struct cfq_unit *unit = &cfqd->units[cfq_unit_of(cfqd, rq)];

	return unit->owner == cfqq ||
	       (!unit->in_flight && now >= unit->free_at_ns);
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
		    cfq_unit_free_for(cfqd, cfqq, cfq_next_request(cfqd, cfqq),
				      now))
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
	struct cfq_queue *cfqq;

	if (cfqd->layout.chunk_sectors && cfqd->tun.spindles == CFQ_AUTO)
		return cfq_queue_for_free_unit(cfqd, now);
	if (cfqd->in_flight + 1 >= cfq_units(cfqd, now))
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
		 * time and most of the writer's share (seeds/003).
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
		if (blk_queue_nonrot(cfqd->queue) &&
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

/*
 * Queue limits can change under the scheduler (a RAID controller's volume
 * rescanned, a disk revalidated, queue/rotational written): take the
 * layout anew before choosing by it.  Requests in flight keep the unit
 * they were counted on; the old layout's reservations are dropped.
 * Most limit updates freeze the queue, and requests are queued here, so
 * the reads do not race with them; a read that races with an update
 * that does not freeze is taken anew at the next dispatch.
 */
static void cfq_update_layout(struct cfq_data *cfqd)
{
	struct request_queue *q = cfqd->queue;
	unsigned int i;

	lockdep_assert_held(&cfqd->lock);
	if (!ioq_layout_update(&cfqd->layout, queue_io_min(q), queue_io_opt(q),
			       !blk_queue_nonrot(q)))
		return;
	for (i = 0; i < ARRAY_SIZE(cfqd->units); i++) {
		cfqd->units[i].owner = NULL;
		cfqd->units[i].free_at_ns = 0;
	}
}

static struct request *cfq_dispatch_queued(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq;

	if (!cfqd->queued)
		return NULL;
	cfq_update_layout(cfqd);
	cfqq = cfq_select_queue(cfqd, now);
	if (!cfqq || !cfq_may_dispatch(cfqd, cfqq, now))
		return NULL;
	return cfq_dispatch_from(cfqd, cfqq, now);
}

/*
 * A request of @cfqq on @unit completed.  Once the unit is idle, it stays
 * reserved for @cfqq as long as the queue would be idled for: its next
 * request is likely to continue the run on that unit.
 */
static void cfq_unit_completed(struct cfq_data *cfqd,
			       const struct cfq_queue *cfqq,
			       unsigned int unit, u64 now)
{
	struct cfq_unit *u = &cfqd->units[unit];

	if (--u->in_flight || !cfqd->layout.chunk_sectors)
		return;
	u->free_at_ns = now;
	if (u->owner == cfqq && !cfq_seeky(cfqd, cfqq))
		u->free_at_ns += cfq_idle_window(cfqd, cfqq);
}

/*
 * The request of @cfqq that @rec records is back from the device.
 * Returns whether dispatch held back work that may go now.
 */
static bool cfq_completed(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			  const struct cfq_record *rec, u64 now)
{
	u64 service = min(ioq_ns_since(now, rec->dispatch_ns),
			  ioq_ns_since(now, cfqd->last_completion_ns));
	bool held_back = cfqd->held_back;

	cfqd->last_completion_ns = max(cfqd->last_completion_ns, now);
	cfqd->mean_service_ns = ioq_decay(cfqd->mean_service_ns, service,
					  &cfqd->service_samples);
	cfqd->in_flight--;
	cfqq->in_flight--;
	cfq_unit_completed(cfqd, cfqq, rec->unit, now);
	ioq_par_complete(&cfqd->par, now, rec->small);
	ioq_stats_completion(&cfqq->ioq.stats, now);
	cfq_charge(cfqd, cfqq, service);
	if (cfqq == cfqd->active && cfqq->slice_end_ns == U64_MAX)
		cfq_start_slice(cfqd, cfqq, now);
	if (cfqq->sync)
		cfqd->last_sync_completion_ns =
			max(cfqd->last_sync_completion_ns, now);
	else
		cfq_async_completed(cfqd, cfqq, now);
	if (cfqq->class != CFQ_IDLE)
		cfqd->last_nonidle_ns = max(cfqd->last_nonidle_ns, now);
	cfqd->held_back = false;
	return held_back;
}

/*
 * Called with the lock held: the driver gave @rq back unserved, to go
 * through the scheduler again.  Undo the counts of its dispatch: no
 * service to charge, no slice to start, no completion for the estimator
 * (a busy driver would otherwise teach it that one spindle serves several
 * requests at once; the estimator drops its current window instead).  The
 * head position, the unit's owner and the last non-IDLE dispatch stay as
 * they are: the request will be sent there again.
 */
static void cfq_undispatch(struct cfq_data *cfqd, struct request *rq, u64 now)
{
	struct cfq_record *rec = cfq_record_of(rq);
	struct cfq_queue *cfqq = rq_cfqq(rq);

	/*
	 * A request the driver keeps prepared goes back to the device from
	 * the hardware queue's dispatch list, not through the scheduler: it
	 * stays in flight, and its completion accounts for it.
	 */
	if (!rec->dispatched || (rq->rq_flags & RQF_DONTPREP))
		return;
	cfqd->units[rec->unit].in_flight--;
	cfqq->in_flight--;
	cfqd->in_flight--;
	if (cfqq == cfqd->active && cfqq->slice_dispatched)
		cfqq->slice_dispatched--;
	ioq_par_requeue(&cfqd->par, now);
	rec->dispatched = false;
}

/*
 * The request of @cfqq that @rec records is freed, at @now.  Returns
 * whether the queue must be run again for work dispatch held back.
 */
static bool cfq_request_done(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			     struct cfq_record *rec, u64 now)
{
	bool rerun = false;

	if (rec->dispatched) {
		rerun = cfq_completed(cfqd, cfqq, rec, now);
		rec->dispatched = false;
	}
	cfq_put_queue(cfqq);
	return rerun;
}

static struct request *cfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;
	unsigned long flags;
	struct request *rq;
	u64 now;

	spin_lock_irqsave(&cfqd->lock, flags);
	now = ktime_get_ns();
	rq = list_first_entry_or_null(&cfqd->dispatch, struct request,
				      queuelist);
	if (rq)
		cfq_dispatch_head(cfqd, rq, now);
	else
		rq = cfq_dispatch_queued(cfqd, now);
	cfqd->held_back = !rq && cfqd->queued;
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return rq;
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
static void cfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct cfq_data *cfqd = data->q->elevator->elevator_data;

	if (IOPRIO_PRIO_CLASS(get_current_ioprio()) == IOPRIO_CLASS_IDLE)
		data->shallow_depth = READ_ONCE(cfqd->idle_depth);
	else if (!op_is_sync(opf) || op_is_write(opf))
		data->shallow_depth = READ_ONCE(cfqd->async_depth);
}

/*
 * Records are allocated with GFP_NOIO: the queue is frozen, or being set
 * up, and reclaim must not wait for I/O to it.  @gfp adds to that.
 */
static struct cfq_record_set *cfq_alloc_records(unsigned int nr, int node,
						gfp_t gfp)
{
	struct cfq_record_set *recs;

	recs = kvzalloc_node(struct_size(recs, rec, nr), GFP_NOIO | gfp, node);
	if (recs)
		recs->nr = nr;
	return recs;
}

/*
 * Give @hctx the records @recs (NULL: none) and return those it had.  The
 * queue is frozen or not yet running; the lock is for the sched/ debugfs
 * readers, which walk hctx->sched_data under it and whose files exist
 * from before init_hctx to after exit_hctx.
 */
static struct cfq_record_set *cfq_replace_records(struct cfq_data *cfqd,
						  struct blk_mq_hw_ctx *hctx,
						  struct cfq_record_set *recs)
{
	struct cfq_record_set *old;

	spin_lock_irq(&cfqd->lock);
	old = hctx->sched_data;
	hctx->sched_data = recs;
	spin_unlock_irq(&cfqd->lock);
	return old;
}

/*
 * nr_requests grew beyond the tags @hctx's records were made for: blk-mq
 * gave the hardware queue new tags, with the queue frozen.  Make records
 * for them.  depth_updated cannot fail, and the tags are already given,
 * so this allocation (at most MAX_SCHED_RQ records, 32 KiB) may not fail
 * either.  Shared tags are allocated at their maximum and never grow.
 */
static void cfq_grow_records(struct cfq_data *cfqd, struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_tags *tags = hctx->sched_tags;
	struct cfq_record_set *recs = hctx->sched_data;

	if (recs == cfqd->shared_records) {
		WARN_ON_ONCE(tags->nr_tags > recs->nr);
		return;
	}
	if (tags->nr_tags <= recs->nr)
		return;
	recs = cfq_alloc_records(tags->nr_tags, hctx->numa_node, __GFP_NOFAIL);
	kvfree(cfq_replace_records(cfqd, hctx, recs));
}

static void cfq_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;
	unsigned int nr;

	cfq_grow_records(cfqd, hctx);
	/* Called before q->nr_requests changes: the map has the new depth. */
	nr = hctx->sched_tags->bitmap_tags.sb.depth;
	WRITE_ONCE(cfqd->async_depth, max(1U, nr * 3 / 4));
	WRITE_ONCE(cfqd->idle_depth, max(1U, nr / 8));
	sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags,
					cfqd->idle_depth);
}

static int cfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;
	struct cfq_record_set *recs = cfqd->shared_records;

	if (!recs)
		recs = cfq_alloc_records(hctx->sched_tags->nr_tags,
					 hctx->numa_node, __GFP_NOWARN);
	if (!recs)
		return -ENOMEM;
	/* Under the lock: the sched/ debugfs files are already there. */
	cfq_replace_records(cfqd, hctx, recs);
	cfq_depth_updated(hctx);
	return 0;
}

static void cfq_exit_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;
	struct cfq_record_set *recs = cfq_replace_records(cfqd, hctx, NULL);

	if (recs != cfqd->shared_records)
		kvfree(recs);
}

static bool cfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;

	return !list_empty_careful(&cfqd->dispatch) || READ_ONCE(cfqd->queued);
}

/*
 * No merge of requests on insertion: the block layer offers no hook that
 * would keep it within one queue (see cfq_allow_bio_merge()).  A process's
 * bios still merge into its queued requests when they are submitted.
 */
static void cfq_insert_request(struct cfq_data *cfqd, struct request *rq,
			       blk_insert_t flags, u64 now)
{
	struct ioq_seek_params seek = cfq_seek_params(cfqd);
	unsigned int expire_ms = rq_is_sync(rq) ? cfqd->tun.fifo_expire_sync :
						 cfqd->tun.fifo_expire_async;
	struct cfq_queue *cfqq;
	bool was_idle;

	trace_block_rq_insert(rq);
	if (flags & BLK_MQ_INSERT_AT_HEAD) {
		list_add(&rq->queuelist, &cfqd->dispatch);
		return;
	}

	cfqq = rq_cfqq(rq);
	/* A requeued request is no news about its process. */
	if (!cfqq) {
		cfqq = cfq_queue_for(cfqd, rq);
		cfq_get_queue(cfqq);
		rq->elv.priv[0] = cfqq;
		was_idle = ioq_empty(&cfqq->ioq) && !cfqq->in_flight;
		ioq_stats_arrival(&cfqq->ioq.stats, now, was_idle);
		ioq_stats_add_request(&cfqq->ioq.stats, &seek, blk_rq_pos(rq),
				      blk_rq_bytes(rq));
	}
	ioq_add_request(&cfqq->ioq, rq, jiffies + msecs_to_jiffies(expire_ms));
	cfqd->queued++;

	if (cfqq == cfqd->active)
		cfq_stop_idling(cfqd, now);
	else if (!cfqq->on_tree)
		cfq_add_busy(cfqd, cfqq);
	cfq_preempt(cfqd, cfqq, now);
}

static void cfq_insert_requests(struct blk_mq_hw_ctx *hctx,
				struct list_head *list, blk_insert_t flags)
{
	struct request_queue *q = hctx->queue;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	unsigned long irq_flags;
	u64 now;

	spin_lock_irqsave(&cfqd->lock, irq_flags);
	/* Under the lock: idling and slices started before it are earlier. */
	now = ktime_get_ns();
	while (!list_empty(list)) {
		struct request *rq;

		rq = list_first_entry(list, struct request, queuelist);
		list_del_init(&rq->queuelist);
		cfq_insert_request(cfqd, rq, flags, now);
	}
	spin_unlock_irqrestore(&cfqd->lock, irq_flags);
}

static void cfq_prepare_request(struct request *rq)
{
	rq->elv.icq = ioc_find_get_icq(rq->q);
	rq->elv.priv[0] = NULL;
}

static void cfq_finish_request(struct request *rq)
{
	struct cfq_queue *cfqq = rq_cfqq(rq);
	struct cfq_data *cfqd;
	unsigned long flags;
	bool rerun;

	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
	if (!cfqq)
		return;
	rq->elv.priv[0] = NULL;
	cfqd = cfqq->cfqd;

	spin_lock_irqsave(&cfqd->lock, flags);
	rerun = cfq_request_done(cfqd, cfqq, cfq_record_of(rq), ktime_get_ns());
	spin_unlock_irqrestore(&cfqd->lock, flags);
	/* No completion will come to run it for work held back. */
	if (rerun)
		blk_mq_run_hw_queues(rq->q, true);
}

/* The driver gave @rq back; it will be inserted again. */
static void cfq_requeue_request(struct request *rq)
{
	struct cfq_queue *cfqq = rq_cfqq(rq);
	unsigned long flags;

	if (!cfqq)
		return;
	spin_lock_irqsave(&cfqq->cfqd->lock, flags);
	cfq_undispatch(cfqq->cfqd, rq, ktime_get_ns());
	spin_unlock_irqrestore(&cfqq->cfqd->lock, flags);
}

static enum hrtimer_restart cfq_timer_fn(struct hrtimer *timer)
{
	struct cfq_data *cfqd = container_of(timer, struct cfq_data, timer);

	/* The dispatch path decides what the end of the wait means. */
	blk_mq_run_hw_queues(cfqd->queue, true);
	return HRTIMER_NORESTART;
}

static void cfq_exit_icq(struct io_cq *icq)
{
	struct cfq_io_cq *cic = icq_to_cic(icq);
	struct cfq_queue *cfqq = cic->sync_queue;
	struct cfq_data *cfqd;
	unsigned long flags;

	if (!cfqq)
		return;
	cfqd = cfqq->cfqd;
	spin_lock_irqsave(&cfqd->lock, flags);
	cic->sync_queue = NULL;
	/* Nobody is left to send the request idling would wait for. */
	if (cfqd->active == cfqq && ioq_empty(&cfqq->ioq))
		cfq_expire(cfqd, ktime_get_ns(), CFQ_EXPIRED_EXIT);
	cfq_put_queue(cfqq);
	spin_unlock_irqrestore(&cfqd->lock, flags);
}

/*
 * The queue @bio of the current process would join: its sync queue (set
 * by cfq_bio_merge(); NULL before its first request), or the async queue
 * of its ioprio.
 */
static struct cfq_queue *cfq_bio_queue(struct cfq_data *cfqd,
				       struct bio *bio)
{
	unsigned short ioprio = bio_prio(bio);

	lockdep_assert_held(&cfqd->lock);
	if (op_is_sync(bio->bi_opf))
		return cfqd->merge_queue;
	return &cfqd->async_queues[cfq_class_of(ioprio)][cfq_level_of(ioprio)];
}

/*
 * A bio joins only a request of its own queue, as in CFQ: otherwise one
 * process's I/O would be served in another's slice and charged to it, and
 * a sync write could wait behind async writeback.
 */
static bool cfq_allow_bio_merge(struct request_queue *q, struct request *rq,
				struct bio *bio)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;

	return rq_cfqq(rq) && rq_cfqq(rq) == cfq_bio_queue(cfqd, bio);
}

/* Front merges: look in the bio's own queue. */
static int cfq_request_merge(struct request_queue *q, struct request **rq,
			     struct bio *bio)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	struct cfq_queue *cfqq = cfq_bio_queue(cfqd, bio);
	struct request *found;

	if (!cfqq)
		return ELEVATOR_NO_MERGE;
	found = ioq_front_merge_candidate(&cfqq->ioq, bio);
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

static void cfq_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	struct cfq_queue *cfqq = rq_cfqq(next);

	lockdep_assert_held(&cfqd->lock);
	if (!cfqq)
		return;
	/* Only neighbours in one queue's sort order merge (next_request). */
	if (WARN_ON_ONCE(rq_cfqq(rq) != cfqq))
		ioq_del_request(&cfqq->ioq, next);
	else
		ioq_merged_requests(&cfqq->ioq, rq, next);
	cfqd->queued--;
	if (cfqq->on_tree && ioq_empty(&cfqq->ioq))
		cfq_del_busy(cfqd, cfqq);
}

/*
 * The icq of the current task on @q, from the lookup hint the block layer
 * keeps or else its tree: icqs are freed after an RCU grace period, so
 * under rcu_read_lock() this needs no queue_lock, which ioc_lookup_icq()
 * takes for every bio.  Without it, no sync bio of the task may merge.
 */
static struct io_cq *cfq_current_icq(struct request_queue *q)
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

static bool cfq_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	unsigned long flags;
	struct request *free = NULL;
	struct io_cq *icq;
	bool merged;

	rcu_read_lock();
	icq = cfq_current_icq(q);
	spin_lock_irqsave(&cfqd->lock, flags);
	/* exit_icq() clears sync_queue under cfqd->lock */
	cfqd->merge_queue = icq ? icq_to_cic(icq)->sync_queue : NULL;
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	cfqd->merge_queue = NULL;
	spin_unlock_irqrestore(&cfqd->lock, flags);
	rcu_read_unlock();

	if (free)
		blk_mq_free_request(free);
	return merged;
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
	.seek_distance = CFQ_AUTO,
	.seek_min_size = CFQ_AUTO,
	.seeky_requests = 4,
	.spindles = CFQ_AUTO,
};

/* Set up a zeroed @cfqd to schedule @q with the default tunables. */
static void cfq_init_data(struct cfq_data *cfqd, struct request_queue *q)
{
	int class, level;

	spin_lock_init(&cfqd->lock);
	cfqd->queue = q;
	cfqd->tun = cfq_defaults;
	INIT_LIST_HEAD(&cfqd->dispatch);
	for (class = 0; class < CFQ_NR_CLASSES; class++) {
		cfqd->trees[class].root = RB_ROOT_CACHED;
		for (level = 0; level < IOPRIO_NR_LEVELS; level++)
			cfq_init_queue(cfqd, &cfqd->async_queues[class][level],
				       false, class, level);
	}
	cfq_init_queue(cfqd, &cfqd->oom_queue, true, CFQ_BE, IOPRIO_BE_NORM);
	ioq_par_init(&cfqd->par);
	ioq_layout_init(&cfqd->layout, queue_io_min(q), queue_io_opt(q),
			!blk_queue_nonrot(q));
	hrtimer_init(&cfqd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cfqd->timer.function = cfq_timer_fn;
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
	/* Tags unique across the queue: one record each, not per hw queue. */
	if (blk_mq_is_shared_tags(q->tag_set->flags)) {
		cfqd->shared_records =
			cfq_alloc_records(q->sched_shared_tags->nr_tags,
					  q->node, __GFP_NOWARN);
		if (!cfqd->shared_records) {
			kfree(cfqd);
			kobject_put(&eq->kobj);
			return -ENOMEM;
		}
	}
	eq->elevator_data = cfqd;
	cfq_init_data(cfqd, q);

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
	struct cfq_data *cfqd = e->elevator_data;

	hrtimer_cancel(&cfqd->timer);
	spin_lock_irq(&cfqd->lock);
	if (cfqd->active)
		cfq_expire(cfqd, ktime_get_ns(), CFQ_EXPIRED_EXIT);
	/* Frozen: every request was freed, none is on the device. */
	WARN_ON_ONCE(cfqd->queued || !list_empty(&cfqd->dispatch) ||
		     cfqd->in_flight);
	spin_unlock_irq(&cfqd->lock);
	clear_bit(ELEVATOR_FLAG_DISABLE_WBT, &e->flags);
	wbt_enable_default(cfqd->queue->disk);
	kvfree(cfqd->shared_records);
	kfree(cfqd);
}

/*
 * Tunables under queue/iosched/.  Each is declared once, with its limits,
 * by CFQ_TUNABLE() below, which also makes its sysfs show and store
 * functions; cfq_attrs[] then names it, and a tunable missing there
 * leaves its functions unused, which the compiler reports.  Values
 * outside [min, max] are refused with -EINVAL and the old value stays;
 * "auto" is accepted where the scheduler can decide by itself.
 */
struct cfq_tunable {
	size_t offset;
	unsigned int min, max;
	bool has_auto;
};

static unsigned int *cfq_tunable_ptr(struct cfq_data *cfqd,
				     const struct cfq_tunable *t)
{
	return (unsigned int *)((char *)&cfqd->tun + t->offset);
}

static ssize_t cfq_tunable_show(struct elevator_queue *e, char *page,
				const struct cfq_tunable *t)
{
	struct cfq_data *cfqd = e->elevator_data;
	unsigned int value = READ_ONCE(*cfq_tunable_ptr(cfqd, t));

	if (value == CFQ_AUTO)
		return sysfs_emit(page, "auto\n");
	return sysfs_emit(page, "%u\n", value);
}

static ssize_t cfq_tunable_store(struct elevator_queue *e, const char *page,
				 size_t count, const struct cfq_tunable *t)
{
	struct cfq_data *cfqd = e->elevator_data;
	unsigned long flags;
	unsigned int value;

	if (t->has_auto && sysfs_streq(page, "auto"))
		value = CFQ_AUTO;
	else if (kstrtouint(page, 10, &value) ||
		 value < t->min || value > t->max)
		return -EINVAL;

	spin_lock_irqsave(&cfqd->lock, flags);
	*cfq_tunable_ptr(cfqd, t) = value;
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return count;
}

/* A tunable: its field, minimum, maximum, whether "auto" is accepted. */
#define CFQ_TUNABLE(field, lo, hi, auto_ok)				\
static const struct cfq_tunable cfq_tunable_##field = {		\
	.offset = offsetof(struct cfq_tunables, field),			\
	.min = lo, .max = hi, .has_auto = auto_ok,			\
};									\
static ssize_t cfq_##field##_show(struct elevator_queue *e, char *page)	\
{									\
	return cfq_tunable_show(e, page, &cfq_tunable_##field);	\
}									\
static ssize_t cfq_##field##_store(struct elevator_queue *e,		\
				   const char *page, size_t count)	\
{									\
	return cfq_tunable_store(e, page, count, &cfq_tunable_##field);	\
}

CFQ_TUNABLE(slice_idle, 0, 1000, false);
CFQ_TUNABLE(slice_sync, 1, 10000, false);
CFQ_TUNABLE(slice_async, 1, 10000, false);
CFQ_TUNABLE(slice_async_rq, 1, 1024, false);
CFQ_TUNABLE(quantum, 1, 1024, false);
CFQ_TUNABLE(fifo_expire_sync, 1, 60000, false);
CFQ_TUNABLE(fifo_expire_async, 1, 60000, false);
CFQ_TUNABLE(fifo_drain, 0, 1, false);
CFQ_TUNABLE(back_seek_max, 0, 1 << 30, false);
CFQ_TUNABLE(back_seek_penalty, 1, 1000, false);
CFQ_TUNABLE(group_idle, 0, 1000, false);
CFQ_TUNABLE(target_latency, 1, 10000, false);
CFQ_TUNABLE(prio_aging_expire, 1, 600000, false);
CFQ_TUNABLE(low_latency, 0, 1, false);
CFQ_TUNABLE(idle_nonrot, 0, 1, false);
CFQ_TUNABLE(seek_distance, 0, 1 << 30, true);
CFQ_TUNABLE(seek_min_size, 0, 1 << 20, true);
CFQ_TUNABLE(seeky_requests, 0, IOQ_SEEK_HISTORY, false);
CFQ_TUNABLE(spindles, 1, IOQ_PAR_MAX_UNITS, true);
#undef CFQ_TUNABLE

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
		   cfqq->pid, cfqq->sync ? "sync" : "async",
		   cfq_class_names[cfqq->class], cfqq->level, cfqq->vtime,
		   cfqq->ioq.queued, cfqq->in_flight, cfq_seeky(cfqd, cfqq),
		   div_u64(cfqq->ioq.stats.think_time_ns, NSEC_PER_USEC),
		   cfqq->ioq.stats.mean_bytes);
}

static int cfq_active_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	unsigned long flags;
	u64 now = ktime_get_ns();

	spin_lock_irqsave(&cfqd->lock, flags);
	if (cfqd->active) {
		cfq_show_queue(m, cfqd, cfqd->active);
		seq_printf(m, "slice_left_us %lld idling %d\n",
			   div_s64((s64)(cfqd->active->slice_end_ns - now),
				   NSEC_PER_USEC),
			   cfqd->idle_start_ns != 0);
	}
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return 0;
}

static int cfq_busy_queues_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	unsigned long flags;
	struct rb_node *node;
	int class;

	spin_lock_irqsave(&cfqd->lock, flags);
	for (class = 0; class < CFQ_NR_CLASSES; class++)
		for (node = rb_first_cached(&cfqd->trees[class].root); node;
		     node = rb_next(node))
			cfq_show_queue(m, cfqd, rb_entry(node, struct cfq_queue,
							 tree_node));
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return 0;
}

static int cfq_estimator_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	unsigned long flags;
	const struct ioq_par_est *par = &cfqd->par;

	spin_lock_irqsave(&cfqd->lock, flags);
	seq_printf(m, "units %u\nforced %d\nlayout_chunk_bytes %u\nshallow_iops %llu\nshallow_windows %u\ndeep_iops %llu\ndeep_windows %u\nin_flight %u\n",
		   cfq_units(cfqd, ktime_get_ns()),
		   cfqd->tun.spindles != CFQ_AUTO,
		   cfqd->layout.chunk_sectors << SECTOR_SHIFT,
		   par->shallow_rate >> IOQ_DECAY_SHIFT, par->shallow_windows,
		   par->deep_rate >> IOQ_DECAY_SHIFT, par->deep_windows,
		   cfqd->in_flight);
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return 0;
}

static int cfq_slices_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	unsigned long flags;
	int sync, why;

	spin_lock_irqsave(&cfqd->lock, flags);
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
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return 0;
}

/*
 * The records of requests on the device: how many tag spaces have them
 * (one when the hardware queues share their tags), and how many records
 * and bytes of them in all.
 */
static int cfq_records_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	struct cfq_record_set *shared = cfqd->shared_records;
	unsigned int spaces = !!shared, nr = shared ? shared->nr : 0;
	struct blk_mq_hw_ctx *hctx;
	unsigned long flags, i;

	spin_lock_irqsave(&cfqd->lock, flags);
	queue_for_each_hw_ctx(q, hctx, i) {
		struct cfq_record_set *recs = hctx->sched_data;

		if (recs && recs != shared) {
			spaces++;
			nr += recs->nr;
		}
	}
	seq_printf(m, "tag_spaces %u\nrecords %u\nbytes %zu\n", spaces, nr,
		   spaces * sizeof(struct cfq_record_set) +
		   nr * sizeof(struct cfq_record));
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return 0;
}

static const struct blk_mq_debugfs_attr cfq_queue_debugfs_attrs[] = {
	{"active", 0400, cfq_active_show},
	{"busy_queues", 0400, cfq_busy_queues_show},
	{"estimator", 0400, cfq_estimator_show},
	{"records", 0400, cfq_records_show},
	{"slices", 0400, cfq_slices_show},
	{},
};
#endif

static struct elevator_type mq_cfq = {
	.ops = {
		.depth_updated		= cfq_depth_updated,
		.init_hctx		= cfq_init_hctx,
		.exit_hctx		= cfq_exit_hctx,
		.limit_depth		= cfq_limit_depth,
		.allow_merge		= cfq_allow_bio_merge,
		.bio_merge		= cfq_bio_merge,
		.request_merge		= cfq_request_merge,
		.request_merged		= cfq_request_merged,
		.requests_merged	= cfq_requests_merged,
		.prepare_request	= cfq_prepare_request,
		.finish_request		= cfq_finish_request,
		.requeue_request	= cfq_requeue_request,
		.insert_requests	= cfq_insert_requests,
		.dispatch_request	= cfq_dispatch_request,
		.has_work		= cfq_has_work,
		.next_request		= elv_rb_latter_request,
		.former_request		= elv_rb_former_request,
		.exit_icq		= cfq_exit_icq,
		.init_sched		= cfq_init_sched,
		.exit_sched		= cfq_exit_sched,
	},
	.icq_size = sizeof(struct cfq_io_cq),
	.icq_align = __alignof__(struct cfq_io_cq),
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
	ret = elv_register(&mq_cfq);
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
