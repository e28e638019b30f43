/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mq-cfq selftests: whether the disk under test
 * (IOSCHED_DISK) can use mq-cfq, its tunables, and timing.
 */
#ifndef IOSCHED_MQ_CFQ_H
#define IOSCHED_MQ_CFQ_H

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "iosched.h"

#define CFQ_NAME	"mq-cfq"
#define CFQ_NAME_LEN	IOSCHED_NAME_LEN

/* The disk under test of an mq-cfq fixture: see iosched_test_disk(). */
static inline int cfq_test_disk(char *disk, size_t len, char *initial,
				const char **why)
{
	return iosched_test_disk(disk, len, initial, CFQ_NAME, why);
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
