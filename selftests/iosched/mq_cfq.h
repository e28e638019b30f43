/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mq-cfq selftests: whether the disk under test
 * (IOSCHED_DISK) can use mq-cfq, its tunables, and timing.
 */
#ifndef IOSCHED_MQ_CFQ_H
#define IOSCHED_MQ_CFQ_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iosched.h"

#define CFQ_NAME	"mq-cfq"
#define CFQ_NAME_LEN	IOSCHED_NAME_LEN

/*
 * Whether the disk lists mq-cfq, and the active scheduler in @active.
 * Returns 1 (listed), 0 (not listed) or -errno.
 */
static inline int cfq_available(const char *disk, char *active)
{
	char names[IOSCHED_MAX][IOSCHED_NAME_LEN];
	int nr, i;

	nr = iosched_list(disk, names, active);
	if (nr < 0)
		return nr;
	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], CFQ_NAME))
			return 1;
	return 0;
}

/*
 * The disk under test (IOSCHED_DISK) of an mq-cfq fixture: its name into
 * @disk, its active scheduler into @initial. Returns 1 if mq-cfq can run
 * on it, 0 if the test is to be skipped, -1 on error; @why says which.
 */
static inline int cfq_test_disk(char *disk, size_t len, char *initial,
				const char **why)
{
	const char *name = getenv("IOSCHED_DISK");
	int ret;

	if (!name || !*name) {
		*why = "IOSCHED_DISK names no disk";
		return 0;
	}
	snprintf(disk, len, "%s", name);
	ret = cfq_available(disk, initial);
	if (ret < 0)
		*why = "cannot read the schedulers of the disk";
	else if (!ret)
		*why = "the kernel has no " CFQ_NAME " (CONFIG_MQ_IOSCHED_CFQ)";
	return ret < 0 ? -1 : ret;
}

static inline double cfq_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void cfq_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The larger of two times or durations. */
static inline double cfq_larger(double a, double b)
{
	return a > b ? a : b;
}

/* mq-cfq tunable @name of @disk (milliseconds for the time ones); -1: none. */
static inline double cfq_tunable_ms(const char *disk, const char *name)
{
	char path[PATH_MAX], buf[32];

	iosched_tunable_path(disk, name, path, sizeof(path));
	if (iosched_read_attr(path, buf, sizeof(buf)))
		return -1;
	return strtod(buf, NULL);
}

#endif /* IOSCHED_MQ_CFQ_H */
