// SPDX-License-Identifier: GPL-2.0
/*
 * Readahead on the disk under test, through its block device's page cache,
 * with each algorithm of the debug knob readahead/algorithm (debugfs): the
 * series' adaptive one and the stock one it replaces.  A sequential
 * reader gets pages read ahead of it, a random reader gets exactly what it
 * read; the knob switches algorithms and refuses anything else; sequential
 * readers that read ahead more than their memory cgroup holds make the
 * adaptive algorithm count thrashing and shrink their windows, while a
 * reader of pages dropped without reclaim is not thrashing; a read_ahead_kb
 * that was written is the largest window and survives limit updates, while
 * on a fresh null_blk disk whose read_ahead_kb nobody wrote windows grow
 * past it, within a share of the reader's memory cgroup, and the smaller
 * share on a device-mapper device over it, which cannot tell whether it is
 * congested; the queue
 * reports read congestion under a saturating load and clears it after,
 * and on null_blk disks whose requests complete slowly it reports only
 * its own congestion: not that of a disk it shares tags with, not that of
 * its other hardware queue to a reader on this one, not that of writers
 * waiting for tags; no window the readahead_window tracepoint shows is
 * larger than the device allows or has more pages ahead of the reader
 * than it has.
 *
 * Environment: IOSCHED_DISK, the disk under test (e.g. "sda").
 */
#define _GNU_SOURCE
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "iosched.h"

#define READ_SIZE	(16 * 1024)
#define REGION		(1024 * 1024)	/* one random read per MiB */
#define NR_REGIONS	8

static const char * const algorithms[] = { "stock", "adaptive" };

#define SHALLOW_NR_REQUESTS	"16"

/* Write @val to @file of cgroup directory @dir. */
static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return iosched_write_str(path, val);
}

/*
 * A memory cgroup the test runs in, on a cgroup2 mount of its own: the
 * caller runs in @group, or in a child of it (@reader).
 */
struct ra_cgroup {
	char root[32];
	char group[PATH_MAX];
	char reader[PATH_MAX + sizeof("/reader")];
	bool entered;
};

/*
 * Mount cgroup2, enable the memory controller and move the caller into a
 * new group @name, or with @nested into a child of it.  Returns 0, or the
 * errno of a failed mount (the caller skips: the kernel has no cgroup2).
 * The fixture's teardown calls ra_cgroup_leave(), should the test fail
 * inside.
 */
static int ra_cgroup_enter(struct __test_metadata *_metadata,
			   struct ra_cgroup *cg, const char *name, bool nested)
{
	int error;

	snprintf(cg->root, sizeof(cg->root), "/tmp/ra-cgroup-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(cg->root));
	if (mount("none", cg->root, "cgroup2", 0, NULL)) {
		error = errno;
		rmdir(cg->root);
		return error;
	}
	cg->entered = true;
	snprintf(cg->group, sizeof(cg->group), "%s/%s", cg->root, name);
	snprintf(cg->reader, sizeof(cg->reader), "%s%s", cg->group,
		 nested ? "/reader" : "");
	ASSERT_EQ(0, cg_write(cg->root, "cgroup.subtree_control", "+memory"));
	ASSERT_EQ(0, mkdir(cg->group, 0755));
	if (nested) {
		ASSERT_EQ(0, cg_write(cg->group, "cgroup.subtree_control",
				      "+memory"));
		ASSERT_EQ(0, mkdir(cg->reader, 0755));
	}
	ASSERT_EQ(0, cg_write(cg->reader, "cgroup.procs", "0"));
	return 0;
}

/*
 * Back to the root group, and the groups and the mount gone; 0, or the
 * first -errno (a group that stays would fail the next test's mkdir).
 */
static int ra_cgroup_leave(struct ra_cgroup *cg)
{
	int error;

	if (!cg->entered)
		return 0;
	cg->entered = false;
	error = cg_write(cg->root, "cgroup.procs", "0");
	if (strcmp(cg->reader, cg->group) && rmdir(cg->reader) && !error)
		error = -errno;
	if (rmdir(cg->group) && !error)
		error = -errno;
	umount(cg->root);
	rmdir(cg->root);
	return error;
}

FIXTURE(ra) {
	char disk[IOSCHED_NAME_LEN];
	char initial[IOSCHED_NAME_LEN];
	/*
	 * Queue attributes to restore, if a test changed them.  The kernel
	 * remembers that read_ahead_kb was written: restoring its value does
	 * not let windows grow past it again until the disk is probed anew.
	 */
	char nr_requests[16];
	char read_ahead_kb[16];
	struct ra_cgroup cg;
	long page;
	off_t size;
	int fd;
};

FIXTURE_SETUP(ra)
{
	const char *disk = getenv("IOSCHED_DISK");
	char dev[PATH_MAX];
	unsigned long long bytes;

	self->fd = -1;
	if (!disk || !*disk)
		SKIP(return, "IOSCHED_DISK names no disk");
	snprintf(self->disk, sizeof(self->disk), "%s", disk);
	iosched_mount_debugfs();
	ASSERT_EQ(0, iosched_read_attr(IOSCHED_RA_KNOB, self->initial,
				       sizeof(self->initial)))
		TH_LOG("%s: the series' readahead knob is missing", IOSCHED_RA_KNOB);
	snprintf(dev, sizeof(dev), "/dev/%s", disk);
	self->fd = open(dev, O_RDONLY);
	ASSERT_LE(0, self->fd) TH_LOG("cannot open %s", dev);
	ASSERT_EQ(0, ioctl(self->fd, BLKGETSIZE64, &bytes));
	self->size = bytes;
	self->page = sysconf(_SC_PAGESIZE);
	ASSERT_LE(2 * NR_REGIONS * REGION, self->size)
		TH_LOG("%s is too small for the readahead tests", dev);
}

/* A file takes read_ahead_kb when it is opened: open disk @dev again. */
static void reopen_disk(struct __test_metadata *_metadata, int *fd,
			const char *dev)
{
	close(*fd);
	*fd = open(dev, O_RDONLY);
	ASSERT_LE(0, *fd) TH_LOG("cannot open %s", dev);
}

/* Write @value to queue attribute @attr, the first time saving its value. */
static int set_queue_attr(const char *disk, const char *attr,
			  const char *value, char *saved, size_t len)
{
	char path[PATH_MAX];

	iosched_queue_attr(disk, attr, path, sizeof(path));
	if (!saved[0] && iosched_read_attr(path, saved, len))
		return -1;
	return iosched_write_str(path, value);
}

static void restore_queue_attr(const char *disk, const char *attr,
			       const char *saved)
{
	char path[PATH_MAX];

	if (!saved[0])
		return;
	iosched_queue_attr(disk, attr, path, sizeof(path));
	iosched_write_str(path, saved);
}

FIXTURE_TEARDOWN(ra)
{
	ra_cgroup_leave(&self->cg);
	if (self->fd >= 0)
		close(self->fd);
	if (self->initial[0])
		iosched_write_str(IOSCHED_RA_KNOB, self->initial);
	restore_queue_attr(self->disk, "nr_requests", self->nr_requests);
	restore_queue_attr(self->disk, "read_ahead_kb", self->read_ahead_kb);
}

/* Pages of [@off, @off + @len) of the device that are in the page cache. */
static int cached_pages(struct __test_metadata *_metadata, int fd, long page,
			off_t off, size_t len)
{
	unsigned char vec[REGION / 512];
	size_t i, nr = len / page;
	int cached = 0;
	void *map;

	ASSERT_GE(sizeof(vec), nr);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mincore(map, len, vec));
	munmap(map, len);
	for (i = 0; i < nr; i++)
		cached += vec[i] & 1;
	return cached;
}

/* Select readahead @algorithm, for every file. */
static void select_algorithm(struct __test_metadata *_metadata,
			     const char *algorithm)
{
	char now[IOSCHED_NAME_LEN];

	ASSERT_EQ(0, iosched_write_str(IOSCHED_RA_KNOB, algorithm));
	ASSERT_EQ(0, iosched_read_attr(IOSCHED_RA_KNOB, now, sizeof(now)));
	ASSERT_STREQ(algorithm, now);
}

/* Select @algorithm and start from an empty page cache for the device. */
static void start_clean(struct __test_metadata *_metadata, int fd,
			const char *algorithm)
{
	select_algorithm(_metadata, algorithm);
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
}

/* Sixteen sequential 16 KiB reads leave pages cached past the last one. */
TEST_F(ra, sequential_reader_gets_pages_ahead)
{
	char *buf = malloc(READ_SIZE);
	off_t start = self->size / 2 & ~(off_t)(REGION - 1);
	unsigned int a, i;

	ASSERT_NE(NULL, buf);
	for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
		off_t end = start + 16 * READ_SIZE;
		int ahead;

		start_clean(_metadata, self->fd, algorithms[a]);
		for (i = 0; i < 16; i++) {
			ASSERT_EQ(READ_SIZE, pread(self->fd, buf, READ_SIZE,
						   start + i * READ_SIZE));
		}
		ahead = cached_pages(_metadata, self->fd, self->page, end,
				     REGION);
		TH_LOG("%s: %d pages cached ahead of the reader",
		       algorithms[a], ahead);
		EXPECT_LT(0, ahead) TH_LOG("%s read nothing ahead",
					   algorithms[a]);
	}
	free(buf);
}

/* Reads far apart, in falling order, cache exactly the pages they read. */
TEST_F(ra, random_reader_gets_no_readahead)
{
	char *buf = malloc(READ_SIZE);
	off_t base = self->size / 4 & ~(off_t)(REGION - 1);
	int want = READ_SIZE / self->page;
	unsigned int a, r;

	ASSERT_NE(NULL, buf);
	for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
		start_clean(_metadata, self->fd, algorithms[a]);
		for (r = NR_REGIONS; r-- > 0;) {
			ASSERT_EQ(READ_SIZE, pread(self->fd, buf, READ_SIZE,
						   base + (off_t)r * REGION));
		}
		for (r = 0; r < NR_REGIONS; r++) {
			EXPECT_EQ(want, cached_pages(_metadata, self->fd,
						     self->page,
						     base + (off_t)r * REGION,
						     REGION))
				TH_LOG("%s: region %u", algorithms[a], r);
		}
	}
	free(buf);
}

/* The knob shows the algorithm it was set to and refuses other names. */
TEST_F(ra, algorithm_knob)
{
	static const char * const refused[] = {
		"\n", "Stock", "adaptive2", "stock adaptive", "1", " stock",
	};
	char before[IOSCHED_NAME_LEN], after[IOSCHED_NAME_LEN];
	unsigned int a, i;

	for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
		ASSERT_EQ(0, iosched_write_str(IOSCHED_RA_KNOB, algorithms[a]));
		ASSERT_EQ(0, iosched_read_attr(IOSCHED_RA_KNOB, before,
					       sizeof(before)));
		EXPECT_STREQ(algorithms[a], before);
		for (i = 0; i < ARRAY_SIZE(refused); i++) {
			EXPECT_EQ(-EINVAL,
				  iosched_write_str(IOSCHED_RA_KNOB, refused[i]))
				TH_LOG("\"%s\" was not refused", refused[i]);
			ASSERT_EQ(0, iosched_read_attr(IOSCHED_RA_KNOB, after,
						       sizeof(after)));
			EXPECT_STREQ(before, after);
		}
	}
}

/* A vmstat counter, or -1. */
static long vm_event_count(const char *name)
{
	char line[128];
	long value = -1;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ')
			value = atol(line + len + 1);
	fclose(f);
	return value;
}

#define THRASH_READERS	16
#define THRASH_MIB	4	/* read by each reader */
/*
 * The cgroup's memory.high, not memory.max: sixteen windows of up to 1 MiB
 * under read I/O can lock all of 12 MiB, which reclaim cannot take, and a
 * reader's own page allocation would then invoke the memcg OOM killer.
 * Above memory.high the readers are throttled and reclaimed instead.
 */
#define THRASH_LIMIT	"12M"
/*
 * read_ahead_kb for the test: windows of up to 1 MiB whatever the device's
 * largest request, which otherwise caps them, so that sixteen streams need
 * more than the cgroup has on every disk kind.
 */
#define THRASH_RA_KB	"1024"
/*
 * Re-reading what was evicted, or saturating a disk, makes a test slow on
 * a debug kernel in a busy TCG guest: far past the harness' default of
 * 30 s.
 */
#define SLOW_TEST_TIMEOUT_S	300

struct seq_reader {
	const char *dev;	/* opened by the reader, if @shared_fd is 0 */
	int shared_fd;		/* a descriptor the readers share */
	off_t start;
	int error;
};

/* THRASH_MIB MiB from @start, READ_SIZE at a time. */
static void *read_sequentially(void *arg)
{
	struct seq_reader *r = arg;
	char *buf = malloc(READ_SIZE);
	off_t off;
	int fd = r->shared_fd ?: open(r->dev, O_RDONLY);

	if (fd < 0 || !buf) {
		r->error = errno ?: ENOMEM;
	} else {
		for (off = 0; off < (off_t)THRASH_MIB << 20; off += READ_SIZE) {
			if (pread(fd, buf, READ_SIZE, r->start + off) != READ_SIZE) {
				r->error = errno ?: EIO;
				break;
			}
		}
	}
	if (fd >= 0 && !r->shared_fd)
		close(fd);
	free(buf);
	return NULL;
}

/*
 * @n readers, each THRASH_MIB MiB from @base + its number times that, on
 * @dev or on the descriptor @shared_fd (if not 0); returns when all are
 * done.
 */
static void run_seq_readers(struct __test_metadata *_metadata,
			    const char *dev, int shared_fd, off_t base, int n)
{
	struct seq_reader readers[THRASH_READERS];
	pthread_t threads[THRASH_READERS];
	int i;

	ASSERT_GE(THRASH_READERS, n);
	for (i = 0; i < n; i++) {
		readers[i] = (struct seq_reader){
			.dev = dev,
			.shared_fd = shared_fd,
			.start = base + (off_t)i * (THRASH_MIB << 20),
		};
		ASSERT_EQ(0, pthread_create(&threads[i], NULL,
					    read_sequentially, &readers[i]));
	}
	for (i = 0; i < n; i++) {
		pthread_join(threads[i], NULL);
		EXPECT_EQ(0, readers[i].error) TH_LOG("reader %d: %s", i,
						      strerror(readers[i].error));
	}
}

/*
 * Have reclaim evict the caller's group's page cache until no page of
 * [@off, @off + REGION) of @fd is cached.  Reclaim, unlike
 * POSIX_FADV_DONTNEED, leaves workingset shadow entries where it evicted.
 * memory.reclaim refuses (EAGAIN) when it freed less than it was asked
 * for, which it does once the group's page cache is gone: the pages left
 * are what counts.
 */
static void reclaim_region(struct __test_metadata *_metadata,
			   struct ra_cgroup *cg, int fd, long page, off_t off)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int tries, error, cached = cached_pages(_metadata, fd, page, off,
						 REGION);

	for (tries = 0; cached && tries < 8; tries++) {
		error = cg_write(cg->group, "memory.reclaim", "64M");
		ASSERT_TRUE(!error || error == -EAGAIN)
			TH_LOG("memory.reclaim: %s", strerror(-error));
		cached = cached_pages(_metadata, fd, page, off, REGION);
		if (cached)
			nanosleep(&pause, NULL);
	}
	ASSERT_EQ(0, cached) TH_LOG("reclaim left %d pages of the region cached",
				    cached);
}

/*
 * Sixteen sequential readers in a memory cgroup too small for their
 * readahead: pages are evicted before use, and the adaptive algorithm
 * counts it (ra_thrash) and cuts windows below the last one
 * (ra_window_shrink).
 */
TEST_F_TIMEOUT(ra, thrashing_readers_shrink_their_windows, SLOW_TEST_TIMEOUT_S)
{
	char dev[PATH_MAX];
	long thrash, shrink;
	int error;

	if (vm_event_count("ra_thrash") < 0)
		SKIP(return, "no ra_thrash in /proc/vmstat (VM_EVENT_COUNTERS)");
	ASSERT_LE((off_t)THRASH_READERS * (THRASH_MIB << 20), self->size);
	error = ra_cgroup_enter(_metadata, &self->cg, "ra-thrash", false);
	if (error)
		SKIP(return, "cannot mount cgroup2: %s", strerror(error));
	snprintf(dev, sizeof(dev), "/dev/%s", self->disk);
	ASSERT_EQ(0, cg_write(self->cg.group, "memory.high", THRASH_LIMIT));
	ASSERT_EQ(0, set_queue_attr(self->disk, "read_ahead_kb", THRASH_RA_KB,
				    self->read_ahead_kb,
				    sizeof(self->read_ahead_kb)));
	start_clean(_metadata, self->fd, "adaptive");

	thrash = vm_event_count("ra_thrash");
	shrink = vm_event_count("ra_window_shrink");
	run_seq_readers(_metadata, dev, 0, 0, THRASH_READERS);
	thrash = vm_event_count("ra_thrash") - thrash;
	shrink = vm_event_count("ra_window_shrink") - shrink;

	ASSERT_EQ(0, ra_cgroup_leave(&self->cg));
	TH_LOG("%d readers, memory.high %s: ra_thrash +%ld, ra_window_shrink +%ld",
	       THRASH_READERS, THRASH_LIMIT, thrash, shrink);
	EXPECT_LT(0, thrash) TH_LOG("no thrashing counted");
	EXPECT_LT(0, shrink) TH_LOG("thrashing did not shrink windows");
	EXPECT_GE(thrash, shrink) TH_LOG("windows shrunk without thrashing");
}

/* Two sequential reads from @base: the second starts a readahead window. */
static void start_stream(struct __test_metadata *_metadata, int fd,
			 char *buf, off_t base)
{
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(READ_SIZE, pread(fd, buf, READ_SIZE,
					   base + i * READ_SIZE));
	}
}

/*
 * Pages dropped with POSIX_FADV_DONTNEED were not evicted by reclaim: they
 * leave no workingset shadow entry (nor does truncation), and a sequential
 * reader that misses them is not thrashing.  (The reader that misses pages
 * reclaim took is: windows_stay_within_the_maximum checks it.)
 */
TEST_F(ra, dropped_pages_are_not_thrashing)
{
	off_t base = self->size / 8 & ~(off_t)(REGION - 1);
	char *buf;
	long thrash;
	int i;

	if (vm_event_count("ra_thrash") < 0)
		SKIP(return, "no ra_thrash in /proc/vmstat (VM_EVENT_COUNTERS)");
	buf = malloc(READ_SIZE);
	ASSERT_NE(NULL, buf);
	start_clean(_metadata, self->fd, "adaptive");
	thrash = vm_event_count("ra_thrash");
	start_stream(_metadata, self->fd, buf, base);
	ASSERT_EQ(0, posix_fadvise(self->fd, base, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, cached_pages(_metadata, self->fd, self->page, base,
				  REGION))
		TH_LOG("POSIX_FADV_DONTNEED left pages of the stream cached");
	for (i = 2; i < 16; i++) {
		ASSERT_EQ(READ_SIZE, pread(self->fd, buf, READ_SIZE,
					   base + i * READ_SIZE));
	}
	free(buf);
	thrash = vm_event_count("ra_thrash") - thrash;
	EXPECT_EQ(0, thrash)
		TH_LOG("a reader that missed dropped pages was counted as thrashing %ld times",
		       thrash);
}

#define TRACEFS		"/sys/kernel/tracing"
#define RA_EVENT	TRACEFS "/events/readahead/readahead_window/enable"
/* A read larger than any device's largest request in the test guests. */
#define BIG_READ	(64 << 20)
#define SHARED_READERS	4

/* Empty the trace buffer: opening "trace" truncated clears it. */
static int ra_trace_clear(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void ra_trace_stop(void)
{
	iosched_write_str(TRACEFS "/tracing_on", "0");
	iosched_write_str(RA_EVENT, "0");
}

#define NO_TRACE	"cannot trace readahead/readahead_window"

/*
 * Trace readahead windows from an empty buffer; -1: no tracefs, and
 * whatever was turned on is off again.
 */
static int ra_trace_start(void)
{
	if (access(TRACEFS "/events", F_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (iosched_write_str(TRACEFS "/tracing_on", "0") || ra_trace_clear() ||
	    iosched_write_str(RA_EVENT, "1") ||
	    iosched_write_str(TRACEFS "/tracing_on", "1")) {
		ra_trace_stop();
		return -1;
	}
	return 0;
}

/* What ra_trace_check() saw. */
struct ra_windows {
	int nr;			/* windows traced; -1: the trace is unreadable */
	int thrashed;		/* of them, cut by thrashing */
	int deferred;		/* of them, deferred on a congested queue */
	unsigned int largest;	/* pages in the largest */
	unsigned int smallest;	/* pages in the smallest; 0 if none */
};

/*
 * A page cache as the readahead_window trace names it: the device of the
 * inode's superblock (dev=MAJOR:MINOR) and the inode number.
 */
struct ra_traced {
	unsigned int major;
	int minor;		/* -1: any */
	unsigned long ino;
};

/*
 * Disk @fd's page cache: a block device inode's number is its kernel dev_t
 * (major << 20 | minor), on the bdev pseudo-filesystem, whose device is
 * anonymous (major 0; ext4 and XFS have their disk's, btrfs, NFS and FUSE
 * anonymous ones too).  Its minor is not known: ra_trace_check() takes the
 * first that matches, and then only that one (should that first be another
 * anonymous filesystem's inode of the same number, the test's windows are
 * then left out, and the checks on them fail rather than pass).
 */
static struct ra_traced disk_traced(struct __test_metadata *_metadata,
				    int fd)
{
	struct stat st;

	ASSERT_EQ(0, fstat(fd, &st));
	return (struct ra_traced){
		.major = 0, .minor = -1,
		.ino = (unsigned long)major(st.st_rdev) << 20 |
		       minor(st.st_rdev),
	};
}

/*
 * The page cache of the file that @st describes, on a filesystem whose
 * st_dev is its superblock's (not btrfs, which reports a subvolume's).
 */
static struct ra_traced file_traced(const struct stat *st)
{
	return (struct ra_traced){ .major = major(st->st_dev),
				   .minor = minor(st->st_dev),
				   .ino = st->st_ino };
}

/* Whether a trace line's dev=@dev_major:@dev_minor ino=@ino is @t's. */
static bool ra_traced_is(const struct ra_traced *t, unsigned int dev_major,
			 unsigned int dev_minor, unsigned long ino)
{
	return dev_major == t->major && ino == t->ino &&
	       (t->minor < 0 || dev_minor == (unsigned int)t->minor);
}

/*
 * Check every traced window that a read of pages [@first, @end) of the
 * page cache @traced triggered (the test's; other readers in the
 * guest are not): at most @max_pages and, for a stream of its own
 * (@own_stream), with no more pages ahead of the reader (async_size) than
 * it has.  What it saw goes in @seen.
 */
static void ra_trace_check(struct __test_metadata *_metadata,
			   struct ra_traced traced, unsigned long first,
			   unsigned long end, unsigned long max_pages,
			   bool own_stream, struct ra_windows *seen)
{
	unsigned int size, async_size, ra_pages, dev_major, dev_minor;
	unsigned long req, start, index, traced_ino;
	char line[512], decision[16];
	const char *w;
	FILE *f = fopen(TRACEFS "/trace", "r");

	memset(seen, 0, sizeof(*seen));
	if (!f) {
		seen->nr = -1;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		w = strstr(line, " readahead_window: dev=");
		if (!w || sscanf(w, " readahead_window: dev=%u:%u", &dev_major,
				 &dev_minor) != 2)
			continue;
		w = strstr(w, " ino=");
		if (!w || sscanf(w, " ino=%lu index=%lu req=%lu %15s start=%lu size=%u",
				 &traced_ino, &index, &req, decision, &start,
				 &size) != 6)
			continue;
		w = strstr(w, " async_size=");
		if (!w || sscanf(w, " async_size=%u ra_pages=%u", &async_size,
				 &ra_pages) != 2)
			continue;
		if (!ra_traced_is(&traced, dev_major, dev_minor, traced_ino) ||
		    index < first || index >= end)
			continue;
		traced.minor = dev_minor;
		seen->nr++;
		seen->thrashed += !strcmp(decision, "thrash");
		seen->deferred += !strcmp(decision, "deferred");
		if (size > seen->largest)
			seen->largest = size;
		if (!seen->smallest || size < seen->smallest)
			seen->smallest = size;
		EXPECT_GE(max_pages, size)
			TH_LOG("a window above %lu pages: %s", max_pages, line);
		if (own_stream)
			EXPECT_GE(size, async_size)
				TH_LOG("more pages ahead than in the window: %s",
				       line);
	}
	fclose(f);
}

/*
 * Queue attribute @attr of @disk as a number (read_ahead_kb and
 * max_sectors_kb in KiB, nr_requests); -1 if unreadable.
 */
static long queue_attr_number(const char *disk, const char *attr)
{
	char path[PATH_MAX], val[16];

	iosched_queue_attr(disk, attr, path, sizeof(path));
	if (iosched_read_attr(path, val, sizeof(val)))
		return -1;
	return atol(val);
}

/* queue_attr_number(), asserted readable. */
static long queue_attr_long(struct __test_metadata *_metadata,
			    const char *disk, const char *name)
{
	long value = queue_attr_number(disk, name);

	ASSERT_LE(0, value) TH_LOG("cannot read queue/%s of %s", name, disk);
	return value;
}

/*
 * The largest window the device allows where read_ahead_kb was written or
 * the queue is not rotational, in pages: read_ahead_kb, or the device's
 * largest request (a read larger than read_ahead_kb is read at once up to
 * it, and adaptive windows grow to it).
 */
static unsigned long device_max_pages(struct __test_metadata *_metadata,
				      const char *disk, long page)
{
	long ra_kb = queue_attr_number(disk, "read_ahead_kb");
	long io_kb = queue_attr_number(disk, "max_sectors_kb");

	EXPECT_LE(0, ra_kb);
	EXPECT_LE(0, io_kb);
	return (unsigned long)(io_kb > ra_kb ? io_kb : ra_kb) * 1024 / page;
}

/*
 * A sequential read that misses pages of its own readahead (evicted here by
 * the reclaim of its memory cgroup) has its next window cut to what the
 * reader consumed, and that is never more than the device's largest window
 * (max(read_ahead_kb, max_sectors_kb), read_ahead_kb written to itself
 * first so that no window grows past it on its own), however large the
 * read.  Readers that share a file descriptor update one readahead state
 * unlocked; the windows they leave are within the same bound.  (Their
 * stores of one window's size and another's async_size may interleave,
 * and the tracepoint reads the state as they left it, so async_size is
 * checked only for the single reader.)
 */
TEST_F_TIMEOUT(ra, windows_stay_within_the_maximum, SLOW_TEST_TIMEOUT_S)
{
	char ra_kb[24];
	unsigned long max_pages;
	off_t base = self->size / 8 & ~(off_t)(REGION - 1);
	char *buf = malloc(BIG_READ);
	struct ra_windows seen;
	int error;

	ASSERT_NE(NULL, buf);
	snprintf(ra_kb, sizeof(ra_kb), "%ld",
		 queue_attr_long(_metadata, self->disk, "read_ahead_kb"));
	ASSERT_EQ(0, set_queue_attr(self->disk, "read_ahead_kb", ra_kb,
				    self->read_ahead_kb,
				    sizeof(self->read_ahead_kb)));
	max_pages = device_max_pages(_metadata, self->disk, self->page);
	ASSERT_LT(max_pages, (unsigned long)(BIG_READ / self->page));
	ASSERT_LE(base + BIG_READ + (off_t)SHARED_READERS * (THRASH_MIB << 20),
		  self->size);
	if (ra_trace_start()) {
		free(buf);
		SKIP(return, NO_TRACE);
	}
	error = ra_cgroup_enter(_metadata, &self->cg, "ra-windows", false);
	if (error) {
		free(buf);
		ra_trace_stop();
		SKIP(return, "cannot mount cgroup2: %s", strerror(error));
	}
	start_clean(_metadata, self->fd, "adaptive");
	start_stream(_metadata, self->fd, buf, base);
	reclaim_region(_metadata, &self->cg, self->fd, self->page, base);
	ASSERT_EQ(BIG_READ, pread(self->fd, buf, BIG_READ,
				  base + 2 * READ_SIZE));
	free(buf);
	ASSERT_EQ(0, ra_cgroup_leave(&self->cg));
	ra_trace_stop();
	ra_trace_check(_metadata, disk_traced(_metadata, self->fd),
		       base / self->page,
		       (base + 2 * READ_SIZE + BIG_READ) / self->page,
		       max_pages, true, &seen);
	TH_LOG("one reader: %d windows traced, %d cut by thrashing, largest allowed %lu pages",
	       seen.nr, seen.thrashed, max_pages);
	EXPECT_LT(0, seen.thrashed)
		TH_LOG("the read after the reclaimed pages was not taken as thrashing");

	ASSERT_EQ(0, ra_trace_start());

	run_seq_readers(_metadata, NULL, self->fd, base + BIG_READ,
			SHARED_READERS);
	ra_trace_stop();
	ra_trace_check(_metadata, disk_traced(_metadata, self->fd),
		       (base + BIG_READ) / self->page,
		       (base + BIG_READ + (off_t)SHARED_READERS *
			(THRASH_MIB << 20)) / self->page,
		       max_pages, false, &seen);
	TH_LOG("%d readers on one descriptor: %d windows traced",
	       SHARED_READERS, seen.nr);
	EXPECT_LT(0, seen.nr) TH_LOG("no window traced for the shared readers");
}

#define SMALL_RA_KB	"16"	/* below the 128 KiB a limits update sets */

/*
 * A read_ahead_kb that was written stays as it was written when the queue
 * limits change (here: max_sectors_kb halved, then restored); stock 6.12
 * raised it to max(128 KiB, 2 * io_opt).
 */
TEST_F(ra, written_read_ahead_kb_survives_limit_updates)
{
	char path[PATH_MAX], max_sectors[24], half[24];
	long io_kb, before_kb, after_kb;

	ASSERT_EQ(0, set_queue_attr(self->disk, "read_ahead_kb", SMALL_RA_KB,
				    self->read_ahead_kb,
				    sizeof(self->read_ahead_kb)));
	io_kb = queue_attr_number(self->disk, "max_sectors_kb");
	ASSERT_LE(0, io_kb);
	snprintf(max_sectors, sizeof(max_sectors), "%ld", io_kb);
	snprintf(half, sizeof(half), "%ld", io_kb / 2);
	iosched_queue_attr(self->disk, "max_sectors_kb", path, sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, half));
	before_kb = queue_attr_number(self->disk, "read_ahead_kb");
	ASSERT_EQ(0, iosched_write_str(path, max_sectors));
	after_kb = queue_attr_number(self->disk, "read_ahead_kb");
	EXPECT_EQ(atol(SMALL_RA_KB), before_kb)
		TH_LOG("max_sectors_kb %s rewrote read_ahead_kb", half);
	EXPECT_EQ(atol(SMALL_RA_KB), after_kb)
		TH_LOG("max_sectors_kb %s rewrote read_ahead_kb", max_sectors);
}

/* Below the stock floor of 128 KiB, so that only the write can cap it. */
#define WRITTEN_RA_KB	"64"

/*
 * Once read_ahead_kb was written, no window of a sequential reader (reads
 * smaller than it) is larger than it: the adaptive algorithm grows past
 * read_ahead_kb on its own only where nobody wrote it.
 */
TEST_F_TIMEOUT(ra, written_read_ahead_kb_is_the_maximum, SLOW_TEST_TIMEOUT_S)
{
	off_t base = self->size / 16 & ~(off_t)(REGION - 1);
	unsigned long max_pages = atol(WRITTEN_RA_KB) * 1024 / self->page;
	struct ra_windows seen;
	char dev[PATH_MAX];
	long io_kb;

	ASSERT_EQ(0, set_queue_attr(self->disk, "read_ahead_kb", WRITTEN_RA_KB,
				    self->read_ahead_kb,
				    sizeof(self->read_ahead_kb)));
	ASSERT_LE(base + (off_t)(THRASH_MIB << 20), self->size);
	io_kb = queue_attr_number(self->disk, "max_sectors_kb");
	ASSERT_LE(0, io_kb);
	if (io_kb <= atol(WRITTEN_RA_KB))
		SKIP(return, "max_sectors_kb %ld: windows cannot grow past %s KiB anyway",
		     io_kb, WRITTEN_RA_KB);
	snprintf(dev, sizeof(dev), "/dev/%s", self->disk);
	reopen_disk(_metadata, &self->fd, dev);
	if (ra_trace_start())
		SKIP(return, NO_TRACE);
	start_clean(_metadata, self->fd, "adaptive");
	run_seq_readers(_metadata, NULL, self->fd, base, 1);
	ra_trace_stop();
	ra_trace_check(_metadata, disk_traced(_metadata, self->fd),
		       base / self->page,
		       (base + (THRASH_MIB << 20)) / self->page, max_pages,
		       true, &seen);
	TH_LOG("read_ahead_kb %s: %d windows traced, largest allowed %lu pages",
	       WRITTEN_RA_KB, seen.nr, max_pages);
	EXPECT_LT(1, seen.nr) TH_LOG("the reader's windows were not traced");
}

/*
 * A disk whose read_ahead_kb nobody wrote: a null_blk disk made for the
 * test, taking requests of up to FRESH_MAX_SECTORS, four times its
 * default read_ahead_kb of 128 KiB.
 */
#define FRESH_DISK		"rafresh"
#define FRESH_MAX_SECTORS	"1024"	/* 512 KiB, in sectors of 512 bytes */
/*
 * A memory cgroup limit, and the anonymous memory the reader's group holds
 * under it: the share of the rest, 1/64 of it (192 KiB), lies between the
 * disk's read_ahead_kb and its largest request.  The group first reads
 * more than the limit into its page cache, which reclaim can take back.
 */
#define FRESH_CG_LIMIT_MIB	16
#define FRESH_CG_LIMIT		"16M"
#define FRESH_ANON_MIB		4
#define FRESH_FILL_MIB		24
#define FRESH_FILL_OFF		(32 << 20)
#define RA_MEMORY_SHARE		64
/* The share of a window that cannot tell whether its disk is idle. */
#define RA_SMALL_SHARE		256

/*
 * The fresh disk, once made; in pages: its read_ahead_kb, largest request
 * and largest window.
 */
struct fresh_disk {
	bool made;
	int fd;
	long page;
	struct ra_traced traced;
	unsigned long ra_pages;
	unsigned long io_pages;
	unsigned long max_pages;
};

/*
 * Why a test cannot make null_blk disk @name, or NULL if it can: null_blk
 * is in configfs, and no disk of that name is left from another run.
 */
static const char *nullb_unavailable(const char *name)
{
	static char why[128];
	char path[PATH_MAX];

	if (!iosched_nullb_available())
		return "no null_blk in configfs (CONFIG_BLK_DEV_NULL_BLK)";
	snprintf(path, sizeof(path), IOSCHED_NULLB_DIR "/%s", name);
	if (access(path, F_OK))
		return NULL;
	snprintf(why, sizeof(why),
		 "%s is in use: another run, or one that crashed", name);
	return why;
}

/* A device-mapper linear device over the whole fresh disk, with dmsetup. */
#define FRESH_DM		"ra-linear"
#define FRESH_DISK_MIB		"64"
#define FRESH_DM_SECTORS	"131072"	/* FRESH_DISK_MIB MiB, in sectors */

FIXTURE(fresh) {
	char initial[IOSCHED_NAME_LEN];
	struct fresh_disk disk;
	struct fresh_disk dm;	/* FRESH_DM over it, if a test made one */
	struct ra_cgroup cg;
};

/*
 * The disk is made by the test, not here: a failed ASSERT in a fixture's
 * setup skips its teardown, which removes the disk.
 */
FIXTURE_SETUP(fresh)
{
	const char *why = nullb_unavailable(FRESH_DISK);

	self->disk.fd = -1;
	self->dm.fd = -1;
	if (why)
		SKIP(return, "%s", why);
	iosched_mount_debugfs();
	ASSERT_EQ(0, iosched_read_attr(IOSCHED_RA_KNOB, self->initial,
				       sizeof(self->initial)));
	self->disk.page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(fresh)
{
	/* A failed ASSERT may have left the trace on. */
	ra_trace_stop();
	ra_cgroup_leave(&self->cg);
	if (self->dm.fd >= 0)
		close(self->dm.fd);
	if (self->dm.made && system("dmsetup remove " FRESH_DM " >&2"))
		fprintf(stderr, "# cannot remove %s\n", FRESH_DM);
	if (self->disk.fd >= 0)
		close(self->disk.fd);
	if (self->disk.made)
		iosched_nullb_remove(FRESH_DISK);
	if (self->initial[0])
		iosched_write_str(IOSCHED_RA_KNOB, self->initial);
}

/*
 * @disk's read_ahead_kb and largest request, in pages of @page bytes: the
 * disks the tests make take larger requests than read_ahead_kb.
 */
static void made_disk_sizes(struct __test_metadata *_metadata,
			    const char *disk, long page,
			    unsigned long *ra_pages, unsigned long *io_pages)
{
	long ra_kb = queue_attr_number(disk, "read_ahead_kb");
	long io_kb = queue_attr_number(disk, "max_sectors_kb");

	ASSERT_LE(0, ra_kb);
	ASSERT_LE(0, io_kb);
	*ra_pages = ra_kb * 1024 / page;
	*io_pages = io_kb * 1024 / page;
	ASSERT_LT(*ra_pages, *io_pages);
}

/* Make the fresh disk, and open it. */
static void make_fresh_disk(struct __test_metadata *_metadata,
			    struct fresh_disk *d)
{
	static const char *const settings[][2] = {
		{ "size", FRESH_DISK_MIB }, { "blocksize", "4096" },
		{ "max_sectors", FRESH_MAX_SECTORS },
	};

	ASSERT_EQ(0, iosched_nullb_make(FRESH_DISK, settings,
					ARRAY_SIZE(settings), &d->made))
		TH_LOG("cannot make null_blk disk %s: %s", FRESH_DISK,
		       strerror(errno));
	d->fd = open("/dev/" FRESH_DISK, O_RDONLY);
	ASSERT_LE(0, d->fd);
	d->traced = disk_traced(_metadata, d->fd);
	made_disk_sizes(_metadata, FRESH_DISK, d->page, &d->ra_pages,
			&d->io_pages);
	ASSERT_EQ((unsigned long)(atol(FRESH_MAX_SECTORS) * 512 / d->page),
		  d->io_pages);
	d->max_pages = d->io_pages;
}

/* Read [@off, @off + @len) of @fd in order, @chunk bytes at a time. */
static void read_in_chunks(struct __test_metadata *_metadata, int fd,
			   off_t off, size_t len, size_t chunk)
{
	char *buf = malloc(chunk);
	size_t done;

	ASSERT_NE(NULL, buf);
	for (done = 0; done < len; done += chunk)
		ASSERT_EQ((ssize_t)chunk, pread(fd, buf, chunk, off + done));
	free(buf);
}

/* Read [@off, @off + @mib MiB) of @fd, a MiB at a time. */
static void read_region(struct __test_metadata *_metadata, int fd, off_t off,
			int mib)
{
	read_in_chunks(_metadata, fd, off, (size_t)mib << 20, 1 << 20);
}

/*
 * One sequential reader of fresh disk @d from its start, its windows
 * traced into @seen.  The page cache is emptied first, then @fill_mib MiB
 * past the reader's pages are read in, and memory cgroup @cg's statistics
 * are flushed (if there is one): they lag up to 2 s behind, and readahead
 * does not flush them.  Returns -1 if the windows cannot be traced.
 */
static int read_fresh_disk(struct __test_metadata *_metadata,
			   struct fresh_disk *d, int fill_mib,
			   const struct ra_cgroup *cg, struct ra_windows *seen)
{
	char path[sizeof(cg->reader) + sizeof("/memory.stat")], stat[64];

	start_clean(_metadata, d->fd, "adaptive");
	read_region(_metadata, d->fd, FRESH_FILL_OFF, fill_mib);
	if (cg) {
		/* Reading memory.stat flushes the group's statistics. */
		snprintf(path, sizeof(path), "%s/memory.stat", cg->reader);
		ASSERT_EQ(0, iosched_read_attr(path, stat, sizeof(stat)));
	}
	if (ra_trace_start())
		return -1;
	run_seq_readers(_metadata, NULL, d->fd, 0, 1);
	ra_trace_stop();
	ra_trace_check(_metadata, d->traced, 0, (THRASH_MIB << 20) / d->page,
		       d->max_pages, true, seen);
	TH_LOG("%d windows traced, the largest %u pages", seen->nr,
	       seen->largest);
	TH_LOG("read_ahead_kb %lu pages, largest request %lu pages",
	       d->ra_pages, d->io_pages);
	EXPECT_LT(1, seen->nr) TH_LOG("the reader's windows were not traced");
	return 0;
}

/*
 * Where nobody wrote read_ahead_kb, a sequential reader's windows grow
 * past it, up to the largest request where the queue is not rotational.
 */
TEST_F_TIMEOUT(fresh, windows_grow_past_an_unwritten_read_ahead_kb,
	       SLOW_TEST_TIMEOUT_S)
{
	struct ra_windows seen;

	make_fresh_disk(_metadata, &self->disk);
	if (read_fresh_disk(_metadata, &self->disk, 0, NULL, &seen))
		SKIP(return, NO_TRACE);
	EXPECT_LT(self->disk.ra_pages, seen.largest)
		TH_LOG("no window grew past read_ahead_kb");
}

/* RA_ROTATIONAL_REQUESTS and RA_ROTATIONAL_MAX_PAGES of readahead_window.h */
#define RA_ROTATIONAL_REQUESTS	4
#define RA_ROTATIONAL_MAX_KB	4096

/* MemAvailable of /proc/meminfo, in pages of @page bytes; 0 if unreadable. */
static unsigned long mem_available_pages(long page)
{
	char line[128];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024 / page;
}

/*
 * On a rotational queue (null_blk's is not, until told), windows grow past
 * the largest request, to RA_ROTATIONAL_REQUESTS of them up to
 * RA_ROTATIONAL_MAX_KB: each window of a stream costs a seek there.  (The
 * fresh disk's 512 KiB requests are below the block layer's 1280 KiB cap,
 * which the kernel applies first.)  Where the memory share (1/64 of what
 * is available) allows, the largest window is exactly that.
 */
TEST_F_TIMEOUT(fresh, rotational_queue_windows_grow_past_one_request,
	       SLOW_TEST_TIMEOUT_S)
{
	unsigned long cap = RA_ROTATIONAL_MAX_KB * 1024 / self->disk.page;
	char path[PATH_MAX];
	struct ra_windows seen;

	make_fresh_disk(_metadata, &self->disk);
	iosched_queue_attr(FRESH_DISK, "rotational", path, sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, "1"));
	ASSERT_EQ(1, queue_attr_number(FRESH_DISK, "rotational"));
	self->disk.max_pages = RA_ROTATIONAL_REQUESTS * self->disk.io_pages;
	if (self->disk.max_pages > cap)
		self->disk.max_pages = cap;
	if (read_fresh_disk(_metadata, &self->disk, 0, NULL, &seen))
		SKIP(return, NO_TRACE);
	EXPECT_LT(self->disk.io_pages, seen.largest)
		TH_LOG("no window grew past one request on a rotational queue");
	if (mem_available_pages(self->disk.page) / RA_MEMORY_SHARE >=
	    self->disk.max_pages)
		EXPECT_EQ(self->disk.max_pages, seen.largest);
}

/* Where a memory cgroup limit is set, relative to the reader's group. */
static const struct {
	const char *file;
	bool on_parent;
} cg_limits[] = {
	{ "memory.max", false },
	{ "memory.high", false },
	{ "memory.max", true },
};

/*
 * A window grows past read_ahead_kb only within a share (1/64) of the
 * memory that the reader's memory cgroup has room for, whether memory.max
 * or memory.high limits it or a group above it.  The room is the limit
 * less the group's anonymous memory: its page cache, even when it fills
 * the group, is room that reclaim can take back.
 */
#define NO_CGROUP	"cannot mount cgroup2"

/*
 * Read @d as read_fresh_disk() does, from a memory cgroup limited to
 * FRESH_CG_LIMIT by cg_limits[@limit], holding FRESH_ANON_MIB of anonymous
 * memory, after FRESH_FILL_MIB MiB of @d were read into its page cache.
 * Returns why the test must be skipped, or NULL.
 */
static const char *read_in_limited_group(struct __test_metadata *_metadata,
					 struct ra_cgroup *cg,
					 struct fresh_disk *d, unsigned int limit,
					 struct ra_windows *seen)
{
	size_t anon_len = FRESH_ANON_MIB << 20;
	char *anon;
	int error;

	error = ra_cgroup_enter(_metadata, cg, "ra-fresh",
				cg_limits[limit].on_parent);
	if (error) {
		TH_LOG(NO_CGROUP ": %s", strerror(error));
		return NO_CGROUP;
	}
	EXPECT_EQ(0, cg_write(cg->group, cg_limits[limit].file, FRESH_CG_LIMIT));
	/*
	 * Charged to the reader's group as it is written: a mapping of its
	 * own, where malloc() could reuse pages charged to the group of the
	 * case before.
	 */
	anon = mmap(NULL, anon_len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT_NE(MAP_FAILED, anon);
	if (anon != MAP_FAILED)
		memset(anon, 1, anon_len);
	error = read_fresh_disk(_metadata, d, FRESH_FILL_MIB, cg, seen);
	if (anon != MAP_FAILED)
		munmap(anon, anon_len);
	EXPECT_EQ(0, ra_cgroup_leave(cg));
	if (error)
		return NO_TRACE;
	TH_LOG("%s %s on the %s, %d MiB anonymous, %d MiB read before",
	       cg_limits[limit].file, FRESH_CG_LIMIT,
	       cg_limits[limit].on_parent ? "parent group" : "reader's group",
	       FRESH_ANON_MIB, FRESH_FILL_MIB);
	return NULL;
}

/* The share of the fresh disk's reader's group that a window may take. */
static unsigned long fresh_share(const struct fresh_disk *d, int fraction)
{
	return ((FRESH_CG_LIMIT_MIB - FRESH_ANON_MIB) << 20) / fraction /
	       d->page;
}

TEST_F_TIMEOUT(fresh, memory_cgroup_limits_windows, SLOW_TEST_TIMEOUT_S)
{
	unsigned long share = fresh_share(&self->disk, RA_MEMORY_SHARE);
	struct ra_windows seen;
	const char *why;
	unsigned int i;

	make_fresh_disk(_metadata, &self->disk);
	ASSERT_LT(self->disk.ra_pages, share);
	ASSERT_GT(self->disk.io_pages, share);
	for (i = 0; i < ARRAY_SIZE(cg_limits); i++) {
		why = read_in_limited_group(_metadata, &self->cg, &self->disk,
					    i, &seen);
		if (why)
			SKIP(return, "%s", why);
		EXPECT_LT(self->disk.ra_pages, seen.largest)
			TH_LOG("no window grew past read_ahead_kb");
		EXPECT_GE(share, seen.largest)
			TH_LOG("a window larger than 1/%d of the group's room",
			       RA_MEMORY_SHARE);
	}
}

/*
 * Why device-mapper device FRESH_DM cannot be made over the fresh disk, or
 * NULL if it can.
 */
static const char *dm_unavailable(void)
{
	if (access("/dev/mapper/control", F_OK))
		return "no device mapper (CONFIG_BLK_DEV_DM)";
	if (system("command -v dmsetup >/dev/null"))
		return "no dmsetup";
	/* Without udev a mapping may have no /dev/mapper node: ask dm. */
	if (!system("dmsetup info " FRESH_DM " >/dev/null 2>&1"))
		return FRESH_DM " is in use: another run, or one that crashed";
	return NULL;
}

/* The kernel name (dm-N) of FRESH_DM in @name, or "" if dmsetup fails. */
static void fresh_dm_name(char *name, size_t len)
{
	FILE *info = popen("dmsetup info -c --noheadings -o blkdevname "
			   FRESH_DM, "r");

	name[0] = '\0';
	if (!info)
		return;
	if (!fgets(name, len, info))
		name[0] = '\0';
	pclose(info);
	name[strcspn(name, "\n")] = '\0';
}

/*
 * Make FRESH_DM, a linear mapping of the whole fresh disk, and open it as
 * @dm: by its kernel name, which sysfs and the trace know it by (without
 * udev, nothing may make /dev/mapper/FRESH_DM).
 */
static void make_fresh_dm(struct __test_metadata *_metadata,
			  struct fresh_disk *dm)
{
	char name[32], path[sizeof("/dev/") + sizeof(name)];

	dm->made = !system("dmsetup create " FRESH_DM " --table '0 "
			   FRESH_DM_SECTORS " linear /dev/"
			   FRESH_DISK " 0' >&2");
	ASSERT_TRUE(dm->made) TH_LOG("dmsetup create %s failed", FRESH_DM);
	fresh_dm_name(name, sizeof(name));
	ASSERT_EQ(0, strncmp(name, "dm-", 3))
		TH_LOG("%s has no kernel name: '%s'", FRESH_DM, name);
	snprintf(path, sizeof(path), "/dev/%s", name);
	dm->fd = open(path, O_RDONLY);
	ASSERT_LE(0, dm->fd) TH_LOG("cannot open %s: %s", path, strerror(errno));
	dm->traced = disk_traced(_metadata, dm->fd);
	made_disk_sizes(_metadata, name, dm->page, &dm->ra_pages,
			&dm->io_pages);
	dm->max_pages = dm->io_pages;
}

/*
 * A device-mapper device is bio-based: it has no requests of its own to
 * count, so readahead cannot tell whether it is congested, and a stream on
 * it keeps the smaller share of memory (1/256 of the group's room, less
 * than read_ahead_kb here), never the larger one (1/64) of a disk known to
 * be idle.  The disk under it, read the same way, shows the larger share.
 */
TEST_F_TIMEOUT(fresh, stacked_device_keeps_the_smaller_share,
	       SLOW_TEST_TIMEOUT_S)
{
	unsigned long small_share = fresh_share(&self->disk, RA_SMALL_SHARE);
	const char *why = dm_unavailable();
	struct fresh_disk *d[] = { &self->disk, &self->dm };
	struct ra_windows seen[ARRAY_SIZE(d)];
	unsigned int i;

	if (why)
		SKIP(return, "%s", why);
	make_fresh_disk(_metadata, &self->disk);
	self->dm.page = self->disk.page;
	make_fresh_dm(_metadata, &self->dm);
	ASSERT_EQ(self->disk.ra_pages, self->dm.ra_pages);
	ASSERT_GT(self->dm.ra_pages, small_share);
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		why = read_in_limited_group(_metadata, &self->cg, d[i], 0,
					    &seen[i]);
		if (why)
			SKIP(return, "%s", why);
	}
	EXPECT_LT(self->disk.ra_pages, seen[0].largest)
		TH_LOG("on %s itself, no window grew past read_ahead_kb",
		       FRESH_DISK);
	EXPECT_GE(self->dm.ra_pages, seen[1].largest)
		TH_LOG("on %s, a window grew past read_ahead_kb: it had the larger share",
		       FRESH_DM);
}

/* One random read through mmap. */
#define MMAP_READ	(64 * 1024)
/*
 * What touch_pages() reads, so that the reads stay: were it static and
 * never read, the compiler could drop them.
 */
char mmap_sink;

/* Read a byte of each page of [@off, @off + @len) of @map. */
static void touch_pages(const char *map, size_t off, size_t len, long page)
{
	size_t i;

	for (i = 0; i < len; i += page)
		mmap_sink ^= map[off + i];
}

/*
 * Random reads through mmap: the page fault reads around the page
 * (read_ahead_kb, centred on it) and puts the readahead mark a quarter of
 * a window before its end; a 64 KiB read that reaches the mark starts an
 * async window.  That read-around is a guess at locality, not a stream:
 * the adaptive algorithm reads no more for it than the stock one, on a
 * disk where it grows a stream's windows past read_ahead_kb.
 */
TEST_F_TIMEOUT(fresh, random_mmap_reads_read_no_more_than_stock,
	       SLOW_TEST_TIMEOUT_S)
{
	long touched = NR_REGIONS * MMAP_READ / self->disk.page;
	long cached[ARRAY_SIZE(algorithms)] = { 0 };
	size_t len = NR_REGIONS * REGION;
	unsigned int a, r;
	char *map;

	make_fresh_disk(_metadata, &self->disk);
	for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
		start_clean(_metadata, self->disk.fd, algorithms[a]);
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, self->disk.fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		for (r = 0; r < NR_REGIONS; r++)
			touch_pages(map, r * REGION + REGION / 2, MMAP_READ,
				    self->disk.page);
		munmap(map, len);
		for (r = 0; r < NR_REGIONS; r++)
			cached[a] += cached_pages(_metadata, self->disk.fd,
						  self->disk.page,
						  (off_t)r * REGION, REGION);
		TH_LOG("%s: %ld pages cached for %d random reads of %d KiB",
		       algorithms[a], cached[a], NR_REGIONS, MMAP_READ >> 10);
	}
	EXPECT_LT(touched, cached[0])
		TH_LOG("the stock algorithm read nothing around the faults");
	EXPECT_GE(cached[0], cached[1])
		TH_LOG("the adaptive algorithm read more around the faults");
}

/*
 * A reader going through a mapping page by page (no madvise) is a stream
 * once it reaches the mark of a window that grew on a mark: from there its
 * windows grow past read_ahead_kb, as a read() stream's do.
 */
TEST_F_TIMEOUT(fresh, sequential_mmap_reader_grows_past_read_ahead_kb,
	       SLOW_TEST_TIMEOUT_S)
{
	size_t len = THRASH_MIB << 20;
	struct ra_windows seen;
	char *map;

	make_fresh_disk(_metadata, &self->disk);
	start_clean(_metadata, self->disk.fd, "adaptive");
	if (ra_trace_start())
		SKIP(return, NO_TRACE);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, self->disk.fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	touch_pages(map, 0, len, self->disk.page);
	munmap(map, len);
	ra_trace_stop();
	ra_trace_check(_metadata, self->disk.traced, 0, len / self->disk.page,
		       self->disk.max_pages, true, &seen);
	TH_LOG("%d windows traced, the largest %u pages (read_ahead_kb %lu)",
	       seen.nr, seen.largest, self->disk.ra_pages);
	EXPECT_LT(self->disk.ra_pages, seen.largest)
		TH_LOG("a sequential mmap reader's windows did not grow");
}

/* A read of a file's header, its first few KiB. */
#define SHORT_READ	(8 * 1024)

/*
 * A short read at the start of a file need not be a stream's: its first
 * window is no larger under the adaptive algorithm than under the stock
 * one, on a disk where a stream's later windows grow past read_ahead_kb.
 * Each algorithm reads through a descriptor of its own, whose readahead
 * state starts afresh.
 */
TEST_F_TIMEOUT(fresh, short_read_at_the_start_reads_as_stock,
	       SLOW_TEST_TIMEOUT_S)
{
	long cached[ARRAY_SIZE(algorithms)];
	char buf[SHORT_READ];
	unsigned int a;
	int fd;

	make_fresh_disk(_metadata, &self->disk);
	for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
		start_clean(_metadata, self->disk.fd, algorithms[a]);
		fd = open("/dev/" FRESH_DISK, O_RDONLY);
		ASSERT_LE(0, fd);
		ASSERT_EQ(SHORT_READ, pread(fd, buf, SHORT_READ, 0));
		close(fd);
		cached[a] = cached_pages(_metadata, self->disk.fd,
					 self->disk.page, 0, REGION);
		TH_LOG("%s: %ld pages cached after a read of %d KiB at offset 0",
		       algorithms[a], cached[a], SHORT_READ >> 10);
	}
	EXPECT_LT(SHORT_READ / self->disk.page, cached[0])
		TH_LOG("the stock algorithm read nothing ahead");
	EXPECT_EQ(cached[0], cached[1])
		TH_LOG("the adaptive algorithm's first window is not stock's");
}

/*
 * Where read_ahead_kb was written, reads as large as the disk's largest
 * request, and a quarter and a half as large again, keep the windows that
 * such a read sets, as with the stock algorithm: the window after a mark,
 * which the reader reaches with less of its read left, is not cut to the
 * stock maximum of that rest.  A read that is no multiple of the largest
 * request reaches marks part way into it, and where the windows are
 * smaller than the read, more than a window past its start.
 */
TEST_F_TIMEOUT(fresh, large_reads_keep_their_windows, SLOW_TEST_TIMEOUT_S)
{
	struct ra_windows seen[ARRAY_SIZE(algorithms)];
	size_t chunk, len = (size_t)THRASH_MIB << 20;
	char ra_kb[32] = "";
	unsigned int a, quarters;

	make_fresh_disk(_metadata, &self->disk);
	ASSERT_EQ(0, set_queue_attr(FRESH_DISK, "read_ahead_kb", "128", ra_kb,
				    sizeof(ra_kb)));
	reopen_disk(_metadata, &self->disk.fd, "/dev/" FRESH_DISK);
	for (quarters = 4; quarters <= 6; quarters++) {
		chunk = self->disk.io_pages * self->disk.page * quarters / 4;
		for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
			start_clean(_metadata, self->disk.fd, algorithms[a]);
			if (ra_trace_start())
				SKIP(return, NO_TRACE);
			read_in_chunks(_metadata, self->disk.fd, 0, len, chunk);
			ra_trace_stop();
			ra_trace_check(_metadata, self->disk.traced, 0,
				       len / self->disk.page,
				       self->disk.io_pages, true, &seen[a]);
			TH_LOG("%s: %d windows of %u to %u pages, reads of %zu KiB",
			       algorithms[a], seen[a].nr, seen[a].smallest,
			       seen[a].largest, chunk >> 10);
		}
		EXPECT_LT(1, seen[0].nr)
			TH_LOG("the reader's windows were not traced");
		EXPECT_EQ(seen[0].smallest, seen[1].smallest)
			TH_LOG("the adaptive algorithm cut a large read's windows");
		EXPECT_EQ(seen[0].largest, seen[1].largest);
	}
}

/*
 * A window that grew past read_ahead_kb shrinks back when the maximum
 * does, here when read_ahead_kb is written while the stream goes on: the
 * windows sized after the write, past the one in flight, stay within it.
 */
TEST_F_TIMEOUT(fresh, grown_windows_shrink_when_read_ahead_kb_is_written,
	       SLOW_TEST_TIMEOUT_S)
{
	unsigned long second = ((unsigned long)THRASH_MIB << 20) /
			       self->disk.page;
	struct ra_windows grown, after;
	char ra_kb[32] = "";

	make_fresh_disk(_metadata, &self->disk);
	start_clean(_metadata, self->disk.fd, "adaptive");
	if (ra_trace_start())
		SKIP(return, NO_TRACE);
	run_seq_readers(_metadata, NULL, self->disk.fd, 0, 1);
	ASSERT_EQ(0, set_queue_attr(FRESH_DISK, "read_ahead_kb", "128", ra_kb,
				    sizeof(ra_kb)));
	run_seq_readers(_metadata, NULL, self->disk.fd,
			(off_t)second * self->disk.page, 1);
	ra_trace_stop();
	ra_trace_check(_metadata, self->disk.traced, 0, second,
		       self->disk.io_pages, true, &grown);
	ra_trace_check(_metadata, self->disk.traced,
		       second + self->disk.io_pages, 2 * second,
		       self->disk.ra_pages, true, &after);
	TH_LOG("before the write: %d windows of up to %u pages; after: %d of up to %u",
	       grown.nr, grown.largest, after.nr, after.largest);
	EXPECT_LT(self->disk.ra_pages, grown.largest)
		TH_LOG("no window grew past read_ahead_kb");
	EXPECT_LT(0, after.nr) TH_LOG("no window was traced after the write");
}

/*
 * A file on a filesystem made on a memory-backed null_blk disk whose
 * read_ahead_kb nobody wrote, taking requests of up to FRESH_MAX_SECTORS:
 * ext4 reads files into order-0 folios, XFS into large folios
 * (page_cache_ra_order()), the path block devices and ext4 do not take.
 */
#define FS_DISK		"rafs"
#define FS_DISK_MIB	"512"	/* mkfs.xfs refuses less than 300 MiB */
#define FS_FILE_MIB	16
/* Percentages of the file's pages cached at random before it is read. */
static const int partial_percent[] = { 1, 5 };

/* The file, once made; in pages: its disk's read_ahead_kb, largest request */
struct fs_file {
	char mnt[32];
	char path[64];
	bool made;
	bool mounted;
	long page;
	unsigned long ra_pages;
	unsigned long io_pages;
};

FIXTURE(fsfile) {
	char initial[IOSCHED_NAME_LEN];
	struct fs_file file;
};

FIXTURE_VARIANT(fsfile) {
	const char *fs;
	const char *mkfs;	/* the command, run with the device appended */
};

FIXTURE_VARIANT_ADD(fsfile, ext4) {
	.fs = "ext4",
	.mkfs = "/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard",
};

FIXTURE_VARIANT_ADD(fsfile, xfs) {
	.fs = "xfs",
	.mkfs = "/sbin/mkfs.xfs -q -f -K",
};

/* As fresh's: the test makes the disk and the filesystem. */
FIXTURE_SETUP(fsfile)
{
	const char *why = nullb_unavailable(FS_DISK);
	char mkfs[64];	/* the mkfs program of variant->mkfs */

	snprintf(mkfs, sizeof(mkfs), "%s", variant->mkfs);
	*strchrnul(mkfs, ' ') = '\0';
	if (access(mkfs, X_OK))
		SKIP(return, "no %s for %s", mkfs, variant->fs);
	if (why)
		SKIP(return, "%s", why);
	iosched_mount_debugfs();
	ASSERT_EQ(0, iosched_read_attr(IOSCHED_RA_KNOB, self->initial,
				       sizeof(self->initial)));
	self->file.page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(fsfile)
{
	if (self->file.mounted)
		umount(self->file.mnt);
	if (self->file.mnt[0])
		rmdir(self->file.mnt);
	if (self->file.made)
		iosched_nullb_remove(FS_DISK);
	if (self->initial[0])
		iosched_write_str(IOSCHED_RA_KNOB, self->initial);
}

/*
 * Make the disk and the filesystem, and write the file (FS_FILE_MIB MiB)
 * to it: on the disk, not in the page cache, when this returns.
 */
static void make_fs_file(struct __test_metadata *_metadata,
			 struct fs_file *f, const char *fs, const char *mkfs)
{
	static const char *const settings[][2] = {
		{ "size", FS_DISK_MIB }, { "blocksize", "4096" },
		{ "memory_backed", "1" }, { "max_sectors", FRESH_MAX_SECTORS },
	};
	char cmd[PATH_MAX], *buf = malloc(1 << 20);
	int fd, i;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, iosched_nullb_make(FS_DISK, settings,
					ARRAY_SIZE(settings), &f->made))
		TH_LOG("cannot make null_blk disk %s: %s", FS_DISK,
		       strerror(errno));
	made_disk_sizes(_metadata, FS_DISK, f->page, &f->ra_pages,
			&f->io_pages);
	snprintf(cmd, sizeof(cmd), "%s /dev/%s >&2", mkfs, FS_DISK);
	ASSERT_EQ(0, system(cmd)) TH_LOG("%s failed", cmd);
	snprintf(f->mnt, sizeof(f->mnt), "/tmp/ra-fs-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(f->mnt));
	ASSERT_EQ(0, mount("/dev/" FS_DISK, f->mnt, fs, 0, NULL))
		TH_LOG("cannot mount %s: %s", fs, strerror(errno));
	f->mounted = true;
	snprintf(f->path, sizeof(f->path), "%s/file", f->mnt);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	for (i = 0; i < FS_FILE_MIB; i++) {
		memset(buf, i + 1, 1 << 20);
		ASSERT_EQ(1 << 20, write(fd, buf, 1 << 20));
	}
	free(buf);
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	close(fd);
}

/* Read requests the disk completed so far (the first field of its stat). */
static unsigned long disk_reads(struct __test_metadata *_metadata,
				const char *disk)
{
	char path[PATH_MAX], stat[256];

	snprintf(path, sizeof(path), "/sys/block/%s/stat", disk);
	ASSERT_EQ(0, iosched_read_attr(path, stat, sizeof(stat)));
	return strtoul(stat, NULL, 10);
}

/*
 * Empty the file's page cache, then read @percent % of its pages into it
 * at random (each page once, at most; POSIX_FADV_RANDOM, so nothing is
 * read ahead).  Returns the runs of consecutive cached pages there are.
 */
static int cache_at_random(struct __test_metadata *_metadata,
			   const char *path, long page, int percent)
{
	long i, nr = ((off_t)FS_FILE_MIB << 20) / page;
	unsigned char *vec = calloc(nr, 1);
	int runs = 0, fd = open(path, O_RDONLY);
	char *buf = malloc(page);
	void *map;

	ASSERT_NE(NULL, vec);
	ASSERT_NE(NULL, buf);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM));
	srand(percent);
	for (i = 0; i < nr * percent / 100; i++) {
		off_t at = (off_t)(rand() % nr) * page;

		ASSERT_EQ(page, pread(fd, buf, page, at));
	}
	map = mmap(NULL, (size_t)nr * page, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mincore(map, (size_t)nr * page, vec));
	munmap(map, (size_t)nr * page);
	for (i = 0; i < nr; i++)
		runs += (vec[i] & 1) && (!i || !(vec[i - 1] & 1));
	close(fd);
	free(buf);
	free(vec);
	return runs;
}

/* Read the whole file once, READ_SIZE at a time; the disk's read requests. */
static unsigned long read_fs_file(struct __test_metadata *_metadata,
				  const char *path)
{
	unsigned long before = disk_reads(_metadata, FS_DISK);
	int fd = open(path, O_RDONLY);
	char *buf = malloc(READ_SIZE);
	off_t off;

	ASSERT_NE(NULL, buf);
	ASSERT_LE(0, fd);
	for (off = 0; off < (off_t)FS_FILE_MIB << 20; off += READ_SIZE) {
		ssize_t got = pread(fd, buf, READ_SIZE, off);

		ASSERT_EQ(READ_SIZE, got);
	}
	close(fd);
	free(buf);
	return disk_reads(_metadata, FS_DISK) - before;
}

/*
 * A sequential reader of a file, on ext4 and on XFS, gets windows that
 * grow past the read_ahead_kb nobody wrote, none larger than the disk's
 * largest request and none with more pages ahead of the reader than it
 * has.
 */
TEST_F_TIMEOUT(fsfile, file_windows_grow_within_the_maximum,
	       SLOW_TEST_TIMEOUT_S)
{
	struct ra_windows seen;
	struct stat st;

	make_fs_file(_metadata, &self->file, variant->fs, variant->mkfs);
	ASSERT_EQ(0, stat(self->file.path, &st));
	select_algorithm(_metadata, "adaptive");
	if (ra_trace_start())
		SKIP(return, NO_TRACE);
	read_fs_file(_metadata, self->file.path);
	ra_trace_stop();
	ra_trace_check(_metadata, file_traced(&st), 0,
		       ((off_t)FS_FILE_MIB << 20) / self->file.page,
		       self->file.io_pages, true, &seen);
	TH_LOG("%s: %d windows traced, the largest %u pages", variant->fs,
	       seen.nr, seen.largest);
	TH_LOG("read_ahead_kb %lu pages, largest request %lu pages",
	       self->file.ra_pages, self->file.io_pages);
	EXPECT_LT(1, seen.nr) TH_LOG("the reader's windows were not traced");
	EXPECT_LT(self->file.ra_pages, seen.largest)
		TH_LOG("no window grew past read_ahead_kb");
}

/*
 * Trace the windows of @algorithm's reader faulting through the whole file
 * @f (page cache @traced) in a mapping with MADV_HUGEPAGE, from an empty page
 * cache, into @seen.  The first fault, at the file's first page, reads two
 * PMDs in do_sync_mmap_readahead(), untraced; the windows traced are those
 * after it.  Returns -1 if the mapping takes no MADV_HUGEPAGE or nothing
 * can be traced.
 */
static int trace_huge_page_mapping(struct __test_metadata *_metadata,
				   const struct fs_file *f,
				   struct ra_traced traced,
				   const char *algorithm,
				   struct ra_windows *seen)
{
	size_t len = (size_t)FS_FILE_MIB << 20;
	int fd, ret;
	char *map;

	select_algorithm(_metadata, algorithm);
	fd = open(f->path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ret = madvise(map, len, MADV_HUGEPAGE) || ra_trace_start() ? -1 : 0;
	if (!ret)
		touch_pages(map, 0, len, f->page);
	ra_trace_stop();
	munmap(map, len);
	close(fd);
	if (ret)
		return -1;
	/* Windows of two PMDs are past the largest request: no bound. */
	ra_trace_check(_metadata, traced, 0, len / f->page, len / f->page,
		       false, seen);
	TH_LOG("%s: %d windows traced, the smallest %u pages, the largest %u",
	       algorithm, seen->nr, seen->smallest, seen->largest);
	return seen->nr < 0 ? -1 : 0;
}

/*
 * A fault in a mapping with MADV_HUGEPAGE reads two PMDs, and the stock
 * algorithm keeps windows of that size.  So does the adaptive one, also
 * where the file has no large folios (ext4 in 6.12) and the mark of such
 * a window is on a small folio; on XFS, whose folios are PMDs here, it
 * did so before (a control).
 */
TEST_F_TIMEOUT(fsfile, huge_page_mapping_keeps_its_windows,
	       SLOW_TEST_TIMEOUT_S)
{
	struct ra_windows seen[ARRAY_SIZE(algorithms)];
	struct stat st;
	unsigned int a;

	make_fs_file(_metadata, &self->file, variant->fs, variant->mkfs);
	ASSERT_EQ(0, stat(self->file.path, &st));
	for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
		if (trace_huge_page_mapping(_metadata, &self->file,
					    file_traced(&st),
					    algorithms[a], &seen[a]))
			SKIP(return, "no MADV_HUGEPAGE, or %s", NO_TRACE);
	}
	EXPECT_LT(1, seen[0].nr)
		TH_LOG("%s: the stock windows were not traced", variant->fs);
	EXPECT_LT(self->file.io_pages, seen[0].smallest)
		TH_LOG("%s: the stock windows are not two PMDs", variant->fs);
	EXPECT_EQ(seen[0].smallest, seen[1].smallest)
		TH_LOG("%s: the adaptive algorithm shrank a window", variant->fs);
	EXPECT_EQ(seen[0].largest, seen[1].largest)
		TH_LOG("%s: the adaptive algorithm grew a window", variant->fs);
}

/*
 * A sequential reader of a file with a few of its pages cached at random
 * keeps its stream: a cached page splits a window's I/O in two, and costs
 * no more.  So the disk reads the file in no more requests than it does
 * uncached, plus one for each run of cached pages.  (The stock algorithm's
 * figures are logged beside: it loses the stream where a cached page
 * carries the window's mark.)
 */
TEST_F_TIMEOUT(fsfile, partly_cached_file_keeps_its_stream, SLOW_TEST_TIMEOUT_S)
{
	unsigned long uncached[ARRAY_SIZE(algorithms)];
	unsigned long reqs[ARRAY_SIZE(algorithms)];
	unsigned int a, p;
	int runs = 0;

	make_fs_file(_metadata, &self->file, variant->fs, variant->mkfs);
	for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
		select_algorithm(_metadata, algorithms[a]);
		cache_at_random(_metadata, self->file.path, self->file.page, 0);
		uncached[a] = read_fs_file(_metadata, self->file.path);
		TH_LOG("%s, %s: %lu read requests for the uncached file",
		       variant->fs, algorithms[a], uncached[a]);
	}
	for (p = 0; p < ARRAY_SIZE(partial_percent); p++) {
		for (a = 0; a < ARRAY_SIZE(algorithms); a++) {
			select_algorithm(_metadata, algorithms[a]);
			/* The same pages for both: the seed is the percentage. */
			runs = cache_at_random(_metadata, self->file.path,
					       self->file.page, partial_percent[p]);
			reqs[a] = read_fs_file(_metadata, self->file.path);
			TH_LOG("%s, %s, %d%% cached (%d runs): %lu read requests",
			       variant->fs, algorithms[a], partial_percent[p],
			       runs, reqs[a]);
		}
		EXPECT_GE(uncached[1] + runs, reqs[1])
			TH_LOG("%d%% cached: the adaptive reader lost its stream",
			       partial_percent[p]);
	}
}

/*
 * A load that keeps @depth direct 4 KiB reads (or writes) queued on the
 * disk, submitted from @cpu (or any CPU, -1): more than the queue holds,
 * so that it stays full.
 */
struct saturating_load {
	int fd;
	unsigned int depth;
	off_t size;
	bool write;
	int cpu;
	bool stop;	/* set by the test, read by the load */
	int error;	/* set by the load, read by the test */
};

static void load_failed(struct saturating_load *load, int error)
{
	__atomic_store_n(&load->error, error, __ATOMIC_RELAXED);
}

/* Run the calling thread on @cpu only (-1: on any); 0 or -1, errno set. */
static int pin_to_cpu(int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (cpu < 0 || i == cpu)
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void *saturate(void *arg)
{
	struct saturating_load *load = arg;
	struct iocb *iocbs = calloc(load->depth, sizeof(*iocbs));
	struct iocb **ptrs = calloc(load->depth, sizeof(*ptrs));
	struct io_event *events = calloc(load->depth, sizeof(*events));
	aio_context_t ctx = 0;
	unsigned int i, blocks = load->size / 4096;
	char *bufs = NULL;
	long n;

	if (!iocbs || !ptrs || !events ||
	    posix_memalign((void **)&bufs, 4096, (size_t)load->depth * 4096) ||
	    (load->cpu >= 0 && pin_to_cpu(load->cpu)) ||
	    syscall(__NR_io_setup, load->depth, &ctx)) {
		load_failed(load, errno ?: ENOMEM);
		goto out;
	}
	for (i = 0; i < load->depth; i++) {
		iocbs[i].aio_fildes = load->fd;
		iocbs[i].aio_lio_opcode = load->write ? IOCB_CMD_PWRITE :
							IOCB_CMD_PREAD;
		iocbs[i].aio_buf = (unsigned long)(bufs + (size_t)i * 4096);
		iocbs[i].aio_nbytes = 4096;
		ptrs[i] = &iocbs[i];
	}
	/* Keep them all queued: each one that completes goes again. */
	n = load->depth;
	while (!__atomic_load_n(&load->stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < n; i++)
			ptrs[i]->aio_offset = (off_t)(rand() % blocks) * 4096;
		if (syscall(__NR_io_submit, ctx, n, ptrs) != n) {
			load_failed(load, errno ?: EIO);
			break;
		}
		n = syscall(__NR_io_getevents, ctx, 1, load->depth, events,
			    NULL);
		if (n < 1) {
			load_failed(load, errno ?: EIO);
			break;
		}
		for (i = 0; i < n; i++) {
			if (events[i].res < 0)
				load_failed(load, -events[i].res);
			ptrs[i] = (struct iocb *)(unsigned long)events[i].obj;
		}
	}
	syscall(__NR_io_destroy, ctx);
out:
	free(bufs);
	free(events);
	free(ptrs);
	free(iocbs);
	return NULL;
}

/* queue/read_congested of @disk: 0 or 1, or -1 if it cannot be read. */
static int read_congested(const char *disk)
{
	char path[PATH_MAX], buf[8];

	iosched_queue_attr(disk, "read_congested", path, sizeof(path));
	if (iosched_read_attr(path, buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

#define WATCH_ROUNDS	400	/* samples of read_congested, 5 ms apart */

/*
 * A field of the normal tags in @disk's hardware queue 0's scheduler tags
 * (blk-mq debugfs, sched_tags: depth, busy, ...), or -1.
 */
static long sched_tags_field(const char *disk, const char *field)
{
	char path[PATH_MAX], line[256];
	size_t len = strlen(field);
	long value = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 IOSCHED_DEBUGFS "/block/%s/hctx0/sched_tags", disk);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* The normal tags come first, then the reserved ones. */
	while (value < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == '=')
			value = atol(line + len + 1);
	fclose(f);
	return value;
}

/* Whether blk-mq debugfs file @file of @disk mentions @word. */
static bool debugfs_has(const char *disk, const char *file, const char *word)
{
	char path[PATH_MAX], buf[512];

	snprintf(path, sizeof(path), IOSCHED_DEBUGFS "/block/%s/%s", disk,
		 file);
	if (iosched_read_attr(path, buf, sizeof(buf)))
		return false;
	return strstr(buf, word);
}

/* What watch_read_congested() saw while a load ran. */
struct congestion_watch {
	int seen[2];	/* read_congested of each disk was ever 1 */
	bool stored;	/* disks[0]'s debugfs state ever said READ_CONGESTED */
	long busiest;	/* most scheduler tags disks[0] had taken, or -1 */
};

/*
 * Sample read_congested of the @n (at most two) disks in @disks while
 * @load runs, WATCH_ROUNDS times, and the first disk's debugfs state and
 * scheduler tags.  Stops early if the load fails; returns -1 if
 * read_congested could not be read.
 */
static int watch_read_congested(struct saturating_load *load,
				const char *const *disks, int n,
				struct congestion_watch *w)
{
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	int i, d, state;
	long busy;

	memset(w, 0, sizeof(*w));
	w->busiest = -1;
	for (i = 0; i < WATCH_ROUNDS; i++) {
		if (__atomic_load_n(&load->error, __ATOMIC_RELAXED))
			break;
		for (d = 0; d < n; d++) {
			state = read_congested(disks[d]);
			if (state < 0)
				return -1;
			w->seen[d] |= state;
		}
		w->stored |= debugfs_has(disks[0], "state", "READ_CONGESTED") ||
			     debugfs_has(disks[0], "hctx0/state",
					 "READ_CONGESTED");
		busy = sched_tags_field(disks[0], "busy");
		if (busy > w->busiest)
			w->busiest = busy;
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* Stop @load, and assert it ran without an error. */
static void stop_load(struct __test_metadata *_metadata,
		      struct saturating_load *load, pthread_t thread)
{
	__atomic_store_n(&load->stop, true, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	close(load->fd);
	ASSERT_EQ(0, load->error) TH_LOG("the load failed: %s",
					 strerror(load->error));
}

/* Open /dev/@disk for @load, direct. */
static void open_load(struct __test_metadata *_metadata,
		      struct saturating_load *load, const char *disk)
{
	char dev[PATH_MAX];

	snprintf(dev, sizeof(dev), "/dev/%s", disk);
	load->fd = open(dev, (load->write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	ASSERT_LE(0, load->fd);
}

/* Saturated, the queue reports read congestion; drained, it clears it. */
TEST_F_TIMEOUT(ra, congestion_reported_and_cleared, SLOW_TEST_TIMEOUT_S)
{
	struct saturating_load load = { .size = self->size, .cpu = -1 };
	const char *disk = self->disk;
	char path[PATH_MAX], nr[16];
	struct congestion_watch watch;
	pthread_t thread;

	/*
	 * A shallow queue, which the load fills even where submitting is
	 * slow next to the device (a debug kernel on a fast virtual disk).
	 */
	iosched_queue_attr(self->disk, "nr_requests", path, sizeof(path));
	ASSERT_EQ(0, iosched_read_attr(path, self->nr_requests,
				       sizeof(self->nr_requests)));
	if (atoi(self->nr_requests) > atoi(SHALLOW_NR_REQUESTS))
		ASSERT_EQ(0, set_queue_attr(self->disk, "nr_requests",
					    SHALLOW_NR_REQUESTS,
					    self->nr_requests,
					    sizeof(self->nr_requests)));
	ASSERT_EQ(0, iosched_read_attr(path, nr, sizeof(nr)));
	load.depth = 2 * atoi(nr) + 8;
	open_load(_metadata, &load, self->disk);

	EXPECT_EQ(0, read_congested(self->disk)) TH_LOG("congested while idle");
	ASSERT_EQ(0, pthread_create(&thread, NULL, saturate, &load));
	ASSERT_EQ(0, watch_read_congested(&load, &disk, 1, &watch));
	stop_load(_metadata, &load, thread);
	EXPECT_EQ(1, watch.seen[0])
		TH_LOG("%u queued reads, nr_requests %s: never congested",
		       load.depth, nr);
	EXPECT_EQ(0, read_congested(self->disk))
		TH_LOG("still congested when idle");
}

/*
 * Disks whose queues a load fills: null_blk completes each request after
 * BUSY_COMPLETION_NSEC, so that the load's requests hold their tags, or
 * after BUSY_SLOW_COMPLETION_NSEC for a load that must keep more requests
 * queued than the device holds: at 20 ms, a debug kernel under TCG on a
 * loaded host submitted too slowly to keep the 64 on the device replaced
 * and 44 more waiting (it held 83 tags of the 108 that async_depth
 * allows; 106 to 108 on a quieter host, with 104 needed).
 */
#define BUSY_DISK		"racong0"
#define BUSY_PEER		"racong1"
#define BUSY_COMPLETION_NSEC	"20000000"
#define BUSY_SLOW_COMPLETION_NSEC	"200000000"
#define BUSY_READ_MIB		16	/* read by the reader of a busy disk */
/*
 * The reader pauses for two completions every BUSY_PAUSE_EVERY bytes: a
 * reader as fast as the disk reaches each mark while the window it marks
 * is still being read, and a window whose middle is locked for its read
 * is never deferred.
 */
#define BUSY_PAUSE_EVERY	(256 << 10)

FIXTURE(busy) {
	char initial[IOSCHED_NAME_LEN];
	bool made[2];
};

FIXTURE_SETUP(busy)
{
	const char *why = nullb_unavailable(BUSY_DISK) ?:
			  nullb_unavailable(BUSY_PEER);

	if (why)
		SKIP(return, "%s", why);
	iosched_mount_debugfs();
	ASSERT_EQ(0, iosched_read_attr(IOSCHED_RA_KNOB, self->initial,
				       sizeof(self->initial)));
}

FIXTURE_TEARDOWN(busy)
{
	pin_to_cpu(-1);
	if (self->made[1])
		iosched_nullb_remove(BUSY_PEER);
	if (self->made[0])
		iosched_nullb_remove(BUSY_DISK);
	if (self->initial[0])
		iosched_write_str(IOSCHED_RA_KNOB, self->initial);
}

/*
 * Make busy disk @name, completing each request after @completion_nsec,
 * with null_blk attribute @key set to @val, and @sched its scheduler.
 */
static void make_busy_disk(struct __test_metadata *_metadata, bool *made,
			   const char *name, const char *completion_nsec,
			   const char *key, const char *val, const char *sched)
{
	const char *const settings[][2] = {
		{ "size", "64" }, { "blocksize", "4096" }, { "irqmode", "2" },
		{ "completion_nsec", completion_nsec }, { key, val },
	};

	ASSERT_EQ(0, iosched_nullb_make(name, settings, ARRAY_SIZE(settings),
					made))
		TH_LOG("cannot make null_blk disk %s: %s", name,
		       strerror(errno));
	ASSERT_EQ(0, iosched_select(name, sched));
}

/*
 * Wait until @disk's hardware queue 0 is no longer counted among the
 * users of its tags (blk-mq marks it idle once its requests, those of the
 * partition scan, are long done); false if that takes over 20 s.
 */
static bool wait_tags_idle(const char *disk)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < 200; i++) {
		if (!debugfs_has(disk, "hctx0/state", "TAG_ACTIVE"))
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/*
 * Two disks share one tag set (null_blk's shared_tags, as the LUNs of a
 * SCSI host or the namespaces of an NVMe controller do).  A load that
 * fills the tags through one of them congests that one only: the other
 * has none of its own reads waiting.  Reading read_congested stores no
 * state (blk-mq debugfs shows the one readahead stored).
 */
TEST_F_TIMEOUT(busy, shared_tags_congest_only_the_disk_using_them,
	       SLOW_TEST_TIMEOUT_S)
{
	static const char * const disks[] = { BUSY_DISK, BUSY_PEER };
	struct saturating_load load = { .size = 64 << 20, .cpu = -1 };
	struct congestion_watch watch;
	pthread_t thread;

	make_busy_disk(_metadata, &self->made[0], BUSY_DISK,
		       BUSY_COMPLETION_NSEC, "shared_tags", "1", "none");
	make_busy_disk(_metadata, &self->made[1], BUSY_PEER,
		       BUSY_COMPLETION_NSEC, "shared_tags", "1", "none");
	ASSERT_TRUE(debugfs_has(BUSY_DISK, "hctx0/flags", "TAG_QUEUE_SHARED"));
	ASSERT_TRUE(debugfs_has(BUSY_PEER, "hctx0/flags", "TAG_QUEUE_SHARED"));
	/* Idle, the peer leaves the loaded disk all the tags to take. */
	ASSERT_TRUE(wait_tags_idle(BUSY_PEER))
		TH_LOG("%s stays active on the shared tags", BUSY_PEER);
	load.depth = 2 * queue_attr_long(_metadata, BUSY_DISK,
					 "nr_requests") + 8;
	open_load(_metadata, &load, BUSY_DISK);
	ASSERT_EQ(0, pthread_create(&thread, NULL, saturate, &load));
	ASSERT_EQ(0, watch_read_congested(&load, disks, 2, &watch));
	stop_load(_metadata, &load, thread);
	EXPECT_EQ(1, watch.seen[0]) TH_LOG("the loaded disk was never congested");
	EXPECT_EQ(0, watch.seen[1])
		TH_LOG("the idle disk was congested by the other's requests");
	/* Nothing but sysfs asked: looking stored no state. */
	EXPECT_FALSE(watch.stored) TH_LOG("reading read_congested stored it");
}

/*
 * An online CPU whose requests go to hardware queue @hctx of @disk (blk-mq
 * debugfs lists a hardware queue's CPUs), or -1.
 */
static int cpu_of_hctx(const char *disk, int hctx)
{
	char path[PATH_MAX];
	cpu_set_t online;
	int cpu;

	if (sched_getaffinity(0, sizeof(online), &online))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		snprintf(path, sizeof(path),
			 IOSCHED_DEBUGFS "/block/%s/hctx%d/cpu%d", disk, hctx,
			 cpu);
		if (CPU_ISSET(cpu, &online) && !access(path, F_OK))
			return cpu;
	}
	return -1;
}

/*
 * Read BUSY_READ_MIB of @disk's page cache from the start, 16 KiB at a
 * time, on @cpu; returns how many of its windows readahead deferred (the
 * readahead_window tracepoint, for this disk only).
 */
static int deferred_windows_of_reader(struct __test_metadata *_metadata,
				      const char *disk, int cpu)
{
	struct timespec pause = { 0, 2 * atol(BUSY_COMPLETION_NSEC) };
	long page = sysconf(_SC_PAGESIZE);
	char dev[PATH_MAX], *buf = malloc(READ_SIZE);
	struct ra_windows seen;
	off_t off;
	int fd;

	ASSERT_NE(NULL, buf);
	snprintf(dev, sizeof(dev), "/dev/%s", disk);
	fd = open(dev, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, pin_to_cpu(cpu));
	ASSERT_EQ(0, ra_trace_start());
	for (off = 0; off < (off_t)BUSY_READ_MIB << 20; off += READ_SIZE) {
		if (off % BUSY_PAUSE_EVERY == 0)
			nanosleep(&pause, NULL);
		ASSERT_EQ(READ_SIZE, pread(fd, buf, READ_SIZE, off));
	}
	ra_trace_stop();
	ASSERT_EQ(0, pin_to_cpu(-1));
	ra_trace_check(_metadata, disk_traced(_metadata, fd), 0,
		       ((unsigned long)BUSY_READ_MIB << 20) / page,
		       device_max_pages(_metadata, disk, page), true, &seen);
	ASSERT_LT(0, seen.nr) TH_LOG("no window of %s traced", disk);
	close(fd);
	free(buf);
	return seen.deferred;
}

/*
 * A disk with two hardware queues, one of them full: a sequential reader
 * whose CPU submits to the other has none of its windows deferred, while
 * one on the full queue's CPU has.
 */
TEST_F_TIMEOUT(busy, a_full_hardware_queue_defers_only_its_readers,
	       SLOW_TEST_TIMEOUT_S)
{
	struct saturating_load load = { .size = 64 << 20 };
	int cpu[2], own, other;
	pthread_t thread;

	if (ra_trace_start())
		SKIP(return, NO_TRACE);
	ra_trace_stop();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: one hardware queue");
	ASSERT_EQ(0, iosched_write_str(IOSCHED_RA_KNOB, "adaptive"));
	make_busy_disk(_metadata, &self->made[0], BUSY_DISK,
		       BUSY_COMPLETION_NSEC, "submit_queues", "2", "none");
	cpu[0] = cpu_of_hctx(BUSY_DISK, 0);
	cpu[1] = cpu_of_hctx(BUSY_DISK, 1);
	ASSERT_LE(0, cpu[0]);
	ASSERT_LE(0, cpu[1]);
	load.cpu = cpu[0];
	load.depth = 2 * queue_attr_long(_metadata, BUSY_DISK,
					 "nr_requests") + 8;
	open_load(_metadata, &load, BUSY_DISK);
	ASSERT_EQ(0, pthread_create(&thread, NULL, saturate, &load));
	other = deferred_windows_of_reader(_metadata, BUSY_DISK, cpu[1]);
	own = deferred_windows_of_reader(_metadata, BUSY_DISK, cpu[0]);
	stop_load(_metadata, &load, thread);
	TH_LOG("windows deferred: %d on the full queue's CPU %d, %d on CPU %d",
	       own, cpu[0], other, cpu[1]);
	EXPECT_LT(0, own) TH_LOG("the full queue deferred no window");
	EXPECT_EQ(0, other)
		TH_LOG("the other hardware queue's reader was deferred");
}

/*
 * Writers that mq-deadline holds to fewer tags than reads (async_depth)
 * sleep for a tag while a read would get one at once.  They fill the
 * queue to between the watermarks (13/16 and 7/8 of nr_requests), where
 * the state stays as it was: not congested, as no waiting writer may
 * make it so.
 */
TEST_F_TIMEOUT(busy, writers_waiting_for_tags_leave_reads_uncongested,
	       SLOW_TEST_TIMEOUT_S)
{
	struct saturating_load load = { .size = 64 << 20, .write = true,
					 .cpu = -1 };
	static const char * const disk = BUSY_DISK;
	struct congestion_watch watch;
	long nr, on, off, async_depth;
	char path[PATH_MAX], val[24];
	pthread_t thread;

	make_busy_disk(_metadata, &self->made[0], BUSY_DISK,
		       BUSY_SLOW_COMPLETION_NSEC, "hw_queue_depth", "64",
		       "mq-deadline");
	nr = queue_attr_long(_metadata, BUSY_DISK, "nr_requests");
	on = nr - nr / 8;
	off = on - (nr / 16 ?: 1);
	ASSERT_EQ(nr, sched_tags_field(BUSY_DISK, "depth"));
	async_depth = (off + on) / 2;
	snprintf(val, sizeof(val), "%ld", async_depth);
	iosched_tunable_path(BUSY_DISK, "async_depth", path, sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, val));

	load.depth = 2 * nr + 8;
	open_load(_metadata, &load, BUSY_DISK);
	ASSERT_EQ(0, pthread_create(&thread, NULL, saturate, &load));
	ASSERT_EQ(0, watch_read_congested(&load, &disk, 1, &watch));
	stop_load(_metadata, &load, thread);
	TH_LOG("nr_requests %ld, async_depth %ld: at most %ld writes held",
	       nr, async_depth, watch.busiest);
	ASSERT_TRUE(watch.busiest > off && watch.busiest < on)
		TH_LOG("the writers held %ld tags, not between %ld and %ld",
		       watch.busiest, off, on);
	EXPECT_EQ(0, watch.seen[0])
		TH_LOG("writers waiting for tags made reads congested");
	EXPECT_FALSE(watch.stored)
		TH_LOG("writers waiting for tags stored read congestion");
}

TEST_HARNESS_MAIN
