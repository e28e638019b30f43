// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the readahead mark that a deferred window moves onto a
 * folio of the page cache it did not allocate (ra_mark_folio()).
 * PG_readahead is PG_reclaim under writeback, so the mark may only go
 * on a folio that is locked, still in its file, clean and not under
 * writeback.  The folios are a tmpfs file's.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>

#include "internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct ra_mark_test {
	struct file *file;
	struct folio *folio;	/* the file's first, referenced */
};

static int ra_mark_init(struct kunit *test)
{
	struct ra_mark_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->file = shmem_file_setup("ra-mark-kunit", PAGE_SIZE, VM_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->file));
	t->folio = shmem_read_folio(t->file->f_mapping, 0);
	if (IS_ERR(t->folio)) {
		fput(t->file);
		KUNIT_FAIL(test, "no folio: %ld", PTR_ERR(t->folio));
		return PTR_ERR(t->folio);
	}
	test->priv = t;
	return 0;
}

static void ra_mark_exit(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	if (!t)
		return;
	folio_clear_readahead(t->folio);
	folio_put(t->folio);
	fput(t->file);
}

static bool ra_mark_test_marks(struct ra_mark_test *t)
{
	return ra_mark_folio(t->file->f_mapping, t->folio);
}

/* A clean folio of the file, locked by nobody: marked. */
static void ra_mark_clean_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	KUNIT_EXPECT_TRUE(test, ra_mark_test_marks(t));
	KUNIT_EXPECT_TRUE(test, folio_test_readahead(t->folio));
	KUNIT_EXPECT_FALSE(test, folio_test_locked(t->folio));
}

/* A dirty folio may go to writeback, where the mark means "reclaim". */
static void ra_mark_not_dirty_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	folio_lock(t->folio);
	folio_mark_dirty(t->folio);
	folio_unlock(t->folio);
	KUNIT_EXPECT_FALSE(test, ra_mark_test_marks(t));
	KUNIT_EXPECT_FALSE(test, folio_test_readahead(t->folio));
}

/* A folio locked by someone else may be on its way to writeback. */
static void ra_mark_not_locked_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	folio_lock(t->folio);
	KUNIT_EXPECT_FALSE(test, ra_mark_test_marks(t));
	KUNIT_EXPECT_FALSE(test, folio_test_readahead(t->folio));
	folio_unlock(t->folio);
}

/* A folio truncated from the file is no longer the file's to mark. */
static void ra_mark_not_truncated_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	shmem_truncate_range(file_inode(t->file), 0, -1);
	KUNIT_ASSERT_NULL(test, t->folio->mapping);
	KUNIT_EXPECT_FALSE(test, ra_mark_test_marks(t));
	KUNIT_EXPECT_FALSE(test, folio_test_readahead(t->folio));
}

static struct kunit_case ra_mark_cases[] = {
	KUNIT_CASE(ra_mark_clean_folio),
	KUNIT_CASE(ra_mark_not_dirty_folio),
	KUNIT_CASE(ra_mark_not_locked_folio),
	KUNIT_CASE(ra_mark_not_truncated_folio),
	{}
};

static struct kunit_suite ra_mark_suite = {
	.name = "readahead-mark",
	.init = ra_mark_init,
	.exit = ra_mark_exit,
	.test_cases = ra_mark_cases,
};

kunit_test_suite(ra_mark_suite);

MODULE_DESCRIPTION("KUnit tests for the readahead mark of a deferred window");
MODULE_LICENSE("GPL");
