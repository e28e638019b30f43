/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mq_as

#if !defined(_TRACE_MQ_AS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MQ_AS_H

#include <linux/blkdev.h>
#include <linux/tracepoint.h>

#define MQ_AS_NAME_LEN	12

/* The device is held for process pid's next request, for window_ns. */
TRACE_EVENT(mq_as_antic_start,
	    TP_PROTO(struct request_queue *q, pid_t pid, u64 window_ns),
	    TP_ARGS(q, pid, window_ns),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(u64, window_ns)),
	    TP_fast_assign(__entry->dev = disk_devt(q->disk);
			   __entry->pid = pid;
			   __entry->window_ns = window_ns),
	    TP_printk("%d,%d pid=%d window_ns=%llu", MAJOR(__entry->dev),
		      MINOR(__entry->dev), __entry->pid, __entry->window_ns)
);

/*
 * Anticipation of process pid ended after waited_ns (0 if its window had
 * not opened), and why: arrived, close, timeout, exited or bypass.
 */
TRACE_EVENT(mq_as_antic_end,
	    TP_PROTO(struct request_queue *q, pid_t pid, u64 waited_ns,
		     const char *reason),
	    TP_ARGS(q, pid, waited_ns, reason),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(u64, waited_ns)
			     __array(char, reason, MQ_AS_NAME_LEN)),
	    TP_fast_assign(__entry->dev = disk_devt(q->disk);
			   __entry->pid = pid;
			   __entry->waited_ns = waited_ns;
			   strscpy(__entry->reason, reason,
				   sizeof(__entry->reason))),
	    TP_printk("%d,%d pid=%d waited_ns=%llu reason=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __entry->waited_ns, __entry->reason)
);

/*
 * The device was not held for process pid, and why: queued (its next
 * request is), tags (every scheduler tag is taken), near (distance, from
 * the head to the sync request that goes instead, is short), thinks
 * (think_ns, the process's decayed mean think time over think_samples,
 * is past window_ns) or seeks (seek_mean, its decayed mean seek in
 * sectors over seek_samples, is past distance).  distance is 0 if no
 * sync request is queued.
 */
TRACE_EVENT(mq_as_antic_veto,
	    TP_PROTO(struct request_queue *q, pid_t pid, const char *reason,
		     u64 think_ns, u32 think_samples, u64 window_ns,
		     u64 seek_mean, u32 seek_samples, u64 distance),
	    TP_ARGS(q, pid, reason, think_ns, think_samples, window_ns,
		    seek_mean, seek_samples, distance),
	    TP_STRUCT__entry(__field(u64, think_ns)
			     __field(u64, window_ns)
			     __field(u64, seek_mean)
			     __field(u64, distance)
			     __field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(u32, think_samples)
			     __field(u32, seek_samples)
			     __array(char, reason, MQ_AS_NAME_LEN)),
	    TP_fast_assign(__entry->think_ns = think_ns;
			   __entry->window_ns = window_ns;
			   __entry->seek_mean = seek_mean;
			   __entry->distance = distance;
			   __entry->dev = disk_devt(q->disk);
			   __entry->pid = pid;
			   __entry->think_samples = think_samples;
			   __entry->seek_samples = seek_samples;
			   strscpy(__entry->reason, reason,
				   sizeof(__entry->reason))),
	    TP_printk("%d,%d pid=%d think_ns=%llu think_samples=%u window_ns=%llu seek_mean=%llu seek_samples=%u distance=%llu reason=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __entry->think_ns, __entry->think_samples,
		      __entry->window_ns, __entry->seek_mean,
		      __entry->seek_samples, __entry->distance,
		      __entry->reason)
);

#endif /* _TRACE_MQ_AS_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
