// SPDX-License-Identifier: GPL-2.0
/*
 * I/O scheduler selection through /sys/block/<disk>/queue/scheduler:
 * the disk sits behind the expected controller driver, every scheduler
 * the kernel was built with is listed and can be made active, and names
 * that are not a scheduler's are refused without changing the active one.
 *
 * Environment (set by the guest test runner):
 *   IOSCHED_DISK    disk under test, e.g. "sda"
 *   IOSCHED_DRIVER  driver the disk's controller must be bound to
 *   IOSCHED_EXPECT  space separated schedulers the kernel was built with
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "iosched.h"

#define MAX_SCHEDULERS	IOSCHED_MAX
#define NAME_LEN	IOSCHED_NAME_LEN

FIXTURE(elevator) {
	char disk[NAME_LEN];
	char attr[PATH_MAX];
	char names[MAX_SCHEDULERS][NAME_LEN];
	int nr_names;
	char initial[NAME_LEN];
};

static int active_scheduler(const char *disk, char *active)
{
	char names[IOSCHED_MAX][IOSCHED_NAME_LEN];
	int nr = iosched_list(disk, names, active);

	return nr < 0 ? nr : 0;
}

/* Does any ancestor of /sys/block/<disk> have @driver bound to it? */
static bool behind_driver(const char *disk, const char *driver)
{
	char path[PATH_MAX], link[PATH_MAX + sizeof("/driver")];
	char target[PATH_MAX];
	char *slash;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/block/%s", disk);
	if (!realpath(link, path))
		return false;
	while ((slash = strrchr(path, '/')) && slash != path) {
		snprintf(link, sizeof(link), "%s/driver", path);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			slash = strrchr(target, '/');
			if (!strcmp(slash ? slash + 1 : target, driver))
				return true;
		}
		*strrchr(path, '/') = '\0';
	}
	return false;
}

FIXTURE_SETUP(elevator)
{
	const char *disk = getenv("IOSCHED_DISK");

	if (!disk || !*disk)
		SKIP(return, "IOSCHED_DISK names no disk");
	snprintf(self->disk, sizeof(self->disk), "%s", disk);
	iosched_sched_attr(disk, self->attr, sizeof(self->attr));
	self->nr_names = iosched_list(self->disk, self->names, self->initial);
	ASSERT_LT(0, self->nr_names) TH_LOG("cannot read %s", self->attr);
}

FIXTURE_TEARDOWN(elevator)
{
	if (self->initial[0])
		iosched_select(self->disk, self->initial);
}

TEST_F(elevator, behind_expected_driver)
{
	const char *driver = getenv("IOSCHED_DRIVER");

	ASSERT_NE(NULL, driver) TH_LOG("IOSCHED_DRIVER is not set");
	EXPECT_TRUE(behind_driver(self->disk, driver))
		TH_LOG("%s is not behind a device bound to %s",
		       self->disk, driver);
}

TEST_F(elevator, lists_every_built_scheduler)
{
	char expect[512], *tok, *save = NULL;
	const char *env = getenv("IOSCHED_EXPECT");
	int i;

	ASSERT_NE(NULL, env) TH_LOG("IOSCHED_EXPECT is not set");
	snprintf(expect, sizeof(expect), "%s", env);
	for (tok = strtok_r(expect, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		for (i = 0; i < self->nr_names; i++)
			if (!strcmp(self->names[i], tok))
				break;
		EXPECT_LT(i, self->nr_names)
			TH_LOG("%s is built but not listed in %s",
			       tok, self->attr);
	}
}

TEST_F(elevator, switches_to_each)
{
	char active[NAME_LEN];
	int i;

	for (i = 0; i < self->nr_names; i++) {
		EXPECT_EQ(0, iosched_select(self->disk, self->names[i]))
			TH_LOG("selecting %s failed", self->names[i]);
		ASSERT_EQ(0, active_scheduler(self->disk, active));
		EXPECT_STREQ(self->names[i], active);
	}
}

/*
 * Names that must be refused. "nonexistent" and the padded "kyber" were
 * accepted by 6.12 (prefix match on "none", silent truncation).
 */
static const char * const bad_names[] = {
	"no-such-scheduler",
	"nonexistent",
	"none-of-the-above",
	"kyber                      garbage",
	"mq-deadline\x01",
	"bfq kyber",
	"-1",
	"\n",
	" ",
};

TEST_F(elevator, rejects_unknown_names)
{
	char active[NAME_LEN], longname[4000];
	unsigned int b;
	int i, ret;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';

	/* Start from each real scheduler so a fall-back to "none" shows. */
	for (i = 0; i < self->nr_names; i++) {
		if (!strcmp(self->names[i], "none"))
			continue;
		ASSERT_EQ(0, iosched_select(self->disk, self->names[i]));
		for (b = 0; b <= ARRAY_SIZE(bad_names); b++) {
			const char *bad = b < ARRAY_SIZE(bad_names) ?
					  bad_names[b] : longname;

			ret = iosched_select(self->disk, bad);
			EXPECT_NE(0, ret)
				TH_LOG("\"%.40s\" accepted while %s was active",
				       bad, self->names[i]);
			ASSERT_EQ(0, active_scheduler(self->disk, active));
			EXPECT_STREQ(self->names[i], active)
				TH_LOG("\"%.40s\" changed the scheduler", bad);
		}
	}
}

TEST_HARNESS_MAIN
