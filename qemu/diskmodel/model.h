/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timing model of a block device: given when a request arrives, where it
 * goes and how long it is, say when the device would complete it.
 *
 * Pure computation: no I/O, no sleeping, no clock reading, no locking.
 * All times are absolute nanoseconds on the caller's clock.  The same
 * profile and the same calls with the same times give the same answers.
 * A model is not thread-safe; callers serialise access to it.
 */
#ifndef DISKMODEL_MODEL_H
#define DISKMODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define DM_MAX_SPINDLES	16
#define DM_MAX_CHANNELS	32
/*
 * The most requests the guest can have at the model at once: QEMU's NBD
 * client keeps 16 in flight (MAX_NBD_REQUESTS), as many as nbdkit's
 * default 16 threads serve. A deeper device queue would never fill.
 */
#define DM_TRANSPORT_DEPTH	16

enum dm_kind {
	DM_RAW,		/* completes on arrival */
	DM_DISK,	/* spinning disks, RAID-0 striped over spindles */
	DM_FLASH,	/* flash pages spread over parallel channels */
};

enum dm_policy {
	DM_FIFO,	/* serve in arrival order */
	DM_SSF,		/* shortest seek first among queued commands */
};

struct dm_profile {
	const char *name;
	const char *desc;
	enum dm_kind kind;

	/* DM_DISK */
	unsigned int spindles;
	uint32_t stripe;		/* RAID-0 stripe unit, bytes */
	unsigned int rpm;
	uint64_t media_rate;		/* bytes per second under the head */
	uint64_t settle_ns;		/* track-to-track seek */
	uint64_t full_seek_ns;		/* full-stroke seek */

	/* DM_FLASH */
	unsigned int channels;
	uint32_t page;			/* bytes */
	uint64_t read_ns;		/* per page */
	uint64_t prog_ns;		/* per page */
	uint64_t bus_rate;		/* bytes per second, shared by all */

	/* on-device command queue, per spindle (DM_DISK only) */
	unsigned int depth;		/* 0: none, strictly FIFO */
	enum dm_policy policy;
	uint64_t max_wait_ns;		/* SSF aging; 0: never */
};

/* One request's share of one spindle; private to model.c. */
struct dm_piece {
	struct dm_piece *next;
	struct dm_io *io;
	uint64_t off;			/* spindle-local byte offset */
	uint32_t len;
	uint64_t arrival;
	bool queued;
};

/*
 * One request.  The caller fills off, len and write, and keeps the
 * structure alive until dm_submit() or dm_poll() has returned true.
 */
struct dm_io {
	uint64_t off;
	uint32_t len;
	bool write;

	/* private to model.c */
	uint64_t done;
	unsigned int pending;
	struct dm_piece piece[DM_MAX_SPINDLES];
};

struct dm_model;

const struct dm_profile *dm_profile_find(const char *name);
/* The i-th profile of the table, NULL past its end. */
const struct dm_profile *dm_profile_at(unsigned int i);
bool dm_profile_rotational(const struct dm_profile *p);

/* NULL if the profile is unusable or @capacity is 0. */
struct dm_model *dm_model_new(const struct dm_profile *p, uint64_t capacity);
void dm_model_free(struct dm_model *m);

/*
 * Queue @io, arriving at @now.  Returns true if its completion time is
 * already decided, and stores it in *@when.  Otherwise the device may
 * still reorder it against later arrivals (SSF with a queue): *@when is
 * the time at which to ask again with dm_poll().  Successive calls must
 * not go back in time.
 */
bool dm_submit(struct dm_model *m, struct dm_io *io, uint64_t now,
	       uint64_t *when);

/* As dm_submit(), for an @io that is already queued. */
bool dm_poll(struct dm_model *m, struct dm_io *io, uint64_t now,
	     uint64_t *when);

/* Whether later arrivals can overtake queued ones (needs dm_poll()). */
bool dm_model_reorders(const struct dm_model *m);

/* Physics, exposed for tests.  Offsets are spindle-local. */
uint64_t dm_seek_ns(const struct dm_model *m, uint64_t from, uint64_t to);
uint64_t dm_rotation_ns(const struct dm_model *m, uint64_t t, uint64_t off);
uint64_t dm_transfer_ns(const struct dm_model *m, uint64_t len);
uint64_t dm_spindle_capacity(const struct dm_model *m);

#endif /* DISKMODEL_MODEL_H */
