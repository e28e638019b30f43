// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the readahead mark that a deferred window moves onto a
 * folio of the page cache it did not allocate (ra_mark_folio()).
 * PG_readahead is PG_reclaim under writeback, so the mark may only go
 * on a folio that can be locked, is still in its file, clean and not
 * under writeback.  The folios are a shmem (or, without CONFIG_SHMEM,
 * ramfs) file's; the writeback is started by the test, as a filesystem's
 * writepages would, although shmem writes back only from the swap cache.
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

KUNIT_DEFINE_ACTION_WRAPPER(ra_mark_fput, fput, struct file *);
KUNIT_DEFINE_ACTION_WRAPPER(ra_mark_folio_put, folio_put, struct folio *);

static int ra_mark_init(struct kunit *test)
{
	struct ra_mark_test *t;
	int ret;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->file = shmem_file_setup("ra-mark-kunit", PAGE_SIZE, VM_NORESERVE);
	if (IS_ERR(t->file))
		return PTR_ERR(t->file);
	ret = kunit_add_action_or_reset(test, ra_mark_fput, t->file);
	if (ret)
		return ret;
	t->folio = shmem_read_folio(t->file->f_mapping, 0);
	if (IS_ERR(t->folio))
		return PTR_ERR(t->folio);
	ret = kunit_add_action_or_reset(test, ra_mark_folio_put, t->folio);
	if (ret)
		return ret;
	/* Without an MMU, ramfs gives its pages dirty. */
	if (folio_test_dirty(t->folio))
		kunit_skip(test, "the file's folio comes dirty");
	test->priv = t;
	return 0;
}

static bool ra_mark_test_marks(struct ra_mark_test *t)
{
	return ra_mark_folio(t->file->f_mapping, t->folio);
}

/* ra_mark_folio() leaves the folio alone: it says so, and sets no mark. */
static void ra_mark_expect_left_alone(struct kunit *test,
				      struct ra_mark_test *t)
{
	KUNIT_EXPECT_FALSE(test, ra_mark_test_marks(t));
	KUNIT_EXPECT_FALSE(test, folio_test_readahead(t->folio));
}

/*
 * A clean folio of the file, locked by nobody: marked.  Reclaim or
 * migration may hold its lock for a moment, so a failed trylock is
 * tried again.
 */
static void ra_mark_clean_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;
	bool marked = false;
	int tries;

	for (tries = 0; tries < 100 && !marked; tries++) {
		marked = ra_mark_test_marks(t);
		cond_resched();
	}
	KUNIT_EXPECT_TRUE(test, marked);
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
	ra_mark_expect_left_alone(test, t);
}

/* A folio locked by someone else may be on its way to writeback. */
static void ra_mark_not_locked_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	folio_lock(t->folio);
	ra_mark_expect_left_alone(test, t);
	folio_unlock(t->folio);
}

/* A folio under writeback would take the mark for "reclaim me". */
static void ra_mark_not_writeback_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	folio_lock(t->folio);
	folio_start_writeback(t->folio);
	folio_unlock(t->folio);
	ra_mark_expect_left_alone(test, t);
	folio_end_writeback(t->folio);
}

/* A folio truncated from the file is no longer the file's to mark. */
static void ra_mark_not_truncated_folio(struct kunit *test)
{
	struct ra_mark_test *t = test->priv;

	shmem_truncate_range(file_inode(t->file), 0, -1);
	KUNIT_ASSERT_NULL(test, t->folio->mapping);
	ra_mark_expect_left_alone(test, t);
}

static struct kunit_case ra_mark_cases[] = {
	KUNIT_CASE(ra_mark_clean_folio),
	KUNIT_CASE(ra_mark_not_dirty_folio),
	KUNIT_CASE(ra_mark_not_locked_folio),
	KUNIT_CASE(ra_mark_not_writeback_folio),
	KUNIT_CASE(ra_mark_not_truncated_folio),
	{}
};

static struct kunit_suite ra_mark_suite = {
	.name = "readahead_mark",
	.init = ra_mark_init,
	.test_cases = ra_mark_cases,
};

kunit_test_suite(ra_mark_suite);

MODULE_DESCRIPTION("KUnit tests for the readahead mark of a deferred window");
MODULE_LICENSE("GPL");
