// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated kernel's side of the FUSE mount: what the VFS would do
 * between a system call and simfs.  A FUSE read or write of an O_DIRECT
 * file becomes an asynchronous kiocb (IOCB_DIRECT, ki_pos = the client's
 * offset) and a user-backed iov_iter over an aligned buffer, handed to
 * simfs's read_iter/write_iter; when iomap_dio_rw() queues it, the reply
 * is sent from ->ki_complete, in whatever context the completion runs
 * (the device's completion thread, a dio workqueue worker, or for a read
 * the FUSE worker itself, reaping its own ring: fusevfs_reap()).
 *
 * FUSE delivers write payloads right behind its request headers, so they
 * are never page aligned; the payload is copied once into an aligned
 * buffer, which the O_DIRECT backend can use as it is.  The client's
 * offset and length reach iomap's alignment checks unchanged.
 *
 * The buffers and per-request state are the "user's" (malloc), not
 * kernel objects: they stay out of the simulated allocator's accounting.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bio.h>
#include <linux/sched.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <sim/bdev.h>
#include <sim/engine.h>
#include <sim/iomap.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "iomapsim-mount.h"
#include "fusevfs-internal.h"

DEFINE_SIM_STAT(stat_fuse_read, "fuse_read");
DEFINE_SIM_STAT(stat_fuse_write, "fuse_write");
DEFINE_SIM_STAT(stat_fuse_queued, "fuse_io_queued");
DEFINE_SIM_STAT(stat_fuse_async_reply, "fuse_reply_from_completion");
DEFINE_SIM_STAT(stat_fuse_bounce, "fuse_write_bounce_copy");
DEFINE_SIM_STAT(stat_fuse_reply_error, "fuse_reply_failed");

/* ---- tasks -------------------------------------------------------------- */

static __thread bool fusevfs_attached;

/*
 * A FUSE worker runs kernel code as a task of its own: `current` gives
 * a thread one on first use (and keeps the one it may already have).
 */
void fusevfs_thread_enter(void)
{
	if (likely(fusevfs_attached))
		return;
	(void)current;
	fusevfs_attached = true;
}

/* ---- aligned buffers ---------------------------------------------------- */

#define BUF_POOL_SIZE (128U << 10)
#define BUF_POOL_MAX 512

static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
static void *buf_pool[BUF_POOL_MAX];
static unsigned int buf_pool_nr;

static void *buf_get(size_t size)
{
	void *p = NULL;

	if (size <= BUF_POOL_SIZE) {
		pthread_mutex_lock(&buf_lock);
		if (buf_pool_nr)
			p = buf_pool[--buf_pool_nr];
		pthread_mutex_unlock(&buf_lock);
		if (p)
			return p;
		size = BUF_POOL_SIZE;
	}
	if (posix_memalign(&p, 4096, size ? size : 1))
		return NULL;
	return p;
}

static void buf_put(void *p, size_t size)
{
	if (size <= BUF_POOL_SIZE) {
		pthread_mutex_lock(&buf_lock);
		if (buf_pool_nr < BUF_POOL_MAX) {
			buf_pool[buf_pool_nr++] = p;
			p = NULL;
		}
		pthread_mutex_unlock(&buf_lock);
	}
	free(p);
}

/* ---- mount -------------------------------------------------------------- */

int fusevfs_fault_check(const char *spec, char *err, size_t errlen)
{
	return blksim_bdev_fault_check(spec, err, errlen);
}

int fusevfs_mount_open(const struct fusevfs_mount_opts *o,
		       struct fusevfs_mount **out, char *err, size_t errlen)
{
	struct sim_engine_opts eo = {
		.kind = SIM_ENGINE_THREADED,
		.nr_cpus = o->cpus ? o->cpus : 4,
	};
	/*
	 * A deeper device queue than the backend's default: the FUSE
	 * client keeps up to max_background requests in flight.
	 */
	struct blksim_file_opts fo = {
		.read_only = o->read_only,
		.queue_depth = o->queue_depth ? o->queue_depth : 128,
		/* see fusevfs_reap() */
		.submitter_polls = true,
		/* the FUSE loop's governor sets each window (poll-gov.c) */
		.poll_us = 0,
	};
	struct simfs_mount_opts mo = {
		.read_only = o->read_only,
		.no_simple = !o->simple,
		.no_parallel_dio_write = !o->parallel_write,
	};
	struct fusevfs_mount *m;
	struct super_block *sb;
	int ret;

	mo.default_dops = simfs_dops_parse(o->dops ? o->dops : "none",
					   strlen(o->dops ? o->dops : "none"));
	if (mo.default_dops < 0) {
		snprintf(err, errlen,
			 "dops=%s: expected none, end_io, "
			 "submit_io or bio_set",
			 o->dops);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	pthread_mutex_init(&m->fh_lock, NULL);
	INIT_LIST_HEAD(&m->open_fhs);
	snprintf(m->target, sizeof(m->target), "%s", o->target);
	ret = sim_engine_init(&eo);
	if (ret) {
		snprintf(err, errlen, "cannot start the threaded engine: %s",
			 strerror(-ret));
		goto fail;
	}
	m->engine_started = true;
	fusevfs_thread_enter();
	/*
	 * Off unless asked for: formatting a record for every event is a
	 * few microseconds per I/O, a tenth of what a 4 KiB read costs
	 * through the mount, and benchmarks would measure that instead.
	 */
	sim_trace_enable(o->trace);

	m->lower = blksim_bdev_file_open(o->target, &fo, err, errlen);
	if (IS_ERR(m->lower)) {
		ret = PTR_ERR(m->lower);
		m->lower = NULL;
		goto fail;
	}
	/* completions run bio_endio on the device's completion thread */
	blksim_set_completion(m->lower, BLKSIM_COMPLETE_INLINE);
	if (o->log_writes) {
		/* under the fault wrapper: a failed bio never reached it */
		struct block_device *lw = blksim_bdev_logw_wrap(
			m->lower, o->log_writes, err, errlen);

		if (IS_ERR(lw)) {
			ret = PTR_ERR(lw);
			goto fail;
		}
		m->lower = lw;
		blksim_set_completion(m->lower, BLKSIM_COMPLETE_INLINE);
	}
	m->bdev = blksim_bdev_fault_wrap(m->lower, err, errlen);
	if (IS_ERR(m->bdev)) {
		ret = PTR_ERR(m->bdev);
		m->bdev = NULL;
		goto fail;
	}
	m->lower = NULL; /* the wrapper owns it now */
	blksim_set_completion(m->bdev, BLKSIM_COMPLETE_INLINE);
	for (unsigned int i = 0; i < o->nr_faults; i++) {
		ret = blksim_bdev_fault_add(m->bdev, o->faults[i], err, errlen);
		if (ret < 0)
			goto fail;
	}
	sb = simfs_mount(m->bdev, &mo, err, errlen);
	if (IS_ERR(sb)) {
		ret = PTR_ERR(sb);
		goto fail;
	}
	m->sb = sb;
	m->sbi = SIMFS_SB(sb);
	*out = m;
	return 0;
fail:
	if (m->bdev)
		blksim_bdev_destroy(m->bdev);
	if (m->lower)
		blksim_bdev_destroy(m->lower);
	if (m->engine_started)
		sim_engine_exit();
	pthread_mutex_destroy(&m->fh_lock);
	free(m);
	return ret < 0 ? ret : -EINVAL;
}

long fusevfs_unreplied(struct fusevfs_mount *m)
{
	return atomic_long_read(&m->unreplied);
}

int fusevfs_mount_close(struct fusevfs_mount *m)
{
	int ret;

	fusevfs_thread_enter();
	/* replies still owed must go out before the session dies */
	wait_var_event(&m->inflight, atomic_long_read(&m->inflight) == 0);
	/* RELEASEs the client never sent: close them before the commit */
	while (!list_empty(&m->open_fhs)) {
		struct fusevfs_fh *h;

		h = list_first_entry(&m->open_fhs, struct fusevfs_fh, node);
		fusevfs_release(m, (uintptr_t)h);
	}
	ret = simfs_unmount(m->sb);
	iomapsim_dio_exit();
	blksim_bdev_destroy(m->bdev);
	sim_engine_exit();
	pthread_mutex_destroy(&m->fh_lock);
	free(m);
	return ret;
}

int fusevfs_sync(struct fusevfs_mount *m)
{
	fusevfs_thread_enter();
	return simfs_sync_fs(m->sb, 1);
}

void fusevfs_note_reply_error(struct fusevfs_mount *m)
{
	atomic_long_inc(&m->reply_errors);
	sim_stat_inc(&stat_fuse_reply_error);
}

/* ---- inodes ------------------------------------------------------------- */

static void to_attr(struct simfs_inode_info *ei, struct fusevfs_attr *a)
{
	struct simfs_attr sa;

	simfs_getattr(ei, &sa);
	*a = (struct fusevfs_attr){
		.ino = sa.ino,
		.mode = sa.mode,
		.nlink = sa.nlink,
		.uid = sa.uid,
		.gid = sa.gid,
		.size = sa.size,
		.blocks = sa.blocks,
		.blksize = sa.blksize,
		.atime_ns = sa.atime,
		.mtime_ns = sa.mtime,
		.ctime_ns = sa.ctime,
	};
}

/* The inode @ino, if it exists (no reference: simfs never frees an
 * inode the front end still holds a lookup count on). */
static struct simfs_inode_info *iget(struct fusevfs_mount *m, uint64_t ino)
{
	struct simfs_inode_info *ei;

	mutex_lock(&m->sbi->ns_lock);
	ei = simfs_iget(m->sbi, ino);
	mutex_unlock(&m->sbi->ns_lock);
	return ei;
}

int fusevfs_lookup(struct fusevfs_mount *m, uint64_t parent, const char *name,
		   struct fusevfs_attr *out)
{
	struct simfs_inode_info *dir, *ei;

	fusevfs_thread_enter();
	if (parent == SIMFS_ROOT_INO && !strcmp(name, IOMAPSIM_CTL_DIR)) {
		fusevfs_ctl_attr(FUSEVFS_CTL_DIR_INO, out);
		return 0;
	}
	if (parent == FUSEVFS_CTL_DIR_INO)
		return fusevfs_ctl_lookup(name, out);
	if (fusevfs_is_ctl(parent))
		return -ENOTDIR;
	dir = iget(m, parent);
	if (!dir)
		return -ENOENT;
	ei = simfs_lookup(dir, name, true);
	if (IS_ERR(ei))
		return PTR_ERR(ei);
	to_attr(ei, out);
	return 0;
}

void fusevfs_forget(struct fusevfs_mount *m, uint64_t ino, uint64_t nlookup)
{
	struct simfs_inode_info *ei;

	fusevfs_thread_enter();
	if (fusevfs_is_ctl(ino))
		return;
	mutex_lock(&m->sbi->ns_lock);
	ei = simfs_iget(m->sbi, ino);
	if (ei) {
		ei->nlookup -= min_t(long, nlookup, ei->nlookup);
		simfs_inode_maybe_evict(ei);
	}
	mutex_unlock(&m->sbi->ns_lock);
}

int fusevfs_getattr(struct fusevfs_mount *m, uint64_t ino,
		    struct fusevfs_attr *out)
{
	struct simfs_inode_info *ei;

	fusevfs_thread_enter();
	if (fusevfs_is_ctl(ino)) {
		fusevfs_ctl_attr(ino, out);
		return 0;
	}
	ei = iget(m, ino);
	if (!ei)
		return -ENOENT;
	to_attr(ei, out);
	return 0;
}

/* FUSE's SETATTR bits and simfs's: the same attributes, other values */
static const struct {
	unsigned int fuse, simfs;
} setattr_bits[] = {
	{ FUSEVFS_SET_MODE, SIMFS_SETATTR_MODE },
	{ FUSEVFS_SET_UID, SIMFS_SETATTR_UID },
	{ FUSEVFS_SET_GID, SIMFS_SETATTR_GID },
	{ FUSEVFS_SET_SIZE, SIMFS_SETATTR_SIZE },
	{ FUSEVFS_SET_ATIME, SIMFS_SETATTR_ATIME },
	{ FUSEVFS_SET_MTIME, SIMFS_SETATTR_MTIME },
};

int fusevfs_setattr(struct fusevfs_mount *m, uint64_t ino, unsigned int valid,
		    const struct fusevfs_attr *in, struct fusevfs_attr *out)
{
	struct simfs_attr sa = {
		.mode = in->mode,
		.uid = in->uid,
		.gid = in->gid,
		.size = in->size,
		.atime = in->atime_ns,
		.mtime = in->mtime_ns,
	};
	struct simfs_inode_info *ei;
	unsigned int v = 0;
	int ret;

	/* "echo 1 > simple" truncates first: nothing to do */
	if (fusevfs_is_ctl(ino))
		return fusevfs_getattr(m, ino, out);
	fusevfs_thread_enter();
	ei = iget(m, ino);
	if (!ei)
		return -ENOENT;
	for (size_t i = 0; i < ARRAY_SIZE(setattr_bits); i++)
		if (valid & setattr_bits[i].fuse)
			v |= setattr_bits[i].simfs;
	ret = simfs_setattr(ei, v, &sa);
	if (ret)
		return ret;
	to_attr(ei, out);
	return 0;
}

int fusevfs_mknod(struct fusevfs_mount *m, uint64_t parent, const char *name,
		  uint32_t mode, uint32_t uid, uint32_t gid,
		  struct fusevfs_attr *out)
{
	struct simfs_inode_info *dir, *ei;

	fusevfs_thread_enter();
	if (fusevfs_is_ctl(parent))
		return -EPERM;
	if (parent == SIMFS_ROOT_INO && !strcmp(name, IOMAPSIM_CTL_DIR))
		return -EEXIST;
	dir = iget(m, parent);
	if (!dir)
		return -ENOENT;
	ei = simfs_create(dir, name, mode, uid, gid, true);
	if (IS_ERR(ei))
		return PTR_ERR(ei);
	to_attr(ei, out);
	return 0;
}

static int remove_name(struct fusevfs_mount *m, uint64_t parent,
		       const char *name, bool dir_wanted)
{
	struct simfs_inode_info *dir;

	fusevfs_thread_enter();
	if (fusevfs_is_ctl(parent) ||
	    (parent == SIMFS_ROOT_INO && !strcmp(name, IOMAPSIM_CTL_DIR)))
		return -EPERM;
	dir = iget(m, parent);
	if (!dir)
		return -ENOENT;
	return dir_wanted ? simfs_rmdir(dir, name) : simfs_unlink(dir, name);
}

int fusevfs_unlink(struct fusevfs_mount *m, uint64_t parent, const char *name)
{
	return remove_name(m, parent, name, false);
}

int fusevfs_rmdir(struct fusevfs_mount *m, uint64_t parent, const char *name)
{
	return remove_name(m, parent, name, true);
}

int fusevfs_rename(struct fusevfs_mount *m, uint64_t parent, const char *name,
		   uint64_t newparent, const char *newname, unsigned int flags)
{
	struct simfs_inode_info *od, *nd;
	unsigned int f = 0;

	fusevfs_thread_enter();
	if (fusevfs_is_ctl(parent) || fusevfs_is_ctl(newparent) ||
	    (parent == SIMFS_ROOT_INO && !strcmp(name, IOMAPSIM_CTL_DIR)) ||
	    (newparent == SIMFS_ROOT_INO && !strcmp(newname, IOMAPSIM_CTL_DIR)))
		return -EPERM;
	od = iget(m, parent);
	nd = iget(m, newparent);
	if (!od || !nd)
		return -ENOENT;
	if (flags & FUSEVFS_RENAME_NOREPLACE)
		f |= SIMFS_RENAME_NOREPLACE;
	if (flags & FUSEVFS_RENAME_EXCHANGE)
		f |= SIMFS_RENAME_EXCHANGE;
	return simfs_rename(od, name, nd, newname, f);
}

/* ---- open files --------------------------------------------------------- */

int fusevfs_open(struct fusevfs_mount *m, uint64_t ino, int flags, uint64_t *fh,
		 unsigned int *fopen_flags)
{
	struct simfs_inode_info *ei;
	struct fusevfs_fh *h;
	struct file *f;
	int ret;

	fusevfs_thread_enter();
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	*fopen_flags = 0;
	if (fusevfs_is_ctl(ino)) {
		ret = fusevfs_ctl_open(m, ino, h);
		if (ret) {
			free(h);
			return ret;
		}
		/* generated contents: no page cache, no size */
		*fopen_flags = FUSEVFS_FOPEN_DIRECT_IO;
		goto opened;
	}
	ei = iget(m, ino);
	if (!ei) {
		free(h);
		return -ENOENT;
	}
	f = simfs_file_open(ei, flags);
	if (IS_ERR(f)) {
		free(h);
		return PTR_ERR(f);
	}
	h->kind = FUSEVFS_FH_FILE;
	h->file = f;
	if (flags & O_DIRECT) {
		*fopen_flags |= FUSEVFS_FOPEN_DIRECT_IO;
		if (f->f_mode & FMODE_DIO_PARALLEL_WRITE)
			*fopen_flags |= FUSEVFS_FOPEN_PARALLEL_WRITES;
	}
opened:
	pthread_mutex_lock(&m->fh_lock);
	list_add(&h->node, &m->open_fhs);
	pthread_mutex_unlock(&m->fh_lock);
	*fh = (uintptr_t)h;
	return 0;
}

int fusevfs_release(struct fusevfs_mount *m, uint64_t fh)
{
	struct fusevfs_fh *h = (struct fusevfs_fh *)(uintptr_t)fh;

	fusevfs_thread_enter();
	pthread_mutex_lock(&m->fh_lock);
	list_del(&h->node);
	pthread_mutex_unlock(&m->fh_lock);
	if (h->kind == FUSEVFS_FH_CTL)
		fusevfs_ctl_release(h);
	else
		simfs_file_release(h->file);
	free(h);
	return 0;
}

/* One read or write in flight. */
struct fusevfs_io {
	struct kiocb iocb;
	struct iov_iter iter;
	struct fusevfs_mount *m;
	void *buf;
	size_t size;
	fusevfs_io_done_t done;
	void *arg;
	/*
	 * The submitter's and the completion's: whichever ends last replies.
	 * A reply sent while the submitter is still in ->write_iter() lets
	 * the client close and unlink, and FORGET free the inode that the
	 * submitter is about to unlock (inode_unlock() in
	 * simfs_dio_write_iter()).
	 */
	int refs;
	long res;
};

static void fusevfs_io_finish(struct fusevfs_io *io, long res)
{
	struct fusevfs_mount *m = io->m;

	/*
	 * Before the reply: the client's next request may be read by
	 * another worker before this one is back, and must find the
	 * mount idle (fuse-loop.c); inflight, after, keeps the session
	 * alive until the reply is out (fusevfs_mount_close()).
	 */
	atomic_long_dec(&m->unreplied);
	io->done(io->arg, res, io->buf);
	buf_put(io->buf, io->size);
	free(io);
	if (atomic_long_dec_and_test(&m->inflight))
		wake_up_var(&m->inflight);
}

/* ->ki_complete: the reply goes out from the completion's context. */
static void fusevfs_ki_complete(struct kiocb *iocb, long res)
{
	struct fusevfs_io *io = container_of(iocb, struct fusevfs_io, iocb);

	sim_trace("ki_complete", "ret %ld", res);
	sim_stat_inc(&stat_fuse_async_reply);
	io->res = res;
	if (__atomic_sub_fetch(&io->refs, 1, __ATOMIC_ACQ_REL) == 0)
		fusevfs_io_finish(io, io->res);
}

/*
 * The state of a read or write of @file, or NULL once @done has had the
 * error: an offset no loff_t holds (rw_verify_area()), or no memory.
 */
static struct fusevfs_io *io_alloc(struct fusevfs_mount *m, struct file *file,
				   size_t size, uint64_t off,
				   fusevfs_io_done_t done, void *arg)
{
	struct fusevfs_io *io;

	if (off > (uint64_t)LLONG_MAX) {
		done(arg, -EINVAL, NULL);
		return NULL;
	}
	io = malloc(sizeof(*io));
	if (!io)
		goto nomem;
	io->buf = buf_get(size);
	if (!io->buf) {
		free(io);
		goto nomem;
	}
	io->m = m;
	io->size = size;
	io->done = done;
	io->arg = arg;
	io->refs = 2;
	io->res = 0;
	init_sync_kiocb(&io->iocb, file);
	io->iocb.ki_pos = off;
	/*
	 * Direct I/O is asynchronous, as io_uring or AIO submit it: the
	 * worker thread goes back for the next request, and the reply is
	 * sent on completion.  Buffered I/O is synchronous.
	 */
	if (io->iocb.ki_flags & IOCB_DIRECT)
		io->iocb.ki_complete = fusevfs_ki_complete;
	atomic_long_inc(&m->inflight);
	atomic_long_inc(&m->unreplied);
	return io;
nomem:
	done(arg, -ENOMEM, NULL);
	return NULL;
}

/*
 * The reads a worker queued wait in its own completion context on the
 * device (blksim_bdev_submitter_*(): with submitter_polls, the file
 * device's ring for that thread), and the worker ends them itself, in
 * hard-IRQ context, as an io_uring IOPOLL submitter polls for its own:
 * ->ki_complete replies from there.
 * Left to the device's reaper they would cost two more thread wake-ups
 * each (io_uring posts a completion from its submitter's task work).
 * The FUSE loop (fuse-loop.c) decides when: at once, waiting, when the
 * mount is otherwise idle, as passthrough_ll's worker waits in pread();
 * under load only after it has taken the next requests.
 */
int fusevfs_own_fd(struct fusevfs_mount *m)
{
	fusevfs_thread_enter();
	return blksim_bdev_submitter_fd(m->bdev);
}

unsigned int fusevfs_own_outstanding(struct fusevfs_mount *m)
{
	return blksim_bdev_submitter_outstanding(m->bdev);
}

void fusevfs_reap(struct fusevfs_mount *m, bool wait)
{
	fusevfs_thread_enter();
	blksim_bdev_submitter_reap(m->bdev, wait);
}

void fusevfs_reap_wait(struct fusevfs_mount *m, struct fusevfs_spin *spin)
{
	struct blksim_bdev_spin sp = { .budget_us = spin->budget_us };

	fusevfs_thread_enter();
	blksim_bdev_submitter_wait(m->bdev, &sp);
	spin->polled = sp.polled;
	spin->hit = sp.hit;
	spin->spent_ns = sp.spent_ns;
}

int fusevfs_own_defer(struct fusevfs_mount *m, bool on)
{
	fusevfs_thread_enter();
	return blksim_bdev_submitter_defer(m->bdev, on);
}

DEFINE_SIM_STAT(stat_fuse_poll_windows, "fuse_poll_windows");
DEFINE_SIM_STAT(stat_fuse_poll_hits, "fuse_poll_hits");
DEFINE_SIM_STAT(stat_fuse_poll_spent_ns, "fuse_poll_spent_ns");
DEFINE_SIM_STAT(stat_fuse_poll_no_idle_cpu, "fuse_poll_no_idle_cpu");
DEFINE_SIM_STAT(stat_fuse_poll_not_needed, "fuse_poll_not_needed");
DEFINE_SIM_STAT(stat_fuse_poll_trials, "fuse_poll_trials");
DEFINE_SIM_STAT(stat_fuse_poll_trials_won, "fuse_poll_trials_won");
DEFINE_SIM_STAT(stat_fuse_clone_reads, "fuse_clone_reads");
DEFINE_SIM_STAT(stat_fuse_uring_requests, "fuse_uring_requests");
/* set, not added; not gauges either: they leak nothing, a reset clears them */
DEFINE_SIM_STAT(stat_fuse_poll_on, "fuse_poll_on");
DEFINE_SIM_STAT(stat_fuse_poll_cycle_polling_ns, "fuse_poll_cycle_polling_ns");
DEFINE_SIM_STAT(stat_fuse_poll_cycle_sleeping_ns,
		"fuse_poll_cycle_sleeping_ns");
DEFINE_SIM_STAT(stat_fuse_poll_idle_cpus, "fuse_poll_idle_cpus");

static struct sim_stat *const poll_stats[FUSEVFS_POLL_NR] = {
	[FUSEVFS_POLL_WINDOWS] = &stat_fuse_poll_windows,
	[FUSEVFS_POLL_HITS] = &stat_fuse_poll_hits,
	[FUSEVFS_POLL_SPENT_NS] = &stat_fuse_poll_spent_ns,
	[FUSEVFS_POLL_NO_IDLE_CPU] = &stat_fuse_poll_no_idle_cpu,
	[FUSEVFS_POLL_NOT_NEEDED] = &stat_fuse_poll_not_needed,
	[FUSEVFS_POLL_TRIALS] = &stat_fuse_poll_trials,
	[FUSEVFS_POLL_TRIALS_WON] = &stat_fuse_poll_trials_won,
	[FUSEVFS_POLL_CLONE_READS] = &stat_fuse_clone_reads,
	[FUSEVFS_POLL_URING_REQS] = &stat_fuse_uring_requests,
	[FUSEVFS_POLL_ON] = &stat_fuse_poll_on,
	[FUSEVFS_POLL_CYCLE_POLLING_NS] = &stat_fuse_poll_cycle_polling_ns,
	[FUSEVFS_POLL_CYCLE_SLEEPING_NS] = &stat_fuse_poll_cycle_sleeping_ns,
	[FUSEVFS_POLL_IDLE_CPUS] = &stat_fuse_poll_idle_cpus,
};

void fusevfs_poll_stat(enum fusevfs_poll_stat s, long v)
{
	struct sim_stat *st = poll_stats[s];

	if (s >= FUSEVFS_POLL_ON)
		__atomic_store_n(&st->v, v, __ATOMIC_RELAXED);
	else
		sim_stat_add(st, v);
}

static void io_submitted(struct fusevfs_io *io, ssize_t ret)
{
	if (ret == -EIOCBQUEUED) {
		sim_stat_inc(&stat_fuse_queued);
		/* the completion may have come first: then reply here */
		if (__atomic_sub_fetch(&io->refs, 1, __ATOMIC_ACQ_REL) == 0)
			fusevfs_io_finish(io, io->res);
		return;
	}
	fusevfs_io_finish(io, ret);
}

void fusevfs_read(struct fusevfs_mount *m, uint64_t fh, size_t size,
		  uint64_t off, fusevfs_io_done_t done, void *arg)
{
	struct fusevfs_fh *h = (struct fusevfs_fh *)(uintptr_t)fh;
	struct fusevfs_io *io;
	ssize_t ret;

	fusevfs_thread_enter();
	if (h->kind == FUSEVFS_FH_CTL) {
		size_t n = off >= h->len ? 0 : min_t(u64, size, h->len - off);
		/*
		 * A copy: once the client has the reply it may close, and
		 * the release (another thread) frees the text while this
		 * one is still on its way out of writev().
		 */
		char *copy = n ? malloc(n) : NULL;

		if (n && !copy) {
			done(arg, -ENOMEM, NULL);
			return;
		}
		if (n)
			memcpy(copy, h->text + off, n);
		done(arg, n, copy);
		free(copy);
		return;
	}
	io = io_alloc(m, h->file, size, off, done, arg);
	if (!io)
		return;
	sim_stat_inc(&stat_fuse_read);
	iov_iter_ubuf(&io->iter, ITER_DEST, io->buf, size);
	ret = h->file->f_op->read_iter(&io->iocb, &io->iter);
	/* @io may be gone once it is queued: only @ret says what happened */
	io_submitted(io, ret);
}

void fusevfs_write(struct fusevfs_mount *m, uint64_t fh, const void *data,
		   size_t size, uint64_t off, fusevfs_io_done_t done, void *arg)
{
	struct fusevfs_fh *h = (struct fusevfs_fh *)(uintptr_t)fh;
	struct fusevfs_io *io;

	fusevfs_thread_enter();
	if (h->kind == FUSEVFS_FH_CTL) {
		done(arg, fusevfs_ctl_write(m, h, data, size), NULL);
		return;
	}
	io = io_alloc(m, h->file, size, off, done, arg);
	if (!io)
		return;
	sim_stat_inc(&stat_fuse_write);
	/* the one copy: FUSE's payload is not aligned, this buffer is */
	memcpy(io->buf, data, size);
	sim_stat_inc(&stat_fuse_bounce);
	iov_iter_ubuf(&io->iter, ITER_SOURCE, io->buf, size);
	io_submitted(io, h->file->f_op->write_iter(&io->iocb, &io->iter));
}

int fusevfs_fsync(struct fusevfs_mount *m, uint64_t fh, int datasync)
{
	struct fusevfs_fh *h = (struct fusevfs_fh *)(uintptr_t)fh;

	fusevfs_thread_enter();
	if (h->kind == FUSEVFS_FH_CTL)
		return 0;
	return h->file->f_op->fsync(h->file, 0, LLONG_MAX, datasync);
}

int fusevfs_fallocate(struct fusevfs_mount *m, uint64_t fh, int mode,
		      int64_t off, int64_t len)
{
	struct fusevfs_fh *h = (struct fusevfs_fh *)(uintptr_t)fh;

	fusevfs_thread_enter();
	if (h->kind == FUSEVFS_FH_CTL)
		return -EOPNOTSUPP;
	return simfs_fallocate(h->file, mode, off, len);
}

/* ---- directories and the rest ------------------------------------------- */

struct readdir_ctx {
	int (*fill)(void *arg, const char *name, uint64_t ino, uint32_t mode,
		    uint64_t next_off);
	void *arg;
	int full;
};

static int readdir_one(void *arg, const char *name, u16 len, u64 ino, u32 mode,
		       u64 cookie)
{
	struct readdir_ctx *c = arg;
	char nm[SIMFS_NAME_MAX + 1];

	memcpy(nm, name, len);
	nm[len] = 0;
	c->full = c->fill(c->arg, nm, ino, mode, cookie);
	return c->full;
}

int fusevfs_readdir(struct fusevfs_mount *m, uint64_t ino, uint64_t off,
		    int (*fill)(void *arg, const char *name, uint64_t ino,
				uint32_t mode, uint64_t next_off),
		    void *arg)
{
	struct readdir_ctx c = { .fill = fill, .arg = arg };
	struct simfs_inode_info *dir;

	fusevfs_thread_enter();
	if (ino == FUSEVFS_CTL_DIR_INO)
		return fusevfs_ctl_readdir(off, fill, arg);
	if (fusevfs_is_ctl(ino))
		return -ENOTDIR;
	dir = iget(m, ino);
	if (!dir)
		return -ENOENT;
	if (!S_ISDIR(dir->vfs_inode.i_mode))
		return -ENOTDIR;
	if (off < 1 && fill(arg, ".", ino, S_IFDIR, 1))
		return 0;
	if (off < 2 &&
	    fill(arg, "..", ino == SIMFS_ROOT_INO ? ino : dir->parent, S_IFDIR,
		 2))
		return 0;
	if (off < 3 && ino == SIMFS_ROOT_INO &&
	    fill(arg, IOMAPSIM_CTL_DIR, FUSEVFS_CTL_DIR_INO, S_IFDIR, 3))
		return 0;
	return simfs_readdir(dir, off, readdir_one, &c);
}

int fusevfs_statfs(struct fusevfs_mount *m, struct fusevfs_statfs *st)
{
	struct simfs_statfs s;

	fusevfs_thread_enter();
	simfs_statfs(m->sb, &s);
	*st = (struct fusevfs_statfs){
		.bsize = s.block_size,
		.blocks = s.blocks,
		.bfree = s.bfree,
		.bavail = s.bavail,
		.files = s.files,
		.ffree = s.ffree,
		.namemax = s.name_max,
	};
	return 0;
}

/*
 * The inode an xattr request names, or NULL and *@err: @ctl_err for a
 * control file, which has no xattrs, -ENOENT for an inode not there.
 */
static struct simfs_inode_info *
xattr_iget(struct fusevfs_mount *m, uint64_t ino, long ctl_err, long *err)
{
	fusevfs_thread_enter();
	if (fusevfs_is_ctl(ino)) {
		*err = ctl_err;
		return NULL;
	}
	*err = -ENOENT;
	return iget(m, ino);
}

int fusevfs_setxattr(struct fusevfs_mount *m, uint64_t ino, const char *name,
		     const void *value, size_t size, int flags)
{
	struct simfs_inode_info *ei;
	long err;

	ei = xattr_iget(m, ino, -EOPNOTSUPP, &err);
	return ei ? simfs_setxattr(ei, name, value, size, flags) : err;
}

long fusevfs_getxattr(struct fusevfs_mount *m, uint64_t ino, const char *name,
		      void *buf, size_t size)
{
	struct simfs_inode_info *ei;
	long err;

	ei = xattr_iget(m, ino, -ENODATA, &err);
	return ei ? simfs_getxattr(ei, name, buf, size) : err;
}

/* a control file lists no names: an empty list, not an error */
long fusevfs_listxattr(struct fusevfs_mount *m, uint64_t ino, char *buf,
		       size_t size)
{
	struct simfs_inode_info *ei;
	long err;

	ei = xattr_iget(m, ino, 0, &err);
	return ei ? simfs_listxattr(ei, buf, size) : err;
}

int fusevfs_removexattr(struct fusevfs_mount *m, uint64_t ino, const char *name)
{
	struct simfs_inode_info *ei;
	long err;

	ei = xattr_iget(m, ino, -EOPNOTSUPP, &err);
	return ei ? simfs_removexattr(ei, name) : err;
}
