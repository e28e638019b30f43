/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mq-cfq selftests: sysfs attributes of the disk
 * under test (IOSCHED_DISK) and making mq-cfq its scheduler.
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

#define CFQ_NAME	"mq-cfq"
#define CFQ_NAME_LEN	32

/* Read a sysfs attribute into @buf without its trailing newline. */
static inline int cfq_read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Write @val to @path in one write(); returns 0 or -errno. */
static inline int cfq_write_attr(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* /sys/block/<disk>/queue/scheduler into @path. */
static inline void cfq_sched_attr(const char *disk, char *path, size_t len)
{
	snprintf(path, len, "/sys/block/%s/queue/scheduler", disk);
}

/*
 * Whether the disk lists mq-cfq, and the active scheduler in @active.
 * Returns 1 (listed), 0 (not listed) or -errno.
 */
static inline int cfq_available(const char *disk, char *active)
{
	char path[PATH_MAX], buf[512], *tok, *save = NULL;
	int found = 0, ret;

	cfq_sched_attr(disk, path, sizeof(path));
	ret = cfq_read_attr(path, buf, sizeof(buf));
	if (ret)
		return ret;
	active[0] = '\0';
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		size_t len = strlen(tok);

		if (tok[0] == '[' && tok[len - 1] == ']') {
			tok[len - 1] = '\0';
			tok++;
			snprintf(active, CFQ_NAME_LEN, "%s", tok);
		}
		if (!strcmp(tok, CFQ_NAME))
			found = 1;
	}
	return found;
}

/* Make @name the scheduler of @disk; returns 0 or -errno. */
static inline int cfq_select(const char *disk, const char *name)
{
	char path[PATH_MAX];

	cfq_sched_attr(disk, path, sizeof(path));
	return cfq_write_attr(path, name);
}

/* /sys/block/<disk>/queue/iosched/<name> into @path. */
static inline void cfq_tunable_path(const char *disk, const char *name,
				    char *path, size_t len)
{
	snprintf(path, len, "/sys/block/%s/queue/iosched/%s", disk, name);
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

#endif /* IOSCHED_MQ_CFQ_H */
