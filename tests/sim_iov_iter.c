// SPDX-License-Identifier: GPL-2.0-only
/*
 * struct iov_iter: constructors, advance/revert/truncate/reexpand, copies,
 * zeroing, page counting, alignment and page extraction, for every
 * iterator type direct I/O sees (docs/rules.md 3.I, I-01..I-12).
 *
 * "User memory" is plain process memory (aligned_alloc), as the runtime
 * treats it; kernel buffers come from kmalloc so the leak check sees them.
 *
 * The randomized properties at the bottom drive an iterator and the
 * position model (tests/model/iov_iter_model.h, which the iov_iter fuzz
 * targets share) side by side and compare.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bvec.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <sim/fault.h>
#include <sim/rand.h>

#include "harness.h"
#include "iov_iter_model.h"

/* ==== helpers ========================================================= */

static void *user_pages(size_t nr_pages)
{
	void *p = aligned_alloc(PAGE_SIZE, nr_pages * PAGE_SIZE);

	ck_assert_ptr_nonnull(p);
	memset(p, 0xa5, nr_pages * PAGE_SIZE);
	return p;
}

static void fill_pattern(void *buf, size_t len, unsigned int seed)
{
	unsigned char *b = buf;
	size_t j;

	for (j = 0; j < len; j++)
		b[j] = (unsigned char)(seed + j * 7 + (j >> 8));
}

static void assert_iter_eq(const struct iov_iter *a, const struct iov_iter *b)
{
	ck_assert_uint_eq(a->iter_type, b->iter_type);
	ck_assert_uint_eq(a->data_source, b->data_source);
	ck_assert_uint_eq(a->nofault, b->nofault);
	ck_assert_uint_eq(a->bvec_fixed, b->bvec_fixed);
	ck_assert_ptr_eq(a->ubuf, b->ubuf);
	ck_assert_uint_eq(a->iov_offset, b->iov_offset);
	ck_assert_uint_eq(a->count, b->count);
	ck_assert_uint_eq(a->nr_segs, b->nr_segs);
}

/*
 * @i stands at @off bytes into segment @seg (an element of its iovec,
 * kvec or bvec array), with @nr_segs segments and @count bytes left.
 */
static void assert_iter_at(const struct iov_iter *i, const void *seg,
			   size_t off, unsigned long nr_segs, size_t count)
{
	const void *cur;

	if (iov_iter_is_bvec(i))
		cur = i->bvec;
	else if (iov_iter_is_kvec(i))
		cur = i->kvec;
	else
		cur = iter_iov(i);
	ck_assert_ptr_eq(cur, seg);
	ck_assert_uint_eq(i->iov_offset, off);
	ck_assert_uint_eq(i->nr_segs, nr_segs);
	ck_assert_uint_eq(i->count, count);
}

static bool all_bytes(const void *buf, size_t len, unsigned char v)
{
	const unsigned char *b = buf;
	size_t j;

	for (j = 0; j < len; j++)
		if (b[j] != v)
			return false;
	return true;
}

/* ==== constructors and predicates ===================================== */

/* covers I-01, I-02 */
START_TEST(test_ubuf_init)
{
	char buf[100];
	struct iov_iter i;

	iov_iter_ubuf(&i, ITER_DEST, buf, sizeof(buf));
	ck_assert_uint_eq(iov_iter_type(&i), ITER_UBUF);
	ck_assert_ptr_eq(i.ubuf, buf);
	ck_assert_uint_eq(iov_iter_count(&i), 100);
	ck_assert_uint_eq(i.iov_offset, 0);
	ck_assert_uint_eq(i.nr_segs, 1);
	ck_assert(!i.nofault);
	ck_assert_int_eq(iov_iter_rw(&i), READ);

	iov_iter_ubuf(&i, ITER_SOURCE, buf, 7);
	ck_assert_int_eq(iov_iter_rw(&i), WRITE);
	ck_assert_uint_eq(iov_iter_count(&i), 7);
}
END_TEST

/* covers I-01, I-02 */
START_TEST(test_vec_and_discard_init)
{
	char a[10], b[20];
	struct iovec iov[2] = { { a, 10 }, { b, 20 } };
	struct kvec kv[2] = { { a, 10 }, { b, 20 } };
	struct bio_vec bv[1];
	struct iov_iter i;

	iov_iter_init(&i, ITER_SOURCE, iov, 2, 30);
	ck_assert_uint_eq(iov_iter_type(&i), ITER_IOVEC);
	ck_assert_ptr_eq(iter_iov(&i), iov);
	ck_assert_uint_eq(i.nr_segs, 2);
	ck_assert_uint_eq(i.count, 30);
	ck_assert_uint_eq(i.iov_offset, 0);
	ck_assert_int_eq(iov_iter_rw(&i), WRITE);

	iov_iter_kvec(&i, ITER_DEST, kv, 2, 25);
	ck_assert_uint_eq(iov_iter_type(&i), ITER_KVEC);
	ck_assert_ptr_eq(i.kvec, kv);
	ck_assert_uint_eq(i.nr_segs, 2);
	ck_assert_uint_eq(i.count, 25);
	ck_assert_int_eq(iov_iter_rw(&i), READ);

	bvec_set_virt(&bv[0], a, 10);
	i.bvec_fixed = true; /* must be cleared by the constructor */
	iov_iter_bvec(&i, ITER_SOURCE, bv, 1, 10);
	ck_assert_uint_eq(iov_iter_type(&i), ITER_BVEC);
	ck_assert_ptr_eq(i.bvec, bv);
	ck_assert(!i.bvec_fixed);
	ck_assert_uint_eq(i.count, 10);

	iov_iter_discard(&i, READ, 12345);
	ck_assert_uint_eq(iov_iter_type(&i), ITER_DISCARD);
	ck_assert(!i.data_source);
	ck_assert_uint_eq(iov_iter_count(&i), 12345);
	ck_assert_int_eq(iov_iter_rw(&i), READ);
}
END_TEST

/* covers I-03, I-04, I-12 (which iterators extraction will pin) */
START_TEST(test_user_backed_per_type)
{
	char a[16];
	struct iovec iov = { a, 16 };
	struct kvec kv = { a, 16 };
	struct bio_vec bv;
	struct iov_iter i;

	bvec_set_virt(&bv, a, 16);

	iov_iter_ubuf(&i, ITER_DEST, a, 16);
	ck_assert(user_backed_iter(&i) && iov_iter_extract_will_pin(&i));
	ck_assert(!iov_iter_is_bvec(&i));
	iov_iter_init(&i, ITER_DEST, &iov, 1, 16);
	ck_assert(user_backed_iter(&i) && iov_iter_extract_will_pin(&i));
	ck_assert(!iov_iter_is_bvec(&i));
	iov_iter_kvec(&i, ITER_DEST, &kv, 1, 16);
	ck_assert(!user_backed_iter(&i) && !iov_iter_extract_will_pin(&i));
	ck_assert(!iov_iter_is_bvec(&i) && iov_iter_is_kvec(&i));
	iov_iter_bvec(&i, ITER_DEST, &bv, 1, 16);
	ck_assert(!user_backed_iter(&i) && !iov_iter_extract_will_pin(&i));
	ck_assert(iov_iter_is_bvec(&i));
	iov_iter_discard(&i, ITER_DEST, 16);
	ck_assert(!user_backed_iter(&i) && !iov_iter_extract_will_pin(&i));
	ck_assert(!iov_iter_is_bvec(&i) && iov_iter_is_discard(&i));
}
END_TEST

/* covers I-02: the direction constants are the kernel's */
START_TEST(test_direction_values)
{
	ck_assert_int_eq(ITER_SOURCE, WRITE);
	ck_assert_int_eq(ITER_DEST, READ);
	ck_assert_int_eq(WRITE, 1);
	ck_assert_int_eq(READ, 0);
}
END_TEST

/* ==== advance / revert / truncate / reexpand ========================== */

/* covers I-05, I-08: UBUF moves iov_offset only */
START_TEST(test_ubuf_advance_revert)
{
	char buf[1000];
	struct iov_iter i, start;

	iov_iter_ubuf(&i, ITER_DEST, buf, 1000);
	start = i;
	iov_iter_advance(&i, 300);
	ck_assert_uint_eq(i.iov_offset, 300);
	ck_assert_uint_eq(i.count, 700);
	ck_assert_ptr_eq(i.ubuf, buf);
	iov_iter_advance(&i, 5000); /* clamped to count */
	ck_assert_uint_eq(i.iov_offset, 1000);
	ck_assert_uint_eq(i.count, 0);
	iov_iter_revert(&i, 1000);
	assert_iter_eq(&i, &start);
}
END_TEST

/*
 * covers I-05: consumed segments and every zero-length segment after them
 * are dropped; iov_offset stays inside the current segment.
 */
START_TEST(test_iovec_advance_skips_empty_segments)
{
	static char arena[8192];
	struct iovec iov[6] = {
		{ arena, 100 },	     { arena + 100, 0 },
		{ arena + 200, 0 },  { arena + 300, 4096 },
		{ arena + 4500, 0 }, { arena + 5000, 50 },
	};
	struct iov_iter i;

	iov_iter_init(&i, ITER_DEST, iov, 6, 4246);
	iov_iter_advance(&i, 99);
	ck_assert_ptr_eq(iter_iov(&i), &iov[0]);
	ck_assert_uint_eq(i.iov_offset, 99);
	ck_assert_uint_eq(i.nr_segs, 6);
	iov_iter_advance(&i, 1);
	assert_iter_at(&i, &iov[3], 0, 3, 4146);
	iov_iter_advance(&i, 4096 + 10);
	assert_iter_at(&i, &iov[5], 10, 1, 40);
	iov_iter_advance(&i, 40);
	assert_iter_at(&i, &iov[6], 0, 0, 0);
}
END_TEST

/*
 * covers I-05: advance(0) on a non-empty iterator still steps over
 * leading zero-length segments, but an empty iterator never moves; and
 * the amount is clamped to count even when more data follows.
 */
START_TEST(test_iovec_advance_zero_and_clamp)
{
	static char arena[64];
	struct iovec iov[3] = { { arena, 0 },
				{ arena + 8, 0 },
				{ arena + 16, 40 } };
	struct iov_iter i;

	iov_iter_init(&i, ITER_DEST, iov, 3, 40);
	iov_iter_advance(&i, 0);
	ck_assert_ptr_eq(iter_iov(&i), &iov[2]);
	ck_assert_uint_eq(i.nr_segs, 1);
	ck_assert_uint_eq(i.count, 40);

	iov_iter_init(&i, ITER_DEST, iov, 3, 0);
	iov_iter_advance(&i, 10);
	ck_assert_ptr_eq(iter_iov(&i), &iov[0]);
	ck_assert_uint_eq(i.nr_segs, 3);
	ck_assert_uint_eq(i.iov_offset, 0);

	/* truncated to 25 of the 40 bytes: advance(30) stops at 25 */
	iov_iter_init(&i, ITER_DEST, iov, 3, 25);
	iov_iter_advance(&i, 30);
	ck_assert_uint_eq(i.count, 0);
	ck_assert_ptr_eq(iter_iov(&i), &iov[2]);
	ck_assert_uint_eq(i.iov_offset, 25);
}
END_TEST

/*
 * covers I-08: advance n then revert n restores every field, from
 * positions inside and at the edges of segments, across boundaries.
 */
START_TEST(test_iovec_advance_revert_roundtrip)
{
	static char arena[3 * 8192];
	struct iovec iov[5] = {
		{ arena + 10, 300 },  { arena + 512, 4096 },
		{ arena + 8192, 0 },  { arena + 9000, 1000 },
		{ arena + 16384, 7 },
	};
	const size_t total = 300 + 4096 + 1000 + 7;
	const size_t starts[] = { 1, 150, 299, 300, 301, 4395, 4396, 5000 };
	const size_t steps[] = { 1, 5, 299, 300, 4096, 4097, 5102, 9999 };
	unsigned int s, n;

	for (s = 0; s < ARRAY_SIZE(starts); s++) {
		for (n = 0; n < ARRAY_SIZE(steps); n++) {
			struct iov_iter i, before;
			size_t moved;

			iov_iter_init(&i, ITER_DEST, iov, 5, total);
			iov_iter_advance(&i, starts[s]);
			before = i;
			iov_iter_advance(&i, steps[n]);
			moved = before.count - i.count;
			ck_assert_uint_eq(moved, min(steps[n], before.count));
			iov_iter_revert(&i, moved);
			assert_iter_eq(&i, &before);
		}
	}
}
END_TEST

/*
 * covers I-08: a revert that crosses back lands inside the previous
 * non-empty segment (offset < its length), skipping empty ones; one that
 * fits in iov_offset stays on the current segment.
 */
START_TEST(test_iovec_revert_lands_in_previous_segment)
{
	static char arena[4096];
	struct iovec iov[4] = { { arena, 100 },
				{ arena + 100, 200 },
				{ arena + 300, 0 },
				{ arena + 400, 50 } };
	struct iov_iter i;

	iov_iter_init(&i, ITER_DEST, iov, 4, 350);
	iov_iter_advance(&i, 320); /* segment 3, offset 20 */
	ck_assert_ptr_eq(iter_iov(&i), &iov[3]);
	ck_assert_uint_eq(i.iov_offset, 20);
	iov_iter_revert(&i, 20);
	ck_assert_ptr_eq(iter_iov(&i), &iov[3]);
	ck_assert_uint_eq(i.iov_offset, 0);
	iov_iter_revert(&i, 1);
	assert_iter_at(&i, &iov[1], 199, 3, 51);
	iov_iter_revert(&i, 250);
	assert_iter_at(&i, &iov[0], 49, 4, 301);
}
END_TEST

/*
 * covers I-05, I-08: from the initial position on a leading empty
 * segment, advance+revert is not the identity: the revert lands at
 * offset 0 of the non-empty segment, which is the same data position.
 */
START_TEST(test_iovec_roundtrip_from_leading_empty_segment)
{
	static char arena[64];
	struct iovec iov[2] = { { arena, 0 }, { arena + 8, 10 } };
	struct iov_iter i;

	iov_iter_init(&i, ITER_DEST, iov, 2, 10);
	iov_iter_advance(&i, 5);
	iov_iter_revert(&i, 5);
	assert_iter_at(&i, &iov[1], 0, 1, 10);
}
END_TEST

/* covers I-05, I-08 for KVEC (the same walk as IOVEC) */
START_TEST(test_kvec_advance_revert)
{
	char *a = kmalloc(5000, GFP_KERNEL), *b = kmalloc(64, GFP_KERNEL);
	struct kvec kv[3] = { { a, 5000 }, { b, 0 }, { b, 64 } };
	struct iov_iter i, start;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	iov_iter_kvec(&i, ITER_SOURCE, kv, 3, 5064);
	iov_iter_advance(&i, 10);
	start = i;
	iov_iter_advance(&i, 5000);
	assert_iter_at(&i, &kv[2], 10, 1, 54);
	iov_iter_revert(&i, 5000);
	assert_iter_eq(&i, &start);
	kfree(a);
	kfree(b);
}
END_TEST

/* covers I-05, I-08 for BVEC: multi-page bvecs with offsets */
START_TEST(test_bvec_advance_revert)
{
	char *mem = user_pages(8);
	struct bio_vec bv[4];
	struct iov_iter i, start;

	bvec_set_page(&bv[0], virt_to_page(mem), 5000, 100);
	bvec_set_page(&bv[1], virt_to_page(mem + 2 * PAGE_SIZE), 4096, 0);
	bvec_set_page(&bv[2], virt_to_page(mem + 3 * PAGE_SIZE), 96, 4000);
	bvec_set_page(&bv[3], virt_to_page(mem + 4 * PAGE_SIZE), 2000, 3000);
	iov_iter_bvec(&i, ITER_DEST, bv, 4, 5000 + 4096 + 96 + 2000);

	iov_iter_advance(&i, 4999);
	ck_assert_ptr_eq(i.bvec, &bv[0]);
	ck_assert_uint_eq(i.iov_offset, 4999);
	iov_iter_advance(&i, 1);
	ck_assert_ptr_eq(i.bvec, &bv[1]);
	ck_assert_uint_eq(i.iov_offset, 0);
	ck_assert_uint_eq(i.nr_segs, 3);
	start = i;
	iov_iter_advance(&i, 4096 + 96 + 1500);
	assert_iter_at(&i, &bv[3], 1500, 1, 500);
	iov_iter_revert(&i, 4096 + 96 + 1500);
	assert_iter_eq(&i, &start);
	/* within the multi-page bvec, across its page boundary */
	iov_iter_revert(&i, 1000);
	ck_assert_ptr_eq(i.bvec, &bv[0]);
	ck_assert_uint_eq(i.iov_offset, 4000);
	ck_assert_uint_eq(i.nr_segs, 4);
	iov_iter_advance(&i, 1000);
	assert_iter_eq(&i, &start);
	free(mem);
}
END_TEST

/* covers I-05, I-08: DISCARD has no position, only a count */
START_TEST(test_discard_advance_revert)
{
	struct iov_iter i;

	iov_iter_discard(&i, READ, 1000);
	iov_iter_advance(&i, 400);
	ck_assert_uint_eq(i.count, 600);
	ck_assert_uint_eq(i.iov_offset, 0);
	iov_iter_advance(&i, 4000);
	ck_assert_uint_eq(i.count, 0);
	iov_iter_revert(&i, 1000);
	ck_assert_uint_eq(i.count, 1000);
	ck_assert_uint_eq(i.iov_offset, 0);
}
END_TEST

/* covers I-08: revert(0) changes nothing, for every type, even at start */
START_TEST(test_revert_zero_is_noop)
{
	char buf[64];
	struct iovec iov = { buf, 64 };
	struct kvec kv = { buf, 64 };
	struct bio_vec bv;
	struct iov_iter i, before;

	bvec_set_virt(&bv, buf, 64);
	iov_iter_ubuf(&i, ITER_DEST, buf, 64);
	before = i;
	iov_iter_revert(&i, 0); /* at the start of a UBUF: must not BUG */
	assert_iter_eq(&i, &before);
	iov_iter_init(&i, ITER_DEST, &iov, 1, 64);
	before = i;
	iov_iter_revert(&i, 0);
	assert_iter_eq(&i, &before);
	iov_iter_kvec(&i, ITER_DEST, &kv, 1, 64);
	before = i;
	iov_iter_revert(&i, 0);
	assert_iter_eq(&i, &before);
	iov_iter_bvec(&i, ITER_DEST, &bv, 1, 64);
	before = i;
	iov_iter_revert(&i, 0);
	assert_iter_eq(&i, &before);
	iov_iter_discard(&i, READ, 64);
	before = i;
	iov_iter_revert(&i, 0);
	assert_iter_eq(&i, &before);
}
END_TEST

/*
 * covers I-08's iov_iter_restore(): back to a saved state after moving
 * forward across segments, for every segmented type and UBUF, with
 * nothing else moved; a DISCARD warns and is left as it is.
 */
START_TEST(test_save_and_restore)
{
	static char buf[3 * 4096];
	struct iovec iov[3] = { { buf, 100 },
				{ buf + 100, 0 },
				{ buf + 4096, 8192 } };
	struct kvec kv[3] = { { buf, 100 },
			      { buf + 100, 0 },
			      { buf + 4096, 8192 } };
	struct bio_vec bv[2];
	struct iov_iter_state st;
	struct iov_iter i, saved;

	bvec_set_page(&bv[0], virt_to_page(buf), 100, 0);
	bvec_set_page(&bv[1], virt_to_page(buf + 4096), 8192, 0);
	for (int t = 0; t < 4; t++) {
		if (t == 0)
			iov_iter_init(&i, ITER_SOURCE, iov, 3, 8292);
		else if (t == 1)
			iov_iter_kvec(&i, ITER_SOURCE, kv, 3, 8292);
		else if (t == 2)
			iov_iter_bvec(&i, ITER_SOURCE, bv, 2, 8292);
		else
			iov_iter_ubuf(&i, ITER_SOURCE, buf, 8292);
		iov_iter_advance(&i, 50);
		saved = i;
		iov_iter_save_state(&i, &st);
		iov_iter_advance(&i, 5000);
		ck_assert_uint_eq(i.count, 8292 - 5050);
		iov_iter_restore(&i, &st);
		assert_iter_eq(&i, &saved);
	}

	sim_test_expect_warnings(1);
	iov_iter_discard(&i, READ, 10);
	iov_iter_save_state(&i, &st);
	iov_iter_advance(&i, 4);
	saved = i;
	iov_iter_restore(&i, &st);
	assert_iter_eq(&i, &saved);
}
END_TEST

/* covers I-08: more than MAX_RW_COUNT warns and changes nothing */
START_TEST(test_revert_over_max_rw_count_warns)
{
	static char buf[4096];
	struct iovec iov[2] = { { buf, 2048 }, { buf + 2048, 2048 } };
	struct iov_iter i, before;

	sim_test_expect_warnings(2);
	iov_iter_init(&i, ITER_DEST, iov, 2, 4096);
	iov_iter_advance(&i, 3000);
	before = i;
	iov_iter_revert(&i, (size_t)MAX_RW_COUNT + 1);
	assert_iter_eq(&i, &before);

	iov_iter_discard(&i, READ, 10);
	before = i;
	iov_iter_revert(&i, SIZE_MAX);
	assert_iter_eq(&i, &before);

	/* exactly MAX_RW_COUNT is allowed (DISCARD: count only) */
	iov_iter_revert(&i, MAX_RW_COUNT);
	ck_assert_uint_eq(i.count, 10 + (size_t)MAX_RW_COUNT);
}
END_TEST

/*
 * covers I-08: reverting a UBUF before its start is a kernel bug.  Runs
 * only in Check's fork mode (the process dies).
 */
START_TEST(test_revert_ubuf_before_start_bugs)
{
	char buf[64];
	struct iov_iter i;

	iov_iter_ubuf(&i, ITER_DEST, buf, 64);
	iov_iter_advance(&i, 10);
	iov_iter_revert(&i, 11);
}
END_TEST

/* covers I-06, I-07 */
START_TEST(test_truncate_and_reexpand)
{
	static char buf[8192];
	struct iovec iov[2] = { { buf, 4096 }, { buf + 4096, 4096 } };
	struct iov_iter i;
	size_t shorted;

	iov_iter_init(&i, ITER_DEST, iov, 2, 8192);
	iov_iter_truncate(&i, 10000); /* a cap, not a set */
	ck_assert_uint_eq(i.count, 8192);
	iov_iter_truncate(&i, 5000);
	ck_assert_uint_eq(i.count, 5000);
	shorted = 8192 - 5000;
	ck_assert_ptr_eq(iter_iov(&i), &iov[0]);
	ck_assert_uint_eq(i.nr_segs, 2);

	iov_iter_advance(&i, 6000);
	ck_assert_uint_eq(i.count, 0);
	ck_assert_ptr_eq(iter_iov(&i), &iov[1]);
	ck_assert_uint_eq(i.iov_offset, 5000 - 4096);

	iov_iter_reexpand(&i, i.count + shorted);
	ck_assert_uint_eq(i.count, 3192);
	iov_iter_advance(&i, 3192);
	ck_assert_uint_eq(i.count, 0);
	ck_assert_ptr_eq(iter_iov(&i), &iov[2]);
	ck_assert_uint_eq(i.nr_segs, 0);

	/* reexpand sets unconditionally, downwards too */
	iov_iter_reexpand(&i, 0);
	ck_assert_uint_eq(i.count, 0);
}
END_TEST

/* ==== copies and zeroing ============================================== */

/* covers I-09: exactly the iterated bytes become zero, nothing else */
START_TEST(test_zero_iovec_exact)
{
	char *mem = user_pages(2);
	struct iovec iov[3] = { { mem + 10, 100 },
				{ mem + 500, 0 },
				{ mem + 4000, 300 } };
	struct iov_iter i;
	size_t n;

	iov_iter_init(&i, ITER_DEST, iov, 3, 400);
	iov_iter_advance(&i, 20);
	n = iov_iter_zero(200, &i);
	ck_assert_uint_eq(n, 200);
	ck_assert_uint_eq(i.count, 180);
	ck_assert(all_bytes(mem, 30, 0xa5));
	ck_assert(all_bytes(mem + 30, 80, 0));
	ck_assert(all_bytes(mem + 110, 4000 - 110, 0xa5));
	ck_assert(all_bytes(mem + 4000, 120, 0));
	ck_assert(all_bytes(mem + 4120, 2 * PAGE_SIZE - 4120, 0xa5));

	/* short: only count is left */
	n = iov_iter_zero(1000, &i);
	ck_assert_uint_eq(n, 180);
	ck_assert_uint_eq(i.count, 0);
	ck_assert(all_bytes(mem + 4120, 180, 0));
	ck_assert(all_bytes(mem + 4300, 2 * PAGE_SIZE - 4300, 0xa5));
	ck_assert_uint_eq(iov_iter_zero(10, &i), 0);
	free(mem);
}
END_TEST

/* covers I-09: BVEC across a page boundary; DISCARD just counts */
START_TEST(test_zero_bvec_and_discard)
{
	char *mem = user_pages(3);
	struct bio_vec bv;
	struct iov_iter i;

	bvec_set_page(&bv, virt_to_page(mem), 5000, 3000);
	iov_iter_bvec(&i, ITER_DEST, &bv, 1, 5000);
	ck_assert_uint_eq(iov_iter_zero(4000, &i), 4000);
	ck_assert(all_bytes(mem, 3000, 0xa5));
	ck_assert(all_bytes(mem + 3000, 4000, 0));
	ck_assert(all_bytes(mem + 7000, 3 * PAGE_SIZE - 7000, 0xa5));
	ck_assert_uint_eq(i.iov_offset, 4000);
	ck_assert_uint_eq(i.count, 1000);

	iov_iter_discard(&i, READ, 100);
	ck_assert_uint_eq(iov_iter_zero(250, &i), 100);
	ck_assert_uint_eq(i.count, 0);
	free(mem);
}
END_TEST

/* covers I-10: copy_to_iter fills segments in order, nothing else */
START_TEST(test_copy_to_iter_iovec_exact)
{
	char *mem = user_pages(2);
	char src[700];
	struct iovec iov[4] = { { mem + 4090, 12 },
				{ mem, 0 },
				{ mem + 100, 600 },
				{ mem + 5000, 88 } };
	struct iov_iter i;

	fill_pattern(src, sizeof(src), 3);
	iov_iter_init(&i, ITER_DEST, iov, 4, 700);
	ck_assert_uint_eq(copy_to_iter(src, 650, &i), 650);
	ck_assert_uint_eq(i.count, 50);
	ck_assert_mem_eq(mem + 4090, src, 12);
	ck_assert_mem_eq(mem + 100, src + 12, 600);
	ck_assert_mem_eq(mem + 5000, src + 612, 38);
	ck_assert(all_bytes(mem, 100, 0xa5));
	ck_assert(all_bytes(mem + 700, 4090 - 700, 0xa5));
	ck_assert(all_bytes(mem + 4102, 5000 - 4102, 0xa5));
	ck_assert(all_bytes(mem + 5038, 2 * PAGE_SIZE - 5038, 0xa5));
	ck_assert_ptr_eq(iter_iov(&i), &iov[3]);
	ck_assert_uint_eq(i.iov_offset, 38);
	free(mem);
}
END_TEST

/* covers I-10: copy_from_iter gathers from a KVEC in order */
START_TEST(test_copy_from_iter_kvec_exact)
{
	char *a = kmalloc(300, GFP_KERNEL), *b = kmalloc(300, GFP_KERNEL);
	struct kvec kv[2] = { { a + 50, 200 }, { b, 300 } };
	char dst[600];
	struct iov_iter i;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	fill_pattern(a, 300, 1);
	fill_pattern(b, 300, 2);
	memset(dst, 0x5a, sizeof(dst));
	iov_iter_kvec(&i, ITER_SOURCE, kv, 2, 500);
	ck_assert_uint_eq(copy_from_iter(dst, 450, &i), 450);
	ck_assert_mem_eq(dst, a + 50, 200);
	ck_assert_mem_eq(dst + 200, b, 250);
	ck_assert(all_bytes(dst + 450, 150, 0x5a));
	ck_assert_ptr_eq(i.kvec, &kv[1]);
	ck_assert_uint_eq(i.iov_offset, 250);
	ck_assert_uint_eq(i.count, 50);
	kfree(a);
	kfree(b);
}
END_TEST

/* covers I-10: a truncated iterator copies only count bytes (UBUF) */
START_TEST(test_copy_short_when_count_smaller)
{
	char dst[100], src[100];
	struct iov_iter i;

	fill_pattern(src, sizeof(src), 9);
	memset(dst, 0, sizeof(dst));
	iov_iter_ubuf(&i, ITER_DEST, dst, 100);
	iov_iter_truncate(&i, 30);
	ck_assert_uint_eq(copy_to_iter(src, 100, &i), 30);
	ck_assert_mem_eq(dst, src, 30);
	ck_assert(all_bytes(dst + 30, 70, 0));
	ck_assert_uint_eq(i.count, 0);
	ck_assert_uint_eq(i.iov_offset, 30);
	ck_assert_uint_eq(copy_to_iter(src, 100, &i), 0);
}
END_TEST

/* covers I-02, I-10: copying against the iterator's direction is refused */
START_TEST(test_copy_wrong_direction_warns)
{
	char buf[32], other[32];
	struct iov_iter i, before;

	sim_test_expect_warnings(2);
	memset(buf, 1, sizeof(buf));
	memset(other, 2, sizeof(other));
	iov_iter_ubuf(&i, ITER_SOURCE, buf, 32);
	before = i;
	ck_assert_uint_eq(copy_to_iter(other, 32, &i), 0);
	assert_iter_eq(&i, &before);
	ck_assert(all_bytes(buf, 32, 1));

	iov_iter_ubuf(&i, ITER_DEST, buf, 32);
	before = i;
	ck_assert_uint_eq(copy_from_iter(other, 32, &i), 0);
	assert_iter_eq(&i, &before);
	ck_assert(all_bytes(other, 32, 2));
}
END_TEST

/* covers I-10: BVEC copies split at page ends inside a multi-page bvec */
START_TEST(test_copy_to_iter_bvec_multi_page)
{
	char *mem = user_pages(4);
	char src[9000];
	struct bio_vec bv[2];
	struct iov_iter i;

	fill_pattern(src, sizeof(src), 5);
	bvec_set_page(&bv[0], virt_to_page(mem), 6000, 4000);
	bvec_set_page(&bv[1], virt_to_page(mem + 3 * PAGE_SIZE), 3000, 1);
	iov_iter_bvec(&i, ITER_DEST, bv, 2, 9000);
	ck_assert_uint_eq(copy_to_iter(src, 9000, &i), 9000);
	ck_assert_mem_eq(mem + 4000, src, 6000);
	ck_assert_mem_eq(mem + 3 * PAGE_SIZE + 1, src + 6000, 3000);
	ck_assert(all_bytes(mem, 4000, 0xa5));
	ck_assert(all_bytes(mem + 10000, 3 * PAGE_SIZE + 1 - 10000, 0xa5));
	ck_assert(
		all_bytes(mem + 3 * PAGE_SIZE + 3001, PAGE_SIZE - 3001, 0xa5));
	ck_assert_uint_eq(i.count, 0);
	ck_assert_ptr_eq(i.bvec, &bv[2]);
	ck_assert_uint_eq(i.nr_segs, 0);
	free(mem);
}
END_TEST

/* covers I-10: the page helpers start at page + offset/PAGE_SIZE */
START_TEST(test_copy_page_helpers)
{
	char *pages = user_pages(3);
	char *dst = user_pages(2);
	struct iov_iter i;

	fill_pattern(pages, 3 * PAGE_SIZE, 11);
	iov_iter_ubuf(&i, ITER_DEST, dst, 2 * PAGE_SIZE);
	/* from byte 4100 of the 3-page run, across the second page end */
	ck_assert_uint_eq(
		copy_page_to_iter(virt_to_page(pages), 4100, 5000, &i), 5000);
	ck_assert_mem_eq(dst, pages + 4100, 5000);
	ck_assert_uint_eq(i.iov_offset, 5000);

	/* folio variant: count caps it */
	ck_assert_uint_eq(copy_folio_to_iter(page_folio(virt_to_page(pages)),
					     10, 4000, &i),
			  2 * PAGE_SIZE - 5000);
	ck_assert_mem_eq(dst + 5000, pages + 10, 2 * PAGE_SIZE - 5000);

	/* and back: copy_page_from_iter writes into the page run */
	memset(pages, 0, 3 * PAGE_SIZE);
	iov_iter_ubuf(&i, ITER_SOURCE, dst, 2 * PAGE_SIZE);
	ck_assert_uint_eq(
		copy_page_from_iter(virt_to_page(pages), 100, 6000, &i), 6000);
	ck_assert_mem_eq(pages + 100, dst, 6000);
	ck_assert(all_bytes(pages, 100, 0));
	ck_assert(all_bytes(pages + 6100, 3 * PAGE_SIZE - 6100, 0));
	free(pages);
	free(dst);
}
END_TEST

/* ==== npages and alignment ============================================ */

/* covers I-11 for UBUF */
START_TEST(test_npages_ubuf)
{
	char *mem = user_pages(4);
	struct iov_iter i;

	iov_iter_ubuf(&i, ITER_DEST, mem, PAGE_SIZE);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 1);
	iov_iter_ubuf(&i, ITER_DEST, mem + 1, PAGE_SIZE);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 2);
	iov_iter_ubuf(&i, ITER_DEST, mem + PAGE_SIZE - 1, 2);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 2);
	iov_iter_ubuf(&i, ITER_DEST, mem + 100, 3 * PAGE_SIZE);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 4);
	ck_assert_int_eq(iov_iter_npages(&i, 3), 3);
	iov_iter_advance(&i, PAGE_SIZE - 100); /* now page aligned */
	ck_assert_int_eq(iov_iter_npages(&i, 100), 3);
	iov_iter_advance(&i, i.count);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 0);
	free(mem);
}
END_TEST

/* covers I-11 for IOVEC, KVEC, BVEC and DISCARD */
START_TEST(test_npages_vectors)
{
	char *mem = user_pages(8);
	struct iovec iov[4] = { { mem + 4000, 200 }, /* 2 pages */
				{ mem + 2 * PAGE_SIZE, 0 },
				{ mem + 2 * PAGE_SIZE, PAGE_SIZE }, /* 1 */
				{ mem + 5 * PAGE_SIZE + 10, 10 } }; /* 1 */
	struct bio_vec bv[2];
	struct iov_iter i;

	iov_iter_init(&i, ITER_DEST, iov, 4, 200 + PAGE_SIZE + 10);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 4);
	ck_assert_int_eq(iov_iter_npages(&i, 2), 2);
	iov_iter_advance(&i, 100); /* at mem + 4100: 100 bytes, 1 page */
	ck_assert_int_eq(iov_iter_npages(&i, 100), 3);
	iov_iter_truncate(&i, 100 + PAGE_SIZE);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 2);

	iov_iter_kvec(&i, ITER_DEST, (struct kvec *)iov, 4, 200);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 2);

	bvec_set_page(&bv[0], virt_to_page(mem), 2 * PAGE_SIZE, 1);
	bvec_set_page(&bv[1], virt_to_page(mem + 6 * PAGE_SIZE), 10, 0);
	iov_iter_bvec(&i, ITER_DEST, bv, 2, 2 * PAGE_SIZE + 10);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 4);
	iov_iter_advance(&i, PAGE_SIZE - 1);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 3);

	iov_iter_discard(&i, READ, 100000);
	ck_assert_int_eq(iov_iter_npages(&i, 100), 0);
	free(mem);
}
END_TEST

/* iov_iter_alignment: OR of every start address and length */
START_TEST(test_alignment)
{
	char *mem = user_pages(4);
	struct iovec iov[3] = { { mem + 512, 1024 },
				{ mem + 8192, 0 }, /* skipped: empty */
				{ mem + 4096, 2048 } };
	struct bio_vec bv[2];
	struct iov_iter i;

	iov_iter_ubuf(&i, ITER_DEST, mem + 512, 4096);
	ck_assert_uint_eq(iov_iter_alignment(&i),
			  ((unsigned long)mem + 512) | 4096);
	iov_iter_advance(&i, 4096);
	ck_assert_uint_eq(iov_iter_alignment(&i), 0);

	iov_iter_init(&i, ITER_DEST, iov, 3, 3072);
	ck_assert_uint_eq(iov_iter_alignment(&i),
			  ((unsigned long)mem + 512) | 1024 |
				  ((unsigned long)mem + 4096) | 2048);
	/* only the bytes within count: the last segment contributes 100 */
	iov_iter_truncate(&i, 1024 + 100);
	ck_assert_uint_eq(iov_iter_alignment(&i),
			  ((unsigned long)mem + 512) | 1024 |
				  ((unsigned long)mem + 4096) | 100);
	iov_iter_advance(&i, 1);
	ck_assert_uint_eq(iov_iter_alignment(&i),
			  ((unsigned long)mem + 513) | 1023 |
				  ((unsigned long)mem + 4096) | 100);

	bvec_set_page(&bv[0], virt_to_page(mem), 1024, 2048);
	bvec_set_page(&bv[1], virt_to_page(mem + PAGE_SIZE), 512, 0);
	iov_iter_bvec(&i, ITER_DEST, bv, 2, 1536);
	ck_assert_uint_eq(iov_iter_alignment(&i), 2048 | 1024 | 512);

	iov_iter_discard(&i, READ, 7);
	ck_assert_uint_eq(iov_iter_alignment(&i), 0);
	free(mem);
}
END_TEST

/* iov_iter_is_aligned: every segment's address and length vs the masks */
START_TEST(test_is_aligned)
{
	char *mem = user_pages(4);
	struct iovec iov[2] = { { mem + 512, 1024 }, { mem + 4096, 2048 } };
	struct bio_vec bv[2];
	struct iov_iter i;

	iov_iter_ubuf(&i, ITER_DEST, mem + 512, 4096);
	ck_assert(iov_iter_is_aligned(&i, 511, 511));
	ck_assert(!iov_iter_is_aligned(&i, 1023, 511));
	iov_iter_truncate(&i, 4000);
	ck_assert(!iov_iter_is_aligned(&i, 511, 511));

	iov_iter_init(&i, ITER_DEST, iov, 2, 3072);
	ck_assert(iov_iter_is_aligned(&i, 511, 511));
	ck_assert(!iov_iter_is_aligned(&i, 1023, 511));
	ck_assert(!iov_iter_is_aligned(&i, 511, 2047));
	iov_iter_advance(&i, 512);
	ck_assert(iov_iter_is_aligned(&i, 511, 511));
	iov_iter_advance(&i, 8);
	ck_assert(!iov_iter_is_aligned(&i, 511, 0));
	ck_assert(iov_iter_is_aligned(&i, 7, 7));

	bvec_set_page(&bv[0], virt_to_page(mem), 1024, 512);
	bvec_set_page(&bv[1], virt_to_page(mem + PAGE_SIZE), 512, 0);
	iov_iter_bvec(&i, ITER_DEST, bv, 2, 1536);
	ck_assert(iov_iter_is_aligned(&i, 511, 511));
	ck_assert(!iov_iter_is_aligned(&i, 1023, 511));
	free(mem);
}
END_TEST

/* ==== extraction ====================================================== */

/*
 * One iov_iter_extract_pages() into *@pp that returns @len bytes starting
 * @offset bytes into the first page listed.
 */
static void extract_expect(struct iov_iter *i, struct page ***pp,
			   size_t maxsize, unsigned int maxpages, ssize_t len,
			   size_t offset)
{
	size_t offset0;

	ck_assert_int_eq(iov_iter_extract_pages(i, pp, maxsize, maxpages, 0,
						&offset0),
			 len);
	ck_assert_uint_eq(offset0, offset);
}

/*
 * covers I-12: a UBUF's pages are pinned once each; the list is allocated
 * when *pages is NULL; offset0 is the offset into the first page; the
 * iterator advances by what was extracted.
 */
START_TEST(test_extract_ubuf_pins)
{
	char *mem = user_pages(4);
	struct page **pages = NULL;
	struct iov_iter i;
	size_t offset0 = 12345;
	ssize_t n;
	int k;

	iov_iter_ubuf(&i, ITER_DEST, mem + 100, 3 * PAGE_SIZE);
	n = iov_iter_extract_pages(&i, &pages, SIZE_MAX, UINT_MAX, 0, &offset0);
	ck_assert_int_eq(n, 3 * PAGE_SIZE);
	ck_assert_ptr_nonnull(pages);
	ck_assert_uint_eq(offset0, 100);
	for (k = 0; k < 4; k++) {
		ck_assert_ptr_eq(pages[k], virt_to_page(mem + k * PAGE_SIZE));
		ck_assert_int_eq(sim_page_pincount(pages[k]), 1);
	}
	ck_assert_uint_eq(i.count, 0);
	ck_assert_uint_eq(i.iov_offset, 3 * PAGE_SIZE);
	unpin_user_pages(pages, 4);
	for (k = 0; k < 4; k++)
		ck_assert_int_eq(sim_page_pincount(pages[k]), 0);
	kvfree(pages);
	free(mem);
}
END_TEST

/*
 * covers I-12: an IOVEC extraction covers only its first non-empty
 * segment, even when the next one continues it in memory.
 */
START_TEST(test_extract_iovec_one_segment)
{
	char *mem = user_pages(4);
	struct iovec iov[3] = { { mem, 0 },
				{ mem + 2000, 3000 },
				{ mem + 7000, 3000 } };
	struct page *pages[8];
	struct page **pp = pages;
	struct iov_iter i;
	size_t offset0;
	ssize_t n;

	iov_iter_init(&i, ITER_SOURCE, iov, 3, 6000);
	n = iov_iter_extract_pages(&i, &pp, 6000, 8, 0, &offset0);
	ck_assert_ptr_eq(pp, pages); /* caller's array used as is */
	ck_assert_int_eq(n, 3000);
	ck_assert_uint_eq(offset0, 2000);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem));
	ck_assert_ptr_eq(pages[1], virt_to_page(mem + PAGE_SIZE));
	ck_assert_int_eq(sim_page_pincount(pages[0]), 1);
	ck_assert_int_eq(sim_page_pincount(pages[1]), 1);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + 2 * PAGE_SIZE)),
			 0);
	ck_assert_ptr_eq(iter_iov(&i), &iov[2]);
	ck_assert_uint_eq(i.iov_offset, 0);
	ck_assert_uint_eq(i.count, 3000);

	extract_expect(&i, &pp, 6000, 8, 3000, 7000 - PAGE_SIZE);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem + PAGE_SIZE));
	ck_assert_ptr_eq(pages[1], virt_to_page(mem + 2 * PAGE_SIZE));
	/* the page both segments touch now holds two pins */
	ck_assert_int_eq(sim_page_pincount(pages[0]), 2);
	ck_assert_int_eq(sim_page_pincount(pages[1]), 1);
	ck_assert_uint_eq(i.count, 0);

	unpin_user_pages(pages, 2);
	unpin_user_page(virt_to_page(mem));
	unpin_user_page(virt_to_page(mem + PAGE_SIZE));
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem)), 0);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + PAGE_SIZE)), 0);
	free(mem);
}
END_TEST

/* covers I-12: maxpages and maxsize cap the extraction */
START_TEST(test_extract_caps)
{
	char *mem = user_pages(4);
	struct page *pages[4];
	struct page **pp = pages;
	struct iov_iter i;

	iov_iter_ubuf(&i, ITER_DEST, mem + 1000, 3 * PAGE_SIZE);
	extract_expect(&i, &pp, SIZE_MAX, 2, 2 * PAGE_SIZE - 1000, 1000);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + 2 * PAGE_SIZE)),
			 0);
	unpin_user_pages(pages, 2);

	extract_expect(&i, &pp, 10, 4, 10, 0);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem + 2 * PAGE_SIZE));
	ck_assert_int_eq(sim_page_pincount(pages[0]), 1);
	unpin_user_pages(pages, 1);
	ck_assert_uint_eq(i.count, 3 * PAGE_SIZE - (2 * PAGE_SIZE - 1000) - 10);
	free(mem);
}
END_TEST

/* covers I-12: KVEC pages are listed, neither pinned nor referenced */
START_TEST(test_extract_kvec_no_pin)
{
	char *buf = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	struct kvec kv[2];
	struct page **pages = NULL;
	struct iov_iter i;
	size_t offset0, off;
	ssize_t n;
	int k, nr;

	ck_assert_ptr_nonnull(buf);
	kv[0] = (struct kvec){ buf, 0 };
	kv[1] = (struct kvec){ buf + 10, 2 * PAGE_SIZE };
	off = offset_in_page(buf + 10);
	iov_iter_kvec(&i, ITER_DEST, kv, 2, 2 * PAGE_SIZE);
	n = iov_iter_extract_pages(&i, &pages, SIZE_MAX, UINT_MAX, 0, &offset0);
	ck_assert_int_eq(n, 2 * PAGE_SIZE);
	ck_assert_uint_eq(offset0, off);
	nr = DIV_ROUND_UP(off + 2 * PAGE_SIZE, PAGE_SIZE);
	for (k = 0; k < nr; k++) {
		ck_assert_ptr_eq(pages[k],
				 virt_to_page(buf + 10 - off + k * PAGE_SIZE));
		ck_assert_int_eq(sim_page_pincount(pages[k]), 0);
	}
	ck_assert_uint_eq(i.count, 0);
	kvfree(pages);
	kfree(buf);
}
END_TEST

/*
 * covers I-12: BVEC pages are listed without a pin; one extraction runs
 * across bvecs while they are page-contiguous (each ends at a page end,
 * the next starts at offset 0) and stops where a hole would appear: after
 * a piece ending mid-page, or before a later piece with an offset.  As in
 * the kernel, the list is sized from maxsize + iov_offset, which can be a
 * page short when the first bvec starts inside a page.
 */
START_TEST(test_extract_bvec_contiguous)
{
	char *mem = user_pages(12);
	struct bio_vec bv[5];
	struct page *pages[8];
	struct page **pp = pages;
	struct iov_iter i;
	size_t offset0;

	/* 2.5 pages ending at a page end, then a full page elsewhere */
	bvec_set_page(&bv[0], virt_to_page(mem), 2 * PAGE_SIZE + 2048, 2048);
	bvec_set_page(&bv[1], virt_to_page(mem + 5 * PAGE_SIZE), PAGE_SIZE, 0);
	/* ends mid-page: the run stops after it */
	bvec_set_page(&bv[2], virt_to_page(mem + 7 * PAGE_SIZE), 100, 0);
	/* a full page: could follow bv[2] but for bv[2]'s short end */
	bvec_set_page(&bv[3], virt_to_page(mem + 6 * PAGE_SIZE), PAGE_SIZE, 0);
	/* starts mid-page: cannot follow bv[3] in one extraction */
	bvec_set_page(&bv[4], virt_to_page(mem + 9 * PAGE_SIZE), 2 * PAGE_SIZE,
		      100);
	iov_iter_bvec(&i, ITER_SOURCE, bv, 5,
		      (2 * PAGE_SIZE + 2048) + PAGE_SIZE + 100 + PAGE_SIZE +
			      2 * PAGE_SIZE);

	iov_iter_advance(&i, 100); /* 2148 bytes into page 0 */
	extract_expect(&i, &pp, SIZE_MAX, 8,
		       (2 * PAGE_SIZE + 2048 - 100) + PAGE_SIZE + 100, 2148);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem));
	ck_assert_ptr_eq(pages[1], virt_to_page(mem + PAGE_SIZE));
	ck_assert_ptr_eq(pages[2], virt_to_page(mem + 2 * PAGE_SIZE));
	ck_assert_ptr_eq(pages[3], virt_to_page(mem + 5 * PAGE_SIZE));
	ck_assert_ptr_eq(pages[4], virt_to_page(mem + 7 * PAGE_SIZE));
	ck_assert_int_eq(sim_page_pincount(pages[0]), 0);
	ck_assert_int_eq(sim_page_pincount(pages[4]), 0);
	assert_iter_at(&i, &bv[3], 0, 2, 3 * PAGE_SIZE);

	extract_expect(&i, &pp, SIZE_MAX, 8, PAGE_SIZE, 0);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem + 6 * PAGE_SIZE));
	ck_assert_ptr_eq(i.bvec, &bv[4]);

	/* 2 pages of data: a 2-page list, one page short of the 3 spanned */
	extract_expect(&i, &pp, SIZE_MAX, 8, 2 * PAGE_SIZE - 100, 100);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem + 9 * PAGE_SIZE));
	ck_assert_ptr_eq(pages[1], virt_to_page(mem + 10 * PAGE_SIZE));

	extract_expect(&i, &pp, SIZE_MAX, 8, 100, 0);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem + 11 * PAGE_SIZE));
	ck_assert_uint_eq(i.count, 0);
	ck_assert_int_eq(
		iov_iter_extract_pages(&i, &pp, SIZE_MAX, 8, 0, &offset0), 0);
	free(mem);
}
END_TEST

/* covers I-12: a BVEC extraction stops at maxpages and at maxsize */
START_TEST(test_extract_bvec_caps)
{
	char *mem = user_pages(4);
	struct bio_vec bv;
	struct page *pages[4];
	struct page **pp = pages;
	struct iov_iter i;

	bvec_set_page(&bv, virt_to_page(mem), 4 * PAGE_SIZE - 300, 300);
	iov_iter_bvec(&i, ITER_DEST, &bv, 1, 4 * PAGE_SIZE - 300);
	extract_expect(&i, &pp, SIZE_MAX, 2, 2 * PAGE_SIZE - 300, 300);
	extract_expect(&i, &pp, 5000, 4, 5000, 0);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem + 2 * PAGE_SIZE));
	ck_assert_ptr_eq(pages[1], virt_to_page(mem + 3 * PAGE_SIZE));
	ck_assert_uint_eq(i.iov_offset, 2 * PAGE_SIZE - 300 + 5000);
	ck_assert_uint_eq(i.count, 2 * PAGE_SIZE - 5000);
	free(mem);
}
END_TEST

/*
 * covers I-12: a BVEC iterator whose offset sits at the very end of its
 * current bvec (advance never leaves one there, but a restored or
 * hand-positioned iterator can be) extracts from the next bvec.
 */
START_TEST(test_extract_bvec_at_segment_end)
{
	char *mem = user_pages(3);
	struct bio_vec bv[2];
	struct page *pages[2];
	struct page **pp = pages;
	struct iov_iter i;

	bvec_set_page(&bv[0], virt_to_page(mem), 512, 0);
	bvec_set_page(&bv[1], virt_to_page(mem + 2 * PAGE_SIZE), 300, 40);
	iov_iter_bvec(&i, ITER_DEST, bv, 2, 812);
	i.iov_offset = 512; /* as iov_iter_restore() may leave it */
	i.count = 300;
	extract_expect(&i, &pp, SIZE_MAX, 2, 300, 40);
	ck_assert_ptr_eq(pages[0], virt_to_page(mem + 2 * PAGE_SIZE));
	ck_assert_ptr_eq(i.bvec, &bv[2]);
	ck_assert_uint_eq(i.nr_segs, 0);
	ck_assert_uint_eq(i.count, 0);
	free(mem);
}
END_TEST

/* covers I-12: an empty iterator or maxsize 0 extracts nothing */
START_TEST(test_extract_empty)
{
	char *mem = user_pages(1);
	struct page *sentinel = virt_to_page(mem);
	struct page *pages[1] = { sentinel };
	struct page **pp = pages;
	struct iov_iter i;
	size_t offset0 = 77;

	iov_iter_ubuf(&i, ITER_DEST, mem, 0);
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pp, 100, 1, 0, &offset0),
			 0);
	iov_iter_ubuf(&i, ITER_DEST, mem, 100);
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pp, 0, 1, 0, &offset0), 0);
	ck_assert_uint_eq(i.count, 100);
	ck_assert_ptr_eq(pages[0], sentinel);
	ck_assert_uint_eq(offset0, 77);
	ck_assert_int_eq(sim_page_pincount(sentinel), 0);
	free(mem);
}
END_TEST

/* covers I-12: a short pin caps the bytes; only spanned pages pinned */
START_TEST(test_extract_short_pin)
{
	char *mem = user_pages(4);
	struct page *pages[4];
	struct page **pp = pages;
	struct iov_iter i;
	size_t offset0;
	ssize_t n;

	sim_fault_short_pin_set(2, PAGE_SIZE); /* the 2nd extraction */
	iov_iter_ubuf(&i, ITER_DEST, mem + 512, 3 * PAGE_SIZE);
	n = iov_iter_extract_pages(&i, &pp, 1024, 4, 0, &offset0);
	ck_assert_int_eq(n, 1024);
	unpin_user_pages(pages, 1);

	extract_expect(&i, &pp, SIZE_MAX, 4, PAGE_SIZE, 1536);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem)), 1);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + PAGE_SIZE)), 1);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + 2 * PAGE_SIZE)),
			 0);
	ck_assert_uint_eq(i.count, 3 * PAGE_SIZE - 1024 - PAGE_SIZE);
	unpin_user_pages(pages, 2);

	/* the 3rd extraction is not affected */
	n = iov_iter_extract_pages(&i, &pp, SIZE_MAX, 4, 0, &offset0);
	ck_assert_int_eq(n, 3 * PAGE_SIZE - 1024 - PAGE_SIZE);
	unpin_user_pages(pages, DIV_ROUND_UP(offset0 + n, PAGE_SIZE));
	sim_fault_reset();
	free(mem);
}
END_TEST

/* covers I-12: a failed pin is -EFAULT with nothing pinned or consumed */
START_TEST(test_extract_pin_failure)
{
	char *mem = user_pages(2);
	struct page **pages = NULL;
	struct iovec iov = { mem + 10, 5000 };
	struct iov_iter i, before;
	size_t offset0;

	sim_fault_short_pin_set(1, 0);
	iov_iter_init(&i, ITER_DEST, &iov, 1, 5000);
	before = i;
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pages, SIZE_MAX, UINT_MAX,
						0, &offset0),
			 -EFAULT);
	assert_iter_eq(&i, &before);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem)), 0);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + PAGE_SIZE)), 0);
	/* as in the kernel, a list allocated for the call is the caller's */
	kvfree(pages);
	sim_fault_reset();
	free(mem);
}
END_TEST

/*
 * covers I-12: unmapped user memory (munmap, PROT_NONE): an extraction
 * pins the pages before it and stops there; one that starts there fails
 * with -EFAULT, nothing pinned or consumed.
 */
START_TEST(test_extract_unmapped)
{
	char *mem = user_pages(3);
	struct page *pages[3];
	struct page **pp = pages;
	struct iov_iter i, before;
	size_t offset0;

	sim_fault_unmapped_set((unsigned long)mem + 2 * PAGE_SIZE);
	iov_iter_ubuf(&i, ITER_SOURCE, mem + 512, 3 * PAGE_SIZE - 512);
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pp, SIZE_MAX, 3, 0,
						&offset0),
			 2 * PAGE_SIZE - 512);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + PAGE_SIZE)), 1);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + 2 * PAGE_SIZE)),
			 0);
	ck_assert_uint_eq(i.count, PAGE_SIZE);
	unpin_user_pages(pages, 2);

	before = i;
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pp, SIZE_MAX, 3, 0,
						&offset0),
			 -EFAULT);
	assert_iter_eq(&i, &before);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem + 2 * PAGE_SIZE)),
			 0);

	/* mapped again: the rest comes */
	sim_fault_unmapped_set(0);
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pp, SIZE_MAX, 3, 0,
						&offset0),
			 PAGE_SIZE);
	unpin_user_pages(pages, 1);
	free(mem);
}
END_TEST

/* covers I-12: the page list allocation can fail: -ENOMEM, no pins */
START_TEST(test_extract_alloc_failure)
{
	char *mem = user_pages(2);
	struct page **pages = NULL;
	struct iov_iter i, before;
	size_t offset0;
	struct sim_fault_alloc cfg = {
		.nth = 1,
		.site = "want_pages_array",
	};

	sim_fault_alloc_set(&cfg);
	sim_fault_arm(true);
	iov_iter_ubuf(&i, ITER_DEST, mem, 2 * PAGE_SIZE);
	before = i;
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pages, SIZE_MAX, UINT_MAX,
						0, &offset0),
			 -ENOMEM);
	sim_fault_arm(false);
	ck_assert_ptr_null(pages);
	assert_iter_eq(&i, &before);
	ck_assert_int_eq(sim_page_pincount(virt_to_page(mem)), 0);
	ck_assert_uint_eq(sim_fault_alloc_injected(), 1);
	sim_fault_reset();
	free(mem);
}
END_TEST

/* DISCARD has no pages to extract */
START_TEST(test_extract_discard)
{
	struct page *pages[1];
	struct page **pp = pages;
	struct iov_iter i;
	size_t offset0;

	iov_iter_discard(&i, READ, 100);
	ck_assert_int_eq(iov_iter_extract_pages(&i, &pp, 100, 1, 0, &offset0),
			 -EFAULT);
	ck_assert_uint_eq(i.count, 100);
}
END_TEST

/* ==== randomized properties =========================================== */

/* One random iterator with its backing memory and its model. */
struct rand_layout {
	char *arena;
	size_t arena_len;
	struct iovec iov[ITER_MODEL_MAX_SEGS];
	struct kvec kv[ITER_MODEL_MAX_SEGS];
	struct bio_vec bv[ITER_MODEL_MAX_SEGS];
	const void *segs;
	struct iter_model m;
};

/*
 * Random segments over a page-aligned arena, a quarter of them empty when
 * @allow_empty.  BVEC segments start at a random offset into their first
 * page and may span pages; an empty bvec gets offset 0 (real bvecs are
 * never empty, and the kernel's bvec_npages counts an empty one with an
 * offset as a page).  UBUF is one segment.  The iterator is set up over
 * them with count = all the data, or (one time in three) less.
 */
static void layout_make(struct rand_layout *l, enum iter_type type,
			struct sim_rand *r, size_t maxlen, bool allow_empty,
			unsigned int direction, struct iov_iter *i)
{
	size_t len[ITER_MODEL_MAX_SEGS], where[ITER_MODEL_MAX_SEGS];
	size_t cursor = 0, total = 0, count;
	char *addr[ITER_MODEL_MAX_SEGS];
	unsigned int nr, j;

	memset(l, 0, sizeof(*l));
	nr = type == ITER_UBUF ? 1 : 1 + sim_rand_below(r, ITER_MODEL_MAX_SEGS);
	if (type == ITER_UBUF)
		allow_empty = false;
	for (j = 0; j < nr; j++) {
		bool empty = allow_empty && !sim_rand_below(r, 4);

		len[j] = empty ? 0 : 1 + sim_rand_below(r, maxlen);
		if (type == ITER_BVEC) {
			/*
			 * Half start at a page start, half of the rest end
			 * at a page end, so that runs of page-contiguous
			 * bvecs (one extraction) occur.
			 */
			size_t off = 0;

			cursor = ALIGN(cursor, PAGE_SIZE);
			if (len[j] && sim_rand_below(r, 2))
				off = sim_rand_below(r, PAGE_SIZE);
			if (len[j] && sim_rand_below(r, 2))
				len[j] = ALIGN(off + len[j], PAGE_SIZE) - off;
			cursor += off;
		} else {
			cursor += sim_rand_below(r, 64);
		}
		where[j] = cursor;
		cursor += len[j];
		total += len[j];
	}
	l->arena_len = ALIGN(cursor + 1, PAGE_SIZE);
	l->arena = aligned_alloc(PAGE_SIZE, l->arena_len);
	ck_assert_ptr_nonnull(l->arena);
	memset(l->arena, 0xa5, l->arena_len);

	for (j = 0; j < nr; j++) {
		addr[j] = l->arena + where[j];
		l->iov[j] = (struct iovec){ addr[j], len[j] };
		l->kv[j] = (struct kvec){ addr[j], len[j] };
		bvec_set_page(&l->bv[j], virt_to_page(addr[j]), len[j],
			      offset_in_page(addr[j]));
	}

	count = sim_rand_below(r, 3) ? total : sim_rand_below(r, total + 1);
	switch (type) {
	case ITER_IOVEC:
		iov_iter_init(i, direction, l->iov, nr, count);
		l->segs = l->iov;
		break;
	case ITER_KVEC:
		iov_iter_kvec(i, direction, l->kv, nr, count);
		l->segs = l->kv;
		break;
	case ITER_BVEC:
		iov_iter_bvec(i, direction, l->bv, nr, count);
		l->segs = l->bv;
		break;
	case ITER_UBUF:
		iov_iter_ubuf(i, direction, addr[0], count);
		l->segs = NULL;
		break;
	default:
		ck_abort_msg("no random layout of iterator type %d", type);
	}
	iter_model_init(&l->m, type, nr, len, addr, count);
}

static void layout_free(struct rand_layout *l)
{
	free(l->arena);
}

/*
 * I-05..I-11 as a property: random advance / revert / truncate / reexpand
 * / copy_to_iter / iov_iter_zero sequences on random layouts must leave
 * the iterator where the model says, return what it says, write exactly
 * the bytes it says (a shadow copy of the arena) and count pages as it
 * says.
 */
static void roundtrip_property(enum iter_type type, u64 seed)
{
	static char src[4 * PAGE_SIZE];
	struct sim_rand r;
	unsigned int iter, op;

	fill_pattern(src, sizeof(src), 0x33);
	sim_rand_seed(&r, seed);
	for (iter = 0; iter < 500; iter++) {
		struct rand_layout l;
		struct iov_iter i;
		struct iter_model *m = &l.m;
		char *shadow;

		layout_make(&l, type, &r, 2 * PAGE_SIZE + 100, true, ITER_DEST,
			    &i);
		shadow = malloc(l.arena_len);
		ck_assert_ptr_nonnull(shadow);
		memcpy(shadow, l.arena, l.arena_len);

		for (op = 0; op < 24; op++) {
			size_t room = iter_model_total(m) - iter_model_pos(m);
			size_t n, got, want, p0;
			unsigned int what = sim_rand_below(&r, 6);
			const char *bad;

			switch (what) {
			case 0: /* advance, sometimes past count */
				n = sim_rand_below(&r, m->count + PAGE_SIZE);
				iov_iter_advance(&i, n);
				iter_model_advance(m, n);
				break;
			case 1: /* revert, never before the start */
				n = sim_rand_below(&r, iter_model_pos(m) + 1);
				iov_iter_revert(&i, n);
				iter_model_revert(m, n);
				break;
			case 2:
				n = sim_rand_below(&r, m->count + 100);
				iov_iter_truncate(&i, n);
				m->count = min(m->count, n);
				break;
			case 3: /* within the data after the position */
				n = sim_rand_below(&r, room + 1);
				iov_iter_reexpand(&i, n);
				m->count = n;
				break;
			case 4:
			case 5:
				n = sim_rand_below(&r, min(m->count + 100,
							   sizeof(src)));
				p0 = iter_model_pos(m);
				if (what == 4)
					got = copy_to_iter(src, n, &i);
				else
					got = iov_iter_zero(n, &i);
				want = iter_model_copy(m, n);
				ck_assert_msg(
					got == want,
					"seed %llu iter %u op %u: copied %zu, model %zu",
					(unsigned long long)seed, iter, op, got,
					want);
				iter_model_shadow_write(m, shadow, l.arena, p0,
							what == 4 ? src : NULL,
							want);
				break;
			}
			bad = iter_model_mismatch(m, &i, l.segs);
			ck_assert_msg(
				!bad,
				"seed %llu iter %u op %u (kind %u): %s differs from the model",
				(unsigned long long)seed, iter, op, what, bad);
			ck_assert_int_eq(iov_iter_npages(&i, INT_MAX),
					 iter_model_npages(m, INT_MAX));
		}
		ck_assert_msg(
			!memcmp(shadow, l.arena, l.arena_len),
			"seed %llu iter %u: bytes outside the copies changed or copies misplaced",
			(unsigned long long)seed, iter);
		free(shadow);
		layout_free(&l);
	}
}

/* covers I-05, I-06, I-07, I-08, I-09, I-10, I-11 */
START_TEST(test_property_ubuf)
{
	roundtrip_property(ITER_UBUF, 0x0bf);
}
END_TEST

/* covers I-05, I-06, I-07, I-08, I-09, I-10, I-11 */
START_TEST(test_property_iovec)
{
	roundtrip_property(ITER_IOVEC, 0x10e51);
}
END_TEST

/* covers I-05, I-06, I-07, I-08, I-09, I-10, I-11 */
START_TEST(test_property_kvec)
{
	roundtrip_property(ITER_KVEC, 0x4fec);
}
END_TEST

/* covers I-05, I-06, I-07, I-08, I-09, I-10, I-11 */
START_TEST(test_property_bvec)
{
	roundtrip_property(ITER_BVEC, 0xb5ec);
}
END_TEST

/*
 * I-12 as a property: extracting until empty, with random maxsize and
 * maxpages, makes progress each call; every byte extracted is in
 * (*pages)[(offset0 + x) / PAGE_SIZE] at (offset0 + x) % PAGE_SIZE; no
 * more than maxpages pages are used; the iterator advances exactly as
 * iov_iter_advance would; user pages carry exactly one pin each, kernel
 * pages none.  For UBUF/IOVEC/KVEC the amount is also exact: what is left
 * of the first non-empty segment, capped by maxsize and maxpages.
 */
static void extract_property(enum iter_type type, u64 seed)
{
	struct sim_rand r;
	unsigned int iter;

	sim_rand_seed(&r, seed);
	for (iter = 0; iter < 200; iter++) {
		struct rand_layout l;
		struct iov_iter i;
		struct iter_model *m = &l.m;
		unsigned int calls = 0;

		/* no empty bvecs: an extraction standing on one returns 0 */
		layout_make(&l, type, &r, 3 * PAGE_SIZE, type != ITER_BVEC,
			    ITER_DEST, &i);
		while (m->count) {
			struct page *array[8], **pages;
			unsigned int maxpages = 1 + sim_rand_below(&r, 8);
			size_t maxsize =
				sim_rand_below(&r, 3) ?
					SIZE_MAX :
					1 + sim_rand_below(&r, 3 * PAGE_SIZE);
			size_t offset0 = SIZE_MAX, p0 = iter_model_pos(m), x;
			bool alloc = sim_rand_below(&r, 2);
			unsigned int nr, k;
			const char *bad;
			int pins;
			ssize_t n;

			pages = alloc ? NULL : array;
			n = iov_iter_extract_pages(&i, &pages, maxsize,
						   maxpages, 0, &offset0);
			ck_assert_msg(
				n > 0,
				"seed %llu iter %u call %u: no progress (%zd)",
				(unsigned long long)seed, iter, calls, n);
			ck_assert_uint_le((size_t)n, min(maxsize, m->count));
			ck_assert_uint_lt(offset0, PAGE_SIZE);
			nr = DIV_ROUND_UP(offset0 + n, PAGE_SIZE);
			ck_assert_uint_le(nr, maxpages);

			if (type != ITER_BVEC) {
				size_t want_off0;
				size_t want = iter_model_extract_len(
					m, maxsize, maxpages, &want_off0);

				ck_assert_uint_eq(offset0, want_off0);
				ck_assert_uint_eq(n, want);
			}
			/*
			 * Byte x must sit in pages[(offset0 + x) / PAGE_SIZE]
			 * at (offset0 + x) % PAGE_SIZE.  Both sides are
			 * contiguous between a segment start and a list page
			 * start, so checking those points covers every byte.
			 */
			for (x = 0; x < (size_t)n;) {
				char *a = iter_model_byte_addr(m, p0 + x);
				unsigned int j = iter_model_seg_of(m, p0 + x);
				size_t y = offset0 + x;

				ck_assert_ptr_eq(virt_to_page(a),
						 pages[y / PAGE_SIZE]);
				ck_assert_uint_eq(offset_in_page(a),
						  y % PAGE_SIZE);
				x += min(m->start[j + 1] - (p0 + x),
					 PAGE_SIZE - y % PAGE_SIZE);
			}
			/* user pages: one pin each; kernel pages: none */
			pins = type == ITER_UBUF || type == ITER_IOVEC;
			for (k = 0; k < nr; k++)
				ck_assert_int_eq(sim_page_pincount(pages[k]),
						 pins);
			if (pins)
				unpin_user_pages(pages, nr);
			for (k = 0; k < nr; k++)
				ck_assert_int_eq(sim_page_pincount(pages[k]),
						 0);
			if (alloc)
				kvfree(pages);

			iter_model_advance(m, n);
			bad = iter_model_mismatch(m, &i, l.segs);
			ck_assert_msg(
				!bad,
				"seed %llu iter %u call %u: %s differs from the model",
				(unsigned long long)seed, iter, calls, bad);
			calls++;
		}
		layout_free(&l);
	}
}

/* covers I-12 */
START_TEST(test_extract_property_user)
{
	extract_property(ITER_UBUF, 0x0bf);
	extract_property(ITER_IOVEC, 0x10e);
}
END_TEST

/* covers I-12 */
START_TEST(test_extract_property_kernel)
{
	extract_property(ITER_KVEC, 0x4e);
	extract_property(ITER_BVEC, 0xb5);
}
END_TEST

static Suite *iov_iter_suite(void)
{
	const char *fork_env = getenv("CK_FORK");
	Suite *s = sim_suite("iov_iter", sim_tcase("types"), test_ubuf_init,
			     test_vec_and_discard_init,
			     test_user_backed_per_type, test_direction_values);
	TCase *tc = sim_tcase("advance_revert");

	sim_tcase_add(tc, test_ubuf_advance_revert,
		      test_iovec_advance_skips_empty_segments,
		      test_iovec_advance_zero_and_clamp,
		      test_iovec_advance_revert_roundtrip,
		      test_iovec_revert_lands_in_previous_segment,
		      test_iovec_roundtrip_from_leading_empty_segment,
		      test_kvec_advance_revert, test_save_and_restore,
		      test_bvec_advance_revert, test_discard_advance_revert,
		      test_revert_zero_is_noop,
		      test_revert_over_max_rw_count_warns);
	/* The process dies of BUG(): only meaningful in fork mode. */
	if (!fork_env || strcmp(fork_env, "no"))
		tcase_add_test_raise_signal(
			tc, test_revert_ubuf_before_start_bugs, SIGABRT);
	sim_suite_add(s, tc, test_truncate_and_reexpand);

	sim_suite_add(s, sim_tcase("copy"), test_zero_iovec_exact,
		      test_zero_bvec_and_discard, test_copy_to_iter_iovec_exact,
		      test_copy_from_iter_kvec_exact,
		      test_copy_short_when_count_smaller,
		      test_copy_wrong_direction_warns,
		      test_copy_to_iter_bvec_multi_page,
		      test_copy_page_helpers);

	sim_suite_add(s, sim_tcase("pages"), test_npages_ubuf,
		      test_npages_vectors, test_alignment, test_is_aligned);

	sim_suite_add(s, sim_tcase("extract"), test_extract_ubuf_pins,
		      test_extract_iovec_one_segment, test_extract_caps,
		      test_extract_kvec_no_pin, test_extract_bvec_contiguous,
		      test_extract_bvec_caps, test_extract_bvec_at_segment_end,
		      test_extract_empty, test_extract_short_pin,
		      test_extract_pin_failure, test_extract_unmapped,
		      test_extract_alloc_failure, test_extract_discard);

	sim_suite_add(s, sim_tcase("property"), test_property_ubuf,
		      test_property_iovec, test_property_kvec,
		      test_property_bvec, test_extract_property_user,
		      test_extract_property_kernel);

	return s;
}

SIM_TEST_MAIN(iov_iter_suite)
