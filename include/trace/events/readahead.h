/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM readahead

#if !defined(_TRACE_READAHEAD_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_READAHEAD_H

#include <linux/fs.h>
#include <linux/tracepoint.h>

#ifndef __READAHEAD_DECISION_DEFINED
#define __READAHEAD_DECISION_DEFINED
/* Why readahead sized a window the way it did (or read none). */
enum readahead_decision {
	RA_DECIDE_INITIAL,	/* a stream starts, or a read is oversized */
	RA_DECIDE_HISTORY,	/* sized from the cached pages before it */
	RA_DECIDE_RANDOM,	/* a random read: no readahead */
	RA_DECIDE_GROW,		/* the reader reached the mark: next window */
	RA_DECIDE_INTERLEAVED,	/* a mark without the stream's state */
	RA_DECIDE_THRASH,	/* readahead pages evicted unused: shrink */
	RA_DECIDE_DEFERRED,	/* the queue is congested: later */
};
#endif

TRACE_DEFINE_ENUM(RA_DECIDE_INITIAL);
TRACE_DEFINE_ENUM(RA_DECIDE_HISTORY);
TRACE_DEFINE_ENUM(RA_DECIDE_RANDOM);
TRACE_DEFINE_ENUM(RA_DECIDE_GROW);
TRACE_DEFINE_ENUM(RA_DECIDE_INTERLEAVED);
TRACE_DEFINE_ENUM(RA_DECIDE_THRASH);
TRACE_DEFINE_ENUM(RA_DECIDE_DEFERRED);

#define show_readahead_decision(d)					\
	__print_symbolic(d,						\
			 { RA_DECIDE_INITIAL,		"initial" },	\
			 { RA_DECIDE_HISTORY,		"history" },	\
			 { RA_DECIDE_RANDOM,		"random" },	\
			 { RA_DECIDE_GROW,		"grow" },	\
			 { RA_DECIDE_INTERLEAVED,	"interleaved" },\
			 { RA_DECIDE_THRASH,		"thrash" },	\
			 { RA_DECIDE_DEFERRED,		"deferred" })

/*
 * One readahead decision of a stream: the page @index that triggered it,
 * the pages @req the reader asked for, and the window as it stands after
 * the decision (@start, @size pages, the last @async_size of them read
 * ahead of the reader).
 */
TRACE_EVENT(readahead_window,
	    TP_PROTO(struct address_space *mapping, pgoff_t index,
		     unsigned long req, const struct file_ra_state *ra,
		     enum readahead_decision decision),
	    TP_ARGS(mapping, index, req, ra, decision),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(unsigned long, req)
			     __field(pgoff_t, start)
			     __field(unsigned int, size)
			     __field(unsigned int, async_size)
			     __field(unsigned int, ra_pages)
			     __field(int, decision)),
	    TP_fast_assign(__entry->dev = mapping->host->i_sb->s_dev;
			   __entry->ino = mapping->host->i_ino;
			   __entry->index = index;
			   __entry->req = req;
			   __entry->start = ra->start;
			   __entry->size = ra->size;
			   __entry->async_size = ra->async_size;
			   __entry->ra_pages = ra->ra_pages;
			   __entry->decision = decision),
	    TP_printk("dev=%d:%d ino=%lu index=%lu req=%lu %s start=%lu size=%u async_size=%u ra_pages=%u",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      (unsigned long)__entry->index, __entry->req,
		      show_readahead_decision(__entry->decision),
		      (unsigned long)__entry->start, __entry->size,
		      __entry->async_size, __entry->ra_pages)
);

#endif /* _TRACE_READAHEAD_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
