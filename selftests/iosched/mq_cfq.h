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
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/*
 * How late a SCHED_FIFO task's sleep of CFQ_STALL_PERIOD_NS ended, at
 * worst, while a test ran: the time its vCPU was not run by the host
 * (TCG, other guests), or ran interrupts or kernel code that did not let
 * it in.  Only logged, next to bounds that a slow host may exceed: it is
 * what one vCPU lost at worst, once, not what any one interval lost (on
 * a debug kernel it read 74 to 896 ms in runs of minutes).
 */
#define CFQ_STALL_PERIOD_NS	5000000

struct cfq_stall_probe {
	pid_t pid;
	int start_err;			/* -errno: no probe runs */
	long long *longest_ns;		/* shared with the child */
};

static inline long long cfq_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void cfq_stall_probe_main(long long *longest_ns, pid_t parent)
{
	const struct timespec period = { .tv_nsec = CFQ_STALL_PERIOD_NS };
	long long before, late;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* it died before prctl() */
		_exit(1);
	/* Sleeps before the parent made it SCHED_FIFO would not count. */
	while (sched_getscheduler(0) != SCHED_FIFO)
		nanosleep(&period, NULL);
	for (;;) {
		before = cfq_now_ns();
		nanosleep(&period, NULL);
		late = cfq_now_ns() - before - CFQ_STALL_PERIOD_NS;
		if (late > __atomic_load_n(longest_ns, __ATOMIC_RELAXED))
			__atomic_store_n(longest_ns, late, __ATOMIC_RELAXED);
	}
}

/*
 * Start measuring.  A probe that cannot run at SCHED_FIFO is not an error
 * of the test: cfq_stall_probe_stop() says so instead of a figure.
 */
static inline void cfq_stall_probe_start(struct cfq_stall_probe *probe)
{
	struct sched_param param = { .sched_priority = 1 };
	pid_t parent = getpid();

	probe->start_err = 0;
	probe->pid = -1;
	probe->longest_ns = mmap(NULL, sizeof(*probe->longest_ns),
				 PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (probe->longest_ns == MAP_FAILED) {
		probe->start_err = -errno;
		return;
	}
	*probe->longest_ns = 0;
	probe->pid = fork();
	if (!probe->pid)
		cfq_stall_probe_main(probe->longest_ns, parent);
	if (probe->pid < 0 ||
	    sched_setscheduler(probe->pid, SCHED_FIFO, &param)) {
		probe->start_err = -errno;
		if (probe->pid > 0) {
			kill(probe->pid, SIGKILL);
			waitpid(probe->pid, NULL, 0);
		}
		munmap(probe->longest_ns, sizeof(*probe->longest_ns));
	}
}

/*
 * Stop the probe and say in @buf, for the log, how late its sleep ended
 * at worst, or why there is no figure: it did not start, or it ended
 * before (killed) and saw only part of the run.  Returns @buf.
 */
static inline const char *cfq_stall_probe_stop(struct cfq_stall_probe *probe,
					       char *buf, size_t len)
{
	bool ended;

	if (probe->start_err) {
		snprintf(buf, len, "a SCHED_FIFO sleeper's lateness not measured: %s",
			 strerror(-probe->start_err));
		return buf;
	}
	ended = waitpid(probe->pid, NULL, WNOHANG) == probe->pid;
	if (!ended) {
		kill(probe->pid, SIGKILL);
		waitpid(probe->pid, NULL, 0);
	}
	if (ended)
		snprintf(buf, len, "a SCHED_FIFO sleeper's lateness: it ended early");
	else
		snprintf(buf, len, "a SCHED_FIFO sleeper woke at worst %.1f ms late",
			 *probe->longest_ns / 1e6);
	munmap(probe->longest_ns, sizeof(*probe->longest_ns));
	return buf;
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
