/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the iosched selftests: reading and writing sysfs
 * attributes of the disk under test and choosing its I/O scheduler.
 */
#ifndef IOSCHED_IOSCHED_H
#define IOSCHED_IOSCHED_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define IOSCHED_NAME_LEN	32
#define IOSCHED_DEBUGFS		"/sys/kernel/debug"
/*
 * The series' readahead debug knob: "adaptive" (the kernel's algorithm) or
 * "stock", to compare the two in one boot.  Mount debugfs first.
 */
#define IOSCHED_RA_KNOB		IOSCHED_DEBUGFS "/readahead/algorithm"
#define IOSCHED_MAX		16
#define IOSCHED_CONFIGFS	"/sys/kernel/config"
#define IOSCHED_NULLB_DIR	IOSCHED_CONFIGFS "/nullb"

/* Mount debugfs where the tests expect it, unless it is there already. */
static inline void iosched_mount_debugfs(void)
{
	if (access(IOSCHED_DEBUGFS "/block", F_OK))
		mount("debugfs", IOSCHED_DEBUGFS, "debugfs", 0, NULL);
}

/* Read a sysfs attribute into @buf without its trailing newline. */
static inline int iosched_read_attr(const char *path, char *buf, size_t len)
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

/* Write @len bytes of @val in one write(); returns 0 or -errno. */
static inline int iosched_write_attr(const char *path, const char *val,
				     size_t len)
{
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

static inline int iosched_write_str(const char *path, const char *val)
{
	return iosched_write_attr(path, val, strlen(val));
}

/* Write @val to file @name of directory @dir; 0 or -errno. */
static inline int iosched_write_in(const char *dir, const char *name,
				   const char *val)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return iosched_write_str(path, val);
}

/* /sys/block/<disk>/queue/<name> into @path. */
static inline void iosched_queue_attr(const char *disk, const char *name,
				      char *path, size_t len)
{
	snprintf(path, len, "/sys/block/%s/queue/%s", disk, name);
}

/* /sys/block/<disk>/queue/scheduler into @path. */
static inline void iosched_sched_attr(const char *disk, char *path,
				      size_t len)
{
	iosched_queue_attr(disk, "scheduler", path, len);
}

/*
 * Parse "none [mq-deadline] kyber" of @disk into @names and the active
 * one (the bracketed name) into @active. Returns the number of names, or
 * -errno.
 */
static inline int iosched_list(const char *disk,
			       char names[][IOSCHED_NAME_LEN], char *active)
{
	char path[PATH_MAX], buf[4096], *tok, *save = NULL;
	int nr = 0, ret;

	iosched_sched_attr(disk, path, sizeof(path));
	ret = iosched_read_attr(path, buf, sizeof(buf));
	if (ret)
		return ret;
	active[0] = '\0';
	for (tok = strtok_r(buf, "\n ", &save); tok && nr < IOSCHED_MAX;
	     tok = strtok_r(NULL, "\n ", &save)) {
		size_t len = strlen(tok);

		if (tok[0] == '[' && tok[len - 1] == ']') {
			tok[len - 1] = '\0';
			tok++;
			snprintf(active, IOSCHED_NAME_LEN, "%s", tok);
		}
		snprintf(names[nr++], IOSCHED_NAME_LEN, "%s", tok);
	}
	return nr;
}

/*
 * Whether @disk lists scheduler @name, and the active one in @active.
 * Returns 1 (listed), 0 (not listed) or -errno.
 */
static inline int iosched_available(const char *disk, const char *name,
				    char *active)
{
	char names[IOSCHED_MAX][IOSCHED_NAME_LEN];
	int nr, i;

	nr = iosched_list(disk, names, active);
	if (nr < 0)
		return nr;
	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/*
 * The disk under test (IOSCHED_DISK) of a fixture for scheduler @name:
 * the disk's name into @disk, its active scheduler into @initial.
 * Returns 1 if @name can run on it, 0 if the test is to be skipped, -1 on
 * error; @why says which.
 */
static inline int iosched_test_disk(char *disk, size_t len, char *initial,
				    const char *name, const char **why)
{
	const char *env = getenv("IOSCHED_DISK");
	static char missing[IOSCHED_NAME_LEN + 32];
	int ret;

	*why = NULL;
	if (!env || !*env) {
		*why = "IOSCHED_DISK names no disk";
		return 0;
	}
	snprintf(disk, len, "%s", env);
	ret = iosched_available(disk, name, initial);
	if (ret < 0) {
		*why = "cannot read the schedulers of the disk";
	} else if (!ret) {
		snprintf(missing, sizeof(missing), "the kernel has no %s", name);
		*why = missing;
	}
	return ret < 0 ? -1 : ret;
}

/* Make @name the scheduler of @disk; returns 0 or -errno. */
static inline int iosched_select(const char *disk, const char *name)
{
	char path[PATH_MAX];

	iosched_sched_attr(disk, path, sizeof(path));
	return iosched_write_str(path, name);
}

/* /sys/block/<disk>/queue/iosched/<name> into @path. */
static inline void iosched_tunable_path(const char *disk, const char *name,
					char *path, size_t len)
{
	snprintf(path, len, "/sys/block/%s/queue/iosched/%s", disk, name);
}

/* Whether null_blk makes disks through configfs (mounted here if need be). */
static inline bool iosched_nullb_available(void)
{
	if (access(IOSCHED_NULLB_DIR, F_OK))
		mount("configfs", IOSCHED_CONFIGFS, "configfs", 0, NULL);
	return !access(IOSCHED_NULLB_DIR, F_OK);
}

/* Write @val to attribute @attr of null_blk disk @name; 0 or -1, errno set. */
static inline int iosched_nullb_write(const char *name, const char *attr,
				      const char *val)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), IOSCHED_NULLB_DIR "/%s/%s", name, attr);
	ret = iosched_write_str(path, val);
	if (ret)
		errno = -ret;
	return ret ? -1 : 0;
}

/*
 * Make null_blk disk @name with its @nr attributes @settings (name, value)
 * written, then power it on.  *@made is set once there is a disk for
 * iosched_nullb_remove() to remove, even if a later step fails.  Returns
 * 0, or -1 with errno set.
 */
static inline int iosched_nullb_make(const char *name,
				     const char *const settings[][2],
				     size_t nr, bool *made)
{
	char path[PATH_MAX];
	size_t i;

	snprintf(path, sizeof(path), IOSCHED_NULLB_DIR "/%s", name);
	if (mkdir(path, 0755))
		return -1;
	*made = true;
	for (i = 0; i < nr; i++)
		if (iosched_nullb_write(name, settings[i][0], settings[i][1]))
			return -1;
	if (iosched_nullb_write(name, "power", "1"))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s", name);
	return access(path, F_OK);
}

/* Power off and remove null_blk disk @name. */
static inline void iosched_nullb_remove(const char *name)
{
	char path[PATH_MAX];

	iosched_nullb_write(name, "power", "0");
	snprintf(path, sizeof(path), IOSCHED_NULLB_DIR "/%s", name);
	rmdir(path);
}

#endif /* IOSCHED_IOSCHED_H */
