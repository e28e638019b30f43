/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared core of the time-slice I/O schedulers: per-process request
 * queues, the statistics their policies decide on, and an estimate of
 * how many requests the device serves in parallel.
 */
#ifndef BLK_IOQ_H
#define BLK_IOQ_H

#include <linux/blkdev.h>
#include <linux/rbtree.h>
#include <linux/types.h>

/* Requests remembered by the seek history. */
#define IOQ_SEEK_HISTORY	32

/* Fixed-point scale of the decayed means. */
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

u64 ioq_decay(u64 mean, u64 sample, u32 *samples);
u64 ioq_scale_by_level(u64 base, unsigned int level);
bool ioq_request_is_seek(const struct ioq_seek_params *p, sector_t last_end,
			 sector_t pos, unsigned int bytes);
void ioq_stats_add_request(struct ioq_stats *s,
			   const struct ioq_seek_params *p,
			   sector_t pos, unsigned int bytes);
bool ioq_stats_seeky(const struct ioq_stats *s,
		     const struct ioq_seek_params *p);
void ioq_stats_arrival(struct ioq_stats *s, u64 now_ns, bool idle_queue);
void ioq_stats_completion(struct ioq_stats *s, u64 now_ns);
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

void ioq_par_init(struct ioq_par_est *e);
void ioq_par_dispatch(struct ioq_par_est *e, u64 now_ns);
void ioq_par_complete(struct ioq_par_est *e, u64 now_ns, bool small);
void ioq_par_requeue(struct ioq_par_est *e, u64 now_ns);
unsigned int ioq_par_units(const struct ioq_par_est *e, unsigned int prior);

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

void ioq_layout_init(struct ioq_layout *l, unsigned int io_min,
		     unsigned int io_opt, bool rotational);
bool ioq_layout_update(struct ioq_layout *l, unsigned int io_min,
		       unsigned int io_opt, bool rotational);
unsigned int ioq_layout_unit(const struct ioq_layout *l, sector_t pos);

/*
 * A per-process queue of requests: sorted by sector for the elevator
 * sweep, and in arrival order for the FIFO deadlines.
 */
struct ioq {
	struct rb_root sort_list;
	struct list_head fifo;
	unsigned int queued;
	sector_t head_pos;		/* where the last dispatch ended */
	struct ioq_stats stats;
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

#endif /* BLK_IOQ_H */
