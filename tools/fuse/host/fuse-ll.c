// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FUSE front end: libfuse3's low-level API, multithreaded session
 * (our own loop of workers, fuse-loop.c), each request handed to the
 * simulated kernel
 * through fusevfs.h.  Host code: it sees the system's headers only (libfuse,
 * <linux/fuse.h>), never the kernel-shaped ones.
 *
 * Reads and writes are replied to from wherever the simulated kernel
 * completes them.  A direct write that iomap queued is answered from the
 * block device's completion thread (or a dio workqueue worker), while the
 * FUSE worker that submitted it is already reading the next request; a
 * direct read is answered from the completion too, which runs on the
 * worker that submitted it when it reaps its own ring of the device (see
 * fusevfs_reap() in vfs.c and the loop in fuse-loop.c).
 *
 * An open with O_DIRECT is answered with FOPEN_DIRECT_IO, so the kernel
 * FUSE client sends the user's offset and length through untouched, and
 * with FOPEN_PARALLEL_DIRECT_WRITES when simfs declares
 * FMODE_DIO_PARALLEL_WRITE, so the client takes its inode lock shared for
 * them.  libfuse 3.14's fuse_file_info has no bit for the latter, so that
 * reply is built here (struct fuse_open_out) and sent with
 * fuse_reply_iov().
 *
 * There is no ->create: the kernel then creates with MKNOD and opens with
 * OPEN, so every open comes through fusevfs_open() with its flags.
 */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include "../iomapsim-mount.h"
#include "../../../fs/simfs/simfs-host.h"
#include "fuse-loop.h"
#include "fuse-route.h"
#include "fuse-uring.h"
#include "fusevfs.h"

#define ATTR_TIMEOUT 1.0

struct ctx {
	struct fusevfs_mount *m;
	const struct fusevfs_mount_opts *o;
	struct fuse_session *se;
};

static struct fusevfs_mount *M(fuse_req_t req)
{
	return ((struct ctx *)fuse_req_userdata(req))->m;
}

static void to_stat(const struct fusevfs_attr *a, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = a->ino;
	st->st_mode = a->mode;
	st->st_nlink = a->nlink;
	st->st_uid = a->uid;
	st->st_gid = a->gid;
	st->st_size = a->size;
	st->st_blocks = a->blocks;
	st->st_blksize = a->blksize;
	st->st_atim.tv_sec = a->atime_ns / 1000000000;
	st->st_atim.tv_nsec = a->atime_ns % 1000000000;
	st->st_mtim.tv_sec = a->mtime_ns / 1000000000;
	st->st_mtim.tv_nsec = a->mtime_ns % 1000000000;
	st->st_ctim.tv_sec = a->ctime_ns / 1000000000;
	st->st_ctim.tv_nsec = a->ctime_ns % 1000000000;
}

static void reply_entry(fuse_req_t req, const struct fusevfs_attr *a)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = a->ino;
	e.generation = 1;
	to_stat(a, &e.attr);
	/* the control files change on their own: never cache them */
	e.attr_timeout = (a->ino >> 62) ? 0 : ATTR_TIMEOUT;
	e.entry_timeout = ATTR_TIMEOUT;
	fuse_reply_entry(req, &e);
}

static void reply_attr(fuse_req_t req, const struct fusevfs_attr *a)
{
	struct stat st;

	to_stat(a, &st);
	fuse_reply_attr(req, &st, (a->ino >> 62) ? 0 : ATTR_TIMEOUT);
}

static void ll_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ctx *c = userdata;
	unsigned int bg = c->o->max_background ? c->o->max_background : 256;

	/*
	 * Many asynchronous direct I/Os in flight at once: the kernel's
	 * default of 12 background requests would cap the queue depth.
	 */
	conn->max_background = bg;
	conn->congestion_threshold = bg * 3 / 4;
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/* page-cache writeback would hide buffered I/O from the stack */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

static void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fusevfs_attr a;
	int ret = fusevfs_lookup(M(req), parent, name, &a);

	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_entry(req, &a);
}

static void ll_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	fusevfs_forget(M(req), ino, nlookup);
	fuse_reply_none(req);
}

static void ll_forget_multi(fuse_req_t req, size_t count,
			    struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		fusevfs_forget(M(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void ll_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fusevfs_attr a;
	int ret = fusevfs_getattr(M(req), ino, &a);

	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_attr(req, &a);
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts_ns(&ts);
}

static void ll_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	static const struct {
		int fuse;
		unsigned int vfs;
	} bits[] = {
		{ FUSE_SET_ATTR_MODE, FUSEVFS_SET_MODE },
		{ FUSE_SET_ATTR_UID, FUSEVFS_SET_UID },
		{ FUSE_SET_ATTR_GID, FUSEVFS_SET_GID },
		{ FUSE_SET_ATTR_SIZE, FUSEVFS_SET_SIZE },
		{ FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW,
		  FUSEVFS_SET_ATIME },
		{ FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW,
		  FUSEVFS_SET_MTIME },
	};
	/* the VFS side reads only the fields @valid names (simfs_setattr()) */
	struct fusevfs_attr in = { .mode = attr->st_mode,
				   .uid = attr->st_uid,
				   .gid = attr->st_gid,
				   .size = attr->st_size };
	struct fusevfs_attr out;
	unsigned int valid = 0;
	int ret;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (to_set & bits[i].fuse)
			valid |= bits[i].vfs;
	if (valid & FUSEVFS_SET_ATIME)
		in.atime_ns = (to_set & FUSE_SET_ATTR_ATIME_NOW) ?
				      now_ns() :
				      ts_ns(&attr->st_atim);
	if (valid & FUSEVFS_SET_MTIME)
		in.mtime_ns = (to_set & FUSE_SET_ATTR_MTIME_NOW) ?
				      now_ns() :
				      ts_ns(&attr->st_mtim);
	ret = fusevfs_setattr(M(req), ino, valid, &in, &out);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_attr(req, &out);
}

static void make_node(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode)
{
	const struct fuse_ctx *fc = fuse_req_ctx(req);
	struct fusevfs_attr a;
	int ret;

	ret = fusevfs_mknod(M(req), parent, name, mode & ~fc->umask, fc->uid,
			    fc->gid, &a);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_entry(req, &a);
}

static void ll_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	if (!S_ISREG(mode)) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	make_node(req, parent, name, mode);
}

static void ll_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	make_node(req, parent, name, S_IFDIR | (mode & 07777));
}

static void ll_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, -fusevfs_unlink(M(req), parent, name));
}

static void ll_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, -fusevfs_rmdir(M(req), parent, name));
}

static void ll_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	unsigned int f = 0;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (flags & RENAME_NOREPLACE)
		f |= FUSEVFS_RENAME_NOREPLACE;
	if (flags & RENAME_EXCHANGE)
		f |= FUSEVFS_RENAME_EXCHANGE;
	fuse_reply_err(req, -fusevfs_rename(M(req), parent, name, newparent,
					    newname, f));
}

static void ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	unsigned int ff;
	uint64_t fh;
	int ret;

	ret = fusevfs_open(M(req), ino, fi->flags, &fh, &ff);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	if (ff & FUSEVFS_FOPEN_PARALLEL_WRITES) {
		struct fuse_open_out out = {
			.fh = fh,
			.open_flags = FOPEN_DIRECT_IO |
				      FOPEN_PARALLEL_DIRECT_WRITES,
		};
		struct iovec iov = { .iov_base = &out, .iov_len = sizeof(out) };

		ret = fuse_reply_iov(req, &iov, 1);
	} else {
		fi->fh = fh;
		fi->direct_io = !!(ff & FUSEVFS_FOPEN_DIRECT_IO);
		fi->keep_cache = 0;
		ret = fuse_reply_open(req, fi);
	}
	/* the open was interrupted and will never be released */
	if (ret == -ENOENT)
		fusevfs_release(M(req), fh);
}

/*
 * A read's or write's reply, from whatever context ended it (vfs.c).
 * The mount is looked up first: the reply frees @req.
 */
static void io_reply(fuse_req_t req, long res, const void *buf, bool write)
{
	struct fusevfs_mount *m = M(req);
	int ret;

	if (res < 0)
		ret = fuse_reply_err(req, -res);
	else if (write)
		ret = fuse_reply_write(req, res);
	else
		ret = fuse_reply_buf(req, buf, res);
	if (ret)
		fusevfs_note_reply_error(m);
}

static void read_done(void *arg, long res, const void *buf)
{
	io_reply(arg, res, buf, false);
}

static void ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	fusevfs_read(M(req), fi->fh, size, off, read_done, req);
}

static void write_done(void *arg, long res, const void *buf)
{
	io_reply(arg, res, buf, true);
}

static void ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	fusevfs_write(M(req), fi->fh, buf, size, off, write_done, req);
}

static void ll_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void ll_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	fuse_reply_err(req, -fusevfs_release(M(req), fi->fh));
}

static void ll_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	fuse_reply_err(req, -fusevfs_fsync(M(req), fi->fh, datasync));
}

static void ll_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fusevfs_attr a;
	int ret = fusevfs_getattr(M(req), ino, &a);

	if (!ret && !S_ISDIR(a.mode))
		ret = -ENOTDIR;
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fi->fh = 0;
	fuse_reply_open(req, fi);
}

struct dirbuf {
	fuse_req_t req;
	char *buf;
	size_t size, used;
};

static int dir_fill(void *arg, const char *name, uint64_t ino, uint32_t mode,
		    uint64_t next_off)
{
	struct dirbuf *d = arg;
	struct stat st = { .st_ino = ino, .st_mode = mode };
	size_t n;

	n = fuse_add_direntry(d->req, d->buf + d->used, d->size - d->used, name,
			      &st, next_off);
	if (n > d->size - d->used)
		return 1; /* full: this entry is for the next call */
	d->used += n;
	return 0;
}

static void ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct dirbuf d = { .req = req, .size = size };
	int ret;

	d.buf = malloc(size ? size : 1);
	if (!d.buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	ret = fusevfs_readdir(M(req), ino, off, dir_fill, &d);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_buf(req, d.buf, d.used);
	free(d.buf);
}

static void ll_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void ll_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			struct fuse_file_info *fi)
{
	fuse_reply_err(req, -fusevfs_sync(M(req)));
}

static void ll_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fusevfs_statfs s;
	struct statvfs st;

	fusevfs_statfs(M(req), &s);
	memset(&st, 0, sizeof(st));
	st.f_bsize = s.bsize;
	st.f_frsize = s.bsize;
	st.f_blocks = s.blocks;
	st.f_bfree = s.bfree;
	st.f_bavail = s.bavail;
	st.f_files = s.files;
	st.f_ffree = s.ffree;
	st.f_favail = s.ffree;
	st.f_namemax = s.namemax;
	fuse_reply_statfs(req, &st);
}

static void ll_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	fuse_reply_err(req, -fusevfs_setxattr(M(req), ino, name, value, size,
					      flags));
}

static void reply_xattr_buf(fuse_req_t req, long ret, const char *buf,
			    size_t size)
{
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else if (!size)
		fuse_reply_xattr(req, ret);
	else
		fuse_reply_buf(req, buf, ret);
}

static void ll_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			size_t size)
{
	char *buf = size ? malloc(size) : NULL;

	if (size && !buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	reply_xattr_buf(req, fusevfs_getxattr(M(req), ino, name, buf, size),
			buf, size);
	free(buf);
}

static void ll_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	char *buf = size ? malloc(size) : NULL;

	if (size && !buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	reply_xattr_buf(req, fusevfs_listxattr(M(req), ino, buf, size), buf,
			size);
	free(buf);
}

static void ll_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	fuse_reply_err(req, -fusevfs_removexattr(M(req), ino, name));
}

static void ll_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
			 off_t length, struct fuse_file_info *fi)
{
	fuse_reply_err(req, -fusevfs_fallocate(M(req), fi->fh, mode, offset,
					       length));
}

static const struct fuse_lowlevel_ops ll_ops = {
	.init = ll_init,
	.lookup = ll_lookup,
	.forget = ll_forget,
	.forget_multi = ll_forget_multi,
	.getattr = ll_getattr,
	.setattr = ll_setattr,
	.mknod = ll_mknod,
	.mkdir = ll_mkdir,
	.unlink = ll_unlink,
	.rmdir = ll_rmdir,
	.rename = ll_rename,
	.open = ll_open,
	.read = ll_read,
	.write = ll_write,
	.flush = ll_flush,
	.release = ll_release,
	.fsync = ll_fsync,
	.opendir = ll_opendir,
	.readdir = ll_readdir,
	.releasedir = ll_releasedir,
	.fsyncdir = ll_fsyncdir,
	.statfs = ll_statfs,
	.setxattr = ll_setxattr,
	.getxattr = ll_getxattr,
	.listxattr = ll_listxattr,
	.removexattr = ll_removexattr,
	.fallocate = ll_fallocate,
};

/* ---- options ------------------------------------------------------------ */

void fusevfs_mount_opts_init(struct fusevfs_mount_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->simple = true;
	o->parallel_write = true;
	o->dops = "none";
	o->commit_interval = 5;
	o->poll_us = IOMAPSIM_POLL_AUTO_US;
	o->uring = IOMAPSIM_URING_AUTO;
}

static int parse_onoff(const char *v, bool *out)
{
	if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no")) {
		*out = false;
		return 0;
	}
	return -1;
}

static int parse_uint(const char *v, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n > max)
		return -1;
	*out = n;
	return 0;
}

int fusevfs_mount_parse_opts(struct fusevfs_mount_opts *o, char *list,
			     char *err, size_t errlen)
{
	char *save = NULL;

	for (char *opt = strtok_r(list, ",", &save); opt;
	     opt = strtok_r(NULL, ",", &save)) {
		char *v = strchr(opt, '=');
		int bad = 0;

		if (v)
			*v++ = 0;
		if (!strcmp(opt, "ro") && !v) {
			o->read_only = true;
		} else if (!strcmp(opt, "rw") && !v) {
			o->read_only = false;
		} else if (!strcmp(opt, "allow_other") && !v) {
			o->allow_other = true;
		} else if (!strcmp(opt, "debug") && !v) {
			o->debug = true;
		} else if (!strcmp(opt, "simple") && v) {
			bad = parse_onoff(v, &o->simple);
		} else if (!strcmp(opt, "trace") && v) {
			bad = parse_onoff(v, &o->trace);
		} else if (!strcmp(opt, "parallel_write") && v) {
			bad = parse_onoff(v, &o->parallel_write);
		} else if (!strcmp(opt, "dops") && v) {
			bad = strcmp(v, "none") && strcmp(v, "end_io") &&
			      strcmp(v, "submit_io") && strcmp(v, "bio_set");
			o->dops = v;
		} else if (!strcmp(opt, "qd") && v) {
			bad = parse_uint(v, 4096, &o->queue_depth) ||
			      !o->queue_depth;
		} else if (!strcmp(opt, "cpus") && v) {
			bad = parse_uint(v, 64, &o->cpus) || !o->cpus;
		} else if (!strcmp(opt, "threads") && v) {
			bad = parse_uint(v, 1024, &o->max_threads) ||
			      !o->max_threads;
		} else if (!strcmp(opt, "poll") && v) {
			if (!strcmp(v, "auto"))
				o->poll_us = IOMAPSIM_POLL_AUTO_US;
			else
				bad = parse_uint(v, 10000, &o->poll_us);
		} else if (!strcmp(opt, "uring") && v) {
			if (!strcmp(v, "auto"))
				o->uring = IOMAPSIM_URING_AUTO;
			else if (!strcmp(v, "on"))
				o->uring = IOMAPSIM_URING_ON;
			else if (!strcmp(v, "off"))
				o->uring = IOMAPSIM_URING_OFF;
			else
				bad = 1;
		} else if (!strcmp(opt, "commit") && v) {
			bad = parse_uint(v, 86400, &o->commit_interval);
		} else if (!strcmp(opt, "max_background") && v) {
			bad = parse_uint(v, 65535, &o->max_background) ||
			      !o->max_background;
		} else if (!strcmp(opt, "logwrites") && v) {
			bad = !*v;
			o->log_writes = v;
		} else if (!strcmp(opt, "fault") && v) {
			char ferr[256];

			if (o->nr_faults >= IOMAPSIM_MAX_FAULTS) {
				snprintf(err, errlen,
					 "more than %d fault "
					 "rules",
					 IOMAPSIM_MAX_FAULTS);
				return -1;
			}
			if (fusevfs_fault_check(v, ferr, sizeof(ferr)) < 0) {
				snprintf(err, errlen, "fault=%s: %s", v, ferr);
				return -1;
			}
			o->faults[o->nr_faults++] = v;
		} else {
			snprintf(err, errlen,
				 "unknown mount option '%s%s%s' "
				 "(see iomapsim mount --help)",
				 opt, v ? "=" : "", v ? v : "");
			return -1;
		}
		if (bad) {
			snprintf(err, errlen,
				 "bad value in mount option "
				 "'%s=%s'",
				 opt, v);
			return -1;
		}
	}
	return 0;
}

/* ---- serving ------------------------------------------------------------ */

static pthread_mutex_t commit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t commit_cond = PTHREAD_COND_INITIALIZER;
static bool commit_stop;

struct commit_arg {
	struct fusevfs_mount *m;
	unsigned int interval;
};

/* The periodic commit, as ext4's commit= and jbd2's timer. */
static void *commit_thread(void *p)
{
	struct commit_arg *a = p;

	pthread_mutex_lock(&commit_lock);
	while (!commit_stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += a->interval;
		pthread_cond_timedwait(&commit_cond, &commit_lock, &ts);
		if (commit_stop)
			break;
		pthread_mutex_unlock(&commit_lock);
		fusevfs_sync(a->m);
		pthread_mutex_lock(&commit_lock);
	}
	pthread_mutex_unlock(&commit_lock);
	return NULL;
}

/* "fsname=..." with the option parser's separators escaped. */
static void escape_opt(char *out, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 3 < len; s++) {
		if (*s == ',' || *s == '\\')
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = 0;
}

static void report(int fd, const char *msg)
{
	if (fd >= 0) {
		if (write(fd, msg, strlen(msg)) < 0)
			perror("iomapsim: status pipe");
	} else if (strcmp(msg, "OK")) {
		fprintf(stderr, "iomapsim: %s\n", msg);
	}
}

/*
 * Why the mount failed, as one line.  The device layer's reasons name
 * the path already; simfs's do not.  For a target without a simfs the
 * hint is the mkfs command that will actually run: with --force when
 * something else (ext4, a partition table) is there, since plain mkfs
 * refuses to overwrite it.
 */
static void mount_failed_msg(const char *target, const char *err, char *msg,
			     size_t len)
{
	size_t tl = strlen(target);
	bool named = !strncmp(err, target, tl) && err[tl] == ':';
	struct simfs_host_probe p;
	char why[200];

	snprintf(msg, len, "%s%s%s", named ? "" : target, named ? "" : ": ",
		 err);
	if (!strstr(err, "not a simfs"))
		return;
	if (!simfs_host_probe(target, &p, why, sizeof(why)) &&
	    (p.found[0] || p.ambivalent))
		snprintf(msg + strlen(msg), len - strlen(msg),
			 "; it holds "
			 "%s%s %s; to erase it and make a simfs: iomapsim "
			 "mkfs --force %s",
			 p.ambivalent		     ? "" :
			 strchr("aeiou", p.found[0]) ? "an " :
						       "a ",
			 p.ambivalent ? "several" : p.found,
			 p.ambivalent	  ? "signatures" :
			 p.found_usage[0] ? p.found_usage :
					    "signature",
			 target);
	else
		snprintf(msg + strlen(msg), len - strlen(msg),
			 "; make one "
			 "with: iomapsim mkfs %s",
			 target);
}

/*
 * Lock the image and open it as a simfs mount into @c: 0, or 1 with the
 * reason reported (and nothing left held).
 */
static int serve_open(const struct fusevfs_mount_opts *o, struct ctx *c,
		      struct simfs_host_lock *lk, int status_fd)
{
	char err[512], msg[700];
	int ret;

	if (o->uring == IOMAPSIM_URING_ON && !fuse_uring_enabled()) {
		report(status_fd,
		       "uring=on: the kernel does not offer FUSE "
		       "over io_uring (" FUSE_URING_PARAM " is not Y)");
		return 1;
	}
	/*
	 * The image is this process's from before the first read until
	 * after the last commit (lock.c): a second mount, mkfs or a
	 * remount racing our final commit is refused or waits.
	 */
	ret = simfs_host_lock(o->target, SIMFS_HOLD_MOUNT, o->read_only,
			      SIMFS_HOST_LOCK_WAIT_MS, lk, err, sizeof(err));
	/* a target that cannot be opened: the device open says why */
	if (ret == -EBUSY) {
		snprintf(msg, sizeof(msg), "%s: %s", o->target, err);
		report(status_fd, msg);
		return 1;
	}
	ret = fusevfs_mount_open(o, &c->m, err, sizeof(err));
	/* opening the device may close(2) the file: tag again */
	simfs_host_lock_retag(lk, SIMFS_HOLD_MOUNT);
	if (ret) {
		mount_failed_msg(o->target, err, msg, sizeof(msg));
		report(status_fd, msg);
		simfs_host_unlock(lk);
		return 1;
	}
	return 0;
}

/*
 * The session's arguments: @argv (which @args points into until an
 * argument is added) and @opts hold them.
 */
static void serve_args(const struct fusevfs_mount_opts *o,
		       struct fuse_args *args, char **argv, char *opts,
		       size_t opts_len)
{
	char fsname[600];

	escape_opt(fsname, sizeof(fsname), o->target);
	snprintf(opts, opts_len,
		 "fsname=%s,subtype=iomapsim,"
		 "default_permissions%s%s",
		 fsname, o->allow_other ? ",allow_other" : "",
		 o->read_only ? ",ro" : "");
	argv[0] = "iomapsim";
	argv[1] = "-o";
	argv[2] = opts;
	argv[3] = NULL;
	*args = (struct fuse_args)FUSE_ARGS_INIT(3, argv);
	if (o->debug)
		fuse_opt_add_arg(args, "-d");
}

/*
 * Mounted, and the caller told so through @status_fd: the daemon lets
 * go of the caller's terminal and directory.
 */
static void serve_detach(int status_fd)
{
	int null = open("/dev/null", O_RDWR);

	close(status_fd);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	/* a daemon must not keep the caller's directory busy */
	if (chdir("/") < 0)
		return;
}

static void commit_thread_stop(pthread_t ct)
{
	pthread_mutex_lock(&commit_lock);
	commit_stop = true;
	pthread_cond_signal(&commit_cond);
	pthread_mutex_unlock(&commit_lock);
	pthread_join(ct, NULL);
}

/* Serve requests until the mount goes away: 0, or 1 when that failed. */
static int serve_loop(const struct fusevfs_mount_opts *o, struct ctx *c)
{
	/*
	 * Each worker owns a ring of the device's (submitter_polls) and
	 * keeps reads in flight on it (fuse-loop.c): they all start now and
	 * live as long as the mount.  Few: a worker does not wait for each
	 * read, so more than a couple per CPU only switch between themselves
	 * (on 2 CPUs, 16 workers served about 6% fewer random reads at queue
	 * depth 64 than 4 or 6 did).
	 */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nr = o->max_threads ? o->max_threads :
			  cpus > 2	 ? (unsigned int)(2 * cpus) :
					   4;

	return fuse_loop_serve(c->se, c->m, nr, o->poll_us,
			       o->uring != IOMAPSIM_URING_OFF) ?
		       1 :
		       0;
}

static int serve(const struct fusevfs_mount_opts *o, int status_fd)
{
	struct ctx c = { .o = o };
	char opts[800], msg[700];
	char *argv[4];
	struct fuse_args args;
	struct commit_arg ca;
	pthread_t ct;
	bool ct_started = false;
	struct simfs_host_lock lk;
	int ret;

	if (serve_open(o, &c, &lk, status_fd))
		return 1;
	serve_args(o, &args, argv, opts, sizeof(opts));

	c.se = fuse_session_new(&args, &ll_ops, sizeof(ll_ops), &c);
	if (!c.se) {
		report(status_fd, "cannot create the FUSE session");
		ret = 1;
		goto out_fs;
	}
	if (fuse_set_signal_handlers(c.se)) {
		report(status_fd, "cannot install signal handlers");
		ret = 1;
		goto out_session;
	}
	if (fuse_session_mount(c.se, o->mountpoint)) {
		snprintf(msg, sizeof(msg),
			 "cannot mount on %s (is /dev/fuse "
			 "there, and are you allowed to use it?)",
			 o->mountpoint);
		report(status_fd, msg);
		ret = 1;
		goto out_signals;
	}
	report(status_fd, "OK");
	if (status_fd >= 0)
		serve_detach(status_fd);

	if (o->commit_interval && !o->read_only) {
		ca.m = c.m;
		ca.interval = o->commit_interval;
		commit_stop = false;
		ct_started = !pthread_create(&ct, NULL, commit_thread, &ca);
	}
	ret = serve_loop(o, &c);
	if (ct_started)
		commit_thread_stop(ct);
	fuse_session_unmount(c.se);
	/* unmounted, still committing: a new mount waits for us */
	simfs_host_lock_retag(&lk, SIMFS_HOLD_CLOSING);
out_signals:
	fuse_remove_signal_handlers(c.se);
out_session:
	/* waits for replies still owed, then the clean commit */
	if (fusevfs_mount_close(c.m))
		ret = 1;
	c.m = NULL;
	/* the workers' clones of /dev/fuse: no reply is owed on them now */
	fuse_route_exit();
	/* and the io_uring queues' entries */
	fuse_uring_exit();
	fuse_session_destroy(c.se);
	fuse_opt_free_args(&args);
	simfs_host_unlock(&lk);
	return ret;
out_fs:
	fusevfs_mount_close(c.m);
	fuse_opt_free_args(&args);
	simfs_host_unlock(&lk);
	return ret;
}

int fusevfs_mount_main(const struct fusevfs_mount_opts *o)
{
	struct stat st;
	int pfd[2];
	pid_t pid;
	char buf[800];
	ssize_t n;

	if (stat(o->mountpoint, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "iomapsim: mount point %s: %s\n", o->mountpoint,
			errno ? strerror(errno) : "not a directory");
		return 1;
	}
	if (o->foreground)
		return serve(o, -1);

	/*
	 * The daemon is forked before anything starts threads; it says
	 * through the pipe whether the mount came up, so errors still
	 * reach the terminal and the exit status.
	 */
	if (pipe(pfd)) {
		perror("iomapsim: pipe");
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("iomapsim: fork");
		return 1;
	}
	if (pid == 0) {
		close(pfd[0]);
		setsid();
		_exit(serve(o, pfd[1]));
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	if (n > 0) {
		buf[n] = 0;
		if (!strcmp(buf, "OK"))
			return 0;
		fprintf(stderr, "iomapsim: %s\n", buf);
	} else {
		fprintf(stderr, "iomapsim: the mount daemon exited without "
				"mounting\n");
	}
	waitpid(pid, NULL, 0);
	return 1;
}
