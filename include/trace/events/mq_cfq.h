/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mq_cfq

#if !defined(_TRACE_MQ_CFQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MQ_CFQ_H

#include <linux/blkdev.h>
#include <linux/tracepoint.h>

#define MQ_CFQ_NAME_LEN	12

/* The active queue's first request completed: its slice of slice_ns starts. */
TRACE_EVENT(mq_cfq_slice_start,
	    TP_PROTO(struct request_queue *q, pid_t pid, bool sync,
		     const char *class, u64 vtime, u64 slice_ns,
		     const char *turn),
	    TP_ARGS(q, pid, sync, class, vtime, slice_ns, turn),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(bool, sync)
			     __array(char, class, MQ_CFQ_NAME_LEN)
			     __field(u64, vtime)
			     __field(u64, slice_ns)
			     __array(char, turn, MQ_CFQ_NAME_LEN)),
	    TP_fast_assign(__entry->dev = disk_devt(q->disk);
			   __entry->pid = pid;
			   __entry->sync = sync;
			   strscpy(__entry->class, class,
				   sizeof(__entry->class));
			   __entry->vtime = vtime;
			   __entry->slice_ns = slice_ns;
			   strscpy(__entry->turn, turn,
				   sizeof(__entry->turn))),
	    TP_printk("%d,%d pid=%d %s class=%s vtime=%llu slice_ns=%llu turn=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __entry->sync ? "sync" : "async", __entry->class,
		      __entry->vtime, __entry->slice_ns, __entry->turn)
);

/* The active queue gives up the device, after used_ns, and why. */
TRACE_EVENT(mq_cfq_slice_expire,
	    TP_PROTO(struct request_queue *q, pid_t pid, bool sync,
		     u64 used_ns, unsigned int dispatched, const char *reason),
	    TP_ARGS(q, pid, sync, used_ns, dispatched, reason),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(bool, sync)
			     __field(u64, used_ns)
			     __field(unsigned int, dispatched)
			     __array(char, reason, MQ_CFQ_NAME_LEN)),
	    TP_fast_assign(__entry->dev = disk_devt(q->disk);
			   __entry->pid = pid;
			   __entry->sync = sync;
			   __entry->used_ns = used_ns;
			   __entry->dispatched = dispatched;
			   strscpy(__entry->reason, reason,
				   sizeof(__entry->reason))),
	    TP_printk("%d,%d pid=%d %s used_ns=%llu dispatched=%u reason=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __entry->sync ? "sync" : "async", __entry->used_ns,
		      __entry->dispatched, __entry->reason)
);

DECLARE_EVENT_CLASS(mq_cfq_idle,
		    TP_PROTO(struct request_queue *q, pid_t pid, u64 ns),
		    TP_ARGS(q, pid, ns),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __field(pid_t, pid)
				     __field(u64, ns)),
		    TP_fast_assign(__entry->dev = disk_devt(q->disk);
				   __entry->pid = pid;
				   __entry->ns = ns),
		    TP_printk("%d,%d pid=%d ns=%llu", MAJOR(__entry->dev),
			      MINOR(__entry->dev), __entry->pid, __entry->ns)
);

/* Idling starts for the active queue; ns is the window. */
DEFINE_EVENT(mq_cfq_idle, mq_cfq_idle_start,
	     TP_PROTO(struct request_queue *q, pid_t pid, u64 ns),
	     TP_ARGS(q, pid, ns)
);

/* Idling ends (a request, the window's end, preemption); ns idled. */
DEFINE_EVENT(mq_cfq_idle, mq_cfq_idle_end,
	     TP_PROTO(struct request_queue *q, pid_t pid, u64 ns),
	     TP_ARGS(q, pid, ns)
);

#endif /* _TRACE_MQ_CFQ_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
