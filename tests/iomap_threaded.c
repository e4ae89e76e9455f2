// SPDX-License-Identifier: GPL-2.0-only
/*
 * Direct I/O on the threaded engine: bios complete on interrupt threads,
 * punted completions run on worker threads, several submitting tasks run
 * at once.  Results and accounting must be the deterministic engine's;
 * run under TSan in CI, this is where the simple path's inline completion
 * and the generic path's reference counting meet real concurrency.
 */
#include <pthread.h>
#include <stdlib.h>
#include <linux/sched.h>
#include "iomap_common.h"

static void threaded_setup(void)
{
	struct sim_engine_opts o = { .kind = SIM_ENGINE_THREADED,
				     .nr_cpus = 4,
				     .nr_irq_threads = 2 };

	sim_test_setup_opts(&o);
}

static struct testfs *mkfs(void)
{
	static const struct testfs_extent map[] = {
		{ .off = 0,
		  .len = 65536,
		  .type = IOMAP_MAPPED,
		  .addr = TESTFS_ADDR_AUTO },
		{ .off = 65536,
		  .len = 65536,
		  .type = IOMAP_MAPPED,
		  .addr = TESTFS_ADDR_AUTO },
		{ .off = 131072,
		  .len = 131072,
		  .type = IOMAP_MAPPED,
		  .addr = TESTFS_ADDR_AUTO },
	};
	struct testfs_opts o = { .size = 256 << 10, .map = map, .nr_map = 3 };
	char err[128];
	struct testfs *tf = testfs_create(&o, err, sizeof(err));

	ck_assert_msg(!IS_ERR(tf), "%s", err);
	return tf;
}

static ssize_t sync_read(struct testfs *tf, loff_t pos, void *buf, size_t len,
			 unsigned int dio_flags)
{
	struct kiocb iocb = { .ki_filp = &tf->file,
			      .ki_pos = pos,
			      .ki_flags = IOCB_DIRECT };
	struct iov_iter iter;

	iov_iter_ubuf(&iter, ITER_DEST, buf, len);
	return testfs_dio_rw(tf, &iocb, &iter, dio_flags, 0);
}

/* sync reads, simple and generic, completing on interrupt threads */
START_TEST(test_sync_reads)
{
	struct testfs *tf = mkfs();
	char *buf = aligned_alloc(4096, 65536);
	int i;

	for (i = 0; i < 200; i++) {
		loff_t pos = (i * 12288) % (200 << 10);
		size_t len = i & 1 ? 4096 : 40960;

		ck_assert_int_eq(sync_read(tf, pos, buf, len,
					   i & 2 ? IOMAPSIM_DIO_NO_SIMPLE : 0),
				 len);
		ck_assert(!memcmp(buf, tf->model + pos, len));
	}
	ck_assert_int_eq(atomic_read(&tf->inode.i_dio_count), 0);
	testfs_destroy(tf);
	free(buf);
}
END_TEST

#define NR_ASYNC 64

static struct async_slot {
	struct kiocb iocb;
	struct iov_iter iter;
	char *buf;
	long ret;
	int calls;
	bool queued;
} slots[NR_ASYNC];
static int nr_done;

static void async_done(struct kiocb *iocb, long ret)
{
	struct async_slot *s = container_of(iocb, struct async_slot, iocb);

	s->ret = ret;
	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&nr_done, 1, __ATOMIC_RELEASE);
}

/*
 * covers S-27, S-28, G-51: async requests complete from interrupt
 * threads, errors from workers; each exactly once.
 */
START_TEST(test_async_reads)
{
	struct testfs *tf = mkfs();
	int i, queued = 0, errors = 0;

	blksim_bdev_fault_add(tf->bdev, "bio-error:7", NULL, 0);
	/*
	 * Reads that take 20 ms: the submitter lets go of each long before
	 * its bio ends, however loaded the machine, so requests are queued
	 * and complete from the interrupt threads, as this test is about.
	 */
	ck_assert_int_ge(blksim_bdev_fault_add(
				 tf->bdev, "latency:20000000:read", NULL, 0),
			 0);
	nr_done = 0;
	for (i = 0; i < NR_ASYNC; i++) {
		struct async_slot *s = &slots[i];
		size_t len = i & 1 ? 4096 : 16384;
		ssize_t ret;

		memset(s, 0, sizeof(*s));
		s->buf = aligned_alloc(4096, len);
		s->iocb = (struct kiocb){ .ki_filp = &tf->file,
					  .ki_pos = i * 4096,
					  .ki_flags = IOCB_DIRECT,
					  .ki_complete = async_done };
		iov_iter_ubuf(&s->iter, ITER_DEST, s->buf, len);
		ret = testfs_dio_rw(tf, &s->iocb, &s->iter, 0, 0);
		/*
		 * G-48a: a generic request whose bios all completed before
		 * the submitter let go returns its result directly.
		 */
		s->queued = ret == -EIOCBQUEUED;
		if (s->queued)
			queued++;
		else
			s->ret = ret;
	}
	while (__atomic_load_n(&nr_done, __ATOMIC_ACQUIRE) < queued)
		sim_engine_drain();
	sim_engine_drain();
	for (i = 0; i < NR_ASYNC; i++) {
		struct async_slot *s = &slots[i];
		size_t len = min_t(size_t, i & 1 ? 4096 : 16384,
				   (256 << 10) - i * 4096); /* EOF trims */

		ck_assert_int_eq(s->calls, s->queued ? 1 : 0);
		if (s->ret < 0) {
			ck_assert_int_eq(s->ret, -EIO);
			errors++;
		} else {
			ck_assert_int_eq(s->ret, len);
			ck_assert(!memcmp(s->buf, tf->model + i * 4096, len));
		}
		free(s->buf);
	}
	ck_assert_int_gt(queued, 0);
	ck_assert_int_eq(errors, 1);
	ck_assert_int_eq(atomic_read(&tf->inode.i_dio_count), 0);
	testfs_destroy(tf);
}
END_TEST

struct submitter {
	struct testfs *tf;
	int id;
	int bad;
};

static void *submit_loop(void *arg)
{
	struct submitter *sb = arg;
	char *buf = aligned_alloc(4096, 8192);
	char *wbuf = aligned_alloc(4096, 4096);
	int i;

	sim_task_attach("dio-submitter", sb->id);
	memset(wbuf, 0x40 + sb->id, 4096);
	for (i = 0; i < 50; i++) {
		/* each task reads everywhere, writes only its own block */
		loff_t pos = ((i * 7 + sb->id) % 40) * 4096;
		loff_t wpos = (200 + sb->id) * 4096;
		struct kiocb w = { .ki_filp = &sb->tf->file,
				   .ki_pos = wpos,
				   .ki_flags = IOCB_DIRECT | IOCB_WRITE };
		struct iov_iter it;

		if (sync_read(sb->tf, pos, buf, i & 1 ? 4096 : 8192, 0) !=
		    (i & 1 ? 4096 : 8192))
			sb->bad++;
		iov_iter_ubuf(&it, ITER_SOURCE, wbuf, 4096);
		if (testfs_dio_rw(sb->tf, &w, &it, 0, 0) != 4096)
			sb->bad++;
	}
	/*
	 * A completion may still be inside wake_up_process() for this task
	 * after the task saw its dio done; the simulator frees a detached
	 * task at once (the kernel frees task structs after an RCU grace
	 * period), so let every posted completion finish first.
	 */
	sim_engine_drain();
	sim_task_detach();
	free(buf);
	free(wbuf);
	return NULL;
}

/* several tasks submitting at once to one file */
START_TEST(test_concurrent_submitters)
{
	struct testfs *tf = mkfs();
	struct submitter sb[4];
	pthread_t t[4];
	char *buf = aligned_alloc(4096, 4096);
	int i;

	for (i = 0; i < 4; i++) {
		sb[i] = (struct submitter){ .tf = tf, .id = i };
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, submit_loop, &sb[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(sb[i].bad, 0);
	}
	sim_engine_drain();
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(sync_read(tf, (200 + i) * 4096, buf, 4096, 0),
				 4096);
		ck_assert_int_eq((u8)buf[0], 0x40 + i);
		ck_assert_int_eq((u8)buf[4095], 0x40 + i);
	}
	ck_assert_int_eq(atomic_read(&tf->inode.i_dio_count), 0);
	testfs_destroy(tf);
	free(buf);
}
END_TEST

static Suite *threaded_suite(void)
{
	Suite *s = suite_create("iomap_threaded");
	TCase *tc = sim_tcase_fixture("threaded", threaded_setup,
				      sim_test_teardown);

	sim_tcase_add(tc, test_sync_reads, test_async_reads,
		      test_concurrent_submitters);
	suite_add_tcase(s, tc);
	return s;
}

SIM_TEST_MAIN(threaded_suite)
