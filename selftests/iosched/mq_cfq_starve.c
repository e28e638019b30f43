// SPDX-License-Identifier: GPL-2.0
/*
 * Writeback beside many random readers under mq-cfq: is its wait bounded?
 *
 * READERS processes read random 4 KiB blocks with O_DIRECT while one
 * process writes through the page cache and leaves its data to background
 * writeback (async requests, one queue for all of them).  fifo_expire_sync
 * is set to 1 ms, so that every read is due as soon as it is queued: that
 * is a host so slow, or a disk so busy, that reads always wait past their
 * deadline, which is where a scheduler that serves due reads first could
 * keep writeback out for as long as the readers read.  The disk takes one
 * request at a time (its SCSI queue_depth is set to 1, as a disk without
 * command queueing has), so that reads wait in the scheduler rather than
 * on the device.
 *
 * mq-cfq promises that an async queue that had requests waiting and
 * dispatched none for fifo_expire_async is served next: so from the block
 * tracepoints, the longest time that async writes waited with no async
 * write dispatched must stay within, in the scheduler's own terms,
 *
 *	fifo_expire_async + slice_sync + slice_idle	(the starvation
 *	    threshold, then the rest of a reader's slice and its idle window)
 *	+ (READERS + QUANTUM_SLACK) * mean read service time	(the slice
 *	    starts at its first completion: the reads on the device drain)
 *	+ TIMER_SLACK_MS	(deadlines are kept in jiffies)
 *
 * The service time is measured in the same run, so a slow host makes the
 * bound as much longer as it makes the device.
 *
 * Environment: IOSCHED_DISK, the disk under test (e.g. "sda").
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/fs.h>

#include "../kselftest_harness.h"
#include "mq_cfq.h"

#define READERS		24
#define BLOCK		4096
#define CHUNK		(1024 * 1024)
/* The writer's region, at the start of the disk; the readers read after it. */
#define WRITER_MIB	256
#define READER_START	((unsigned long long)WRITER_MIB << 20)
/* How long the readers and the writer run together. */
#define RUN_S		8
#define FINISH_S	240
/* Requests beyond one per reader that may be on the device. */
#define QUANTUM_SLACK	8
#define TIMER_SLACK_MS	10.0
/* Dirty memory small enough that writeback runs all along. */
#define DIRTY_BYTES		"33554432"
#define DIRTY_BACKGROUND_BYTES	"4194304"

#define TRACEFS		"/sys/kernel/tracing"
#define INSTANCE	TRACEFS "/instances/mq_cfq_starve"
#define VM_SYSCTL	"/proc/sys/vm/"

struct run {
	int stop;			/* set by the test: readers and writer end */
	int failed;			/* errno of a worker's failed call */
	long reads;
	long writes;			/* MiB written */
	pid_t pids[READERS + 1];	/* the readers, then the writer */
};

/* vm sysctls set for the test, restored after it. */
static const char *const dirty_sysctls[] = {
	"dirty_bytes", "dirty_background_bytes",
	"dirty_ratio", "dirty_background_ratio",
};

FIXTURE(starve) {
	char disk[CFQ_NAME_LEN];
	char initial[CFQ_NAME_LEN];
	char dev[PATH_MAX];
	unsigned long long bytes;
	unsigned int devt;		/* the kernel's dev_t, for the filter */
	struct run *run;
	char saved[ARRAY_SIZE(dirty_sysctls)][32];
	char depth_path[PATH_MAX];
	char saved_depth[16];
	bool instance;
};

static int write_file(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return iosched_write_str(path, val);
}

/* The disk's "major:minor" as the kernel's dev_t (MKDEV). */
static int disk_devt(const char *disk, unsigned int *devt)
{
	unsigned int major, minor;
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), "/sys/block/%s/dev", disk);
	if (iosched_read_attr(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", &major, &minor) != 2)
		return -1;
	*devt = major << 20 | minor;
	return 0;
}

/* A trace instance of our own with the request events of @devt only. */
static int trace_setup(unsigned int devt)
{
	static const char *const events[] = {
		"block_rq_insert", "block_rq_issue", "block_rq_complete",
	};
	char filter[32], dir[PATH_MAX];
	unsigned int i;

	if (access(TRACEFS "/instances", F_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (mkdir(INSTANCE, 0700) && errno != EEXIST)
		return -1;
	/* CLOCK_MONOTONIC, as cfq_now() reads it. */
	if (write_file(INSTANCE, "trace_clock", "mono") ||
	    write_file(INSTANCE, "buffer_size_kb", "16384"))
		return -1;
	snprintf(filter, sizeof(filter), "dev == %u", devt);
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		snprintf(dir, sizeof(dir), INSTANCE "/events/block/%s",
			 events[i]);
		if (write_file(dir, "filter", filter) ||
		    write_file(dir, "enable", "1"))
			return -1;
	}
	return write_file(INSTANCE, "tracing_on", "1");
}

FIXTURE_SETUP(starve)
{
	char path[PATH_MAX];
	const char *why;
	unsigned int i;
	int fd, ret;

	ret = cfq_test_disk(self->disk, sizeof(self->disk), self->initial, &why);
	ASSERT_LE(0, ret) TH_LOG("%s", why);
	if (!ret)
		SKIP(return, "%s", why);
	snprintf(self->dev, sizeof(self->dev), "/dev/%s", self->disk);
	fd = open(self->dev, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("cannot open %s", self->dev);
	ASSERT_EQ(0, ioctl(fd, BLKGETSIZE64, &self->bytes));
	close(fd);
	ASSERT_LE(READER_START + (64ULL << 20), self->bytes)
		TH_LOG("%s is too small for the writer and the readers",
		       self->dev);
	ASSERT_EQ(0, disk_devt(self->disk, &self->devt));

	snprintf(self->depth_path, sizeof(self->depth_path),
		 "/sys/block/%s/device/queue_depth", self->disk);
	if (iosched_read_attr(self->depth_path, self->saved_depth,
			      sizeof(self->saved_depth)))
		SKIP(return, "%s has no SCSI queue_depth to set to 1", self->disk);
	if (iosched_write_str(self->depth_path, "1")) {
		self->saved_depth[0] = '\0';
		SKIP(return, "%s refuses a queue_depth of 1", self->disk);
	}

	ASSERT_EQ(0, iosched_select(self->disk, "none"));
	ASSERT_EQ(0, iosched_select(self->disk, CFQ_NAME));
	iosched_tunable_path(self->disk, "fifo_expire_sync", path, sizeof(path));
	ASSERT_EQ(0, iosched_write_str(path, "1"));

	for (i = 0; i < ARRAY_SIZE(dirty_sysctls); i++) {
		snprintf(path, sizeof(path), VM_SYSCTL "%s", dirty_sysctls[i]);
		ASSERT_EQ(0, iosched_read_attr(path, self->saved[i],
					       sizeof(self->saved[i])));
	}
	ASSERT_EQ(0, write_file(VM_SYSCTL, "dirty_bytes", DIRTY_BYTES));
	ASSERT_EQ(0, write_file(VM_SYSCTL, "dirty_background_bytes",
				DIRTY_BACKGROUND_BYTES));

	self->run = mmap(NULL, sizeof(*self->run), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->run);
	memset(self->run, 0, sizeof(*self->run));

	self->instance = true;
	ASSERT_EQ(0, trace_setup(self->devt))
		TH_LOG("cannot trace the block request events (CONFIG_FTRACE, tracefs)");
}

FIXTURE_TEARDOWN(starve)
{
	unsigned int i;

	if (self->run && self->run != MAP_FAILED) {
		for (i = 0; i <= READERS; i++) {
			if (self->run->pids[i] > 0) {
				kill(self->run->pids[i], SIGKILL);
				waitpid(self->run->pids[i], NULL, 0);
			}
		}
		munmap(self->run, sizeof(*self->run));
	}
	if (self->instance)
		rmdir(INSTANCE);
	/*
	 * A ratio and its bytes exclude each other: writing one clears the
	 * other, so restore the one that was set.
	 */
	for (i = 0; i < ARRAY_SIZE(dirty_sysctls); i++)
		if (self->saved[i][0] && strcmp(self->saved[i], "0"))
			write_file(VM_SYSCTL, dirty_sysctls[i], self->saved[i]);
	if (self->saved_depth[0])
		iosched_write_str(self->depth_path, self->saved_depth);
	iosched_select(self->disk, "none");
	if (self->initial[0])
		iosched_select(self->disk, self->initial);
}

static bool stopped(struct run *run)
{
	return __atomic_load_n(&run->stop, __ATOMIC_ACQUIRE);
}

static void worker_failed(struct run *run)
{
	__atomic_store_n(&run->failed, errno ?: EIO, __ATOMIC_RELEASE);
	_exit(1);
}

/* Reader: random O_DIRECT 4 KiB reads behind the writer's region. */
static void reader_main(struct run *run, const char *dev,
			unsigned long long bytes)
{
	unsigned long long blocks = (bytes - READER_START) / BLOCK;
	unsigned int seed = getpid();
	void *buf;
	int fd;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, BLOCK, BLOCK))
		worker_failed(run);
	while (!stopped(run)) {
		off_t off = READER_START + (off_t)(rand_r(&seed) % blocks) * BLOCK;

		if (pread(fd, buf, BLOCK, off) != BLOCK)
			worker_failed(run);
		__atomic_add_fetch(&run->reads, 1, __ATOMIC_RELAXED);
	}
	_exit(0);
}

/* Writer: 1 MiB writes through the page cache, round its region. */
static void writer_main(struct run *run, const char *dev)
{
	char *buf = malloc(CHUNK);
	long c;
	int fd;

	fd = open(dev, O_WRONLY);
	if (fd < 0 || !buf)
		worker_failed(run);
	memset(buf, 'w', CHUNK);
	for (c = 0; !stopped(run); c++) {
		if (pwrite(fd, buf, CHUNK, c % WRITER_MIB * CHUNK) != CHUNK)
			worker_failed(run);
		__atomic_add_fetch(&run->writes, 1, __ATOMIC_RELAXED);
	}
	_exit(0);
}

static pid_t start_worker(struct run *run, const char *dev,
			  unsigned long long bytes, bool writer)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (writer)
		writer_main(run, dev);
	reader_main(run, dev, bytes);
	return 0;
}

/* Wait for every worker until @deadline; returns how many exited with 0. */
static int wait_workers(struct run *run, double deadline)
{
	int i, left = READERS + 1, ok = 0, status;

	while (left && cfq_now() < deadline) {
		for (i = 0; i <= READERS; i++) {
			if (run->pids[i] <= 0 ||
			    waitpid(run->pids[i], &status, WNOHANG) != run->pids[i])
				continue;
			run->pids[i] = 0;
			left--;
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				ok++;
		}
		cfq_sleep(0.05);
	}
	return ok;
}

/* One request event of the trace. */
struct rq_event {
	double t;
	enum { EV_INSERT, EV_ISSUE, EV_COMPLETE } kind;
	bool async_write;		/* a write without REQ_SYNC (writeback) */
	bool read;
	unsigned long long sector;
	unsigned int sectors;
};

/*
 * Parse one request event line of the trace, e.g. (one line)
 *   "kworker/u8:1-40 [000] ..... 12.345678: block_rq_issue: 8,0 W 4096 ()
 *    2048 + 8 be,0,4 [kworker/u8:1]".
 * Returns false for anything else.
 */
static bool parse_event(const char *line, struct rq_event *ev)
{
	static const char *const names[] = {
		[EV_INSERT] = ": block_rq_insert: ",
		[EV_ISSUE] = ": block_rq_issue: ",
		[EV_COMPLETE] = ": block_rq_complete: ",
	};
	const char *at = NULL, *stamp, *p;
	unsigned int major, minor, k;
	char rwbs[16];

	for (k = 0; k < ARRAY_SIZE(names) && !at; k++) {
		at = strstr(line, names[k]);
		ev->kind = k;
	}
	if (!at)
		return false;
	for (stamp = at; stamp > line && stamp[-1] != ' '; stamp--)
		;
	ev->t = strtod(stamp, NULL);
	p = at + strlen(names[ev->kind]);
	if (sscanf(p, "%u,%u %15s", &major, &minor, rwbs) != 3)
		return false;
	/* The command (empty for file system requests) ends with ") ". */
	p = strstr(p, ") ");
	if (!p || sscanf(p + 2, "%llu + %u", &ev->sector, &ev->sectors) != 2)
		return false;
	ev->read = strchr(rwbs, 'R');
	ev->async_write = strchr(rwbs, 'W') && !strchr(rwbs, 'S') &&
			  !strchr(rwbs, 'F');
	return true;
}

/* Async writes waiting in the scheduler, by sector, inserted not issued. */
struct pending {
	unsigned long long sector[4096];
	unsigned int nr;
};

static void pending_add(struct pending *w, unsigned long long sector)
{
	if (w->nr < ARRAY_SIZE(w->sector))
		w->sector[w->nr++] = sector;
}

/* Drop those within an issued request: itself, and any merged into it. */
static void pending_issued(struct pending *w, const struct rq_event *ev)
{
	unsigned int i = 0;

	while (i < w->nr) {
		if (w->sector[i] >= ev->sector &&
		    w->sector[i] < ev->sector + ev->sectors)
			w->sector[i] = w->sector[--w->nr];
		else
			i++;
	}
}

/* What the trace says about the run, until @end. */
struct trace_summary {
	double longest_async_wait;	/* writes waiting, none dispatched */
	double longest_wait_at;
	long async_issued;
	double read_service_sum;
	long read_services;
	long events;
};

/* Issue times of reads on the device, by sector, for their service time. */
struct reads_out {
	unsigned long long sector[256];
	double t[256];
	unsigned int nr;
};

static void read_issued(struct reads_out *r, const struct rq_event *ev)
{
	if (r->nr < ARRAY_SIZE(r->sector)) {
		r->sector[r->nr] = ev->sector;
		r->t[r->nr++] = ev->t;
	}
}

static void read_completed(struct reads_out *r, const struct rq_event *ev,
			   struct trace_summary *s)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++) {
		if (r->sector[i] != ev->sector)
			continue;
		s->read_service_sum += ev->t - r->t[i];
		s->read_services++;
		r->nr--;
		r->sector[i] = r->sector[r->nr];
		r->t[i] = r->t[r->nr];
		return;
	}
}

static double later(double a, double b)
{
	return a > b ? a : b;
}

/*
 * The longest stretch, from @start to @end, in which async writes were
 * queued in the scheduler and none was dispatched.
 */
static int summarize_trace(FILE *f, double start, double end,
			   struct trace_summary *s)
{
	static struct pending waiting;
	static struct reads_out reads;
	double since = 0;	/* async writes waiting, none issued, since */
	struct rq_event ev;
	char line[512];

	memset(s, 0, sizeof(*s));
	waiting.nr = 0;
	reads.nr = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!parse_event(line, &ev) || ev.t > end)
			continue;
		s->events++;
		if (ev.read && ev.kind == EV_ISSUE)
			read_issued(&reads, &ev);
		else if (ev.read && ev.kind == EV_COMPLETE)
			read_completed(&reads, &ev, s);
		if (!ev.async_write)
			continue;
		if (ev.kind == EV_INSERT) {
			if (!waiting.nr)
				since = ev.t;
			pending_add(&waiting, ev.sector);
		} else if (ev.kind == EV_ISSUE) {
			if (waiting.nr && ev.t - later(since, start) >
					  s->longest_async_wait &&
			    ev.t > start) {
				s->longest_async_wait = ev.t - later(since, start);
				s->longest_wait_at = ev.t - start;
			}
			pending_issued(&waiting, &ev);
			since = ev.t;
			s->async_issued += ev.t > start;
		}
	}
	/* Still waiting when the run ended. */
	if (waiting.nr && end - later(since, start) > s->longest_async_wait) {
		s->longest_async_wait = end - later(since, start);
		s->longest_wait_at = end - start;
	}
	return s->events ? 0 : -1;
}

static double tunable_ms(const char *disk, const char *name)
{
	char path[PATH_MAX], buf[32];

	iosched_tunable_path(disk, name, path, sizeof(path));
	if (iosched_read_attr(path, buf, sizeof(buf)))
		return -1;
	return strtod(buf, NULL);
}

/* Whether the trace buffers lost events: then the trace proves nothing. */
static long long trace_overruns(void)
{
	char path[PATH_MAX], line[128];
	long long total = 0, n;
	int cpu;
	FILE *f;

	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), INSTANCE "/per_cpu/cpu%d/stats",
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

TEST_F_TIMEOUT(starve, writeback_waits_within_its_bound, FINISH_S + 60)
{
	double fifo_async = tunable_ms(self->disk, "fifo_expire_async");
	double slice_sync = tunable_ms(self->disk, "slice_sync");
	double slice_idle = tunable_ms(self->disk, "slice_idle");
	struct run *run = self->run;
	struct trace_summary s;
	double start, end, service_ms, bound_ms;
	int i, ok;
	FILE *f;

	ASSERT_LE(0, fifo_async);
	ASSERT_LE(0, slice_sync);
	ASSERT_LE(0, slice_idle);

	start = cfq_now();
	for (i = 0; i <= READERS; i++) {
		run->pids[i] = start_worker(run, self->dev, self->bytes,
					    i == READERS);
		ASSERT_LT(0, run->pids[i]);
	}
	cfq_sleep(RUN_S);
	end = cfq_now();
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	ok = wait_workers(run, end + FINISH_S);
	ASSERT_EQ(0, write_file(INSTANCE, "tracing_on", "0"));
	EXPECT_EQ(READERS + 1, ok)
		TH_LOG("%d of %d processes ended cleanly (%s)", ok,
		       READERS + 1, strerror(run->failed ?: ETIMEDOUT));

	ASSERT_EQ(0, trace_overruns())
		TH_LOG("the trace lost events: enlarge buffer_size_kb");
	f = fopen(INSTANCE "/trace", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, summarize_trace(f, start, end, &s))
		TH_LOG("no request events of %s in the trace", self->disk);
	fclose(f);
	ASSERT_LT(0, s.read_services)
		TH_LOG("no read was seen issued and completed");

	service_ms = s.read_service_sum / s.read_services * 1e3;
	bound_ms = fifo_async + slice_sync + slice_idle +
		   (READERS + QUANTUM_SLACK) * service_ms + TIMER_SLACK_MS;
	TH_LOG("%.0f s: %ld reads, %ld MiB written, %ld async writes dispatched",
	       end - start, run->reads, run->writes, s.async_issued);
	TH_LOG("read service %.2f ms; writeback waited at most %.0f ms, %.1f s into the run",
	       service_ms, s.longest_async_wait * 1e3, s.longest_wait_at);
	TH_LOG("bound: fifo_expire_async %.0f + slice_sync %.0f + slice_idle %.0f",
	       fifo_async, slice_sync, slice_idle);
	TH_LOG("       + %d reads of %.2f ms + %.0f = %.0f ms",
	       READERS + QUANTUM_SLACK, service_ms, TIMER_SLACK_MS, bound_ms);
	EXPECT_LT(0, s.async_issued)
		TH_LOG("background writeback was never dispatched");
	EXPECT_GE(bound_ms, s.longest_async_wait * 1e3)
		TH_LOG("writeback waited %.0f ms with no write dispatched",
		       s.longest_async_wait * 1e3);
}

TEST_HARNESS_MAIN
