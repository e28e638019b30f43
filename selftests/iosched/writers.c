// SPDX-License-Identifier: GPL-2.0
/*
 * Four buffered writers and a reader share the disk under mq-cfq, and
 * again under mq-as (the workload of "2.6.0-test8/test9 io scheduler needs
 * tuning?", linux-kernel, October 2003, where one writer was locked out
 * for seconds): every process finishes within a deadline, none waits for
 * a single write() or read() longer than the scheduler's bounds allow
 * (see HOST_SLACK), and the kernel's hung-task detector, set to a short
 * timeout for the run, reports no task blocked (an fsync or a flusher
 * waiting on a request that is not served).
 * mq-cfq's debugfs "slices" must show slices given to sync queues (the
 * reader, fsync) and to the async queue of background writeback.
 *
 * The writers write their own region of the raw disk through the page
 * cache, more than the dirty limits of the guest let stay in memory, and
 * fsync it; the reader does random 4 KiB O_DIRECT reads in a region of
 * its own until the writers are done.  A second test runs a streaming
 * reader instead (sequential 1 MiB O_DIRECT reads, the dd reader of "Do
 * not overload dispatch queue", linux-kernel, October 2009) beside
 * writers that do not fsync.  Under mq-cfq, with a deadline of 1 ms for
 * its reads, the reader must still let every async slice run to its end,
 * so no async slice may end "overdue"; under mq-as, with a window long
 * enough for the guest's reader (as_streaming_window()), it is a reader
 * worth waiting for, and debugfs "antic" must show waits that its next
 * read ended.
 *
 * Environment: IOSCHED_DISK, the disk under test (e.g. "sda").
 */
#define _GNU_SOURCE
#include <assert.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/fs.h>

#include "../kselftest_harness.h"
#include "iosched_stall.h"
#include "iosched_trace.h"
#include "mq_cfq.h"

#define WRITERS		4
#define WRITER_MIB	128	/* each: 512 MiB in all, 1 GiB guest */
#define CHUNK		(1024 * 1024)
/* The reader reads until the writers are done, and at least this often. */
#define MIN_READS	200
#define BLOCK		4096
/* The reader reads from here to the end of the disk. */
#define READER_START	((unsigned long long)(WRITERS + 1) * WRITER_MIB << 20)

/*
 * A lockout is a call that waits far longer than the scheduler lets any
 * queue wait, at this host's speed.  The bound is
 *
 *	HOST_SLACK * (the scheduler's wait + the device's work)
 *
 * and the scheduler's wait is in its own terms; mq-cfq's:
 *
 * A writer's write() is throttled until writeback cleans pages: writeback
 * waits at most fifo_expire_async and the slice then running (slice_sync
 * and an idle window, as mq-cfq documents its writeback bound), and a call
 * takes about as long as the writers' mean call, which measures the
 * writeback bandwidth they share.  Throttled calls are uneven, though:
 * balance_dirty_pages() pauses a writer up to 200 ms at a time, several
 * times in one 1 MiB call, while the first calls, under the dirty limit,
 * take no time and pull the mean down (STEADY_CALLS of the mean).
 *
 * The reader's request is due after fifo_expire_sync, and then waits at
 * most for one round of the other queues, each writer's sync queue
 * (fsync) and the async one taking a slice or starved turn (the longest
 * of slice_sync, slice_async, fifo_expire_sync and 2 * slice_idle), and
 * an idle window.
 *
 * mq-as's: writeback waits for the read batch to end (read_batch_expire)
 * and one anticipation window; a read, sync like the writers' fsync,
 * waits for a write batch (write_batch_expire: mq-as sizes write batches
 * in requests so that reads wait about that long, the writes still on
 * the device included), and then, in the sweep of a read batch, at most
 * that batch, and one window.  This bound on a read
 * is the test's, not one mq-as promises: late reads go first one per
 * read_expire, so a read behind late fsync writes may wait about two of
 * them (2 * read_expire).
 *
 * Either way, the device then holds at most a writer's megabyte (one
 * mean write() call) and the reads before it: DRAIN_CALLS of the reader's
 * mean read, measured with the disk to itself before the writers start,
 * so that a reader starved on every read cannot raise its own bound.
 *
 * The measured means scale the bound with a slow host (TCG, a debug
 * kernel, other guests); a fixed number of seconds did not.  In TCG
 * guests the slowest write() was up to 11 times the writers' mean (1.50 s
 * against 134 ms on ide), the slowest read 0.03 to 0.38 s against means
 * of 0.3 to 15 ms.  In the 2003 thread a writer was locked out for seconds
 * while the others wrote.  Means do not see the host's tail, though: with
 * three test runs on two host cores, a read on the debug kernel took
 * 2475 ms against a bound of 2416 ms.  So a call is also allowed the
 * time within it in which no CPU ran a SCHED_FIFO task, "CPU stalls"
 * (the sleepers of all CPUs late at once, see iosched_stall_all_cpus()), up
 * to half its bound again: mostly time in which the host did not run the
 * guest.  Every call that takes the scheduler's share of the bound or
 * longer is checked, not only the slowest (SLOW_CALLS of them with that
 * allowance, the longest of the others without).
 *
 * The hung-task detector, for the length of the test, reports a task in
 * uninterruptible sleep for HUNG_TIMEOUT_S, checking every second: fsync
 * waiting for writeback, the flusher waiting for a request tag.  It does
 * not see writers throttled in balance_dirty_pages() (a killable sleep)
 * nor the reader (a synchronous O_DIRECT read wakes up every half
 * timeout, see blk_wait_io()); the lockout bound covers those.  FINISH_S
 * only catches a run that does not end.
 */
#define HOST_SLACK	2
#define STEADY_CALLS	16
#define DRAIN_CALLS	32
#define ALONE_READS	32	/* to measure the reader's mean read */
#define FINISH_S	450
#define STRAGGLERS_S	10	/* to reap a worker killed at FINISH_S */
#define HUNG_TIMEOUT_S	5
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define HUNG_SYSCTL	"/proc/sys/kernel/hung_task_"
#define TRACE_PREFIX	"iosched_writers_"	/* and the disk's name */
/* Calls kept per process for the lockout check (see slow_s). */
#define SLOW_CALLS	256
/* mq-as's window for the streaming reader: its think time this often, */
#define STREAMING_THINKS	4
/*
 * at most this (ms): a reader alone that thinks a quarter of it does not
 * stream, and the window is also in the lockout bounds (as_waits()).
 * The largest measured is 16 ms, on the debug kernel beside other guests.
 */
#define STREAMING_WINDOW_MAX_MS	100
/*
 * Episodes a stall probe keeps per CPU: one per period for as long as
 * it runs, the workers' FINISH_S and STRAGGLERS_S.
 */
static_assert((FINISH_S + STRAGGLERS_S) * 1000000000LL /
	      (IOSCHED_STALL_PERIOD_NS + IOSCHED_STALL_MIN_NS) < IOSCHED_STALL_EPISODES,
	      "a CPU late at every sleep loses stall records in a run");

/* A write() or read call, from and to cfq_now() seconds. */
struct call {
	double start;
	double end;
};

struct worker {
	pid_t pid;
	int done;		/* the worker's last store (release) */
	int error;		/* errno of a failed call */
	double seconds;		/* run time */
	double longest;		/* slowest single write() or read */
	double longest_end;	/* when it returned, in cfq_now() seconds */
	int syncing_at_longest;	/* writers in fdatasync() then */
	double in_calls;	/* time spent in them */
	long calls;		/* write() or read calls done */
	/*
	 * Calls of slow_s or longer, for the lockout check: slow_s is the
	 * scheduler's share of the bound, known before the run, so no call
	 * over the bound is missed, unless more than SLOW_CALLS were slow.
	 */
	double slow_s;
	int slow;
	int slow_lost;			/* not kept: no room */
	double slow_lost_longest;	/* the longest of them, no credit */
	struct call slow_calls[SLOW_CALLS];
};

/* Shared by the test and its processes. */
struct run {
	int writers_left;
	int writers_syncing;	/* in fdatasync() */
	/*
	 * The dd variant: the reader streams (sequential CHUNK reads)
	 * and the writers leave their data to writeback, without the fsync
	 * whose writes could be seeky and rightly cut async slices short.
	 */
	bool streaming;
	pid_t reader;			/* its pid, also once reaped */
	struct worker w[WRITERS + 1];	/* the writers, then the reader */
};

/* The scheduler's share of the lockout bounds, in ms (see HOST_SLACK). */
struct sched_waits;
/* The scheduler's waits on a disk; -1 if its tunables cannot be read. */
typedef int (*waits_fn)(const char *disk, struct sched_waits *waits);

struct sched_waits {
	double writer;		/* a write() waits for writeback's turn */
	double reader;		/* a read waits for its turn */
	double alone_read;	/* the reader's mean read, disk to itself */
};

struct sysctl_value {
	const char *name;
	const char *value;	/* for the test */
	char saved[32];
};

FIXTURE(writers) {
	char disk[IOSCHED_NAME_LEN];
	char initial[IOSCHED_NAME_LEN];
	char dev[PATH_MAX];
	unsigned long long bytes;
	struct run *run;
	struct sysctl_value sysctls[3];
	bool hung_detector;
	int kmsg;
	struct iosched_trace trace;	/* the streaming test's, if any */
	struct iosched_stall_probe probe;	/* while the workers run */
};

static void sysctl_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, HUNG_SYSCTL "%s", name);
}

/* What the streaming test's steps work on. */
struct streaming_test {
	const char *disk;
	const char *dev;
	unsigned long long bytes;
	struct run *run;
	struct iosched_trace *trace;	/* of mq-as's vetoes */
};

/*
 * The scheduler under test: its waits (see HOST_SLACK), what it must show
 * of the shares it gave, and how it is set up for, and must have served,
 * a streaming reader.
 */
FIXTURE_VARIANT(writers) {
	const char *scheduler;
	waits_fn waits;
	void (*check_shares)(struct __test_metadata *_metadata,
			     const char *disk);
	void (*prepare_streaming)(struct __test_metadata *_metadata,
				  struct streaming_test *t);
	void (*check_streaming)(struct __test_metadata *_metadata,
				struct streaming_test *t);
};

FIXTURE_SETUP(writers)
{
	const struct sysctl_value sysctls[] = {
		{ .name = "timeout_secs", .value = XSTR(HUNG_TIMEOUT_S) },
		{ .name = "check_interval_secs", .value = "1" },
		{ .name = "warnings", .value = "-1" },	/* no limit */
	};
	const char *why;
	char path[PATH_MAX];
	unsigned int i;
	int fd, ret;

	self->kmsg = -1;
	ret = iosched_test_disk(self->disk, sizeof(self->disk), self->initial,
				variant->scheduler, &why);
	ASSERT_LE(0, ret) TH_LOG("%s", why);
	if (!ret)
		SKIP(return, "%s", why);

	snprintf(self->dev, sizeof(self->dev), "/dev/%s", self->disk);
	fd = open(self->dev, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("cannot open %s", self->dev);
	ASSERT_EQ(0, ioctl(fd, BLKGETSIZE64, &self->bytes));
	close(fd);
	ASSERT_LE(READER_START + (64ULL << 20), self->bytes)
		TH_LOG("%s is too small for the writers and the reader",
		       self->dev);

	ASSERT_EQ(0, iosched_select(self->disk, "none"));
	ASSERT_EQ(0, iosched_select(self->disk, variant->scheduler));

	self->run = mmap(NULL, sizeof(*self->run), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->run);
	memset(self->run, 0, sizeof(*self->run));
	self->run->writers_left = WRITERS;

	memcpy(self->sysctls, sysctls, sizeof(sysctls));
	sysctl_path(path, sizeof(path), sysctls[0].name);
	self->hung_detector = !access(path, F_OK);
	if (!self->hung_detector)
		return;
	for (i = 0; i < ARRAY_SIZE(sysctls); i++) {
		struct sysctl_value *s = &self->sysctls[i];

		sysctl_path(path, sizeof(path), s->name);
		ASSERT_EQ(0, iosched_read_attr(path, s->saved, sizeof(s->saved)));
		ASSERT_EQ(0, iosched_write_str(path, s->value))
			TH_LOG("cannot set %s to %s", path, s->value);
	}
	/* Only records from now on. */
	self->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->kmsg);
	ASSERT_LE(0, lseek(self->kmsg, 0, SEEK_END));
}

FIXTURE_TEARDOWN(writers)
{
	char path[PATH_MAX];
	unsigned int i;
	int ret;

	iosched_stall_probe_release(&self->probe);

	if (self->run && self->run != MAP_FAILED) {
		for (i = 0; i <= WRITERS; i++) {
			pid_t pid = self->run->w[i].pid;

			if (pid > 0) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
			}
		}
		munmap(self->run, sizeof(*self->run));
	}
	for (i = 0; i < ARRAY_SIZE(self->sysctls); i++) {
		if (!self->sysctls[i].saved[0])
			continue;
		sysctl_path(path, sizeof(path), self->sysctls[i].name);
		iosched_write_str(path, self->sysctls[i].saved);
	}
	if (self->kmsg >= 0)
		close(self->kmsg);
	ret = iosched_trace_remove(&self->trace);
	if (ret)
		TH_LOG("cannot remove trace instance %s: %s", self->trace.dir,
		       strerror(-ret));
	iosched_select(self->disk, "none");
	if (self->initial[0])
		iosched_select(self->disk, self->initial);
}

static void note_duration(struct run *run, struct worker *w, double start)
{
	double now = cfq_now(), t = now - start;

	if (t > w->longest) {
		w->longest = t;
		w->longest_end = now;
		w->syncing_at_longest = __atomic_load_n(&run->writers_syncing,
							__ATOMIC_RELAXED);
	}
	if (t >= w->slow_s && w->slow < SLOW_CALLS) {
		w->slow_calls[w->slow++] = (struct call){ start, now };
	} else if (t >= w->slow_s) {
		w->slow_lost++;
		w->slow_lost_longest = cfq_larger(w->slow_lost_longest, t);
	}
	w->in_calls += t;
	w->calls++;
}

/* fdatasync(@fd), counted in writers_syncing meanwhile; 0 or -1. */
static int synced_data(struct run *run, int fd)
{
	int ret;

	__atomic_add_fetch(&run->writers_syncing, 1, __ATOMIC_RELAXED);
	ret = fdatasync(fd);
	__atomic_sub_fetch(&run->writers_syncing, 1, __ATOMIC_RELAXED);
	return ret;
}

/* Writer @i: WRITER_MIB MiB at its own offset through the page cache. */
static void writer_main(struct run *run, const char *dev, int i)
{
	struct worker *w = &run->w[i];
	off_t base = (off_t)i * WRITER_MIB << 20;
	double start = cfq_now(), t;
	char *buf;
	int fd, c;

	buf = malloc(CHUNK);
	fd = open(dev, O_WRONLY);
	if (!buf || fd < 0)
		goto fail;
	memset(buf, 'a' + i, CHUNK);
	for (c = 0; c < WRITER_MIB; c++) {
		t = cfq_now();
		if (pwrite(fd, buf, CHUNK, base + (off_t)c * CHUNK) != CHUNK)
			goto fail;
		note_duration(run, w, t);
	}
	if (!run->streaming && synced_data(run, fd))
		goto fail;
	w->seconds = cfq_now() - start;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&run->writers_left, 1, __ATOMIC_RELEASE);
	_exit(0);
fail:
	w->error = errno ?: EIO;
	__atomic_sub_fetch(&run->writers_left, 1, __ATOMIC_RELEASE);
	_exit(1);
}

/* The reader's next offset: random blocks, or a sequential sweep. */
static off_t reader_offset(const struct run *run, unsigned long long bytes,
			   unsigned int *seed, int n)
{
	unsigned long long span = bytes - READER_START;

	if (run->streaming)
		return READER_START +
		       (off_t)n * CHUNK % (span / CHUNK * CHUNK);
	return READER_START + (off_t)(rand_r(seed) % (span / BLOCK)) * BLOCK;
}

/* The reader's read number @n into @buf; 0 or -1 with errno set. */
static int reader_read(const struct run *run, int fd, void *buf,
		       unsigned long long bytes, unsigned int *seed, int n)
{
	size_t len = run->streaming ? CHUNK : BLOCK;
	off_t off = reader_offset(run, bytes, seed, n);
	ssize_t done = pread(fd, buf, len, off);

	if (done == (ssize_t)len)
		return 0;
	if (done >= 0)
		errno = EIO;
	return -1;
}

/*
 * The reader: O_DIRECT reads behind the writers' regions until the
 * writers are done (or gone: the test stops waiting for them).
 */
static void reader_main(struct run *run, const char *dev,
			unsigned long long bytes)
{
	struct worker *w = &run->w[WRITERS];
	unsigned int seed = getpid();
	double start = cfq_now(), t;
	void *buf;
	int fd, n;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, BLOCK, CHUNK))
		goto fail;
	for (n = 0;
	     n < MIN_READS || __atomic_load_n(&run->writers_left, __ATOMIC_ACQUIRE);
	     n++) {
		t = cfq_now();
		if (reader_read(run, fd, buf, bytes, &seed, n))
			goto fail;
		note_duration(run, w, t);
	}
	w->seconds = cfq_now() - start;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	_exit(0);
fail:
	w->error = errno ?: EIO;
	_exit(1);
}

/* The reader's mean read in ms with the disk to itself; -1: it failed. */
static double alone_read_ms(const struct run *run, const char *dev,
			    unsigned long long bytes)
{
	unsigned int seed = 1;
	double start, ms = -1;
	void *buf = NULL;
	int fd, n;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, BLOCK, CHUNK))
		goto out;
	start = cfq_now();
	for (n = 0; n < ALONE_READS; n++)
		if (reader_read(run, fd, buf, bytes, &seed, n))
			goto out;
	ms = (cfq_now() - start) * 1e3 / ALONE_READS;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return ms;
}

/*
 * Reap the workers that are gone until @deadline, or until none is left;
 * returns how many of them ended well.
 */
static int reap_workers(struct worker *w, double deadline)
{
	int i, left = WRITERS + 1, ended_well = 0, status;

	while (left && cfq_now() < deadline) {
		left = 0;
		for (i = 0; i <= WRITERS; i++) {
			if (w[i].pid <= 0)
				continue;
			switch (waitpid(w[i].pid, &status, WNOHANG)) {
			case 0:
				left++;
				continue;
			case -1:	/* not ours to wait for: gone */
				status = -1;
				break;
			}
			w[i].pid = 0;
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				ended_well++;
		}
		if (left)
			cfq_sleep(0.1);
	}
	return ended_well;
}

/*
 * Wait for every worker until @deadline; returns how many finished.  A
 * worker that is not done by then is killed, and waited for a while, so
 * that its record no longer changes while it is checked; one that is
 * done, but not gone (closing the disk can take a while), finished.
 */
static int wait_workers(struct __test_metadata *_metadata, struct worker *w,
			double deadline)
{
	int i, finished = reap_workers(w, deadline);

	for (i = 0; i <= WRITERS; i++) {
		if (w[i].pid <= 0)
			continue;
		if (__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
			finished++;
		else
			kill(w[i].pid, SIGKILL);
	}
	reap_workers(w, cfq_now() + STRAGGLERS_S);
	for (i = 0; i <= WRITERS; i++)
		if (w[i].pid > 0 && !__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
			TH_LOG("worker %d is there %d s after SIGKILL: its record may change",
			       i, STRAGGLERS_S);
	return finished;
}

/* Count kernel log records since setup that report a blocked task. */
static int hung_reports(struct __test_metadata *_metadata, int kmsg)
{
	char rec[1024];
	int found = 0;
	ssize_t n;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, "blocked for more than")) {
			const char *msg = strchr(rec, ';');

			TH_LOG("kernel: %s", msg ? msg + 1 : rec);
			found++;
		}
	}
	return found;
}

/* Open debugfs file sched/@name of @disk; NULL if it cannot be. */
static FILE *open_sched_file(const char *disk, const char *name)
{
	char path[PATH_MAX];

	iosched_mount_debugfs();
	snprintf(path, sizeof(path), IOSCHED_DEBUGFS "/block/%s/sched/%s",
		 disk, name);
	return fopen(path, "r");
}

/*
 * The slices of @kind ("sync" or "async") that mq-cfq has ended since it
 * was selected, for @reason or (NULL) any, from its debugfs "slices";
 * -1 if the file cannot be read.
 */
static long long slices_ended(const char *disk, const char *kind,
			      const char *reason)
{
	unsigned long long slices, used_ms, dispatched;
	FILE *f = open_sched_file(disk, "slices");
	long long total = 0;
	char k[8], r[16];

	if (!f)
		return -1;
	while (fscanf(f, "%7s %15s slices %llu used_ms %llu dispatched %llu",
		      k, r, &slices, &used_ms, &dispatched) == 5)
		if (!strcmp(k, kind) && (!reason || !strcmp(r, reason)))
			total += slices;
	fclose(f);
	return total;
}

/*
 * The number on line "@name <number>" of mq-as's debugfs file @file
 * ("antic": how often anticipation ended or was not started for a
 * reason; "batch": the batch's state); -1 if it cannot be read.
 */
static long long as_debugfs_value(const char *disk, const char *file,
				  const char *name)
{
	FILE *f = open_sched_file(disk, file);
	unsigned long long value;
	long long found = -1;
	char line[64], n[32];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %llu", n, &value) == 2 &&
		    !strcmp(n, name))
			found = value;
	fclose(f);
	return found;
}

static long long antic_count(const char *disk, const char *reason)
{
	return as_debugfs_value(disk, "antic", reason);
}

/* The mean call of workers @first to @last, in ms (0: no calls). */
static double mean_call_ms(const struct worker *w, int first, int last)
{
	double in_calls = 0;
	long calls = 0;
	int i;

	for (i = first; i <= last; i++) {
		in_calls += w[i].in_calls;
		calls += w[i].calls;
	}
	return calls ? in_calls * 1e3 / calls : 0;
}

/* mq-cfq's waits on @disk; -1 if its tunables cannot be read. */
static int cfq_waits(const char *disk, struct sched_waits *waits)
{
	double fifo_async = cfq_tunable_ms(disk, "fifo_expire_async");
	double fifo_sync = cfq_tunable_ms(disk, "fifo_expire_sync");
	double slice_sync = cfq_tunable_ms(disk, "slice_sync");
	double slice_async = cfq_tunable_ms(disk, "slice_async");
	double slice_idle = cfq_tunable_ms(disk, "slice_idle");
	double group_idle = cfq_tunable_ms(disk, "group_idle");
	/* The last seeky reader is idled for group_idle, others slice_idle. */
	double idle = cfq_larger(slice_idle, group_idle);
	double turn = cfq_larger(cfq_larger(slice_sync, slice_async),
				 cfq_larger(fifo_sync, 2 * slice_idle));

	if (fifo_async < 0 || fifo_sync < 0 || slice_sync < 0 ||
	    slice_async < 0 || slice_idle < 0 || group_idle < 0)
		return -1;
	waits->writer = fifo_async + slice_sync + idle;
	waits->reader = fifo_sync + (WRITERS + 1) * turn + idle;
	return 0;
}

/* mq-as's waits on @disk; -1 if its tunables cannot be read. */
static int as_waits(const char *disk, struct sched_waits *waits)
{
	double read_expire = cfq_tunable_ms(disk, "read_expire");
	double read_batch = cfq_tunable_ms(disk, "read_batch_expire");
	double write_batch = cfq_tunable_ms(disk, "write_batch_expire");
	double antic = cfq_tunable_ms(disk, "antic_expire");

	if (read_expire < 0 || read_batch < 0 || write_batch < 0 || antic < 0)
		return -1;
	waits->writer = read_batch + antic;
	/* A late read waits for the next look at the deadlines, too. */
	waits->reader = write_batch + read_batch + 2 * read_expire + antic;
	return 0;
}

/*
 * The scheduler's waits on @disk and the reader's mean read alone,
 * before the workers start.  Returns -1 (with @why) if one cannot be had.
 */
static int sched_waits(waits_fn scheduler_waits, const struct run *run,
		       const char *disk, const char *dev,
		       unsigned long long bytes, struct sched_waits *waits,
		       const char **why)
{
	*why = "cannot read the tunables of the scheduler";
	if (scheduler_waits(disk, waits))
		return -1;
	waits->alone_read = alone_read_ms(run, dev, bytes);
	*why = "the reader's reads fail with the disk to itself";
	return waits->alone_read < 0 ? -1 : 0;
}

/*
 * The longest a single call may take, in ms, for the writers (@writer)
 * and for the reader, in the scheduler's terms (see HOST_SLACK).
 */
static void lockout_bounds(const struct sched_waits *waits,
			   const struct worker *w, double *writer,
			   double *reader)
{
	double write_ms = mean_call_ms(w, 0, WRITERS - 1);

	*writer = HOST_SLACK * (waits->writer + STEADY_CALLS * write_ms);
	*reader = HOST_SLACK * (waits->reader + write_ms +
				DRAIN_CALLS * waits->alone_read);
}

/*
 * How long no CPU ran a SCHED_FIFO task during call @c, in ms (see
 * iosched_stall_all_cpus()), at most @cap; -1 if that is not known.
 */
static double call_stall_ms(const struct iosched_stall_probe *probe,
			    const struct call *c, double cap)
{
	long long stalled_ns = iosched_stall_all_cpus(probe, c->start * 1e9,
						      c->end * 1e9);

	if (stalled_ns < 0)
		return -1;
	return stalled_ns / 1e6 < cap ? stalled_ns / 1e6 : cap;
}

/*
 * Check each of @w's slow calls against @bound_ms plus the time in it in
 * which no CPU ran a SCHED_FIFO task, at most half the bound: time in
 * which, mostly, the host did not run the guest.  Returns how many calls
 * broke it; logs the first, and how many passed only by that time.
 */
static int calls_locked_out(struct __test_metadata *_metadata,
			    const struct iosched_stall_probe *probe,
			    const struct worker *w, const char *what, int i,
			    double bound_ms)
{
	int k, over = 0, credited = 0;
	double most_credited_ms = 0;
	char stalls[32];

	for (k = 0; k < w->slow; k++) {
		const struct call *c = &w->slow_calls[k];
		double ms = (c->end - c->start) * 1e3;
		double stalled_ms;

		if (ms <= bound_ms)
			continue;
		stalled_ms = call_stall_ms(probe, c, bound_ms / 2);
		if (stalled_ms >= 0 && ms <= bound_ms + stalled_ms) {
			credited++;
			most_credited_ms = cfq_larger(most_credited_ms,
						      stalled_ms);
			continue;
		}
		if (over++)
			continue;
		if (stalled_ms < 0)
			snprintf(stalls, sizeof(stalls), "unknown");
		else
			snprintf(stalls, sizeof(stalls), "%.0f ms", stalled_ms);
		TH_LOG("%s %d: locked out %.0f ms in a call (bound %.0f ms, CPU stalls %s)",
		       what, i, ms, bound_ms, stalls);
	}
	if (credited)
		TH_LOG("%s %d: %d calls over the bound passed on CPU stalls, of at most %.0f ms",
		       what, i, credited, most_credited_ms);
	if (w->slow_lost_longest * 1e3 > bound_ms) {
		TH_LOG("%s %d: locked out %.0f ms in a call not kept (%d slow calls)",
		       what, i, w->slow_lost_longest * 1e3, w->slow + w->slow_lost);
		over++;
	}
	return over;
}

/* When @w's slowest call ended, and whether writers were syncing then. */
static void log_slowest_call(struct __test_metadata *_metadata,
			     const struct run *run, const struct worker *w,
			     double start, const char *what, int i)
{
	if (!w->calls)
		return;
	if (run->streaming)
		TH_LOG("%s %d: the slowest call ended at %.1f s", what, i,
		       w->longest_end - start);
	else
		TH_LOG("%s %d: the slowest call ended at %.1f s, in fdatasync(): %d of the writers",
		       what, i, w->longest_end - start, w->syncing_at_longest);
}

/*
 * Start the writers and the reader on @dev of @bytes, wait for them and
 * check that each finished without being locked out.
 */
static void run_workers(struct __test_metadata *_metadata,
			waits_fn scheduler_waits, struct run *run,
			struct iosched_stall_probe *probe, const char *disk,
			const char *dev, unsigned long long bytes)
{
	double start, writer_ms, reader_ms;
	struct sched_waits waits;
	const char *why;
	char stall[IOSCHED_STALL_LINE];
	int i, finished;
	pid_t pid;

	ASSERT_EQ(0, sched_waits(scheduler_waits, run, disk, dev, bytes, &waits,
				 &why))
		TH_LOG("%s on %s", why, disk);
	for (i = 0; i <= WRITERS; i++)
		run->w[i].slow_s = HOST_SLACK *
			(i < WRITERS ? waits.writer : waits.reader) / 1e3;
	iosched_stall_probe_start(probe);
	start = cfq_now();
	for (i = 0; i <= WRITERS; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (i < WRITERS)
				writer_main(run, dev, i);
			reader_main(run, dev, bytes);
		}
		run->w[i].pid = pid;	/* only the parent writes it */
	}
	run->reader = run->w[WRITERS].pid;
	finished = wait_workers(_metadata, run->w, start + FINISH_S);
	iosched_stall_probe_stop(probe, stall, sizeof(stall));
	lockout_bounds(&waits, run->w, &writer_ms, &reader_ms);
	TH_LOG("lockout bounds: a write() %.0f ms, a read %.0f ms (alone %.1f ms)",
	       writer_ms, reader_ms, waits.alone_read);
	TH_LOG("%s", stall);

	for (i = 0; i <= WRITERS; i++) {
		struct worker *w = &run->w[i];
		const char *what = i < WRITERS ? "writer" : "reader";
		double bound_ms = i < WRITERS ? writer_ms : reader_ms;

		if (w->done)
			TH_LOG("%s %d: %.1f s, %ld calls, mean %.1f ms, slowest %.0f ms",
			       what, i, w->seconds, w->calls,
			       mean_call_ms(run->w, i, i), w->longest * 1e3);
		else
			TH_LOG("%s %d did not finish: %s", what, i,
			       w->error ? strerror(w->error) : "timed out");
		log_slowest_call(_metadata, run, w, start, what, i);
		EXPECT_EQ(0, calls_locked_out(_metadata, probe, w, what, i,
					      bound_ms));
	}
	iosched_stall_probe_free(probe);
	EXPECT_EQ(WRITERS + 1, finished)
		TH_LOG("%d of %d processes finished within %d s", finished,
		       WRITERS + 1, FINISH_S);
}

/* mq-cfq gave slices to sync queues and to background writeback. */
static void cfq_check_shares(struct __test_metadata *_metadata,
			     const char *disk)
{
	long long sync_slices = slices_ended(disk, "sync", NULL);
	long long async_slices = slices_ended(disk, "async", NULL);

	EXPECT_LE(0, sync_slices)
		TH_LOG("cannot read mq-cfq's debugfs slices (CONFIG_BLK_DEBUG_FS)");
	TH_LOG("slices given: %lld sync, %lld async", sync_slices,
	       async_slices);
	EXPECT_LT(0, sync_slices)
		TH_LOG("no sync queue (the reader, fsync) was given a slice");
	EXPECT_LT(0, async_slices)
		TH_LOG("background writeback was never given a slice");
}

/* What mq-as's anticipation did, for the log. */
static void as_check_shares(struct __test_metadata *_metadata,
			    const char *disk)
{
	EXPECT_LE(0, antic_count(disk, "timeout"))
		TH_LOG("cannot read mq-as's debugfs antic (CONFIG_BLK_DEBUG_FS)");
	TH_LOG("waits ended by the read: %lld, by the window: %lld",
	       antic_count(disk, "arrived"), antic_count(disk, "timeout"));
	TH_LOG("  by a close request: %lld, its process's exit: %lld, a bypass: %lld",
	       antic_count(disk, "close"), antic_count(disk, "exited"),
	       antic_count(disk, "bypass"));
	TH_LOG("waits not started: %lld (think time), %lld (seek)",
	       antic_count(disk, "thinks"), antic_count(disk, "seeks"));
	TH_LOG("  %lld (next request queued), %lld (tags), %lld (near)",
	       antic_count(disk, "queued"), antic_count(disk, "tags"),
	       antic_count(disk, "near"));
	TH_LOG("a write batch's count at the end: %lld requests",
	       as_debugfs_value(disk, "batch", "write_batch_count"));
	TH_LOG("waits for writeback's next write: %lld, it came in %lld",
	       antic_count(disk, "writeback_waits"),
	       antic_count(disk, "writeback_arrived"));
}

/*
 * Only a seeky reader may cut an async slice short; a streaming one waits
 * for the slice to end (the writer's share next to dd, as in the 2009
 * thread).  The test disks are fast, so the reader's deadline is made the
 * shortest there is: any async slice it could cut, it would.
 */
static void cfq_prepare_streaming(struct __test_metadata *_metadata,
				  struct streaming_test *t)
{
	char path[PATH_MAX];

	iosched_tunable_path(t->disk, "fifo_expire_sync", path,
			     sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, "1"));
}

static void cfq_check_streaming(struct __test_metadata *_metadata,
				struct streaming_test *t)
{
	long long async_slices = slices_ended(t->disk, "async", NULL);
	long long overdue = slices_ended(t->disk, "async", "overdue");

	ASSERT_LE(0, async_slices)
		TH_LOG("cannot read mq-cfq's debugfs slices (CONFIG_BLK_DEBUG_FS)");
	TH_LOG("async slices: %lld, %lld of them cut short as overdue",
	       async_slices, overdue);
	EXPECT_LT(0, async_slices)
		TH_LOG("background writeback was never given a slice");
	EXPECT_EQ(0, overdue)
		TH_LOG("the streaming reader cut async slices short");
}

/* The start of an mq_as_antic_veto line in the trace, from the event. */
#define VETO_FORMAT	" mq_as_antic_veto: %*u,%*u pid=%d think_ns=%llu " \
			"think_samples=%u window_ns=%llu"

/* Mean think times (ms) that mq-as weighed. */
struct think_range {
	long n;
	double min_ms;
	double max_ms;
	double sum_ms;
};

static void think_range_add(struct think_range *r, double ms)
{
	if (!r->n++ || ms < r->min_ms)
		r->min_ms = ms;
	r->max_ms = cfq_larger(r->max_ms, ms);
	r->sum_ms += ms;
}

/* mq-as's vetoes of anticipating one process, from the trace. */
struct as_vetoes {
	long others;		/* for any reason but its think time */
	struct think_range all;	/* its think time at any veto, measured */
	struct think_range at_thinks;	/* at its thinks vetoes */
	double window_ms;	/* the window, at the last veto */
	double last_think_ms;	/* its think time at its last veto, or 0 */
	long unparsed;		/* veto lines not understood */
};

/* Add up the vetoes of @pid in trace @f. */
static void as_count_vetoes(FILE *f, pid_t pid, struct as_vetoes *v)
{
	unsigned long long think_ns, window_ns;
	unsigned int samples;
	char line[512];
	const char *at;
	bool thinks;
	int p;

	memset(v, 0, sizeof(*v));
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, " mq_as_antic_veto: ");
		if (!at)
			continue;
		if (sscanf(at, VETO_FORMAT, &p, &think_ns, &samples,
			   &window_ns) != 4) {
			v->unparsed++;
			continue;
		}
		if (p != pid)
			continue;
		v->window_ms = window_ns / 1e6;
		thinks = strstr(at, " reason=thinks");
		v->others += !thinks;
		if (!samples)	/* no think time measured yet */
			continue;
		v->last_think_ms = think_ns / 1e6;
		think_range_add(&v->all, v->last_think_ms);
		if (thinks)
			think_range_add(&v->at_thinks, v->last_think_ms);
	}
}

/* Say what @r of @what was. */
static void log_think_range(struct __test_metadata *_metadata,
			    const char *what, const struct think_range *r)
{
	if (r->n)
		TH_LOG("  its mean think time %s: %.1f to %.1f ms, %.1f on average",
		       what, r->min_ms, r->max_ms, r->sum_ms / r->n);
}

/* The vetoes of @pid in the test's trace so far; -1 if there is none. */
static int as_traced_vetoes(struct streaming_test *t, pid_t pid,
			    struct as_vetoes *v)
{
	FILE *f = iosched_trace_open(t->trace);

	if (!f)
		return -1;
	as_count_vetoes(f, pid, v);
	fclose(f);
	return 0;
}

/*
 * The window for the streaming reader, in ms: STREAMING_THINKS times the
 * mean think time, as mq-as measures it, of the test's own streaming
 * reads of @t's disk alone, and at least mq-as's default @window, at
 * most STREAMING_WINDOW_MAX_MS.  mq-as waits only for a process that
 * thinks less than the window, and a guest's reader thinks longer than a
 * real machine's: on the debug kernel under TCG, at the default of 6 ms,
 * one sata run waited for the reader 0 times and another 427 times.  The
 * wait is the mechanism under test, not the default window, which stays
 * on a guest fast enough for it.  0 if the think time is not measured.
 */
static unsigned int as_streaming_window(struct __test_metadata *_metadata,
					struct streaming_test *t,
					unsigned int window)
{
	struct as_vetoes v;
	unsigned int needed;

	if (!t->trace->made)
		return 0;
	if (alone_read_ms(t->run, t->dev, t->bytes) < 0 ||
	    as_traced_vetoes(t, getpid(), &v) || !v.all.n) {
		TH_LOG("the reads alone gave no think time: the window stays");
		return 0;
	}
	if (STREAMING_THINKS * v.last_think_ms >= STREAMING_WINDOW_MAX_MS) {
		TH_LOG("streaming reads alone think %.1f ms: the window is cut to %d ms",
		       v.last_think_ms, STREAMING_WINDOW_MAX_MS);
		needed = STREAMING_WINDOW_MAX_MS;
	} else {
		/* Rounded up, as antic_expire is in whole ms. */
		needed = STREAMING_THINKS * v.last_think_ms + 1;
	}
	if (needed < window)
		needed = window;
	TH_LOG("streaming reads alone think %.1f ms: a window of %u ms",
	       v.last_think_ms, needed);
	TH_LOG("  which adds %u ms to the lockout bounds",
	       HOST_SLACK * (needed - window));
	return needed;
}

/* Trace mq-as's vetoes on the disk under test: see as_log_reader_vetoes(). */
static void as_trace_vetoes(struct __test_metadata *_metadata,
			    struct streaming_test *t)
{
	static const struct iosched_event veto = {
		"mq_as", "mq_as_antic_veto"
	};
	char name[64];

	if (!iosched_tracefs()) {
		TH_LOG("no trace of mq-as's vetoes: no tracefs (CONFIG_FTRACE)");
		return;
	}
	snprintf(name, sizeof(name), TRACE_PREFIX "%s", t->disk);
	/*
	 * A run killed on its timeout leaves its instance: take it back.  The
	 * disk under test is this run's alone (mq_cfq_starve, whose instance
	 * goes with a null_blk disk another run may hold, skips instead).
	 */
	if (iosched_trace_exists(t->trace, name))
		rmdir(t->trace->dir);
	if (iosched_trace_start(t->trace, name, t->disk, &veto, 1))
		TH_LOG("no trace of mq-as's vetoes: %s", strerror(errno));
}

/*
 * mq-as waits only on a disk it takes for one spindle; the test's disk
 * may be flash, or measured as several units: say it is one.  Its window
 * is set for the reader (as_streaming_window()).
 */
static void as_prepare_streaming(struct __test_metadata *_metadata,
				 struct streaming_test *t)
{
	char path[PATH_MAX], value[16];
	double window;

	iosched_tunable_path(t->disk, "antic_nonrot", path, sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, "1"));
	iosched_tunable_path(t->disk, "spindles", path, sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, "1"));
	as_trace_vetoes(_metadata, t);
	window = cfq_tunable_ms(t->disk, "antic_expire");
	ASSERT_LT(0, window);
	window = as_streaming_window(_metadata, t, window);
	if (!window)
		return;
	snprintf(value, sizeof(value), "%.0f", window);
	iosched_tunable_path(t->disk, "antic_expire", path, sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, value));
}

/* What kept mq-as from waiting for the reader, for the log. */
static void as_log_reader_vetoes(struct __test_metadata *_metadata,
				 struct streaming_test *t)
{
	struct as_vetoes v;

	if (iosched_trace_stop(t->trace) ||
	    as_traced_vetoes(t, t->run->reader, &v)) {
		TH_LOG("mq-as's vetoes not traced");
		return;
	}
	TH_LOG("the reader's vetoes: %ld for its think time, %ld for other reasons; window %.0f ms",
	       v.at_thinks.n, v.others, v.window_ms);
	log_think_range(_metadata, "at all of them", &v.all);
	log_think_range(_metadata, "at the think-time ones", &v.at_thinks);
	if (v.unparsed || iosched_trace_overruns(t->trace))
		TH_LOG("  the trace lost events, or had %ld it could not read",
		       v.unparsed);
}

/* A streaming reader sends its next read in time: mq-as waited for it. */
static void as_check_streaming(struct __test_metadata *_metadata,
			       struct streaming_test *t)
{
	long long arrived = antic_count(t->disk, "arrived");

	as_check_shares(_metadata, t->disk);
	as_log_reader_vetoes(_metadata, t);
	ASSERT_LE(0, arrived)
		TH_LOG("cannot read mq-as's debugfs antic (CONFIG_BLK_DEBUG_FS)");
	EXPECT_LT(0, arrived)
		TH_LOG("mq-as never waited for the streaming reader's next read");
}

FIXTURE_VARIANT_ADD(writers, mq_cfq) {
	.scheduler = "mq-cfq",
	.waits = cfq_waits,
	.check_shares = cfq_check_shares,
	.prepare_streaming = cfq_prepare_streaming,
	.check_streaming = cfq_check_streaming,
};

FIXTURE_VARIANT_ADD(writers, mq_as) {
	.scheduler = "mq-as",
	.waits = as_waits,
	.check_shares = as_check_shares,
	.prepare_streaming = as_prepare_streaming,
	.check_streaming = as_check_streaming,
};

/*
 * The hung-task detector reported no task blocked since the setup; a
 * skip without it, unless the test failed already (a skip would hide
 * that).
 */
static void expect_no_blocked_tasks(struct __test_metadata *_metadata,
				    bool hung_detector, int kmsg)
{
	if (!hung_detector) {
		if (_metadata->exit_code != KSFT_FAIL)
			SKIP(return,
			     "no hung-task detector (CONFIG_DETECT_HUNG_TASK) to check");
		return;
	}
	/* Leave the detector a check after the last process finished. */
	cfq_sleep(2);
	EXPECT_EQ(0, hung_reports(_metadata, kmsg))
		TH_LOG("the hung-task detector reported blocked tasks");
}

/*
 * Beyond FINISH_S: reaping, the reads alone, the trace, the last sync;
 * the four tests' timeouts stay under the runner's (settings: 2000 s).
 */
#define TEST_EXTRA_S	(STRAGGLERS_S + 35)

TEST_F_TIMEOUT(writers, writers_and_reader_finish, FINISH_S + TEST_EXTRA_S)
{
	run_workers(_metadata, variant->waits, self->run, &self->probe,
		    self->disk, self->dev, self->bytes);
	variant->check_shares(_metadata, self->disk);
	expect_no_blocked_tasks(_metadata, self->hung_detector, self->kmsg);
}

/* A streaming reader beside writers that leave their data to writeback. */
TEST_F_TIMEOUT(writers, streaming_reader, FINISH_S + TEST_EXTRA_S)
{
	struct streaming_test t = {
		.disk = self->disk, .dev = self->dev, .bytes = self->bytes,
		.run = self->run, .trace = &self->trace,
	};
	int hold;

	self->run->streaming = true;
	variant->prepare_streaming(_metadata, &t);
	/*
	 * The last close of the disk writes its dirty pages back from the
	 * closing process (sync_blockdev()): seeky sync writes, which may
	 * cut async slices.  Keep it open until the counts are read.
	 */
	hold = open(self->dev, O_RDONLY);
	ASSERT_LE(0, hold);
	run_workers(_metadata, variant->waits, self->run, &self->probe,
		    self->disk, self->dev, self->bytes);
	variant->check_streaming(_metadata, &t);
	close(hold);
	expect_no_blocked_tasks(_metadata, self->hung_detector, self->kmsg);
}

TEST_HARNESS_MAIN
