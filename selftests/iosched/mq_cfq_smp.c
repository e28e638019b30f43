// SPDX-License-Identifier: GPL-2.0
/*
 * Readers on different CPUs under mq-cfq: does each get its share?
 *
 * One reader per CPU, pinned to it (at least MIN_CPUS), reads its own
 * region of a rotational null_blk disk sequentially, 4 KiB at a time with
 * O_DIRECT and two reads in flight, so that mq-cfq idles for each when
 * both are back and gives each a slice in turn.  Requests are then
 * inserted on one CPU while the scheduler dispatches, idles or completes
 * on another, or in an interrupt on the same one.  Over RUN_S, every
 * reader must complete at least 1 / SHARE_DIVISOR of the mean reader's
 * reads: a fair share is the mean, and the divisor leaves room for a slow
 * host.
 *
 * What it guards against: time charged wrongly across CPUs.  A clock read
 * before the scheduler's lock is older than one its holder read under it;
 * subtracted as unsigned, the difference wraps, and the reader is charged
 * about 10^11 slices of virtual time, so it is not served again while the
 * others read.  mq-cfq reads its clocks under the lock and saturates the
 * differences.  The race is narrow: on a 2-core TCG host this test did
 * not catch the old code in 10 s (KUnit's out-of-order stamps do).
 */
#define _GNU_SOURCE
#include <linux/aio_abi.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "mq_cfq.h"

#define MIN_CPUS	4
#define MAX_READERS	64
#define BLOCK		4096
#define DEPTH		2		/* reads in flight per reader */
#define REGION		(64ULL << 20)
#define RUN_S		10
#define SHARE_DIVISOR	3
/* Each request takes SERVICE_NS. */
#define SERVICE_NS	"500000"

#define DISK_NAME	"cfqsmp"
#define QUEUE_DIR	"/sys/block/" DISK_NAME "/queue"

struct readers {
	int stop;			/* set by the test: readers end */
	int failed[MAX_READERS];	/* errno of a reader's failed call */
	long reads[MAX_READERS];
	pid_t pids[MAX_READERS];
};

FIXTURE(smp) {
	struct readers *run;
	unsigned int nr;		/* readers, one per CPU */
	int cpus[MAX_READERS];
	bool disk_made;
};

/* The CPUs this process may run on, at most MAX_READERS; -1: unknown. */
static int allowed_cpus(int *cpus)
{
	int nr = 0, cpu;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && nr < MAX_READERS; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[nr++] = cpu;
	return nr;
}

FIXTURE_SETUP(smp)
{
	int nr = allowed_cpus(self->cpus);

	ASSERT_LE(0, nr) TH_LOG("sched_getaffinity: %s", strerror(errno));
	self->nr = nr;
	if (self->nr < MIN_CPUS)
		SKIP(return, "%u CPUs: the readers need %d (qemu -smp %d)",
		     self->nr, MIN_CPUS, MIN_CPUS);
	if (!iosched_nullb_available())
		SKIP(return, "no null_blk in configfs (CONFIG_BLK_DEV_NULL_BLK)");
	self->run = mmap(NULL, sizeof(*self->run), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->run);
	memset(self->run, 0, sizeof(*self->run));
}

FIXTURE_TEARDOWN(smp)
{
	unsigned int i;

	if (self->run && self->run != MAP_FAILED) {
		for (i = 0; i < self->nr; i++) {
			if (self->run->pids[i] > 0) {
				kill(self->run->pids[i], SIGKILL);
				waitpid(self->run->pids[i], NULL, 0);
			}
		}
		munmap(self->run, sizeof(*self->run));
	}
	if (self->disk_made)
		iosched_nullb_remove(DISK_NAME);
}

/*
 * The disk: each request done SERVICE_NS after it was issued (a timer),
 * a few at a time, marked rotational, under mq-cfq with its defaults
 * (idling on).  Big enough for a region per reader.
 */
static int make_disk(unsigned int readers, bool *made)
{
	char size_mib[16];
	const char *const settings[][2] = {
		{ "size", size_mib }, { "blocksize", "4096" },
		{ "submit_queues", "1" }, { "hw_queue_depth", "4" },
		{ "irqmode", "2" }, { "completion_nsec", SERVICE_NS },
	};

	snprintf(size_mib, sizeof(size_mib), "%llu",
		 readers * REGION >> 20);
	if (iosched_nullb_make(DISK_NAME, settings, ARRAY_SIZE(settings),
			       made) ||
	    iosched_write_in(QUEUE_DIR, "rotational", "1"))
		return -1;
	return iosched_select(DISK_NAME, CFQ_NAME);
}

/*
 * Reader @i, on CPU @cpu: sequential O_DIRECT reads round its region,
 * DEPTH of them in flight (native AIO, so that they are all this task's).
 * One completes while the other is still on the disk, whose completion,
 * on whatever CPU, may start mq-cfq's idling just as the reader inserts
 * its next read.
 */
static void reader_main(struct readers *run, unsigned int i, int cpu)
{
	struct iocb iocbs[DEPTH], *ptrs[DEPTH];
	struct io_event events[DEPTH];
	unsigned long long off = 0;
	aio_context_t ctx = 0;
	long n, k;
	cpu_set_t set;
	char *bufs;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	fd = open("/dev/" DISK_NAME, O_RDONLY | O_DIRECT);
	if (sched_setaffinity(0, sizeof(set), &set) || fd < 0 ||
	    posix_memalign((void **)&bufs, BLOCK, DEPTH * BLOCK) ||
	    syscall(__NR_io_setup, DEPTH, &ctx))
		goto failed;
	memset(iocbs, 0, sizeof(iocbs));
	for (k = 0; k < DEPTH; k++) {
		iocbs[k].aio_fildes = fd;
		iocbs[k].aio_lio_opcode = IOCB_CMD_PREAD;
		iocbs[k].aio_buf = (unsigned long)(bufs + k * BLOCK);
		iocbs[k].aio_nbytes = BLOCK;
		ptrs[k] = &iocbs[k];
	}
	n = DEPTH;
	while (!__atomic_load_n(&run->stop, __ATOMIC_ACQUIRE)) {
		for (k = 0; k < n; k++) {
			ptrs[k]->aio_offset = i * REGION + off;
			off = (off + BLOCK) % REGION;
		}
		if (syscall(__NR_io_submit, ctx, n, ptrs) != n)
			goto failed;
		n = syscall(__NR_io_getevents, ctx, 1, DEPTH, events, NULL);
		if (n < 1)
			goto failed;
		for (k = 0; k < n; k++) {
			if (events[k].res != BLOCK) {
				errno = events[k].res < 0 ? -events[k].res : EIO;
				goto failed;
			}
			ptrs[k] = (struct iocb *)(unsigned long)events[k].obj;
		}
		__atomic_add_fetch(&run->reads[i], n, __ATOMIC_RELAXED);
	}
	_exit(0);
failed:
	__atomic_store_n(&run->failed[i], errno ?: EIO, __ATOMIC_RELEASE);
	_exit(1);
}

TEST_F_TIMEOUT(smp, every_reader_gets_its_share, RUN_S + 60)
{
	struct readers *run = self->run;
	long total = 0, least = -1;
	unsigned int i;

	ASSERT_EQ(0, make_disk(self->nr, &self->disk_made)) {
		TH_LOG("cannot make the null_blk disk %s under mq-cfq: %s",
		       DISK_NAME, strerror(errno));
	}
	for (i = 0; i < self->nr; i++) {
		/* Not fork() into run->pids[i]: the child shares that page. */
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid)
			reader_main(run, i, self->cpus[i]);
		run->pids[i] = pid;
	}
	cfq_sleep(RUN_S);
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < self->nr; i++) {
		int status;

		ASSERT_EQ(run->pids[i], waitpid(run->pids[i], &status, 0));
		run->pids[i] = 0;
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("reader %u failed: %s", i,
			       strerror(__atomic_load_n(&run->failed[i],
							__ATOMIC_ACQUIRE)));
		}
	}

	for (i = 0; i < self->nr; i++) {
		TH_LOG("reader %u on CPU %d: %ld reads", i, self->cpus[i],
		       run->reads[i]);
		total += run->reads[i];
		if (least < 0 || run->reads[i] < least)
			least = run->reads[i];
	}
	ASSERT_GT(total, 0);
	/* least >= mean / SHARE_DIVISOR, in whole numbers */
	EXPECT_GE(least * SHARE_DIVISOR * (long)self->nr, total) {
		TH_LOG("a reader completed %ld reads, under 1/%d of the mean %ld",
		       least, SHARE_DIVISOR, total / (long)self->nr);
	}
}

TEST_HARNESS_MAIN
