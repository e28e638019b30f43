// SPDX-License-Identifier: GPL-2.0
/*
 * nbdkit plugin "diskmodel": serves a backing file and answers each
 * request no sooner than the modelled device would have completed it.
 *
 *   nbdkit ./nbdkit-diskmodel-plugin.so file=disk.img profile=hdd
 *
 * One model is shared by all connections: they are the same device.
 * Requests enter the model in arrival order under a mutex, the file I/O
 * runs meanwhile, and the reply waits for the modelled completion time
 * on CLOCK_MONOTONIC.  Writes reach the backing file's page cache at
 * once.  The model has no volatile write cache, so a flush has nothing
 * to write back and completes at once.
 *
 * A reply the host sends late misstates the device, so each one is
 * checked: with stats=FILE, the counts of replies, of those late by more
 * than a tenth of their modelled time, and the worst lateness are
 * written to FILE when nbdkit exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "model.h"

#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL

static char *filename;
static const struct dm_profile *profile;
static int fd = -1;
static bool writable;
static uint64_t size;
static struct dm_model *model;
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;
static char *stats_file;

/* How late the replies left against the model, under model_lock. */
static struct {
	uint64_t replies;
	uint64_t late;		/* by more than a tenth of the modelled time */
	uint64_t total_late_ns;
	uint64_t worst_late_ns;
} lateness;

/* ---- timing ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = t / 1000000000ULL,
		.tv_nsec = t % 1000000000ULL,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* The request arrives at the device: its clock reading is taken here. */
static bool arrive(struct dm_io *io, uint64_t *arrival, uint64_t *when)
{
	bool decided;

	pthread_mutex_lock(&model_lock);
	*arrival = now_ns();
	decided = dm_submit(model, io, *arrival, when);
	pthread_mutex_unlock(&model_lock);
	return decided;
}

/* Count a reply that leaves at @sent for a request modelled to take
 * from @arrival to @when. */
static void account_reply(uint64_t arrival, uint64_t when, uint64_t sent)
{
	uint64_t late = sent > when ? sent - when : 0;

	pthread_mutex_lock(&model_lock);
	lateness.replies++;
	/* a request modelled to take no time (raw) is never late */
	if (when > arrival && late * 10 > when - arrival)
		lateness.late++;
	lateness.total_late_ns += late;
	if (late > lateness.worst_late_ns)
		lateness.worst_late_ns = late;
	pthread_mutex_unlock(&model_lock);
}

/* Wait until the device would have completed @io, which arrived at
 * @arrival. */
static void complete(struct dm_io *io, uint64_t arrival, bool decided,
		     uint64_t when)
{
	while (!decided) {
		/* a reordering queue decides only when the spindle frees */
		sleep_until(when);
		pthread_mutex_lock(&model_lock);
		decided = dm_poll(model, io, now_ns(), &when);
		pthread_mutex_unlock(&model_lock);
	}
	sleep_until(when);
	account_reply(arrival, when, now_ns());
}

/* ---- configuration ---- */

static void list_profiles(char *buf, size_t len)
{
	const struct dm_profile *p;
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; (p = dm_profile_at(i)) && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", p->name);
}

static int diskmodel_config(const char *key, const char *value)
{
	char names[256];

	if (!strcmp(key, "file")) {
		free(filename);
		filename = nbdkit_realpath(value);
		return filename ? 0 : -1;
	}
	if (!strcmp(key, "stats")) {
		free(stats_file);
		stats_file = strdup(value);
		if (!stats_file) {
			nbdkit_error("strdup: %m");
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "profile")) {
		profile = dm_profile_find(value);
		if (!profile) {
			list_profiles(names, sizeof(names));
			nbdkit_error("unknown profile '%s'; valid profiles: %s",
				     value, names);
			return -1;
		}
		return 0;
	}
	nbdkit_error("unknown parameter '%s'", key);
	return -1;
}

static int diskmodel_config_complete(void)
{
	if (!filename) {
		nbdkit_error("you must supply the file=<FILENAME> parameter");
		return -1;
	}
	if (!profile)
		profile = dm_profile_find("hdd");
	return 0;
}

#define diskmodel_config_help \
	"file=<FILENAME>     (required) The backing file.\n" \
	"profile=<NAME>      Device to model (default hdd): hdd, hdd-ncq,\n" \
	"                    raid4, ssd or raw.  --dump-plugin lists them.\n" \
	"stats=<FILENAME>    At exit, write how late the replies were."

static void diskmodel_dump_plugin(void)
{
	const struct dm_profile *p;
	unsigned int i;

	for (i = 0; (p = dm_profile_at(i)); i++) {
		printf("diskmodel_profile_%s=%s\n", p->name, p->desc);
		/* What the guest's queue/rotational must say. */
		printf("diskmodel_rotational_%s=%d\n", p->name,
		       dm_profile_rotational(p));
		/* What a RAID controller reports: chunk and full stripe. */
		if (p->kind == DM_DISK && p->spindles > 1)
			printf("diskmodel_topology_%s=%u %u\n", p->name,
			       p->stripe, p->stripe * p->spindles);
	}
}

static int open_backing(void)
{
	struct stat st;

	fd = open(filename, O_RDWR | O_CLOEXEC);
	writable = fd >= 0;
	if (fd < 0)
		fd = open(filename, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		nbdkit_error("open: %s: %m", filename);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		nbdkit_error("fstat: %s: %m", filename);
		return -1;
	}
	size = st.st_size;
	return 0;
}

/*
 * The default 50 us of timer slack is most of a modelled flash read
 * (80 us): wake as close to the modelled time as the host allows. Every
 * thread nbdkit starts later, and its daemon after fork(), inherits it.
 */
static int minimise_timer_slack(void)
{
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) < 0) {
		nbdkit_error("prctl(PR_SET_TIMERSLACK): %m");
		return -1;
	}
	return 0;
}

static int diskmodel_get_ready(void)
{
	if (minimise_timer_slack() < 0 || open_backing() < 0)
		return -1;
	model = dm_model_new(profile, size);
	if (!model) {
		nbdkit_error("%s: cannot model profile %s on %llu bytes",
			     filename, profile->name,
			     (unsigned long long)size);
		return -1;
	}
	nbdkit_debug("diskmodel: %s, profile %s (%s)", filename,
		     profile->name, profile->desc);
	return 0;
}

/* "replies N", "late N", "mean_late_us N" and "worst_late_us N" lines,
 * to stats_file. */
static void write_stats(void)
{
	FILE *f;

	if (!stats_file)
		return;
	f = fopen(stats_file, "w");
	if (!f) {
		nbdkit_error("%s: %m", stats_file);
		return;
	}
	fprintf(f, "replies %llu\nlate %llu\nmean_late_us %llu\nworst_late_us %llu\n",
		(unsigned long long)lateness.replies,
		(unsigned long long)lateness.late,
		(unsigned long long)(lateness.replies ?
				     lateness.total_late_ns / lateness.replies /
				     1000 : 0),
		(unsigned long long)(lateness.worst_late_ns / 1000));
	if (fclose(f))
		nbdkit_error("%s: %m", stats_file);
}

static void diskmodel_unload(void)
{
	write_stats();
	if (fd >= 0)
		close(fd);
	dm_model_free(model);
	free(filename);
	free(stats_file);
}

/* ---- connection ---- */

static void *diskmodel_open(int readonly)
{
	(void)readonly;
	return NBDKIT_HANDLE_NOT_NEEDED;
}

static int64_t diskmodel_get_size(void *handle)
{
	(void)handle;
	return size;
}

static int diskmodel_can_write(void *handle)
{
	(void)handle;
	return writable;
}

static int diskmodel_is_rotational(void *handle)
{
	(void)handle;
	return dm_profile_rotational(profile);
}

/* Spinning disks have no discard; flash and raw punch holes. */
static int diskmodel_can_trim(void *handle)
{
	(void)handle;
	return writable && profile->kind != DM_DISK;
}

/* No cache in here: every connection sees every write at once. */
static int diskmodel_can_multi_conn(void *handle)
{
	(void)handle;
	return 1;
}

/* ---- data ---- */

static int read_full(char *p, uint32_t count, uint64_t offset)
{
	ssize_t r;

	while (count > 0) {
		r = pread(fd, p, count, offset);
		if (r < 0) {
			nbdkit_set_error(errno);
			nbdkit_error("pread: %m");
			return -1;
		}
		if (r == 0) {	/* the file shrank: read zeroes */
			memset(p, 0, count);
			break;
		}
		p += r;
		count -= r;
		offset += r;
	}
	return 0;
}

static int write_full(const char *p, uint32_t count, uint64_t offset)
{
	ssize_t r;

	while (count > 0) {
		r = pwrite(fd, p, count, offset);
		if (r < 0) {
			nbdkit_set_error(errno);
			nbdkit_error("pwrite: %m");
			return -1;
		}
		p += r;
		count -= r;
		offset += r;
	}
	return 0;
}

/*
 * The file I/O overlaps the modelled service time.  Even on error the
 * request is seen through: the model may still hold a pointer to io.
 */
static int diskmodel_pread(void *handle, void *buf, uint32_t count,
			   uint64_t offset, uint32_t flags)
{
	struct dm_io io = { .off = offset, .len = count };
	uint64_t arrival, when;
	bool decided = arrive(&io, &arrival, &when);
	int r = read_full(buf, count, offset);

	(void)handle;
	(void)flags;
	complete(&io, arrival, decided, when);
	return r;
}

static int diskmodel_pwrite(void *handle, const void *buf, uint32_t count,
			    uint64_t offset, uint32_t flags)
{
	struct dm_io io = { .off = offset, .len = count, .write = true };
	uint64_t arrival, when;
	bool decided = arrive(&io, &arrival, &when);
	int r = write_full(buf, count, offset);

	(void)handle;
	(void)flags;
	complete(&io, arrival, decided, when);
	return r;
}

/*
 * Every write is on the modelled media when it completes, so a flush is
 * a no-op, as on a disk without a write cache.  fdatasync() of the
 * backing file would wait for the host's own disk (over 400 ms under a
 * buffered writer) and charge the guest for time the model never had.
 */
static int diskmodel_flush(void *handle, uint32_t flags)
{
	(void)handle;
	(void)flags;
	return 0;
}

/* Discard is a mapping update on flash: no modelled media time. */
static int diskmodel_trim(void *handle, uint32_t count, uint64_t offset,
			  uint32_t flags)
{
	(void)handle;
	(void)flags;
	/* advisory: a file system that cannot punch holes keeps the data */
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      offset, count) < 0 && errno != EOPNOTSUPP) {
		nbdkit_set_error(errno);
		nbdkit_error("fallocate: %m");
		return -1;
	}
	return 0;
}

static struct nbdkit_plugin plugin = {
	.name = "diskmodel",
	.longname = "seek-realistic disk model",
	.version = "1.0",
	.description = "serves a file with the timing of a disk, RAID or SSD",
	.config = diskmodel_config,
	.config_complete = diskmodel_config_complete,
	.config_help = diskmodel_config_help,
	.magic_config_key = "file",
	.dump_plugin = diskmodel_dump_plugin,
	.get_ready = diskmodel_get_ready,
	.unload = diskmodel_unload,
	.open = diskmodel_open,
	.get_size = diskmodel_get_size,
	.can_write = diskmodel_can_write,
	.is_rotational = diskmodel_is_rotational,
	.can_trim = diskmodel_can_trim,
	.can_multi_conn = diskmodel_can_multi_conn,
	.pread = diskmodel_pread,
	.pwrite = diskmodel_pwrite,
	.flush = diskmodel_flush,
	.trim = diskmodel_trim,
};

NBDKIT_REGISTER_PLUGIN(plugin)
