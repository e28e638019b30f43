/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared core of the time-slice I/O schedulers: queues of requests, the
 * statistics their policies decide on, an estimate of how many requests
 * the device serves in parallel, and the scheduler core below a policy
 * (struct ioq_sched).
 */
#ifndef BLK_IOQ_H
#define BLK_IOQ_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/iocontext.h>
#include <linux/rbtree.h>
#include <linux/types.h>

#include "blk-mq.h"

struct blk_mq_alloc_data;
struct elevator_mq_ops;
struct elevator_queue;
struct elevator_type;
struct seq_file;

/* Requests remembered by the seek history. */
#define IOQ_SEEK_HISTORY	32

/*
 * A decayed mean is the plain mean of its first 1 << IOQ_DECAY_SHIFT
 * samples, then weighs each new one 1 / (1 << IOQ_DECAY_SHIFT); the
 * parallelism estimator's rates are fixed point at this scale.
 */
#define IOQ_DECAY_SHIFT		3

/* How a request is classified as a seek; see ioq_request_is_seek(). */
struct ioq_seek_params {
	bool rotational;
	sector_t max_distance;		/* sectors, rotational devices */
	unsigned int min_bytes;		/* non-rotational devices */
	unsigned int max_seeks;		/* of IOQ_SEEK_HISTORY, or seeky */
};

/* What a policy knows about one process's I/O. */
struct ioq_stats {
	u32 seek_history;		/* bit set: that request was a seek */
	u32 requests;			/* saturates at IOQ_SEEK_HISTORY */
	sector_t last_end;		/* sector after the last request */
	u64 last_completion_ns;
	u64 think_time_ns;		/* decayed mean */
	u32 think_samples;		/* saturates at 1 << IOQ_DECAY_SHIFT */
	u32 mean_bytes;			/* decayed mean request size */
	u64 seek_mean;			/* sectors from one request to the next */
	u32 seek_samples;		/* saturates at 1 << IOQ_DECAY_SHIFT */
};

/*
 * Nanoseconds from @then to @now, or 0 if @then is the later one.  Stamps
 * read on different CPUs, or one read before a lock and one under it,
 * need not be in order; an unsigned difference of such a pair would wrap
 * and turn "no time" into centuries.
 */
static inline u64 ioq_ns_since(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

/* Sectors between @a and @b, either way. */
static inline sector_t ioq_distance(sector_t a, sector_t b)
{
	return a > b ? a - b : b - a;
}

u64 ioq_scale_by_level(u64 base, unsigned int level);
bool ioq_stats_thinks_within(const struct ioq_stats *s, u64 limit_ns);

/*
 * Parallelism estimator.  Throughput of small requests is measured in
 * windows of busy time and filed by the window's mean depth: a device
 * with one unit (a spindle) serves no faster at depth 4 than at depth 1,
 * a RAID or an SSD does.  Large requests are left out: their cost is
 * transfer, not positioning, and would compare unlike with unlike.
 */
#define IOQ_PAR_WINDOW		32	/* small completions per window */
#define IOQ_PAR_SMALL_BYTES	(128 * 1024)	/* at most, to be counted */
#define IOQ_PAR_MAX_UNITS	64

struct ioq_par_est {
	/* current window */
	u64 window_busy_ns;
	u64 window_depth_ns;		/* integral of depth over busy time */
	u32 window_completions;
	bool window_spoiled;		/* a large request completed */
	u64 last_event_ns;
	u32 in_flight;

	/* results, completions per second << IOQ_DECAY_SHIFT */
	u64 shallow_rate;
	u64 deep_rate;
	u32 shallow_windows;
	u32 deep_windows;
	u64 last_deep_ns;
};

/*
 * Layout of a striped device (a RAID), from the topology it reports:
 * chunks of io_min bytes lie on consecutive units, and a full stripe is
 * io_opt.  A policy that knows it can keep a process's sequential run on
 * one unit together while the other units serve other processes.  With
 * parity (RAID-5/6) the unit is a position in the stripe rather than a
 * disk, which still keeps the chunks of one stripe apart.  Only a
 * rotational device is taken for an array on its topology alone.
 */
struct ioq_layout {
	unsigned int chunk_sectors;	/* 0: no layout reported */
	unsigned int units;		/* 1 without a layout */
	/* the topology the layout was taken from */
	unsigned int io_min;
	unsigned int io_opt;
	bool rotational;
};

/*
 * A per-process queue of requests: sorted by sector for the elevator
 * sweep, and in arrival order for the FIFO deadlines.
 */
struct ioq {
	struct rb_root sort_list;
	struct list_head fifo;
	unsigned int queued;
	sector_t head_pos;		/* where the last dispatch ended */
};

struct ioq_sweep {
	sector_t back_max;		/* sectors a backward seek may cover */
	unsigned int back_penalty;	/* backward distance counts this much */
};

void ioq_init(struct ioq *ioq);
void ioq_add_request(struct ioq *ioq, struct request *rq,
		     unsigned long expire);
void ioq_del_request(struct ioq *ioq, struct request *rq);
void ioq_merged_requests(struct ioq *ioq, struct request *rq,
			 struct request *next);
/* The request that arrived first of those @ioq holds, or NULL. */
static inline struct request *ioq_oldest_request(const struct ioq *ioq)
{
	if (list_empty(&ioq->fifo))
		return NULL;
	return list_first_entry(&ioq->fifo, struct request, queuelist);
}

struct request *ioq_request_due(const struct ioq *ioq, unsigned long within);
struct request *ioq_expired_request(const struct ioq *ioq);
struct request *ioq_next_request(const struct ioq *ioq,
				 const struct ioq_sweep *sweep);
struct request *ioq_front_merge_candidate(struct ioq *ioq, struct bio *bio);

static inline bool ioq_empty(const struct ioq *ioq)
{
	return !ioq->queued;
}

/*
 * The scheduler core: what every policy built on blk-ioq shares, from the
 * elevator operations down.  The core owns the lock, the requests handed
 * back at the head, the records of requests on the device, the clients
 * (processes) requests come from, the idle timer, and the estimate of the
 * device's units; a policy (&struct ioq_policy_ops) decides which request
 * goes next and what a completion, or the time the device waited for a
 * client, costs that client.
 */

/* Value of a tunable left to the scheduler's own judgement. */
#define IOQ_AUTO		UINT_MAX

/* Seek classification when its tunables are IOQ_AUTO. */
#define IOQ_SEEK_DISTANCE_AUTO	800	/* sectors */
#define IOQ_SEEK_MIN_KB_AUTO	32

/*
 * Where requests come from: a process (its io_context), or what a policy
 * serves as one, such as the writeback of one ioprio.  A policy embeds it
 * in its own per-process object.  Counted and changed under the
 * scheduler's lock.
 */
struct ioq_client {
	struct ioq_stats stats;
	unsigned int queued;		/* in the scheduler */
	unsigned int in_flight;		/* on the device */
	int ref;			/* its requests, its icq, the policy */
	pid_t pid;
	bool exited;			/* its process let go of it */
};

/* The icq of blk-ioq schedulers: a process's client on one queue. */
struct ioq_icq {
	struct io_cq icq;		/* must be first */
	struct ioq_client *client;	/* NULL until its first request */
	bool exited;			/* exit_icq ran: no client any more */
};

/*
 * What the core keeps of a request on the device, from dispatch to
 * completion: one record per scheduler tag, as a tag names one request
 * at a time.
 */
struct ioq_record {
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
 * tag that can be allocated has its record.
 */
struct ioq_record_set {
	unsigned int nr;
	struct ioq_record rec[] __counted_by(nr);
};

/* One unit of a striped device: who it is reserved for, and until when. */
struct ioq_unit {
	/* cleared when the client is freed or the layout changes */
	const struct ioq_client *owner;
	unsigned int in_flight;
	u64 free_at_ns;			/* once nothing is in flight */
};

/* The tunables of the core, under queue/iosched/ beside the policy's. */
struct ioq_tunables {
	unsigned int seek_distance;	/* sectors, or IOQ_AUTO */
	unsigned int seek_min_size;	/* KiB, or IOQ_AUTO */
	unsigned int seeky_requests;	/* of IOQ_SEEK_HISTORY */
	unsigned int spindles;		/* or IOQ_AUTO */
};

struct ioq_sched;

/*
 * What a policy decides.  Every operation is called with the scheduler's
 * lock held, with the time read under it; requeued and unit_hold_ns may
 * be left out.
 */
struct ioq_policy_ops {
	/* The client @rq comes from; the core takes a reference for @rq. */
	struct ioq_client *(*client_of)(struct ioq_sched *s,
					struct request *rq);
	/* Queue @rq, counted in its client already. */
	void (*insert)(struct ioq_sched *s, struct request *rq, u64 now);
	/* Take the request to send next off the policy's queues, or NULL. */
	struct request *(*next_request)(struct ioq_sched *s, u64 now);
	/* @rq goes to the device: from next_request(), or sent again. */
	void (*dispatched)(struct ioq_sched *s, struct request *rq, u64 now);
	/* A request of @c is back after @service_ns of device time. */
	void (*completed)(struct ioq_sched *s, struct ioq_client *c,
			  u64 service_ns, u64 now);
	/* A request of @c came back unserved; it is inserted again. */
	void (*requeued)(struct ioq_sched *s, struct ioq_client *c, u64 now);
	/* @next, queued, was merged into @rq, queued, of the same client. */
	void (*merged)(struct ioq_sched *s, struct request *rq,
		       struct request *next);
	/* The process of @c is gone: nobody will send what @c waits for. */
	void (*exited)(struct ioq_sched *s, struct ioq_client *c, u64 now);
	/* The client @bio of the current process would join, or NULL. */
	struct ioq_client *(*bio_client)(struct ioq_sched *s, struct bio *bio);
	/* How long a unit of a striped device stays @c's once idle. */
	u64 (*unit_hold_ns)(struct ioq_sched *s, const struct ioq_client *c);
	/* The last reference to @c is gone. */
	void (*free_client)(struct ioq_sched *s, struct ioq_client *c);
};

/*
 * The core's part of a scheduler's data, first in the policy's: the
 * elevator's elevator_data points at it.
 */
struct ioq_sched {
	spinlock_t lock;		/* everything below, and the policy's */
	struct request_queue *queue;
	const struct ioq_policy_ops *ops;
	struct ioq_record_set *shared_records;	/* or NULL, see the type */
	struct ioq_tunables tun;

	struct list_head dispatch;	/* inserted at head: served first */
	unsigned int queued;
	unsigned int in_flight;
	bool held_back;			/* dispatched nothing with work queued */
	unsigned int async_depth;	/* scheduler tags async requests may hold */
	unsigned int idle_depth;	/* and IDLE-class requests */
	struct ioq_client *merge_client;	/* of the bio being merged */

	struct hrtimer timer;		/* runs the queue: idling is over */
	void (*run_queue)(struct ioq_sched *s);	/* from the timer */
	u64 idle_start_ns;		/* 0: not idling */
	u64 idle_until_ns;

	u64 last_completion_ns;
	u64 mean_service_ns;		/* decayed, per request */
	u32 service_samples;
	struct ioq_par_est par;
	u64 probe_start_ns;
	struct ioq_layout layout;	/* taken anew when the limits change */
	struct ioq_unit units[IOQ_PAR_MAX_UNITS];
};

static inline struct ioq_client *ioq_rq_client(const struct request *rq)
{
	return rq->elv.priv[0];
}

/*
 * The icq of @rq's process, or NULL when none could be had or its
 * process exited (a client made for it then would never be let go of).
 * Context: the scheduler's lock, which orders it with exit_icq.
 */
static inline struct ioq_icq *ioq_rq_icq(const struct request *rq)
{
	struct ioq_icq *qic;

	if (!rq->elv.icq)
		return NULL;
	qic = container_of(rq->elv.icq, struct ioq_icq, icq);
	return qic->exited ? NULL : qic;
}

void ioq_sched_init(struct ioq_sched *s, struct request_queue *q,
		    const struct ioq_policy_ops *ops);
void ioq_sched_stop(struct ioq_sched *s);
void ioq_sched_exit(struct ioq_sched *s);

void ioq_client_init(struct ioq_client *c);
void ioq_put_client(struct ioq_sched *s, struct ioq_client *c);
static inline void ioq_get_client(struct ioq_client *c)
{
	c->ref++;
}

bool ioq_client_seeky(const struct ioq_sched *s, const struct ioq_client *c);

/* The idle window: the device held for a client's next request. */
static inline bool ioq_idling(const struct ioq_sched *s)
{
	return s->idle_start_ns;
}

void ioq_arm_timer(struct ioq_sched *s, u64 delay_ns);
void ioq_idle_start(struct ioq_sched *s, u64 now, u64 window);
u64 ioq_idle_stop(struct ioq_sched *s, u64 now);

unsigned int ioq_units(struct ioq_sched *s, u64 now);
bool ioq_unit_free_for(const struct ioq_sched *s, const struct ioq_client *c,
		       const struct request *rq, u64 now);

/*
 * A policy registers its elevator_type with ioq_elv_register(), which
 * fills in the core's elevator operations; its init_sched and exit_sched
 * call ioq_sched_init() and ioq_sched_exit().
 */
int ioq_elv_register(struct elevator_type *e);

/*
 * Tunables under queue/iosched/: a policy declares each with
 * IOQ_TUNABLE(), which makes its show and store functions.  Values
 * outside [min, max] are refused with -EINVAL and the old value stays;
 * "auto" is accepted where the scheduler can decide by itself.  The
 * offset is from the &struct ioq_sched the elevator data points at.
 */
struct ioq_tunable {
	size_t offset;
	unsigned int min, max;
	bool has_auto;
};

ssize_t ioq_tunable_show(struct elevator_queue *e, char *page,
			 const struct ioq_tunable *t);
ssize_t ioq_tunable_store(struct elevator_queue *e, const char *page,
			  size_t count, const struct ioq_tunable *t);

/* Tunable @name, unsigned int @member of @type, in [@lo, @hi]. */
#define IOQ_TUNABLE(name, type, member, lo, hi, auto_ok)		\
static const struct ioq_tunable name##_tunable = {			\
	.offset = offsetof(type, member),				\
	.min = lo, .max = hi, .has_auto = auto_ok,			\
};									\
static ssize_t name##_show(struct elevator_queue *e, char *page)	\
{									\
	return ioq_tunable_show(e, page, &name##_tunable);		\
}									\
static ssize_t name##_store(struct elevator_queue *e,			\
			    const char *page, size_t count)		\
{									\
	return ioq_tunable_store(e, page, count, &name##_tunable);	\
}

/*
 * The core's tunables, declared once here, for a policy @prefix whose data
 * @type has the core as member "core": how seeks are told (for policies
 * that ask ioq_client_seeky()), and the device's units.  Each makes
 * @prefix_<name>_show() and _store(), for the policy's attributes.
 */
#define IOQ_SEEK_DISTANCE_TUNABLE(prefix, type)				\
	IOQ_TUNABLE(prefix##_seek_distance, type, core.tun.seek_distance, \
		    0, 1 << 30, true)
#define IOQ_SEEK_MIN_SIZE_TUNABLE(prefix, type)				\
	IOQ_TUNABLE(prefix##_seek_min_size, type, core.tun.seek_min_size, \
		    0, 1 << 20, true)
#define IOQ_SEEKY_REQUESTS_TUNABLE(prefix, type)			\
	IOQ_TUNABLE(prefix##_seeky_requests, type,			\
		    core.tun.seeky_requests, 0, IOQ_SEEK_HISTORY, false)
#define IOQ_SPINDLES_TUNABLE(prefix, type)				\
	IOQ_TUNABLE(prefix##_spindles, type, core.tun.spindles, 1,	\
		    IOQ_PAR_MAX_UNITS, true)

#ifdef CONFIG_BLK_DEBUG_FS
int ioq_estimator_show(void *data, struct seq_file *m);
int ioq_records_show(void *data, struct seq_file *m);
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * The core's own steps, static without KUnit so that they can inline into
 * the elevator operations: seek statistics, the parallelism estimator,
 * the layout, units, and running the queue.
 */
bool ioq_request_is_seek(const struct ioq_seek_params *p, sector_t last_end,
			 sector_t pos, unsigned int bytes);
void ioq_stats_add_request(struct ioq_stats *s,
			   const struct ioq_seek_params *p,
			   sector_t pos, unsigned int bytes);
bool ioq_stats_seeky(const struct ioq_stats *s,
		     const struct ioq_seek_params *p);
void ioq_stats_arrival(struct ioq_stats *s, u64 now_ns, bool idle_queue);
void ioq_stats_completion(struct ioq_stats *s, u64 now_ns);
void ioq_par_init(struct ioq_par_est *e);
void ioq_par_dispatch(struct ioq_par_est *e, u64 now_ns);
void ioq_par_requeue(struct ioq_par_est *e, u64 now_ns);
void ioq_par_complete(struct ioq_par_est *e, u64 now_ns, bool small);
unsigned int ioq_par_units(const struct ioq_par_est *e, unsigned int prior);
unsigned int ioq_units_peek(const struct ioq_sched *s, u64 now);
void ioq_layout_init(struct ioq_layout *l, unsigned int io_min,
		     unsigned int io_opt, bool rotational);
bool ioq_layout_update(struct ioq_layout *l, unsigned int io_min,
		       unsigned int io_opt, bool rotational);
unsigned int ioq_layout_unit(const struct ioq_layout *l, sector_t pos);
struct ioq_seek_params ioq_seek_params(const struct ioq_sched *s);
void ioq_kick(struct ioq_sched *s);
unsigned int ioq_unit_of(const struct ioq_sched *s, const struct request *rq);

/* The lock-held steps of the elevator operations, for policies' tests. */
void ioq_sched_insert(struct ioq_sched *s, struct request *rq,
		      blk_insert_t flags, u64 now);
struct request *ioq_sched_dispatch(struct ioq_sched *s, u64 now);
bool ioq_sched_done(struct ioq_sched *s, struct request *rq, u64 now);
void ioq_sched_requeue(struct ioq_sched *s, struct request *rq, u64 now);
void ioq_update_layout(struct ioq_sched *s);
struct ioq_record_set *ioq_alloc_records(unsigned int nr, int node,
					 gfp_t gfp);
void ioq_grow_records(struct ioq_sched *s, struct blk_mq_hw_ctx *hctx);
struct ioq_record *ioq_record_of(const struct request *rq);

/* The core's elevator operations (see ioq_elv_register()), for tests. */
extern const struct elevator_mq_ops ioq_mq_ops;
#endif

#endif /* BLK_IOQ_H */
