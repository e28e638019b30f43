// SPDX-License-Identifier: GPL-2.0
/*
 * Writeback beside many random readers under mq-cfq: is its wait bounded?
 *
 * READERS processes read random 4 KiB blocks with O_DIRECT while one
 * process writes through the page cache and leaves its data to background
 * writeback (async requests, one queue for all of them).  The disk is a
 * null_blk device of its own that takes one request at a time and
 * completes each after SERVICE_NS, so reads wait in the scheduler, and
 * fifo_expire_sync is 1 ms: every read is due, as on a host so slow, or a
 * disk so busy, that reads always wait past their deadline.  A scheduler
 * that serves due reads first keeps writeback out there for as long as
 * the readers read.
 *
 * mq-cfq serves an async queue next once no async queue of its class was
 * served for fifo_expire_async (see cfq_async_starved()).  From the block
 * tracepoints, the longest time async writes waited in the scheduler with
 * no async write dispatched must stay within, in the scheduler's terms,
 *
 *	HOST_SLACK * (fifo_expire_async		the starvation threshold,
 *		      + slice_sync + idle	the slice running then,
 *		      + (READERS + QUANTUM_SLACK) * service)	its drain
 *
 * where service is the mean read service time measured in the same run
 * (so a slow host makes the bound as much longer as it makes the device)
 * and HOST_SLACK allows for a guest CPU slowed by its host.
 *
 * The readers must not be starved instead, and that is checked in what
 * the scheduler decides, from its tracepoints, whatever the host's speed:
 *  - starved turns happen, and one at least lasts to its slice's end
 *    (the test's premise, and what the next check needs);
 *  - each is granted at most max(fifo_expire_sync, 2 * slice_idle)
 *    (mq_cfq_slice_start's slice_ns);
 *  - at most quantum async writes are issued after a turn's slice: the
 *    policy's first call after the end expires the turn, and before that
 *    it kept at most quantum on the device or on the hardware queue's
 *    dispatch list (2 were seen; 60 with the expiry of starved turns
 *    taken out of mq-cfq);
 *  - one starved turn starts at least fifo_expire_async after the last
 *    one ended (half of it, for the lag of the trace's stamps).
 * Not checked: a turn that holds the device past its slice without
 * dispatching.  How long a turn lasts is only logged: it adds the host's
 * delays, and with three test runs on two host cores a turn granted
 * 16 ms lasted 104 ms.  So is how late SCHED_FIFO sleepers woke during
 * the run, at worst and all CPUs at once (see iosched_stall_probe_start()).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "iosched_stall.h"
#include "iosched_trace.h"
#include "mq_cfq.h"

#define READERS		24
#define BLOCK		4096
#define CHUNK		(1024 * 1024)
/* The null_blk disk: its size, and the time it takes for any request. */
#define DISK_MIB	1024
#define SERVICE_NS	"1000000"
#define NR_REQUESTS	"64"
/* The writer's region, at the start of the disk; the readers read after it. */
#define WRITER_MIB	256
#define READER_START	((unsigned long long)WRITER_MIB << 20)
/* How long the readers and the writer run together. */
#define RUN_S		8
#define FINISH_S	240
/* Requests beyond one per reader that may be on the device or due. */
#define QUANTUM_SLACK	8
#define HOST_SLACK	2
/* Dirty memory small enough that writeback runs all along. */
#define DIRTY_BYTES		"33554432"
#define DIRTY_BACKGROUND_BYTES	"4194304"

#define DISK_NAME	"cfqstarve"
#define QUEUE_DIR	"/sys/block/" DISK_NAME "/queue"
#define VM_SYSCTL	"/proc/sys/vm"
#define STR(x)		#x
#define XSTR(x)		STR(x)

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
	char dev[PATH_MAX];
	struct run *run;
	char saved[ARRAY_SIZE(dirty_sysctls)][32];
	bool sysctls_changed;
	bool disk_made;
	struct iosched_trace trace;	/* an instance named DISK_NAME */
	struct iosched_stall_probe probe;	/* while the workers run */
};

/*
 * Nothing is changed here: a failed ASSERT in a fixture's setup skips its
 * teardown.  What the test changes, it changes in its body.
 */
FIXTURE_SETUP(starve)
{
	char path[PATH_MAX];
	unsigned int i;

	if (!iosched_nullb_available())
		SKIP(return, "no null_blk in configfs (CONFIG_BLK_DEV_NULL_BLK)");
	if (!iosched_tracefs())
		SKIP(return, "no tracefs for the block events (CONFIG_FTRACE)");
	if (!access(IOSCHED_NULLB_DIR "/" DISK_NAME, F_OK) ||
	    iosched_trace_exists(&self->trace, DISK_NAME))
		SKIP(return, "%s is in use: another run, or one that crashed",
		     DISK_NAME);
	for (i = 0; i < ARRAY_SIZE(dirty_sysctls); i++) {
		snprintf(path, sizeof(path), VM_SYSCTL "/%s", dirty_sysctls[i]);
		ASSERT_EQ(0, iosched_read_attr(path, self->saved[i],
					       sizeof(self->saved[i])));
	}
	snprintf(self->dev, sizeof(self->dev), "/dev/" DISK_NAME);
	self->run = mmap(NULL, sizeof(*self->run), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->run);
	memset(self->run, 0, sizeof(*self->run));
}

/* Write back what the writer left dirty, so the next test does not. */
static void flush_disk(const char *dev)
{
	int fd = open(dev, O_WRONLY);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

FIXTURE_TEARDOWN(starve)
{
	unsigned int i;
	int ret;

	iosched_stall_probe_release(&self->probe);

	if (self->run && self->run != MAP_FAILED) {
		for (i = 0; i <= READERS; i++) {
			if (self->run->pids[i] > 0) {
				kill(self->run->pids[i], SIGKILL);
				waitpid(self->run->pids[i], NULL, 0);
			}
		}
		munmap(self->run, sizeof(*self->run));
	}
	ret = iosched_trace_remove(&self->trace);
	if (ret)
		TH_LOG("cannot remove trace instance %s: %s", self->trace.dir,
		       strerror(-ret));
	if (self->disk_made) {
		flush_disk(self->dev);
		iosched_nullb_remove(DISK_NAME);
	}
	/*
	 * A ratio and its bytes exclude each other: writing one clears the
	 * other, so restore the one that was set.
	 */
	if (self->sysctls_changed)
		for (i = 0; i < ARRAY_SIZE(dirty_sysctls); i++)
			if (strcmp(self->saved[i], "0"))
				iosched_write_in(VM_SYSCTL, dirty_sysctls[i],
						 self->saved[i]);
}

/*
 * The disk: one request at a time, each done SERVICE_NS after it was
 * issued (a timer), marked rotational, under mq-cfq with every read due
 * at once.  The scheduler keeps NR_REQUESTS tags, not the two that a
 * depth of one would leave it, so that requests wait in it.
 */
static int make_disk(bool *made)
{
	static const char *const settings[][2] = {
		{ "size", XSTR(DISK_MIB) }, { "blocksize", "4096" },
		{ "submit_queues", "1" }, { "hw_queue_depth", "1" },
		{ "irqmode", "2" }, { "completion_nsec", SERVICE_NS },
	};
	char path[PATH_MAX];

	if (iosched_nullb_make(DISK_NAME, settings, ARRAY_SIZE(settings),
			       made) ||
	    iosched_write_in(QUEUE_DIR, "rotational", "1") ||
	    iosched_select(DISK_NAME, CFQ_NAME) ||
	    iosched_write_in(QUEUE_DIR, "nr_requests", NR_REQUESTS))
		return -1;
	iosched_tunable_path(DISK_NAME, "fifo_expire_sync", path, sizeof(path));
	return iosched_write_str(path, "1");
}

/* The request events and mq-cfq's slices, for the trace of the disk. */
static const struct iosched_event trace_events[] = {
	{ "block", "block_rq_insert" }, { "block", "block_rq_issue" },
	{ "block", "block_rq_complete" },
	{ "mq_cfq", "mq_cfq_slice_start" },
	{ "mq_cfq", "mq_cfq_slice_expire" },
};

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
static void reader_main(struct run *run, const char *dev)
{
	unsigned long long blocks = ((DISK_MIB << 20) - READER_START) / BLOCK;
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

static pid_t start_worker(struct run *run, const char *dev, bool writer)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (writer)
		writer_main(run, dev);
	reader_main(run, dev);
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

/* The time stamp before the event name at @at of a trace @line. */
static double event_time(const char *line, const char *at)
{
	const char *stamp = at;

	while (stamp > line && stamp[-1] != ' ')
		stamp--;
	return strtod(stamp, NULL);
}

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
	const char *at = NULL, *p;
	unsigned int major, minor, k;
	char rwbs[16];

	for (k = 0; k < ARRAY_SIZE(names) && !at; k++) {
		at = strstr(line, names[k]);
		ev->kind = k;
	}
	if (!at)
		return false;
	ev->t = event_time(line, at);
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

/* Requests of one kind seen inserted (or issued), not yet issued (done). */
struct open_requests {
	unsigned long long sector[4096];
	double t[4096];
	unsigned int nr;
	bool full;			/* one was not recorded: no verdict */
};

static void open_add(struct open_requests *o, const struct rq_event *ev)
{
	if (o->nr == ARRAY_SIZE(o->sector)) {
		o->full = true;
		return;
	}
	o->sector[o->nr] = ev->sector;
	o->t[o->nr++] = ev->t;
}

static void open_drop(struct open_requests *o, unsigned int i)
{
	o->nr--;
	o->sector[i] = o->sector[o->nr];
	o->t[i] = o->t[o->nr];
}

/*
 * Close those within @ev's sectors (it, and any merged into it); returns
 * the earliest time one of them was opened, or @ev's time if none was.
 */
static double open_close(struct open_requests *o, const struct rq_event *ev)
{
	double first = ev->t;
	unsigned int i = 0;

	while (i < o->nr) {
		if (o->sector[i] >= ev->sector &&
		    o->sector[i] < ev->sector + ev->sectors) {
			if (o->t[i] < first)
				first = o->t[i];
			open_drop(o, i);
		} else {
			i++;
		}
	}
	return first;
}

/* What the trace says about the run. */
struct trace_summary {
	double longest_async_wait;	/* writes waiting, none dispatched */
	double longest_async_at;
	long async_issued;
	double longest_read_wait;	/* one read, inserted to issued */
	double read_service_sum;	/* issued to completed */
	long read_services;
	long starved_turns;
	double longest_starved_slice;	/* granted, at its slice_start */
	double longest_starved_turn;	/* first completion to expiry */
	int most_issued_late;		/* in a turn, after its slice ended */
	long turns_past_slice;		/* expired after their slice's end */
	double shortest_starved_gap;	/* from one's expiry to the next */
	bool incomplete;
	/* the starved turn the trace is in, if any, and the last one's end */
	bool in_starved_turn;
	double turn_slice_end;
	int turn_issued_late;
	double last_starved_end;
};

/* A stretch of async writes waiting with none dispatched ended at @t. */
static void async_wait_ended(struct trace_summary *s, double since,
			     double t, double start)
{
	double wait = t - cfq_larger(since, start);

	if (t > start && wait > s->longest_async_wait) {
		s->longest_async_wait = wait;
		s->longest_async_at = t - start;
	}
}

static void read_event(struct trace_summary *s, struct open_requests *queued,
		       struct open_requests *issued,
		       const struct rq_event *ev, double start)
{
	double first;

	switch (ev->kind) {
	case EV_INSERT:
		open_add(queued, ev);
		break;
	case EV_ISSUE:
		first = open_close(queued, ev);
		if (first >= start && ev->t - first > s->longest_read_wait)
			s->longest_read_wait = ev->t - first;
		open_add(issued, ev);
		break;
	case EV_COMPLETE:
		first = open_close(issued, ev);
		if (first < ev->t) {
			s->read_service_sum += ev->t - first;
			s->read_services++;
		}
		break;
	}
}

/*
 * A starved turn: the slice it is granted at its slice_start ("slice_ns=",
 * from its first request's completion) and its length, to its
 * slice_expire ("used_ns=").
 */
static void starved_turn_event(struct trace_summary *s, const char *line,
			       double start, double end)
{
	static const char used_field[] = " used_ns=";
	static const char granted_field[] = " slice_ns=";
	const char *used = strstr(line, used_field);
	const char *at = strstr(line, ": mq_cfq_slice_");
	const char *granted = strstr(line, granted_field);
	double t, slice;

	if (!at)
		return;
	t = event_time(line, at);
	if (t < start || t > end) {
		s->in_starved_turn = false;
	} else if (strstr(line, ": mq_cfq_slice_start: ")) {
		s->in_starved_turn = strstr(line, " turn=starved");
		if (!s->in_starved_turn)
			return;
		s->starved_turns++;
		/* A format without it: every turn fails the slice's check. */
		slice = granted ? strtod(granted + sizeof(granted_field) - 1,
					 NULL) / 1e9 : 1e9;
		s->turn_slice_end = t + slice;
		s->turn_issued_late = 0;
		s->longest_starved_slice = cfq_larger(s->longest_starved_slice,
						      slice);
		if (s->last_starved_end && t - s->last_starved_end <
					   s->shortest_starved_gap)
			s->shortest_starved_gap = t - s->last_starved_end;
	} else if (used && strstr(line, ": mq_cfq_slice_expire: ")) {
		if (s->in_starved_turn) {
			s->longest_starved_turn =
				cfq_larger(s->longest_starved_turn,
					   strtod(used + sizeof(used_field) - 1,
						  NULL) / 1e9);
			s->turns_past_slice += t > s->turn_slice_end;
			s->last_starved_end = t;
		}
		s->in_starved_turn = false;
	}
}

/*
 * An async write issued in a starved turn after its slice ended: one the
 * scheduler dispatched before the end, which waited for the device (it
 * takes one request at a time) on the hardware queue's dispatch list.
 */
static void starved_turn_issue(struct trace_summary *s,
			       const struct rq_event *ev)
{
	if (!s->in_starved_turn || ev->t <= s->turn_slice_end)
		return;
	s->turn_issued_late++;
	if (s->turn_issued_late > s->most_issued_late)
		s->most_issued_late = s->turn_issued_late;
}

/*
 * Read the trace from @start to @end: the longest stretch in which async
 * writes waited in the scheduler and none was dispatched, the longest a
 * read waited there, the mean read service time, and the starved turns
 * (see starved_turn_event() and starved_turn_issue()).
 */
static void summarize_trace(FILE *f, double start, double end,
			    struct trace_summary *s)
{
	static struct open_requests writes, reads, reads_out;
	double since = 0;	/* async writes waiting, none issued, since */
	struct rq_event ev;
	char line[512];

	memset(s, 0, sizeof(*s));
	s->shortest_starved_gap = 1e9;
	while (fgets(line, sizeof(line), f)) {
		starved_turn_event(s, line, start, end);
		if (!parse_event(line, &ev) || ev.t > end)
			continue;
		if (ev.read)
			read_event(s, &reads, &reads_out, &ev, start);
		if (!ev.async_write)
			continue;
		if (ev.kind == EV_INSERT) {
			if (!writes.nr)
				since = ev.t;
			open_add(&writes, &ev);
		} else if (ev.kind == EV_ISSUE) {
			starved_turn_issue(s, &ev);
			if (writes.nr)
				async_wait_ended(s, since, ev.t, start);
			open_close(&writes, &ev);
			since = ev.t;
			s->async_issued += ev.t > start;
		}
	}
	/* Still waiting when the run ended. */
	if (writes.nr)
		async_wait_ended(s, since, end, start);
	s->incomplete = writes.full || reads.full || reads_out.full;
}

/* Run the readers and the writer for RUN_S; returns when they started. */
static double run_workers(struct __test_metadata *_metadata, struct run *run,
			  const char *dev, double *end)
{
	double start = cfq_now();
	int i, ok;

	for (i = 0; i <= READERS; i++) {
		run->pids[i] = start_worker(run, dev, i == READERS);
		ASSERT_LT(0, run->pids[i]);
	}
	cfq_sleep(RUN_S);
	*end = cfq_now();
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	ok = wait_workers(run, *end + FINISH_S);
	EXPECT_EQ(READERS + 1, ok)
		TH_LOG("%d of %d processes ended cleanly (%s)", ok,
		       READERS + 1, strerror(run->failed ?: ETIMEDOUT));
	return start;
}

TEST_F_TIMEOUT(starve, writeback_waits_within_its_bound, FINISH_S + 60)
{
	double fifo_async, fifo_sync, slice_sync, slice_idle, idle;
	double service, drain, starved_slice, quantum;
	double start, end, async_bound;
	char stall[IOSCHED_STALL_LINE];
	struct trace_summary s;
	FILE *f;

	ASSERT_EQ(0, iosched_write_in(VM_SYSCTL, "dirty_bytes", DIRTY_BYTES));
	self->sysctls_changed = true;
	ASSERT_EQ(0, iosched_write_in(VM_SYSCTL, "dirty_background_bytes",
				      DIRTY_BACKGROUND_BYTES));
	ASSERT_EQ(0, make_disk(&self->disk_made))
		TH_LOG("cannot make the null_blk disk %s under %s: %s",
		       DISK_NAME, CFQ_NAME, strerror(errno));
	ASSERT_EQ(0, iosched_trace_start(&self->trace, DISK_NAME, DISK_NAME,
					 trace_events,
					 ARRAY_SIZE(trace_events)))
		TH_LOG("cannot trace the block request events: %s",
		       strerror(errno));
	fifo_async = cfq_tunable_ms(DISK_NAME, "fifo_expire_async");
	fifo_sync = cfq_tunable_ms(DISK_NAME, "fifo_expire_sync");
	slice_sync = cfq_tunable_ms(DISK_NAME, "slice_sync");
	/* The last seeky reader is idled for group_idle, others slice_idle. */
	slice_idle = cfq_tunable_ms(DISK_NAME, "slice_idle");
	quantum = cfq_tunable_ms(DISK_NAME, "quantum");
	idle = cfq_larger(slice_idle, cfq_tunable_ms(DISK_NAME, "group_idle"));
	ASSERT_LE(0, fifo_async);
	ASSERT_LE(0, fifo_sync);
	ASSERT_LE(0, slice_sync);
	ASSERT_LE(0, slice_idle);
	ASSERT_LE(0, quantum);
	ASSERT_LE(0, idle);

	iosched_stall_probe_start(&self->probe);
	start = run_workers(_metadata, self->run, self->dev, &end);
	iosched_stall_probe_stop(&self->probe, stall, sizeof(stall));
	iosched_stall_probe_free(&self->probe);
	ASSERT_EQ(0, iosched_trace_stop(&self->trace));
	ASSERT_EQ(0, iosched_trace_overruns(&self->trace))
		TH_LOG("the trace lost events: enlarge buffer_size_kb");
	f = iosched_trace_open(&self->trace);
	ASSERT_NE(NULL, f);
	summarize_trace(f, start, end, &s);
	fclose(f);
	ASSERT_FALSE(s.incomplete)
		TH_LOG("more requests open at once than the test can follow");
	ASSERT_LT(0, s.read_services)
		TH_LOG("no read was seen issued and completed");

	service = s.read_service_sum / s.read_services * 1e3;
	drain = (READERS + QUANTUM_SLACK) * service;
	async_bound = HOST_SLACK * (fifo_async + slice_sync + idle + drain);
	starved_slice = cfq_larger(fifo_sync, 2 * slice_idle);
	TH_LOG("%.0f s: %ld reads, %ld MiB written, %ld async writes dispatched",
	       end - start, self->run->reads, self->run->writes,
	       s.async_issued);
	TH_LOG("read service %.2f ms; a read waited at most %.0f ms", service,
	       s.longest_read_wait * 1e3);
	TH_LOG("%s", stall);
	TH_LOG("writeback waited at most %.0f ms, %.1f s into the run",
	       s.longest_async_wait * 1e3, s.longest_async_at);
	TH_LOG("  bound %d x (fifo_expire_async %.0f + slice_sync %.0f",
	       HOST_SLACK, fifo_async, slice_sync);
	TH_LOG("  + idle %.0f + %d reads) = %.0f ms", idle,
	       READERS + QUANTUM_SLACK, async_bound);
	TH_LOG("%ld starved turns, %ld to their slice's end, granted at most %.1f ms",
	       s.starved_turns, s.turns_past_slice,
	       s.longest_starved_slice * 1e3);
	TH_LOG("  bound max(fifo_expire_sync %.0f, 2 x slice_idle %.0f) = %.0f ms",
	       fifo_sync, slice_idle, starved_slice);
	TH_LOG("  the longest lasted %.1f ms", s.longest_starved_turn * 1e3);
	TH_LOG("  async writes issued after a turn's slice: at most %d (quantum %.0f)",
	       s.most_issued_late, quantum);
	if (s.starved_turns > 1)
		TH_LOG("  one came %.0f ms after the last at least (fifo_expire_async %.0f)",
		       s.shortest_starved_gap * 1e3, fifo_async);
	EXPECT_LT(0, s.async_issued)
		TH_LOG("background writeback was never dispatched");
	EXPECT_GE(async_bound, s.longest_async_wait * 1e3)
		TH_LOG("writeback waited %.0f ms with no write dispatched",
		       s.longest_async_wait * 1e3);
	EXPECT_LT(0, s.turns_past_slice)
		TH_LOG("no starved turn lasted to its slice's end: nothing to check");
	EXPECT_GE(starved_slice, s.longest_starved_slice * 1e3)
		TH_LOG("a starved turn was granted %.1f ms, more than %.0f ms",
		       s.longest_starved_slice * 1e3, starved_slice);
	EXPECT_GE(quantum, s.most_issued_late)
		TH_LOG("a starved turn went on past its slice: %d writes after it",
		       s.most_issued_late);
	EXPECT_GE(s.shortest_starved_gap * 1e3, fifo_async / 2)
		TH_LOG("starved turns %.0f ms apart", s.shortest_starved_gap * 1e3);
}

TEST_HARNESS_MAIN
