/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A measure of the time the guest's CPUs did not run the tests, for the
 * tests that bound how long a call may take: see the stall probes below.
 */
#ifndef IOSCHED_IOSCHED_STALL_H
#define IOSCHED_IOSCHED_STALL_H

#ifndef _GNU_SOURCE
#error "iosched_stall.h needs _GNU_SOURCE (CPU affinity)"
#endif

#include <errno.h>
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

/*
 * Stall probes: on each CPU the test may use, a SCHED_FIFO task pinned
 * there sleeps until a time IOSCHED_STALL_PERIOD_NS ahead and records every
 * sleep that ended more than IOSCHED_STALL_MIN_NS late as an episode, from
 * when it was due to when it woke.  A stretch of at least
 * IOSCHED_STALL_ALL_MIN_NS in which the sleepers of all CPUs were late at
 * once is time in which no CPU ran a SCHED_FIFO task: mostly the host not
 * running the guest's vCPUs (TCG, other guests, a loaded machine), but
 * also kernel code that kept every CPU from its sleeper at once, the
 * scheduler under test included.  So what it excuses is capped by its
 * users.
 */
#define IOSCHED_STALL_PERIOD_NS		5000000
#define IOSCHED_STALL_MIN_NS		2000000
#define IOSCHED_STALL_ALL_MIN_NS	10000000
#define IOSCHED_STALL_MAX_CPUS		8
/* Per CPU: 15 minutes late at every period fit (2 MiB; see writers.c). */
#define IOSCHED_STALL_EPISODES		131072
/* Enough for iosched_stall_probe_stop()'s line. */
#define IOSCHED_STALL_LINE		160

struct iosched_stall_episode {
	long long from_ns;	/* CLOCK_MONOTONIC, as mq_cfq.h's cfq_now() */
	long long to_ns;
};

/*
 * One CPU's sleeper's record, shared with it.  Its episodes never
 * overlap one another (a sleep starts after the last wake-up), which
 * iosched_stall_all_cpus() relies on.
 */
struct iosched_stall_cpu {
	long long latest_ns;		/* how late it woke at worst */
	long long lost_from_ns;		/* the first episode not kept, or 0 */
	unsigned int episodes;
	struct iosched_stall_episode ep[IOSCHED_STALL_EPISODES];
};

struct iosched_stall_probe {
	int start_err;			/* -errno: no probe runs */
	bool ended_early;		/* a sleeper died: no figure */
	int cpus;			/* probed, each with a sleeper */
	pid_t pids[IOSCHED_STALL_MAX_CPUS];	/* -1: reaped */
	struct iosched_stall_cpu *cpu;	/* mapped of them, shared */
	int mapped;
};

static inline long long iosched_stall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void iosched_stall_record(struct iosched_stall_cpu *c,
					long long due, long long woke)
{
	if (woke - due > c->latest_ns)
		c->latest_ns = woke - due;
	if (woke - due <= IOSCHED_STALL_MIN_NS)
		return;
	if (c->episodes == IOSCHED_STALL_EPISODES) {
		if (!c->lost_from_ns)
			c->lost_from_ns = due;
		return;
	}
	/* The parent reads the record once the sleepers are reaped. */
	c->ep[c->episodes].from_ns = due;
	c->ep[c->episodes].to_ns = woke;
	c->episodes++;
}

static inline void iosched_stall_probe_main(struct iosched_stall_cpu *c,
					    int cpu, pid_t parent)
{
	const struct timespec period = { .tv_nsec = IOSCHED_STALL_PERIOD_NS };
	struct timespec at;
	long long due;
	cpu_set_t set;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* it died before prctl() */
		_exit(1);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
	/* Sleeps before the parent made it SCHED_FIFO would not count. */
	while (sched_getscheduler(0) != SCHED_FIFO)
		nanosleep(&period, NULL);
	for (;;) {
		/* Due from now: a late wake-up does not shift the next. */
		due = iosched_stall_now_ns() + IOSCHED_STALL_PERIOD_NS;
		at.tv_sec = due / 1000000000LL;
		at.tv_nsec = due % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at,
				       NULL) == EINTR)
			;
		iosched_stall_record(c, due, iosched_stall_now_ns());
	}
}

/* Stop the sleepers that are still there; the record stays. */
static inline void iosched_stall_probe_kill(struct iosched_stall_probe *probe)
{
	int i;

	for (i = 0; i < probe->cpus; i++) {
		if (probe->pids[i] <= 0)
			continue;
		kill(probe->pids[i], SIGKILL);
		waitpid(probe->pids[i], NULL, 0);
		probe->pids[i] = -1;
	}
}

/* A sleeper for CPU @cpu, the next of @probe's. */
static inline int iosched_stall_probe_fork(struct iosched_stall_probe *probe,
					   int cpu)
{
	struct sched_param param = { .sched_priority = 1 };
	pid_t parent = getpid(), pid;

	pid = fork();
	if (!pid)
		iosched_stall_probe_main(&probe->cpu[probe->cpus], cpu, parent);
	if (pid < 0)
		return -errno;
	probe->pids[probe->cpus++] = pid;
	return sched_setscheduler(pid, SCHED_FIFO, &param) ? -errno : 0;
}

/*
 * Start a sleeper on each CPU the test may run on.  A probe that cannot
 * run is not an error of the test: iosched_stall_probe_stop() says so
 * instead of a figure, and no stall is known.
 */
static inline void iosched_stall_probe_start(struct iosched_stall_probe *probe)
{
	cpu_set_t allowed;
	int cpu, cpus;

	memset(probe, 0, sizeof(*probe));
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		probe->start_err = -errno;
		return;
	}
	cpus = CPU_COUNT(&allowed);
	if (cpus > IOSCHED_STALL_MAX_CPUS) {
		probe->start_err = -E2BIG;	/* more CPUs than it follows */
		return;
	}
	/* Zeroed, as anonymous memory comes. */
	probe->cpu = mmap(NULL, cpus * sizeof(*probe->cpu),
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			  -1, 0);
	if (probe->cpu == MAP_FAILED) {
		probe->start_err = -errno;
		probe->cpu = NULL;
		return;
	}
	probe->mapped = cpus;
	for (cpu = 0; cpu < CPU_SETSIZE && !probe->start_err; cpu++)
		if (CPU_ISSET(cpu, &allowed))
			probe->start_err = iosched_stall_probe_fork(probe, cpu);
	if (probe->start_err)
		iosched_stall_probe_kill(probe);
}

static inline int iosched_stall_cmp(const void *a, const void *b)
{
	const long long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Whether @probe's record covers [.., @to_ns]: nothing lost before it. */
static inline bool iosched_stall_known(const struct iosched_stall_probe *probe,
				       long long to_ns)
{
	int cpu;

	if (probe->start_err || probe->ended_early || probe->cpus < 2)
		return false;
	for (cpu = 0; cpu < probe->cpus; cpu++)
		if (probe->cpu[cpu].lost_from_ns &&
		    probe->cpu[cpu].lost_from_ns < to_ns)
			return false;
	return true;
}

/*
 * How long, in ns of [@from_ns, @to_ns], the sleepers of all CPUs were
 * late at once, in stretches of at least IOSCHED_STALL_ALL_MIN_NS; -1 if
 * that is not known (no probe, one CPU, or a record lost before @to_ns).
 * Call it once the probe is stopped.  Each episode gives two stamps, its
 * end marked by the low bit: sorted, a count of open episodes walks the
 * time, and all CPUs are late while it is the number of CPUs.
 */
static inline long long
iosched_stall_all_cpus(const struct iosched_stall_probe *probe,
		       long long from_ns, long long to_ns)
{
	long long *stamps, total = 0, since = 0, t;
	unsigned int i, e, n = 0, max = 0;
	int cpu, open = 0;

	if (!iosched_stall_known(probe, to_ns))
		return -1;
	for (cpu = 0; cpu < probe->cpus; cpu++)
		max += 2 * probe->cpu[cpu].episodes;
	stamps = malloc((max ?: 1) * sizeof(*stamps));
	if (!stamps)
		return -1;
	for (cpu = 0; cpu < probe->cpus; cpu++) {
		const struct iosched_stall_cpu *c = &probe->cpu[cpu];

		for (e = 0; e < c->episodes; e++) {
			long long a = c->ep[e].from_ns, b = c->ep[e].to_ns;

			a = a < from_ns ? from_ns : a;
			b = b > to_ns ? to_ns : b;
			if (a >= b)
				continue;
			stamps[n++] = a << 1;
			stamps[n++] = b << 1 | 1;
		}
	}
	qsort(stamps, n, sizeof(*stamps), iosched_stall_cmp);
	for (i = 0; i < n; i++) {
		t = stamps[i] >> 1;
		if (stamps[i] & 1) {
			if (open == probe->cpus &&
			    t - since >= IOSCHED_STALL_ALL_MIN_NS)
				total += t - since;
			open--;
		} else if (++open == probe->cpus) {
			since = t;
		}
	}
	free(stamps);
	return total;
}

/*
 * Stop the probe and say in @buf, for the log, how late a sleeper woke
 * at worst and how long no CPU ran one, or why there is no figure.  The
 * record stays for iosched_stall_all_cpus() until iosched_stall_probe_free().
 * Returns @buf.
 */
static inline const char *
iosched_stall_probe_stop(struct iosched_stall_probe *probe, char *buf,
			 size_t len)
{
	long long latest = 0, still;
	int cpu;

	if (probe->start_err == -E2BIG) {
		snprintf(buf, len, "SCHED_FIFO sleepers not run: more than %d CPUs",
			 IOSCHED_STALL_MAX_CPUS);
		return buf;
	}
	if (probe->start_err) {
		snprintf(buf, len, "SCHED_FIFO sleepers not run: %s",
			 strerror(-probe->start_err));
		return buf;
	}
	for (cpu = 0; cpu < probe->cpus; cpu++)
		if (probe->pids[cpu] > 0 &&
		    waitpid(probe->pids[cpu], NULL, WNOHANG) == probe->pids[cpu]) {
			probe->pids[cpu] = -1;
			probe->ended_early = true;
		}
	iosched_stall_probe_kill(probe);
	if (probe->ended_early) {
		snprintf(buf, len, "SCHED_FIFO sleepers: one ended early");
		return buf;
	}
	for (cpu = 0; cpu < probe->cpus; cpu++)
		if (probe->cpu[cpu].latest_ns > latest)
			latest = probe->cpu[cpu].latest_ns;
	still = iosched_stall_all_cpus(probe, 0, LLONG_MAX);
	if (still < 0)
		snprintf(buf, len,
			 "SCHED_FIFO sleepers on %d CPUs: %.1f ms late at worst; all late: unknown",
			 probe->cpus, latest / 1e6);
	else
		snprintf(buf, len,
			 "SCHED_FIFO sleepers on %d CPUs: %.1f ms late at worst; all late %.1f ms",
			 probe->cpus, latest / 1e6, still / 1e6);
	return buf;
}

static inline void iosched_stall_probe_free(struct iosched_stall_probe *probe)
{
	if (probe->cpu)
		munmap(probe->cpu, probe->mapped * sizeof(*probe->cpu));
	probe->cpu = NULL;
}

/*
 * For a teardown: stop @probe's sleepers, if a failed assertion left them
 * running, and free its record.  A zeroed probe has nothing to release.
 */
static inline void
iosched_stall_probe_release(struct iosched_stall_probe *probe)
{
	iosched_stall_probe_kill(probe);
	iosched_stall_probe_free(probe);
}

#endif /* IOSCHED_IOSCHED_STALL_H */
