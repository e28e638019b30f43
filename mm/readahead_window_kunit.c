// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of readahead's window sizing (readahead_window.h).
 * Sizes are in pages; with 4 KiB pages, 32 pages is the default
 * read_ahead_kb of 128 KiB.
 */
#include <kunit/test.h>

#include "readahead_window.h"

/* The initial window comes from the request and never undercuts it. */
static void ra_window_initial_from_request(struct kunit *test)
{
	unsigned long max, req;

	KUNIT_EXPECT_EQ(test, 4UL, ra_window_initial(1, 32));
	KUNIT_EXPECT_EQ(test, 8UL, ra_window_initial(4, 32));
	KUNIT_EXPECT_EQ(test, 16UL, ra_window_initial(5, 32));
	KUNIT_EXPECT_EQ(test, 32UL, ra_window_initial(9, 32));
	KUNIT_EXPECT_EQ(test, 32UL, ra_window_initial(16, 256));

	for (max = 1; max <= 1024; max *= 2) {
		for (req = 1; req <= max; req++) {
			unsigned long size = ra_window_initial(req, max);

			KUNIT_EXPECT_GE_MSG(test, size, req, "req %lu max %lu",
					    req, max);
			KUNIT_EXPECT_LE_MSG(test, size, max, "req %lu max %lu",
					    req, max);
		}
	}
}

/* Growth is exponential, four-fold while small, and stops at the maximum. */
static void ra_window_grows_to_max(struct kunit *test)
{
	unsigned long size = 4, steps = 0;

	KUNIT_EXPECT_EQ(test, 16UL, ra_window_next(4, 256));
	KUNIT_EXPECT_EQ(test, 128UL, ra_window_next(64, 256));
	KUNIT_EXPECT_EQ(test, 256UL, ra_window_next(128, 256));
	KUNIT_EXPECT_EQ(test, 256UL, ra_window_next(256, 256));
	KUNIT_EXPECT_EQ(test, 256UL, ra_window_next(200, 256));

	while (size < 320 && steps++ < 16) {
		unsigned long next = ra_window_next(size, 320);

		KUNIT_EXPECT_GT(test, next, size);
		size = next;
	}
	KUNIT_EXPECT_EQ(test, 320UL, size);
	KUNIT_EXPECT_LE(test, steps, 5UL);
	KUNIT_EXPECT_EQ(test, 320UL, ra_window_next(size, 320));
}

/* The adaptive maximum: the device's own, within memory. */
static void ra_window_max_bounds(struct kunit *test)
{
	const unsigned long plenty = 1UL << 30;

	KUNIT_EXPECT_EQ(test, 320UL, ra_window_max(32, 320, plenty, false));
	KUNIT_EXPECT_EQ(test, 4096UL, ra_window_max(32, 4096, plenty, true));
	/* 16384 pages available allow 256 (1/64); crowded, 64 (1/256). */
	KUNIT_EXPECT_EQ(test, 256UL, ra_window_max(32, 320, 16384, false));
	KUNIT_EXPECT_EQ(test, 64UL, ra_window_max(32, 320, 16384, true));
	/* Never below read_ahead_kb, whatever the device or the memory. */
	KUNIT_EXPECT_EQ(test, 32UL, ra_window_max(32, 8, plenty, false));
	KUNIT_EXPECT_EQ(test, 32UL, ra_window_max(32, 0, plenty, false));
	KUNIT_EXPECT_EQ(test, 32UL, ra_window_max(32, 320, 0, true));
	/* read_ahead_kb 0 keeps readahead off. */
	KUNIT_EXPECT_EQ(test, 0UL, ra_window_max(0, 1024, plenty, false));
}

/*
 * On a rotational queue, windows grow to four requests up to the limit
 * given (1024 pages here, 4 MiB of 4 KiB pages); on one that is not, to
 * one request.
 */
static void ra_window_auto_max_by_queue(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 320UL, ra_window_auto_max(320, false, 1024));
	KUNIT_EXPECT_EQ(test, 128UL, ra_window_auto_max(128, false, 1024));
	KUNIT_EXPECT_EQ(test, 120UL, ra_window_auto_max(30, true, 1024));
	KUNIT_EXPECT_EQ(test, 512UL, ra_window_auto_max(128, true, 1024));
	KUNIT_EXPECT_EQ(test, 1024UL, ra_window_auto_max(320, true, 1024));
	/* Never below one request, whatever its size. */
	KUNIT_EXPECT_EQ(test, 2048UL, ra_window_auto_max(2048, true, 1024));
}

/* Only a sequential miss within the stream's last two windows thrashes. */
static void ra_window_detects_thrash(struct kunit *test)
{
	/* Window ahead: pages 1000..1063, the one being read before it. */
	KUNIT_EXPECT_TRUE(test, ra_window_thrashed(1000, 64, 1000, true));
	KUNIT_EXPECT_TRUE(test, ra_window_thrashed(1000, 64, 1063, true));
	KUNIT_EXPECT_TRUE(test, ra_window_thrashed(1000, 64, 970, true));
	KUNIT_EXPECT_TRUE(test, ra_window_thrashed(1000, 64, 936, true));
	KUNIT_EXPECT_FALSE(test, ra_window_thrashed(1000, 64, 935, true));
	KUNIT_EXPECT_FALSE(test, ra_window_thrashed(1000, 64, 1064, true));
	/* A random reader never thrashes, nor a stream without a window. */
	KUNIT_EXPECT_FALSE(test, ra_window_thrashed(1000, 64, 1010, false));
	KUNIT_EXPECT_FALSE(test, ra_window_thrashed(1000, 0, 1000, true));
	/* Near the start of the file. */
	KUNIT_EXPECT_TRUE(test, ra_window_thrashed(16, 64, 0, true));
}

/* Congestion defers the window ahead through half the window, no further. */
static void ra_window_defers_half_a_window(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ra_window_can_defer(1000, 64, 1000));
	KUNIT_EXPECT_TRUE(test, ra_window_can_defer(1000, 64, 1031));
	KUNIT_EXPECT_FALSE(test, ra_window_can_defer(1000, 64, 1032));
	KUNIT_EXPECT_FALSE(test, ra_window_can_defer(1000, 64, 1064));
	KUNIT_EXPECT_FALSE(test, ra_window_can_defer(1000, 64, 999));
	/* A window of one page is never deferred. */
	KUNIT_EXPECT_FALSE(test, ra_window_can_defer(1000, 1, 1000));
}

/* A sequential miss just past the last window continues the stream. */
static void ra_window_detects_continuation(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ra_window_continued(1000, 64, 1064, true));
	KUNIT_EXPECT_FALSE(test, ra_window_continued(1000, 64, 1063, true));
	KUNIT_EXPECT_FALSE(test, ra_window_continued(1000, 64, 1065, true));
	KUNIT_EXPECT_FALSE(test, ra_window_continued(1000, 64, 1064, false));
	KUNIT_EXPECT_FALSE(test, ra_window_continued(1000, 0, 1000, true));
	/* Never both a continuation and thrashing. */
	KUNIT_EXPECT_FALSE(test, ra_window_thrashed(1000, 64, 1064, true));
}

/* Thrashing cuts the window to what was consumed, never below the read. */
static void ra_window_shrinks_on_thrash(struct kunit *test)
{
	unsigned long index;

	KUNIT_EXPECT_EQ(test, 24UL, ra_window_after_thrash(1000, 64, 1024, 4));
	/* Previous window taken as 32 pages from 968: 968..977 consumed. */
	KUNIT_EXPECT_EQ(test, 10UL, ra_window_after_thrash(1000, 64, 978, 4));
	KUNIT_EXPECT_EQ(test, 4UL, ra_window_after_thrash(1000, 64, 1000, 4));
	KUNIT_EXPECT_EQ(test, 4UL, ra_window_after_thrash(1000, 64, 950, 4));
	KUNIT_EXPECT_EQ(test, 1UL, ra_window_after_thrash(0, 64, 0, 1));
	/* A window near the file's start: the one before it starts at 0. */
	KUNIT_EXPECT_EQ(test, 10UL, ra_window_after_thrash(20, 64, 10, 4));

	for (index = 936; index < 1064; index++) {
		unsigned long size = ra_window_after_thrash(1000, 64, index, 4);

		KUNIT_EXPECT_GE(test, size, 4UL);
		KUNIT_EXPECT_LT(test, size, 64UL);
	}
}

static struct kunit_case ra_window_cases[] = {
	KUNIT_CASE(ra_window_initial_from_request),
	KUNIT_CASE(ra_window_grows_to_max),
	KUNIT_CASE(ra_window_max_bounds),
	KUNIT_CASE(ra_window_auto_max_by_queue),
	KUNIT_CASE(ra_window_detects_thrash),
	KUNIT_CASE(ra_window_detects_continuation),
	KUNIT_CASE(ra_window_defers_half_a_window),
	KUNIT_CASE(ra_window_shrinks_on_thrash),
	{}
};

static struct kunit_suite ra_window_suite = {
	.name = "readahead_window",
	.test_cases = ra_window_cases,
};

kunit_test_suite(ra_window_suite);

MODULE_DESCRIPTION("KUnit tests for readahead window sizing");
MODULE_LICENSE("GPL");
