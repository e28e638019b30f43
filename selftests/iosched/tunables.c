// SPDX-License-Identifier: GPL-2.0
/*
 * The tunables of the schedulers built on blk-ioq (mq-cfq, mq-as) under
 * /sys/block/<disk>/queue/iosched/: each one exists, starts at its
 * documented default, accepts its minimum, its maximum and (where the
 * scheduler can decide by itself) "auto", and refuses anything else with
 * EINVAL while keeping the value it had.
 *
 * The tables below mirror the tunables and defaults declared in
 * block/mq-cfq-iosched.c, block/mq-as-iosched.c and, for the ones both
 * share, block/blk-ioq.c; a tunable added there without a line here
 * fails "table_matches_sysfs".
 *
 * Environment: IOSCHED_DISK, the disk under test (e.g. "sda").
 */
#include <dirent.h>

#include "../kselftest_harness.h"
#include "iosched.h"

/* The kernel's value for "auto" (IOQ_AUTO); it must not be writable. */
#define AUTO	UINT_MAX

struct tunable {
	const char *name;
	unsigned int min, max;
	bool has_auto;
	unsigned int def;	/* AUTO: shows "auto" */
};

static const struct tunable cfq_tunables[] = {
	/* name              min  max      auto   default */
	{ "slice_idle",        0, 1000,    false, 8 },
	{ "slice_sync",        1, 10000,   false, 100 },
	{ "slice_async",       1, 10000,   false, 300 },
	{ "slice_async_rq",    1, 1024,    false, 8 },
	{ "quantum",           1, 1024,    false, 8 },
	{ "fifo_expire_sync",  1, 60000,   false, 125 },
	{ "fifo_expire_async", 1, 60000,   false, 250 },
	{ "fifo_drain",        0, 1,       false, 0 },
	{ "back_seek_max",     0, 1 << 30, false, 16 * 1024 },
	{ "back_seek_penalty", 1, 1000,    false, 2 },
	{ "group_idle",        0, 1000,    false, 8 },
	{ "target_latency",    1, 10000,   false, 300 },
	{ "prio_aging_expire", 1, 600000,  false, 10000 },
	{ "low_latency",       0, 1,       false, 1 },
	{ "idle_nonrot",       0, 1,       false, 0 },
	/* blk-ioq's, beside mq-cfq's */
	{ "seek_distance",     0, 1 << 30, true,  AUTO },
	{ "seek_min_size",     0, 1 << 20, true,  AUTO },
	{ "seeky_requests",    0, 32,      false, 4 },
	{ "spindles",          1, 64,      true,  AUTO },
};

static const struct tunable as_tunables[] = {
	/* name              min  max      auto   default */
	{ "read_expire",       1, 60000,   false, 125 },
	{ "write_expire",      1, 60000,   false, 250 },
	{ "read_batch_expire", 1, 60000,   false, 250 },
	{ "write_batch_expire", 1, 60000,  false, 125 },
	{ "antic_expire",      0, 1000,    false, 6 },
	{ "antic_nonrot",      0, 1,       false, 0 },
	/* blk-ioq's, beside mq-as's */
	{ "spindles",          1, 64,      true,  AUTO },
};

/* Input no tunable accepts. "\n" is what `echo "" > attr` writes. */
static const char * const always_bad[] = {
	"-1", "abc", "\n", " ", "12abc", "1 2", "0x10", "1.5",
	"4294967295",		/* UINT_MAX, the kernel's internal "auto" */
	"4294967296",		/* does not fit an unsigned int */
	"99999999999999999999",
	"AUTO", "autox",
};

FIXTURE(tunables) {
	char disk[IOSCHED_NAME_LEN];
	char initial[IOSCHED_NAME_LEN];
};

FIXTURE_VARIANT(tunables) {
	const char *scheduler;
	const struct tunable *table;
	unsigned int count;
};

FIXTURE_VARIANT_ADD(tunables, mq_cfq) {
	.scheduler = "mq-cfq",
	.table = cfq_tunables,
	.count = ARRAY_SIZE(cfq_tunables),
};

FIXTURE_VARIANT_ADD(tunables, mq_as) {
	.scheduler = "mq-as",
	.table = as_tunables,
	.count = ARRAY_SIZE(as_tunables),
};

FIXTURE_SETUP(tunables)
{
	const char *why;
	int ret;

	ret = iosched_test_disk(self->disk, sizeof(self->disk), self->initial,
				variant->scheduler, &why);
	ASSERT_LE(0, ret) TH_LOG("%s", why);
	if (!ret)
		SKIP(return, "%s", why);
	/* Through "none", so that the scheduler starts with its defaults. */
	ASSERT_EQ(0, iosched_select(self->disk, "none"));
	ASSERT_EQ(0, iosched_select(self->disk, variant->scheduler));
}

FIXTURE_TEARDOWN(tunables)
{
	/* A fresh instance of the scheduler the disk had, defaults and all. */
	iosched_select(self->disk, "none");
	if (self->initial[0])
		iosched_select(self->disk, self->initial);
}

static void format_value(char *buf, size_t len, unsigned int value)
{
	if (value == AUTO)
		snprintf(buf, len, "auto");
	else
		snprintf(buf, len, "%u", value);
}

static int read_tunable(const char *disk, const struct tunable *t,
			char *buf, size_t len)
{
	char path[PATH_MAX];

	iosched_tunable_path(disk, t->name, path, sizeof(path));
	return iosched_read_attr(path, buf, len);
}

static int write_tunable(const char *disk, const struct tunable *t,
			 const char *val)
{
	char path[PATH_MAX];

	iosched_tunable_path(disk, t->name, path, sizeof(path));
	return iosched_write_str(path, val);
}

static const struct tunable *tunable_named(const struct tunable *table,
					   unsigned int count, const char *name)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

TEST_F(tunables, table_matches_sysfs)
{
	char path[PATH_MAX], val[64];
	struct dirent *de;
	unsigned int i;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/iosched",
		 self->disk);
	dir = opendir(path);
	ASSERT_NE(NULL, dir) TH_LOG("cannot open %s", path);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		EXPECT_NE(NULL, tunable_named(variant->table, variant->count,
					      de->d_name))
			TH_LOG("%s has %s, which this test does not know",
			       path, de->d_name);
	}
	closedir(dir);
	for (i = 0; i < variant->count; i++) {
		const struct tunable *t = &variant->table[i];

		EXPECT_EQ(0, read_tunable(self->disk, t, val, sizeof(val)))
			TH_LOG("%s/%s is missing", path, t->name);
	}
}

TEST_F(tunables, start_at_defaults)
{
	char want[32], got[64];
	unsigned int i;

	for (i = 0; i < variant->count; i++) {
		const struct tunable *t = &variant->table[i];

		format_value(want, sizeof(want), t->def);
		ASSERT_EQ(0, read_tunable(self->disk, t, got, sizeof(got)));
		EXPECT_STREQ(want, got) TH_LOG("default of %s", t->name);
	}
}

/* Write each of min, max, a value between and "auto" (where accepted). */
TEST_F(tunables, accept_min_max_auto)
{
	char val[32], got[64];
	unsigned int i, v;

	for (i = 0; i < variant->count; i++) {
		const struct tunable *t = &variant->table[i];
		const unsigned int good[] = {
			t->min, t->max, t->min + (t->max - t->min) / 2,
			t->has_auto ? AUTO : t->min,
		};

		for (v = 0; v < ARRAY_SIZE(good); v++) {
			format_value(val, sizeof(val), good[v]);
			EXPECT_EQ(0, write_tunable(self->disk, t, val))
				TH_LOG("%s refused \"%s\"", t->name, val);
			ASSERT_EQ(0, read_tunable(self->disk, t, got,
						  sizeof(got)));
			EXPECT_STREQ(val, got)
				TH_LOG("%s after writing \"%s\"", t->name, val);
		}
		/* What echo writes: the value and a newline. */
		snprintf(val, sizeof(val), "%u\n", t->max);
		EXPECT_EQ(0, write_tunable(self->disk, t, val))
			TH_LOG("%s refused \"%u\\n\"", t->name, t->max);
	}
}

/*
 * Start from a value that is neither the default nor a bound, write bad
 * input, and check for EINVAL and the value unchanged.
 */
static void check_refused(struct __test_metadata *_metadata,
			  const char *disk, const struct tunable *t,
			  const char *bad, const char *known)
{
	char got[64];
	int ret;

	ret = write_tunable(disk, t, bad);
	EXPECT_EQ(-EINVAL, ret)
		TH_LOG("%s: writing \"%s\" returned %d, not -EINVAL",
		       t->name, strcmp(bad, "\n") ? bad : "\\n", ret);
	ASSERT_EQ(0, read_tunable(disk, t, got, sizeof(got)));
	EXPECT_STREQ(known, got)
		TH_LOG("%s: bad input \"%s\" changed the value", t->name,
		       strcmp(bad, "\n") ? bad : "\\n");
}

TEST_F(tunables, refuse_bad_input)
{
	char known[32], bad[32];
	unsigned int i, b;

	for (i = 0; i < variant->count; i++) {
		const struct tunable *t = &variant->table[i];

		/* 0/1 switches have no value strictly inside the range. */
		format_value(known, sizeof(known),
			     t->max - t->min > 1 ? t->max - 1 : !t->def);
		ASSERT_EQ(0, write_tunable(self->disk, t, known))
			TH_LOG("%s refused \"%s\"", t->name, known);

		for (b = 0; b < ARRAY_SIZE(always_bad); b++)
			check_refused(_metadata, self->disk, t, always_bad[b],
				      known);
		snprintf(bad, sizeof(bad), "%llu", t->max + 1ULL);
		check_refused(_metadata, self->disk, t, bad, known);
		if (t->min > 0) {
			snprintf(bad, sizeof(bad), "%u", t->min - 1);
			check_refused(_metadata, self->disk, t, bad, known);
		}
		if (!t->has_auto) {
			check_refused(_metadata, self->disk, t, "auto", known);
			check_refused(_metadata, self->disk, t, "auto\n",
				      known);
		}
	}
}

TEST_HARNESS_MAIN
