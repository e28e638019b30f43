// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the disk timing model: the physics of each profile and the
 * throughput that follows from it under closed-loop load.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"

#define US		1000ULL
#define MS		1000000ULL
#define SEC		1000000000ULL
#define KIB		1024ULL
#define MIB		(1024 * KIB)
#define GIB		(1024 * MIB)
#define CAP		GIB
#define T0		(5 * SEC)	/* any start time will do */
#define MEDIA_RATE	150e6

static struct dm_model *model(const char *name, uint64_t cap)
{
	struct dm_model *m = dm_model_new(dm_profile_find(name), cap);

	assert_non_null(m);
	return m;
}

/* For profiles that never reorder: the answer comes on arrival. */
static uint64_t submit(struct dm_model *m, uint64_t now, uint64_t off,
		       uint32_t len, bool write)
{
	struct dm_io io = { .off = off, .len = len, .write = write };
	uint64_t when;

	assert_true(dm_submit(m, &io, now, &when));
	assert_true(when >= now);
	return when;
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- closed-loop load generator: qd requests always outstanding ---- */

struct load {
	const char *profile;
	unsigned int qd;
	unsigned int n;			/* requests in all */
	uint32_t len;
	bool sequential;
	bool write;
	uint64_t seed;
};

struct slot {
	struct dm_io io;
	uint64_t start;
	uint64_t when;			/* completion, or when to poll */
	bool decided;
	bool busy;
};

struct result {
	uint64_t elapsed;		/* first arrival to last completion */
	uint64_t max_latency;
	uint64_t *done;			/* completion times, issue order */
};

static void issue(struct dm_model *m, const struct load *l, struct slot *s,
		  uint64_t now, uint64_t *rng, uint64_t *next_off)
{
	uint64_t units = CAP / l->len;

	s->io.off = l->sequential ? *next_off :
		    splitmix64(rng) % units * l->len;
	s->io.len = l->len;
	s->io.write = l->write;
	*next_off = (s->io.off + l->len) % CAP;
	s->start = now;
	s->busy = true;
	s->decided = dm_submit(m, &s->io, now, &s->when);
}

static struct slot *earliest(struct slot *slots, unsigned int qd)
{
	struct slot *best = NULL;
	unsigned int i;

	for (i = 0; i < qd; i++)
		if (slots[i].busy && (!best || slots[i].when < best->when))
			best = &slots[i];
	return best;
}

static struct result run(const struct load *l)
{
	struct slot *slots = calloc(l->qd, sizeof(*slots));
	struct dm_model *m = model(l->profile, CAP);
	struct result r = { .done = calloc(l->n, sizeof(uint64_t)) };
	uint64_t rng = l->seed, next_off = 0, now = T0;
	unsigned int i, issued = 0, finished = 0;
	struct slot *s;

	assert_non_null(slots);
	assert_non_null(r.done);
	for (i = 0; i < l->qd && issued < l->n; i++, issued++)
		issue(m, l, &slots[i], now, &rng, &next_off);

	while (finished < l->n) {
		s = earliest(slots, l->qd);
		assert_non_null(s);
		assert_true(s->when >= now);
		now = s->when;
		if (!s->decided) {
			s->decided = dm_poll(m, &s->io, now, &s->when);
			continue;
		}
		r.done[finished++] = now;
		if (now - s->start > r.max_latency)
			r.max_latency = now - s->start;
		s->busy = false;
		if (issued < l->n) {
			issue(m, l, s, now, &rng, &next_off);
			issued++;
		}
	}
	r.elapsed = now - T0;
	dm_model_free(m);
	free(slots);
	return r;
}

static double iops(const struct load *l)
{
	struct result r = run(l);

	free(r.done);
	return l->n / ((double)r.elapsed / SEC);
}

static double bytes_per_sec(const struct load *l)
{
	return iops(l) * l->len;
}

/* ---- 1. seeks ---- */

static void test_seek_grows_with_distance(void **state)
{
	struct dm_model *m = model("hdd", CAP);
	const struct dm_profile *p = dm_profile_find("hdd");
	uint64_t prev = 0, cur, d;

	(void)state;
	assert_int_equal(dm_seek_ns(m, 0, 4096), 0);	/* same track */
	for (d = CAP / 256; d < CAP; d += CAP / 256) {
		cur = dm_seek_ns(m, 0, d);
		assert_true(cur >= prev);
		assert_true(cur >= p->settle_ns);
		assert_true(cur <= p->full_seek_ns);
		assert_int_equal(cur, dm_seek_ns(m, d, 0));
		prev = cur;
	}
	assert_true(dm_seek_ns(m, 0, CAP / 100) < dm_seek_ns(m, 0, CAP / 2));
	/* one track over costs about the settle time */
	d = dm_seek_ns(m, 0, 2 * MIB);
	assert_true(d >= p->settle_ns && d < p->settle_ns + 2 * MS);
	/* full stroke, and never more even past the end */
	assert_true(dm_seek_ns(m, 0, CAP - 1) > 14 * MS);
	assert_int_equal(dm_seek_ns(m, 0, 4 * CAP), p->full_seek_ns);
	dm_model_free(m);
}

/* Alternating between two spots: the farther apart, the slower. */
static uint64_t hop_cost(uint64_t distance)
{
	struct dm_model *m = model("hdd", CAP);
	uint64_t now = T0, rng = 1;
	unsigned int i;

	for (i = 0; i < 400; i++) {
		/* jitter the arrival so rotation averages out */
		now += splitmix64(&rng) % (8 * MS);
		now = submit(m, now, (i & 1) * distance, 4096, false);
	}
	dm_model_free(m);
	return now - T0;
}

static void test_seek_cost_in_requests(void **state)
{
	uint64_t near = hop_cost(16 * MIB), far = hop_cost(CAP - 4096);

	(void)state;
	/* the difference is mostly the seek: ~14 ms vs ~2.5 ms */
	assert_true(far > near + 400 * 8 * MS);
}

/* ---- 2. streaming ---- */

static void test_sequential_costs_transfer_only(void **state)
{
	struct dm_model *m = model("hdd", CAP);
	uint64_t now = T0, done, expect = (uint64_t)(64 * KIB * 1e9 /
						     MEDIA_RATE);
	unsigned int i;

	(void)state;
	done = submit(m, now, 100 * MIB, 64 * KIB, false);
	for (i = 1; i < 100; i++) {
		/* idle gaps do not matter: the drive reads ahead */
		now = done + (i % 3) * MS;
		done = submit(m, now, 100 * MIB + i * 64 * KIB, 64 * KIB,
			      i & 1);
		assert_int_equal(done - now, dm_transfer_ns(m, 64 * KIB));
		assert_true(done - now > expect * 99 / 100);
		assert_true(done - now < expect * 101 / 100);
	}
	dm_model_free(m);
}

/* RAID-0: each spindle streams its quarter of a 1 MiB request. */
static void test_raid_sequential_stripes(void **state)
{
	struct dm_model *m = model("raid4", CAP);
	uint64_t now = T0, done;
	unsigned int i;

	(void)state;
	done = submit(m, now, 0, MIB, false);
	for (i = 1; i < 50; i++) {
		now = done;
		done = submit(m, now, i * MIB, MIB, false);
		assert_int_equal(done - now, dm_transfer_ns(m, MIB / 4));
	}
	dm_model_free(m);
}

/* A request larger than a stripe unit waits for its slowest piece. */
static void test_raid_split_waits_for_all(void **state)
{
	struct dm_model *m = model("raid4", CAP);
	uint64_t single, both;

	(void)state;
	/* spindle 1 is busy with a random read; spindle 0 is idle */
	single = submit(m, T0, 64 * KIB + 512 * MIB, 4096, false);
	both = submit(m, T0, 60 * KIB, 8 * KIB, false);	/* spindles 0+1 */
	assert_true(both > single);
	dm_model_free(m);
}

/* ---- 3. RAID throughput ---- */

static void test_raid4_scales_random_reads(void **state)
{
	struct load l = { .qd = 16, .n = 2000, .len = 4096, .seed = 42 };
	double hdd, raid, ratio;

	(void)state;
	l.profile = "hdd";
	hdd = iops(&l);
	l.profile = "raid4";
	raid = iops(&l);
	ratio = raid / hdd;
	print_message("hdd %.0f IOPS, raid4 %.0f IOPS, ratio %.2f\n",
		      hdd, raid, ratio);
	assert_true(ratio >= 3.3 && ratio <= 4.2);
}

/* ---- 4. determinism ---- */

static void same_twice(const char *profile, bool sequential, bool write)
{
	struct load l = {
		.profile = profile, .qd = 8, .n = 500, .len = 16 * KIB,
		.sequential = sequential, .write = write, .seed = 7,
	};
	struct result a = run(&l), b = run(&l);

	assert_memory_equal(a.done, b.done, l.n * sizeof(uint64_t));
	assert_int_equal(a.elapsed, b.elapsed);
	free(a.done);
	free(b.done);
}

static void test_deterministic(void **state)
{
	const struct dm_profile *p;
	unsigned int i;

	(void)state;
	for (i = 0; (p = dm_profile_at(i)); i++) {
		same_twice(p->name, false, false);
		same_twice(p->name, false, true);
		same_twice(p->name, true, false);
	}
}

/* ---- 5. physics ---- */

static void test_hdd_random_qd1(void **state)
{
	struct load l = {
		.profile = "hdd", .qd = 1, .n = 2000, .len = 4096, .seed = 3,
	};
	double v;

	(void)state;
	v = iops(&l);
	print_message("hdd 4 KiB random QD1: %.1f IOPS\n", v);
	assert_true(v >= 75 && v <= 150);
}

static void test_hdd_sequential_rate(void **state)
{
	struct load l = {
		.profile = "hdd", .qd = 1, .n = 200, .len = MIB,
		.sequential = true,
	};
	double v;

	(void)state;
	v = bytes_per_sec(&l);
	print_message("hdd 1 MiB sequential: %.1f MB/s\n", v / 1e6);
	assert_true(v > MEDIA_RATE * 0.9 && v < MEDIA_RATE * 1.1);
}

static void test_ssd_much_faster(void **state)
{
	struct load l = { .qd = 32, .n = 2000, .len = 4096, .seed = 9 };
	double hdd, ssd, ssd_w;

	(void)state;
	l.profile = "hdd";
	hdd = iops(&l);
	l.profile = "ssd";
	ssd = iops(&l);
	l.write = true;
	ssd_w = iops(&l);
	print_message("QD32 4 KiB random: hdd %.0f, ssd read %.0f, ssd write %.0f IOPS\n",
		      hdd, ssd, ssd_w);
	assert_true(ssd > 100 * hdd);
	/* 8 channels at 80 us bound reads at 100k IOPS */
	assert_true(ssd > 60000 && ssd <= 100000);
	assert_true(ssd_w < ssd);
}

/* Eight pages on eight channels go in parallel; a ninth waits. */
static void test_ssd_channels(void **state)
{
	struct dm_model *m = model("ssd", CAP);
	uint64_t t[9];
	unsigned int i;

	(void)state;
	for (i = 0; i < 9; i++)
		t[i] = submit(m, T0, i * 4096, 4096, false);
	/* flash in parallel, then the bus one page after another */
	assert_true(t[0] - T0 >= 80 * US && t[0] - T0 < 100 * US);
	assert_true(t[7] - T0 < 160 * US);
	assert_true(t[8] - T0 >= 160 * US);
	dm_model_free(m);
}

/* ---- 6. edges ---- */

static void test_raw_and_lookup(void **state)
{
	struct dm_model *m = model("raw", CAP);

	(void)state;
	assert_int_equal(submit(m, T0, 0, MIB, false), T0);
	assert_int_equal(submit(m, T0 + 5, 7 * MIB, 4096, true), T0 + 5);
	dm_model_free(m);

	assert_null(dm_profile_find("nonexistent"));
	assert_null(dm_profile_find(""));
	assert_null(dm_model_new(dm_profile_find("hdd"), 0));
	assert_non_null(dm_profile_find("hdd"));
	assert_non_null(dm_profile_find("raid4"));
	assert_non_null(dm_profile_find("ssd"));
	assert_null(dm_profile_at(1000));
}

/* What the guest must be told: only spinning profiles are rotational. */
static void test_rotational_profiles(void **state)
{
	(void)state;
	assert_true(dm_profile_rotational(dm_profile_find("hdd")));
	assert_true(dm_profile_rotational(dm_profile_find("hdd-ncq")));
	assert_true(dm_profile_rotational(dm_profile_find("raid4")));
	assert_false(dm_profile_rotational(dm_profile_find("ssd")));
	assert_false(dm_profile_rotational(dm_profile_find("raw")));
}

/* ---- the command queue ---- */

static bool poll_until(struct dm_model *m, struct dm_io *io, uint64_t now,
		       uint64_t *when)
{
	while (!dm_poll(m, io, now, when))
		now = *when;
	return true;
}

/*
 * While the spindle is busy near the start, a far request and then a near
 * one arrive.  SSF serves the near one first; FIFO does not.
 */
static void overtake(const char *profile, bool near_first)
{
	struct dm_model *m = model(profile, CAP);
	struct dm_io busy = { .off = 0, .len = 4096 };
	struct dm_io far = { .off = CAP - 4096, .len = 4096 };
	struct dm_io near = { .off = 8 * MIB, .len = 4096 };
	uint64_t t_busy, t_far, t_near;

	assert_true(dm_submit(m, &busy, T0, &t_busy));
	dm_submit(m, &far, T0 + 1, &t_far);
	dm_submit(m, &near, T0 + 2, &t_near);
	poll_until(m, &far, T0 + 2, &t_far);
	poll_until(m, &near, T0 + 2, &t_near);
	assert_true(t_busy < t_far && t_busy < t_near);
	assert_true(near_first ? t_near < t_far : t_far < t_near);
	dm_model_free(m);
}

static void test_ssf_reorders(void **state)
{
	struct dm_model *ncq = model("hdd-ncq", CAP), *hdd = model("hdd", CAP);

	(void)state;
	assert_true(dm_model_reorders(ncq));
	assert_false(dm_model_reorders(hdd));
	dm_model_free(ncq);
	dm_model_free(hdd);
	overtake("hdd-ncq", true);
	overtake("hdd", false);
}

/* A queue deeper than the transport delivers would never fill. */
static void test_queues_fit_the_transport(void **state)
{
	const struct dm_profile *p;
	unsigned int i;

	(void)state;
	for (i = 0; (p = dm_profile_at(i)); i++)
		assert_in_range(p->depth, 0, DM_TRANSPORT_DEPTH);
}

static void test_ssf_throughput_and_aging(void **state)
{
	struct load l = { .qd = DM_TRANSPORT_DEPTH, .n = 3000, .len = 4096,
			  .seed = 11 };
	struct result r;
	double fifo, ssf;

	(void)state;
	l.profile = "hdd";
	fifo = iops(&l);
	l.profile = "hdd-ncq";
	r = run(&l);
	ssf = l.n / ((double)r.elapsed / SEC);
	print_message("QD%u 4 KiB random: FIFO %.0f IOPS, SSF %.0f IOPS, SSF max latency %.0f ms\n",
		      l.qd, fifo, ssf, (double)r.max_latency / MS);
	assert_true(ssf > 1.5 * fifo);
	/* aging at 500 ms bounds the wait: then at most depth more */
	assert_true(r.max_latency < 500 * MS + DM_TRANSPORT_DEPTH * 30 * MS);
	free(r.done);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seek_grows_with_distance),
		cmocka_unit_test(test_seek_cost_in_requests),
		cmocka_unit_test(test_sequential_costs_transfer_only),
		cmocka_unit_test(test_raid_sequential_stripes),
		cmocka_unit_test(test_raid_split_waits_for_all),
		cmocka_unit_test(test_raid4_scales_random_reads),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_hdd_random_qd1),
		cmocka_unit_test(test_hdd_sequential_rate),
		cmocka_unit_test(test_ssd_much_faster),
		cmocka_unit_test(test_ssd_channels),
		cmocka_unit_test(test_raw_and_lookup),
		cmocka_unit_test(test_rotational_profiles),
		cmocka_unit_test(test_ssf_reorders),
		cmocka_unit_test(test_queues_fit_the_transport),
		cmocka_unit_test(test_ssf_throughput_and_aging),
	};

	return cmocka_run_group_tests_name("diskmodel", tests, NULL, NULL);
}
