// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input to every writable tunable of every I/O scheduler the disk
 * lists (queue/iosched/) and to the readahead knobs (queue/read_ahead_kb,
 * the debug knob readahead/algorithm in debugfs):
 * malformed numbers, whitespace and newline variants, overflow and
 * very long strings are refused with an error and leave the value as it
 * was; a negative or 2^32 is either refused or stored as written, never
 * silently clamped to something else; an unprivileged user can change
 * nothing.
 *
 * Environment: IOSCHED_DISK, the disk under test (e.g. "sda").
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "iosched.h"

#define VALUE_LEN	256
#define NOBODY		65534

/* No tunable of any scheduler may accept these. */
static const char * const malformed[] = {
	"\n",			/* echo "" */
	"\x20\n", "abc", "12abc", "0x", "1.5", "1e3", "- 1", "--1",
	" 1", "1 ", "\t1", "1\t", "\n1", "1\n\n", "1 2",
	"18446744073709551616",		/* 2^64 */
	"18446744073709551617",
	"-18446744073709551616",
	"340282366920938463463374607431768211456",	/* 2^128 */
};

/* Values that are either refused or stored exactly as written. */
static const char * const refused_or_exact[] = {
	"-1", "-2147483649", "4294967296",
};

FIXTURE(hostile) {
	char disk[IOSCHED_NAME_LEN];
	char initial[IOSCHED_NAME_LEN];
	char names[IOSCHED_MAX][IOSCHED_NAME_LEN];
	int nr_names;
};

FIXTURE_SETUP(hostile)
{
	const char *disk = getenv("IOSCHED_DISK");

	if (!disk || !*disk)
		SKIP(return, "IOSCHED_DISK names no disk");
	snprintf(self->disk, sizeof(self->disk), "%s", disk);
	self->nr_names = iosched_list(self->disk, self->names, self->initial);
	ASSERT_LT(0, self->nr_names)
		TH_LOG("cannot read the schedulers of %s", disk);
}

FIXTURE_TEARDOWN(hostile)
{
	/* Through "none": the old scheduler comes back with its defaults. */
	iosched_select(self->disk, "none");
	if (self->initial[0])
		iosched_select(self->disk, self->initial);
}

/* Printable form of @s for messages: newlines and tabs escaped. */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t i, o = 0;

	for (i = 0; s[i] && o + 3 < len; i++) {
		if (s[i] == '\n' || s[i] == '\t') {
			buf[o++] = '\\';
			buf[o++] = s[i] == '\n' ? 'n' : 't';
		} else {
			buf[o++] = s[i];
		}
	}
	buf[o] = '\0';
	return buf;
}

/* Write @bad to @path: it must fail and leave the value it had. */
static void expect_refused(struct __test_metadata *_metadata,
			   const char *path, const char *bad, size_t len)
{
	char before[VALUE_LEN], after[VALUE_LEN], esc[64];
	int ret;

	ASSERT_EQ(0, iosched_read_attr(path, before, sizeof(before)));
	ret = iosched_write_attr(path, bad, len);
	EXPECT_GT(0, ret) TH_LOG("%s accepted \"%.40s\"", path,
				 shown(bad, esc, sizeof(esc)));
	ASSERT_EQ(0, iosched_read_attr(path, after, sizeof(after)));
	EXPECT_STREQ(before, after)
		TH_LOG("%s changed by \"%.40s\"", path,
		       shown(bad, esc, sizeof(esc)));
}

/* Write @val to @path: refused and unchanged, or stored as written. */
static void expect_refused_or_exact(struct __test_metadata *_metadata,
				    const char *path, const char *val)
{
	char before[VALUE_LEN], after[VALUE_LEN];
	int ret;

	ASSERT_EQ(0, iosched_read_attr(path, before, sizeof(before)));
	ret = iosched_write_str(path, val);
	ASSERT_EQ(0, iosched_read_attr(path, after, sizeof(after)));
	if (ret) {
		EXPECT_STREQ(before, after)
			TH_LOG("%s refused \"%s\" but changed", path, val);
		return;
	}
	EXPECT_STREQ(val, after)
		TH_LOG("%s took \"%s\" as \"%s\"", path, val, after);
	EXPECT_EQ(0, iosched_write_str(path, before))
		TH_LOG("%s: cannot restore \"%s\"", path, before);
}

/* As user nobody, writing anything to @path fails with EACCES. */
static void expect_unprivileged_refused(struct __test_metadata *_metadata,
					const char *path)
{
	char before[VALUE_LEN], after[VALUE_LEN];
	int status;
	pid_t pid;

	ASSERT_EQ(0, iosched_read_attr(path, before, sizeof(before)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		_exit(iosched_write_str(path, "1") == -EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("%s: an unprivileged write was not refused with EACCES",
		       path);
	ASSERT_EQ(0, iosched_read_attr(path, after, sizeof(after)));
	EXPECT_STREQ(before, after) TH_LOG("%s changed by user nobody", path);
}

static void attack(struct __test_metadata *_metadata, const char *path)
{
	static char longstr[2][8192];
	unsigned int i;

	memset(longstr[0], '9', 4000);
	memset(longstr[1], 'a', sizeof(longstr[1]));
	for (i = 0; i < ARRAY_SIZE(malformed); i++)
		expect_refused(_metadata, path, malformed[i],
			       strlen(malformed[i]));
	expect_refused(_metadata, path, longstr[0], 4000);
	expect_refused(_metadata, path, longstr[1], sizeof(longstr[1]));
	for (i = 0; i < ARRAY_SIZE(refused_or_exact); i++)
		expect_refused_or_exact(_metadata, path, refused_or_exact[i]);
	expect_unprivileged_refused(_metadata, path);
}

static bool writable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && (st.st_mode & 0222);
}

/* Attack every writable file of queue/iosched/; returns how many. */
static int attack_tunables(struct __test_metadata *_metadata,
			   const char *disk)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int nr = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/block/%s/queue/iosched", disk);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		iosched_tunable_path(disk, de->d_name, path, sizeof(path));
		if (!writable(path))
			continue;
		attack(_metadata, path);
		nr++;
	}
	closedir(d);
	return nr;
}

/*
 * Every tunable of every scheduler, each written some 30 ways and once as
 * user nobody (a fork): minutes on a debug kernel under emulation, where
 * the harness's default of 30 s ended the test while bfq's were written.
 */
#define TUNABLES_TIMEOUT_S	300

TEST_F_TIMEOUT(hostile, scheduler_tunables, TUNABLES_TIMEOUT_S)
{
	int i, nr;

	for (i = 0; i < self->nr_names; i++) {
		ASSERT_EQ(0, iosched_select(self->disk, self->names[i]));
		nr = attack_tunables(_metadata, self->disk);
		TH_LOG("%s: %d tunables attacked", self->names[i], nr);
		if (strcmp(self->names[i], "none"))
			EXPECT_LT(0, nr) TH_LOG("%s has no tunables",
						self->names[i]);
	}
}

TEST_F(hostile, readahead_knob)
{
	char path[PATH_MAX];

	iosched_queue_attr(self->disk, "read_ahead_kb", path, sizeof(path));
	attack(_metadata, path);
}

TEST_F(hostile, readahead_algorithm)
{
	iosched_mount_debugfs();
	attack(_metadata, IOSCHED_RA_KNOB);
}

TEST_HARNESS_MAIN
