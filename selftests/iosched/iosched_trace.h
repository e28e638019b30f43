/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace instance of a test's own, recording chosen events of one disk
 * only, stamped with CLOCK_MONOTONIC (the clock the tests time calls
 * with): other tests' tracing and other disks do not get into it.
 */
#ifndef IOSCHED_IOSCHED_TRACE_H
#define IOSCHED_IOSCHED_TRACE_H

#include "iosched.h"

#define IOSCHED_TRACEFS		"/sys/kernel/tracing"
#define IOSCHED_TRACE_KB	"4096"	/* per CPU */

/* An event, as in events/SYSTEM/NAME of tracefs. */
struct iosched_event {
	const char *system;
	const char *name;
};

/* The longest instance directory, name included. */
#define IOSCHED_TRACE_DIR_LEN	128

struct iosched_trace {
	char dir[IOSCHED_TRACE_DIR_LEN];	/* the instance */
	bool made;		/* by us, and tracing: ours to read and remove */
};

/* Whether tracefs, with instances, is there (mounted if need be). */
static inline bool iosched_tracefs(void)
{
	if (access(IOSCHED_TRACEFS "/instances", F_OK))
		mount("tracefs", IOSCHED_TRACEFS, "tracefs", 0, NULL);
	return !access(IOSCHED_TRACEFS "/instances", F_OK);
}

/* Name @t's instance @name (in @t->dir); 0 or -ENAMETOOLONG. */
static inline int iosched_trace_name(struct iosched_trace *t,
				     const char *name)
{
	int len = snprintf(t->dir, sizeof(t->dir),
			   IOSCHED_TRACEFS "/instances/%s", name);

	return len < 0 || len >= (int)sizeof(t->dir) ? -ENAMETOOLONG : 0;
}

/*
 * Name @t's instance @name (in @t->dir); whether it exists, another
 * run's or ours.
 */
static inline bool iosched_trace_exists(struct iosched_trace *t,
					const char *name)
{
	return !iosched_trace_name(t, name) && !access(t->dir, F_OK);
}

/* The filter that keeps @disk's events only, into @filter; 0 or -errno. */
static inline int iosched_trace_disk_filter(const char *disk, char *filter,
					    size_t len)
{
	unsigned int major, minor;
	char path[PATH_MAX], buf[32];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", disk);
	ret = iosched_read_attr(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%u:%u", &major, &minor) != 2)
		return -EINVAL;
	/* The kernel's dev_t (MKDEV), as the events record it. */
	snprintf(filter, len, "dev == %u", major << 20 | minor);
	return 0;
}

/* Set up the made instance of @t and start it; 0 or -errno. */
static inline int iosched_trace_setup(const struct iosched_trace *t,
				      const char *filter,
				      const struct iosched_event *events,
				      unsigned int n)
{
	char dir[PATH_MAX];
	unsigned int i;
	int ret;

	ret = iosched_write_in(t->dir, "trace_clock", "mono");
	if (!ret)
		ret = iosched_write_in(t->dir, "buffer_size_kb",
				       IOSCHED_TRACE_KB);
	for (i = 0; i < n && !ret; i++) {
		snprintf(dir, sizeof(dir), "%s/events/%s/%s", t->dir,
			 events[i].system, events[i].name);
		ret = iosched_write_in(dir, "filter", filter);
		if (!ret)
			ret = iosched_write_in(dir, "enable", "1");
	}
	return ret ?: iosched_write_in(t->dir, "tracing_on", "1");
}

/*
 * Make instance @name and trace @n @events of @disk in it; 0, or -1 with
 * errno set (EEXIST: the instance is there) and no instance made.
 */
static inline int iosched_trace_start(struct iosched_trace *t,
				      const char *name, const char *disk,
				      const struct iosched_event *events,
				      unsigned int n)
{
	char filter[32];
	int ret;

	ret = iosched_trace_name(t, name);
	if (!ret && !access(t->dir, F_OK))
		ret = -EEXIST;
	if (!ret)
		ret = iosched_trace_disk_filter(disk, filter, sizeof(filter));
	if (!ret)
		ret = mkdir(t->dir, 0700) ? -errno : 0;
	if (!ret) {
		ret = iosched_trace_setup(t, filter, events, n);
		if (ret)
			rmdir(t->dir);
	}
	t->made = !ret;
	errno = -ret;
	return ret ? -1 : 0;
}

/* Stop recording; the trace stays readable.  0 or -errno. */
static inline int iosched_trace_stop(const struct iosched_trace *t)
{
	return t->made ? iosched_write_in(t->dir, "tracing_on", "0") : -ENOENT;
}

static inline FILE *iosched_trace_open(const struct iosched_trace *t)
{
	char path[PATH_MAX];

	if (!t->made) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/trace", t->dir);
	return fopen(path, "r");
}

/* Events the buffers lost: with any, the trace proves nothing. */
static inline long long iosched_trace_overruns(const struct iosched_trace *t)
{
	char path[PATH_MAX], line[128];
	long long total = 0, n;
	int cpu;
	FILE *f;

	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", t->dir,
			 cpu);
		f = fopen(path, "r");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %lld", &n) == 1 ||
			    sscanf(line, "dropped events: %lld", &n) == 1)
				total += n;
		fclose(f);
	}
	return total;
}

/* Remove the instance if we made it; 0 or -errno. */
static inline int iosched_trace_remove(struct iosched_trace *t)
{
	int ret = 0;

	if (t->made && rmdir(t->dir))
		ret = -errno;
	t->made = false;
	return ret;
}

#endif /* IOSCHED_IOSCHED_TRACE_H */
