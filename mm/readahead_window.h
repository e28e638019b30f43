/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Window sizing of readahead (mm/readahead.c).
 * Pure functions of page counts, so that KUnit can check every rule.
 */
#ifndef _MM_READAHEAD_WINDOW_H
#define _MM_READAHEAD_WINDOW_H

#include <linux/log2.h>
#include <linux/minmax.h>

/**
 * DOC: Readahead window sizing
 *
 * The rules by which readahead sizes the windows of a stream; all sizes
 * are in pages.
 *
 * Start: the first window of a stream (at the start of a file, for a read
 * larger than the maximum, or after a sequential miss) is the request
 * rounded up to a power of two, four times that while it is small next to
 * the stock maximum (read_ahead_kb, or a larger read up to the device's
 * largest request), twice that while it is at most a quarter of it, else
 * that maximum: as the stock algorithm sizes it, so that a read of a
 * file's header reads no more than it did.  The windows after it grow on.
 * A stream found from the pages cached before the read (its history)
 * starts from those, up to the adaptive maximum.
 *
 * Growth: when the reader reaches the readahead mark (the first page of
 * the window ahead; in the first window, the page after the request),
 * the next window is issued, four times as large while the window is
 * below 1/16 of the maximum, then twice as large, up to the maximum.
 * Windows follow each other, and a stream reads at least one window
 * ahead of itself.  A window larger than the maximum keeps what the read
 * that reached its mark may set (a large read: up to the device's
 * largest request), or two folios of the size that triggered it, and is
 * cut back beyond that: a window that grew under a larger maximum
 * shrinks when the maximum does.  A fault in a MADV_HUGEPAGE mapping
 * reads two PMDs (with transparent huge pages), and the windows that
 * later faults through such a mapping trigger keep that size, as with
 * the stock algorithm, also where the file has no large folios.
 *
 * Maximum: stock readahead stops at read_ahead_kb (a read larger than
 * that at the device's largest request).  Competing sequential streams
 * on a disk that seeks pay one positioning per window, so where
 * nobody wrote read_ahead_kb the adaptive algorithm lets a window on a
 * block device grow on to the largest request the device takes
 * (max_sectors_kb), but no further than the block layer's default cap on
 * a request (1280 KiB): one positioning per request.  On a rotational
 * queue (queue/rotational 1: what disks that seek report, but also every
 * virtio-blk disk, and SCSI and USB devices that report no rotation rate)
 * it grows on to four requests, but no further than 4 MiB (480 KiB on a
 * USB 2 stick, 4 MiB on a USB 3 one): a stream that shares a disk
 * that seeks pays one seek per window, worth about the transfer of a
 * megabyte, so that windows of one request leave the disk positioning
 * much of the time.  Writing queue/rotational changes it from the next
 * window of every stream.  A read_ahead_kb that an administrator or a udev
 * rule wrote is the limit, as for the stock algorithm, and read_ahead_kb
 * of 0 still turns readahead off.  Nor does a window grow past 1/64 of the
 * memory its reader's page cache can take (a share per window: sixteen
 * streams with two windows each then hold at most half of it), or 1/256
 * of it while many streams compete (below).  That is the memory the
 * machine has available, and no more than the memory cgroup the page
 * cache is charged to has room for: its file pages and its headroom under
 * the tightest memory.max or memory.high of it and the groups above it
 * (memory.limit_in_bytes on cgroup v1).  The window that follows the mark
 * of a window a fault started (an mmap read-around, or a PMD fault's) is
 * held to the stock maximum, except that a MADV_HUGEPAGE fault's windows
 * keep their two PMDs (Growth, above): the read-around guessed at locality
 * around a fault, and is no stream; a reader that goes on to the mark of a
 * window that grew is one, though not where the fault's mark lies outside
 * the stream's window.  A stream whose pages reclaim takes before use also
 * shrinks its own windows (thrashing, below).
 *
 * Cache hits: pages of a window that are already cached are not read, and
 * the window keeps its size and its end, where the next window starts.
 *
 * Congestion: while the device queue is congested, the window ahead is
 * deferred once: the readahead mark moves from the start of the window being
 * read to its middle.  There the window ahead is issued, congested or not,
 * so that the reader does not run out of pages and stall on it.  A congested
 * queue also means that many streams compete for the device and for
 * memory: windows issued then take the smaller memory share, so that
 * sixty-four streams with two windows each hold at most half of the
 * available memory.  So do windows that do not ask: sync windows after a
 * stream's first, windows of interleaved readers and windows of page
 * faults, which are not deferred either.  Nor are the windows of a queue
 * that cannot tell whether it is congested (bio-based devices: dm, md):
 * they take the smaller share.
 *
 * Continuation: when a reader going sequentially misses the page cache just
 * past its last window (the page of its mark was cached already, so no mark
 * was set, or the reader caught up with a deferred window), the stream goes
 * on with the window that would have come next, read at once, instead of
 * starting over from the request.
 *
 * Thrashing: when a reader going sequentially misses the page cache inside
 * the window it is reading or the one ahead of it, at a page that reclaim
 * evicted (it left a workingset shadow entry), pages that readahead brought
 * in were evicted before they were used.  The next window is cut to
 * the pages the reader consumed since the window was issued, never below
 * the request but never above the largest window either (that wins for a
 * request larger than it): readahead shrinks rather than stopping, since
 * stopping it is what made random reads collapse in an earlier rework.
 * Only a sequential reader can thrash; a random reader never gets a
 * readahead window from this.
 */

/**
 * ra_window_initial - the first window of a stream
 * @req: pages of the read that starts the stream
 * @max: the largest window; the result for a larger @req
 */
static inline unsigned long ra_window_initial(unsigned long req,
					      unsigned long max)
{
	unsigned long size = roundup_pow_of_two(req);

	if (size <= max / 32)
		return 4 * size;
	if (size <= max / 4)
		return 2 * size;
	return max;
}

/**
 * ra_window_next - the window that follows one of @cur pages
 * @cur: pages of the window the reader has reached
 * @max: the largest window
 */
static inline unsigned long ra_window_next(unsigned long cur,
					   unsigned long max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/* On a rotational queue a window grows to this many requests. */
#define RA_ROTATIONAL_REQUESTS		4UL

/**
 * ra_window_auto_max - how far windows grow on their own
 * @io_pages: the largest request of the device, in pages
 * @rotational: whether the device's queue is rotational
 * @rotational_max: the most a window grows to on a rotational queue, in
 *		    pages (4 MiB in mm/readahead.c)
 *
 * Return: @io_pages, or on a rotational queue RA_ROTATIONAL_REQUESTS of
 * them up to @rotational_max, but never less than @io_pages.
 */
static inline unsigned long ra_window_auto_max(unsigned long io_pages,
					       bool rotational,
					       unsigned long rotational_max)
{
	if (!rotational)
		return io_pages;
	return max(io_pages, min(RA_ROTATIONAL_REQUESTS * io_pages,
				 rotational_max));
}

/* A window takes at most 1/64 of the available memory... */
#define RA_MEMORY_SHARE_SHIFT		6
/* ...and 1/256 of it while many streams compete. */
#define RA_CROWDED_SHARE_SHIFT		8

/**
 * ra_window_max - the largest adaptive window of a stream
 * @ra_pages: read_ahead_kb in pages (0: readahead is off)
 * @auto_pages: how far the device's windows grow on their own, in pages
 *	       (ra_window_auto_max())
 * @avail_pages: the memory available for the page cache, in pages
 * @crowded: whether to take the smaller share, for many streams (the
 *	     queue is congested, cannot tell, or was not asked)
 */
static inline unsigned long ra_window_max(unsigned long ra_pages,
					  unsigned long auto_pages,
					  unsigned long avail_pages,
					  bool crowded)
{
	unsigned int shift = crowded ? RA_CROWDED_SHARE_SHIFT :
				       RA_MEMORY_SHARE_SHIFT;

	if (!ra_pages)
		return 0;
	return max(ra_pages, min(auto_pages, avail_pages >> shift));
}

/**
 * ra_window_thrashed - whether a cache miss means readahead pages were lost
 * @start: first page of the stream's last window
 * @size: pages of that window (0: the stream has no window)
 * @index: the page that missed
 * @sequential: whether the read that missed continues the previous one
 *
 * The window ahead spans [@start, @start + @size); the window the reader is
 * in is just before it and no larger, so one window length before @start is
 * still this stream's readahead.
 */
static inline bool ra_window_thrashed(unsigned long start, unsigned long size,
				      unsigned long index, bool sequential)
{
	if (!sequential || !size)
		return false;
	return index < start + size && index + size >= start;
}

/**
 * ra_window_can_defer - whether the window ahead may still wait
 * @start: first page of the window being read
 * @size: pages of that window
 * @mark: the page of the readahead mark the reader reached
 *
 * Return: true in the first half of the window, where the mark can move to
 * the middle (start + size / 2).
 */
static inline bool ra_window_can_defer(unsigned long start,
				       unsigned long size, unsigned long mark)
{
	return mark >= start && mark - start < size / 2;
}

/**
 * ra_window_continued - whether a cache miss is just past the last window
 * @start: first page of the stream's last window
 * @size: pages of that window (0: the stream has no window)
 * @index: the page that missed
 * @sequential: whether the read that missed continues the previous one
 */
static inline bool ra_window_continued(unsigned long start,
				       unsigned long size,
				       unsigned long index, bool sequential)
{
	return sequential && size && index == start + size;
}

/**
 * ra_window_after_thrash - the window of a stream that lost readahead pages
 * @start: first page of the stream's last window
 * @size: pages of that window
 * @index: the page that missed
 * @req: pages of the read that missed, at least 1
 *
 * A miss in the window ahead means the reader consumed @index - @start of
 * its pages; a miss in the window before it, taken as half of the last one
 * (the usual growth), counts from that window's first page.
 *
 * Return: the pages consumed, but not fewer than @req (never 0).
 */
static inline unsigned long ra_window_after_thrash(unsigned long start,
						   unsigned long size,
						   unsigned long index,
						   unsigned long req)
{
	unsigned long from = start;

	if (index < start)
		from = start - min(start, size / 2);
	return max(index >= from ? index - from : 0, req);
}

#endif /* _MM_READAHEAD_WINDOW_H */
