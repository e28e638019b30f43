// SPDX-License-Identifier: GPL-2.0
/*
 * The device profiles.  Figures are those of a commodity 7200 rpm SATA
 * disk and of a mid-range SATA SSD; seek times are scaled to whatever
 * capacity the model is given, so a small image behaves like a whole disk.
 */
#include <stddef.h>
#include <string.h>

#include "model.h"

#define US	1000ULL
#define MS	1000000ULL
#define KIB	1024U
#define MB	1000000ULL

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* One spindle of every disk profile. */
#define HDD_7200					\
	.kind = DM_DISK, .rpm = 7200, .media_rate = 150 * MB,	\
	.settle_ns = 800 * US, .full_seek_ns = 15 * MS

static const struct dm_profile profiles[] = {
	{
		.name = "hdd", .desc = "one 7200 rpm disk, no command queue",
		HDD_7200, .spindles = 1,
	},
	{
		.name = "hdd-ncq",
		.desc = "one 7200 rpm disk, 16-deep NCQ, shortest seek first",
		HDD_7200, .spindles = 1,
		.depth = DM_TRANSPORT_DEPTH, .policy = DM_SSF,
		.max_wait_ns = 500 * MS,
	},
	{
		.name = "raid4", .desc = "RAID-0 of 4 such disks, 64 KiB stripe",
		HDD_7200, .spindles = 4, .stripe = 64 * KIB,
	},
	{
		.name = "ssd", .desc = "flash, 8 channels, 500 MB/s bus",
		.kind = DM_FLASH, .channels = 8, .page = 4 * KIB,
		.read_ns = 80 * US, .prog_ns = 250 * US, .bus_rate = 500 * MB,
	},
	{
		.name = "raw", .desc = "no delay at all",
		.kind = DM_RAW,
	},
};

const struct dm_profile *dm_profile_at(unsigned int i)
{
	if (i >= ARRAY_SIZE(profiles))
		return NULL;
	return &profiles[i];
}

const struct dm_profile *dm_profile_find(const char *name)
{
	const struct dm_profile *p;
	unsigned int i;

	for (i = 0; (p = dm_profile_at(i)); i++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/* Spinning media: the rest (flash, raw) have no seek to avoid. */
bool dm_profile_rotational(const struct dm_profile *p)
{
	return p->kind == DM_DISK;
}
