// SPDX-License-Identifier: GPL-2.0
/*
 * Disk timing model.
 *
 * A spinning disk serves one piece at a time.  A piece that starts where
 * the previous one ended streams on at the media rate.  Any other piece
 * first seeks (settle + (full - settle) * sqrt(tracks moved / tracks),
 * nothing within the same track), then waits for its sector to come round
 * (platter angle is a pure function of time), then transfers.  RAID-0
 * splits a request by stripe unit; each spindle serves its share on its
 * own and the request completes with its last piece.
 *
 * Without a reordering queue, a spindle serves pieces in arrival order, so
 * a completion time is known on arrival.  With SSF and depth > 1, the
 * choice of the next piece is made only when the spindle goes idle, among
 * the pieces that have arrived by then; until that moment has passed on
 * the caller's clock (dm_poll()), the answer is not known.
 *
 * Flash spreads pages round-robin over channels, each channel reading or
 * programming one page at a time, and moves data over one shared bus.
 */
#include <math.h>
#include <stdlib.h>

#include "model.h"

#define NS_PER_SEC	1000000000ULL
#define NS_PER_MIN	(60 * NS_PER_SEC)
#define SECTOR		512

#define u128 unsigned __int128

struct dm_spindle {
	uint64_t busy_until;
	uint64_t head;			/* byte just past the last transfer */
	bool head_valid;		/* false until the first transfer */
	struct dm_piece *queue;		/* waiting pieces, in arrival order */
	struct dm_piece **tail;
};

struct dm_model {
	const struct dm_profile *p;

	/* DM_DISK */
	uint64_t spindle_cap;
	uint64_t track_bytes;
	uint64_t tracks;
	bool lazy;			/* pieces may be overtaken */
	struct dm_spindle sp[DM_MAX_SPINDLES];

	/* DM_FLASH */
	uint64_t chan_busy[DM_MAX_CHANNELS];
	uint64_t bus_busy;
};

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + !!(a % b);
}

/* ---- geometry ---- */

static bool disk_profile_ok(const struct dm_profile *p)
{
	if (p->spindles < 1 || p->spindles > DM_MAX_SPINDLES)
		return false;
	if (p->spindles > 1 && p->stripe == 0)
		return false;
	return p->rpm && p->media_rate && p->full_seek_ns >= p->settle_ns;
}

static bool flash_profile_ok(const struct dm_profile *p)
{
	return p->channels >= 1 && p->channels <= DM_MAX_CHANNELS &&
	       p->page && p->bus_rate;
}

/* One revolution passes one track under the head at the media rate. */
static void disk_geometry(struct dm_model *m, uint64_t capacity)
{
	const struct dm_profile *p = m->p;
	uint64_t row;
	unsigned int i;

	m->track_bytes = p->media_rate * 60 / p->rpm / SECTOR * SECTOR;
	if (!m->track_bytes)
		m->track_bytes = SECTOR;

	if (p->spindles == 1) {
		m->spindle_cap = capacity;
	} else {
		row = (uint64_t)p->stripe * p->spindles;
		m->spindle_cap = div_up(capacity, row) * p->stripe;
	}
	m->tracks = div_up(m->spindle_cap, m->track_bytes);
	m->lazy = p->policy == DM_SSF && p->depth > 1;

	for (i = 0; i < p->spindles; i++)
		m->sp[i].tail = &m->sp[i].queue;
}

struct dm_model *dm_model_new(const struct dm_profile *p, uint64_t capacity)
{
	struct dm_model *m;

	if (!p || !capacity)
		return NULL;
	if (p->kind == DM_DISK && !disk_profile_ok(p))
		return NULL;
	if (p->kind == DM_FLASH && !flash_profile_ok(p))
		return NULL;

	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->p = p;
	if (p->kind == DM_DISK)
		disk_geometry(m, capacity);
	return m;
}

void dm_model_free(struct dm_model *m)
{
	free(m);
}

bool dm_model_reorders(const struct dm_model *m)
{
	return m->lazy;
}

uint64_t dm_spindle_capacity(const struct dm_model *m)
{
	return m->spindle_cap;
}

/* ---- spindle physics ---- */

static uint64_t track_of(const struct dm_model *m, uint64_t off)
{
	return off / m->track_bytes;
}

static uint64_t track_distance(const struct dm_model *m, uint64_t a,
			       uint64_t b)
{
	uint64_t ta = track_of(m, a), tb = track_of(m, b);

	return ta > tb ? ta - tb : tb - ta;
}

uint64_t dm_seek_ns(const struct dm_model *m, uint64_t from, uint64_t to)
{
	const struct dm_profile *p = m->p;
	uint64_t d = track_distance(m, from, to);
	double frac;

	if (!d)
		return 0;
	frac = sqrt((double)d / (double)m->tracks);
	if (frac >= 1.0)
		return p->full_seek_ns;
	return p->settle_ns + (uint64_t)((p->full_seek_ns - p->settle_ns) *
					 frac);
}

/*
 * Angles are kept in units of 1/NS_PER_MIN revolution, so that
 * t * rpm counts them exactly: no rounding, hence no drift.
 */
static uint64_t platter_angle(const struct dm_model *m, uint64_t t)
{
	return (u128)t * m->p->rpm % NS_PER_MIN;
}

static uint64_t sector_angle(const struct dm_model *m, uint64_t off)
{
	return (u128)(off % m->track_bytes) * NS_PER_MIN / m->track_bytes;
}

uint64_t dm_rotation_ns(const struct dm_model *m, uint64_t t, uint64_t off)
{
	uint64_t wait = sector_angle(m, off) + NS_PER_MIN -
			platter_angle(m, t);

	return wait % NS_PER_MIN / m->p->rpm;
}

uint64_t dm_transfer_ns(const struct dm_model *m, uint64_t len)
{
	return (u128)len * NS_PER_MIN / ((u128)m->track_bytes * m->p->rpm);
}

static uint64_t service_ns(const struct dm_model *m,
			   const struct dm_spindle *s,
			   const struct dm_piece *pc, uint64_t start)
{
	uint64_t seek;

	if (s->head_valid && pc->off == s->head)
		return dm_transfer_ns(m, pc->len);
	seek = dm_seek_ns(m, s->head, pc->off);
	return seek + dm_rotation_ns(m, start + seek, pc->off) +
	       dm_transfer_ns(m, pc->len);
}

/* ---- spindle queue ---- */

static void enqueue(struct dm_spindle *s, struct dm_piece *pc)
{
	pc->next = NULL;
	pc->queued = true;
	*s->tail = pc;
	s->tail = &pc->next;
}

static struct dm_piece *unlink_at(struct dm_spindle *s,
				  struct dm_piece **link)
{
	struct dm_piece *pc = *link;

	*link = pc->next;
	if (s->tail == &pc->next)
		s->tail = link;
	pc->queued = false;
	return pc;
}

/* When the spindle next chooses: it is free and something has arrived. */
static uint64_t decision_time(const struct dm_spindle *s)
{
	return max64(s->busy_until, s->queue->arrival);
}

/* SSF order: the piece that streams on, then the nearest track. */
static uint64_t ssf_key(const struct dm_model *m,
			const struct dm_spindle *s,
			const struct dm_piece *pc)
{
	if (s->head_valid && pc->off == s->head)
		return 0;
	return 1 + track_distance(m, s->head, pc->off);
}

/* Choose among the first depth pieces that had arrived by @t. */
static struct dm_piece **pick(const struct dm_model *m, struct dm_spindle *s,
			      uint64_t t)
{
	const struct dm_profile *p = m->p;
	struct dm_piece **link, **best = &s->queue;
	uint64_t key, best_key;
	unsigned int n;

	if (!m->lazy)
		return best;
	/* aging: a piece waiting too long goes next, whatever its seek */
	if (p->max_wait_ns && t - s->queue->arrival >= p->max_wait_ns)
		return best;

	best_key = ssf_key(m, s, s->queue);
	link = &s->queue->next;
	for (n = 1; *link && n < p->depth; n++, link = &(*link)->next) {
		if ((*link)->arrival > t)
			break;
		key = ssf_key(m, s, *link);
		if (key < best_key) {
			best = link;
			best_key = key;
		}
	}
	return best;
}

static void serve(const struct dm_model *m, struct dm_spindle *s,
		  struct dm_piece *pc, uint64_t start)
{
	struct dm_io *io = pc->io;

	s->busy_until = start + service_ns(m, s, pc, start);
	s->head = pc->off + pc->len;
	s->head_valid = true;
	io->done = max64(io->done, s->busy_until);
	io->pending--;
}

/* Make every choice this spindle makes up to @now (all of them if FIFO). */
static void advance_spindle(const struct dm_model *m, struct dm_spindle *s,
			    uint64_t now)
{
	struct dm_piece *pc;
	uint64_t t;

	while (s->queue) {
		t = decision_time(s);
		if (m->lazy && t > now)
			break;
		pc = unlink_at(s, pick(m, s, t));
		serve(m, s, pc, t);
	}
}

static void advance(struct dm_model *m, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < m->p->spindles; i++)
		advance_spindle(m, &m->sp[i], now);
}

/* ---- RAID-0 split ---- */

/* Each spindle's share of a request is contiguous on that spindle. */
static void split(const struct dm_model *m, struct dm_io *io)
{
	const struct dm_profile *p = m->p;
	uint64_t pos = io->off, end = io->off + io->len;
	uint64_t unit, chunk, local;
	unsigned int s;

	if (p->spindles == 1) {
		io->piece[0].off = io->off;
		io->piece[0].len = io->len;
		return;
	}
	while (pos < end) {
		unit = pos / p->stripe;
		s = unit % p->spindles;
		local = unit / p->spindles * p->stripe + pos % p->stripe;
		chunk = (unit + 1) * p->stripe;
		chunk = (chunk < end ? chunk : end) - pos;
		if (!io->piece[s].len)
			io->piece[s].off = local;
		io->piece[s].len += chunk;
		pos += chunk;
	}
}

static void disk_queue(struct dm_model *m, struct dm_io *io, uint64_t now)
{
	struct dm_piece *pc;
	unsigned int i;

	for (i = 0; i < m->p->spindles; i++) {
		io->piece[i].len = 0;
		io->piece[i].queued = false;
	}
	split(m, io);
	for (i = 0; i < m->p->spindles; i++) {
		pc = &io->piece[i];
		if (!pc->len)
			continue;
		pc->io = io;
		pc->arrival = now;
		enqueue(&m->sp[i], pc);
		io->pending++;
	}
}

/* ---- flash ---- */

/* @n pages from page @first, round-robin over channels, from @ready. */
static uint64_t flash_pages(struct dm_model *m, uint64_t first, uint64_t n,
			    uint64_t page_ns, uint64_t ready)
{
	unsigned int c, nch = m->p->channels;
	uint64_t count, start, done = ready;
	uint64_t *busy;

	for (c = 0; c < nch && c < n; c++) {
		busy = &m->chan_busy[(first + c) % nch];
		count = div_up(n - c, nch);
		start = max64(ready, *busy);
		*busy = start + count * page_ns;
		done = max64(done, *busy);
	}
	return done;
}

static uint64_t bus_transfer(struct dm_model *m, uint64_t len, uint64_t ready)
{
	uint64_t start = max64(ready, m->bus_busy);

	m->bus_busy = start + (u128)len * NS_PER_SEC / m->p->bus_rate;
	return m->bus_busy;
}

/* Reads come off flash then cross the bus; writes the other way round. */
static uint64_t flash_submit(struct dm_model *m, const struct dm_io *io,
			     uint64_t now)
{
	const struct dm_profile *p = m->p;
	uint64_t first, n, t;

	if (!io->len)
		return now;
	first = io->off / p->page;
	n = (io->off + io->len - 1) / p->page - first + 1;
	if (io->write) {
		t = bus_transfer(m, io->len, now);
		return flash_pages(m, first, n, p->prog_ns, t);
	}
	t = flash_pages(m, first, n, p->read_ns, now);
	return bus_transfer(m, io->len, t);
}

/* ---- entry points ---- */

/* Earliest moment one of @io's spindles makes its next choice. */
static uint64_t next_decision(const struct dm_model *m,
			      const struct dm_io *io)
{
	uint64_t t = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < m->p->spindles; i++)
		if (io->piece[i].queued)
			t = t < decision_time(&m->sp[i]) ? t :
			    decision_time(&m->sp[i]);
	return t;
}

bool dm_poll(struct dm_model *m, struct dm_io *io, uint64_t now,
	     uint64_t *when)
{
	if (m->p->kind == DM_DISK && io->pending) {
		advance(m, now);
		if (io->pending) {
			*when = next_decision(m, io);
			return false;
		}
	}
	*when = io->done;
	return true;
}

bool dm_submit(struct dm_model *m, struct dm_io *io, uint64_t now,
	       uint64_t *when)
{
	io->done = now;
	io->pending = 0;

	switch (m->p->kind) {
	case DM_DISK:
		disk_queue(m, io, now);
		break;
	case DM_FLASH:
		io->done = flash_submit(m, io, now);
		break;
	case DM_RAW:
		break;
	}
	return dm_poll(m, io, now, when);
}
