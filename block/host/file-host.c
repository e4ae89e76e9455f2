// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file backend's view of the host: open the target with O_DIRECT and
 * take its limits from the real thing.
 *
 *  - block device: size from BLKGETSIZE64; logical/physical sector size,
 *    minimum and optimal I/O size from libblkid's topology (ioctls if
 *    libblkid cannot tell); buffer alignment from STATX_DIOALIGN; queue
 *    features and transfer limits from sysfs.
 *  - regular file: size from statx; O_DIRECT alignment from
 *    STATX_DIOALIGN.  A filesystem that does not report it (tmpfs, older
 *    kernels) gets trial O_DIRECT reads instead, since guessing would
 *    turn into -EINVAL on the first real I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <blkid/blkid.h>
#include "err-host.h"
#include "file-host.h"

static bool pow2(unsigned long v)
{
	return v && !(v & (v - 1));
}

/* The first line of a sysfs file; false if absent. */
static bool sysfs_read_str(const char *dir, const char *name, char *buf,
			   size_t len)
{
	char path[256];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

/* One unsigned number from a sysfs file; false if absent. */
static bool sysfs_read_uint(const char *dir, const char *name,
			    unsigned long *v)
{
	char buf[64];

	if (!sysfs_read_str(dir, name, buf, sizeof(buf)))
		return false;
	*v = strtoul(buf, NULL, 10);
	return true;
}

static void blockdev_queue(struct bfh_target *t, dev_t rdev)
{
	char dir[128], str[32];
	unsigned long v;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/queue", major(rdev),
		 minor(rdev));
	if (access(dir, F_OK))	/* a partition: the disk's queue */
		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/../queue",
			 major(rdev), minor(rdev));
	if (sysfs_read_uint(dir, "max_sectors_kb", &v))
		t->max_sectors = (unsigned int)(v * 2);
	if (sysfs_read_uint(dir, "max_hw_sectors_kb", &v))
		t->max_hw_sectors = (unsigned int)(v * 2);
	if (sysfs_read_uint(dir, "max_segments", &v))
		t->max_segments = (unsigned int)v;
	if (sysfs_read_uint(dir, "max_segment_size", &v))
		t->max_segment_size = (unsigned int)v;
	if (sysfs_read_uint(dir, "rotational", &v))
		t->rotational = v != 0;
	if (sysfs_read_uint(dir, "fua", &v))
		t->fua = v != 0;
	else
		t->fua = true;
	/* "write back" or "write through" */
	if (sysfs_read_str(dir, "write_cache", str, sizeof(str)))
		t->write_cache = !strncmp(str, "write back", 10);
	else
		t->write_cache = true;
}

static void blockdev_topology(struct bfh_target *t, const char *path)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	blkid_topology tp = pr ? blkid_probe_get_topology(pr) : NULL;
	int v;

	if (tp) {
		t->logical_block_size =
			(unsigned int)blkid_topology_get_logical_sector_size(tp);
		t->physical_block_size =
			(unsigned int)blkid_topology_get_physical_sector_size(tp);
		t->io_min = (unsigned int)blkid_topology_get_minimum_io_size(tp);
		t->io_opt = (unsigned int)blkid_topology_get_optimal_io_size(tp);
		t->from_blkid = t->logical_block_size != 0;
	}
	if (pr)
		blkid_free_probe(pr);
	if (t->from_blkid)
		return;
	/* the same numbers, straight from the block layer */
	if (!ioctl(t->fd, BLKSSZGET, &v))
		t->logical_block_size = (unsigned int)v;
	if (!ioctl(t->fd, BLKPBSZGET, &v))
		t->physical_block_size = (unsigned int)v;
	if (!ioctl(t->fd, BLKIOMIN, &v))
		t->io_min = (unsigned int)v;
	if (!ioctl(t->fd, BLKIOOPT, &v))
		t->io_opt = (unsigned int)v;
}

/*
 * Trial O_DIRECT reads, smallest alignment first: the first that works
 * is the requirement.  Reads only, so the target is not changed.
 */
static int probe_dio_align(struct bfh_target *t)
{
	const unsigned int max = 4096;
	char *buf;
	int ret = -EINVAL;

	if (posix_memalign((void **)&buf, 2 * max, 4 * max))
		return -ENOMEM;
	for (unsigned int a = 512; a <= max; a *= 2) {
		if (pread(t->fd, buf, a, a) == (ssize_t)a) {
			t->dio_offset_align = a;
			ret = 0;
			break;
		}
	}
	if (!ret) {
		unsigned int len = t->dio_offset_align;

		t->dio_mem_align = max;
		for (unsigned int m = 512; m < max; m *= 2) {
			/* buf + m is aligned to m and to nothing larger */
			if (pread(t->fd, buf + m, len, 0) == (ssize_t)len) {
				t->dio_mem_align = m;
				break;
			}
		}
		t->probed = true;
	}
	free(buf);
	return ret;
}

static int dio_align(struct bfh_target *t, const char *path, char *err,
		     size_t errlen)
{
	struct statx stx;

	if (statx(t->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN)) {
		if (!stx.stx_dio_offset_align || !stx.stx_dio_mem_align) {
			blksim_bdev_err(err, errlen,
				     "%s: does not support O_DIRECT (statx: no direct I/O alignment)",
				     path);
			return -EINVAL;
		}
		t->dio_mem_align = stx.stx_dio_mem_align;
		t->dio_offset_align = stx.stx_dio_offset_align;
		t->from_statx = true;
		return 0;
	}
	if (t->is_blockdev) {
		/* older kernel: the sector size is the alignment (and 512) */
		t->dio_offset_align = t->logical_block_size;
		t->dio_mem_align = 512;
		return 0;
	}
	if (t->size < 8 * 4096) {
		/* too small to try; the caller refuses it anyway */
		t->dio_offset_align = t->dio_mem_align = 512;
		return 0;
	}
	if (probe_dio_align(t)) {
		blksim_bdev_err(err, errlen,
			     "%s: does not support O_DIRECT (trial reads with 512 to 4096 byte alignment failed)",
			     path);
		return -EINVAL;
	}
	return 0;
}

int bfh_open(const char *path, bool read_only, struct bfh_target *t,
	     char *err, size_t errlen)
{
	struct stat st;
	int ret, e;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (stat(path, &st)) {
		e = errno;
		blksim_bdev_err(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		blksim_bdev_err(err, errlen,
			     "%s: is a directory, not a regular file or block device",
			     path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		blksim_bdev_err(err, errlen,
			     "%s: not a regular file or block device", path);
		return -ENODEV;
	}
	t->is_blockdev = S_ISBLK(st.st_mode);
	t->blksize = (unsigned int)st.st_blksize;

	/*
	 * A block device written through is opened O_EXCL, as the kernel
	 * claims one it mounts: EBUSY while a file system or another
	 * exclusive opener (a second mount, mkfs) holds it.  Image files
	 * have no such claim: their users lock them (fs/simfs/host/lock.c).
	 */
	t->fd = open(path, (read_only ? O_RDONLY : O_RDWR) | O_DIRECT |
		     (t->is_blockdev && !read_only ? O_EXCL : 0) | O_CLOEXEC);
	if (t->fd < 0) {
		e = errno;
		if (e == EBUSY) {
			blksim_bdev_err(err, errlen,
				     "%s: device is busy (mounted, or opened exclusively by another program)",
				     path);
			return -EBUSY;
		}
		if (e == EINVAL) {
			blksim_bdev_err(err, errlen,
				     "%s: does not support O_DIRECT (open: %s)",
				     path, strerror(e));
			return -EINVAL;
		}
		if (!read_only && (e == EROFS || e == EACCES || e == EPERM)) {
			blksim_bdev_err(err, errlen,
				     "%s: read-only (%s), but writes were asked for",
				     path, strerror(e));
			return -EROFS;
		}
		blksim_bdev_err(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}

	if (t->is_blockdev) {
		uint64_t size;
		int ro = 0;

		if (!read_only && !ioctl(t->fd, BLKROGET, &ro) && ro) {
			blksim_bdev_err(err, errlen,
				     "%s: read-only (read-only block device), but writes were asked for",
				     path);
			ret = -EROFS;
			goto fail;
		}
		if (ioctl(t->fd, BLKGETSIZE64, &size)) {
			e = errno;
			blksim_bdev_err(err, errlen, "%s: BLKGETSIZE64: %s", path,
				     strerror(e));
			ret = -e;
			goto fail;
		}
		t->size = size;
		blockdev_topology(t, path);
		blockdev_queue(t, st.st_rdev);
	} else {
		t->size = (uint64_t)st.st_size;
		/* files sit on a disk with a cache; RWF_DSYNC gives FUA */
		t->write_cache = true;
		t->fua = true;
	}

	ret = dio_align(t, path, err, errlen);
	if (ret)
		goto fail;
	if (!pow2(t->dio_mem_align) || !pow2(t->dio_offset_align)) {
		blksim_bdev_err(err, errlen,
			     "%s: odd O_DIRECT alignment (memory %u, offset %u)",
			     path, t->dio_mem_align, t->dio_offset_align);
		ret = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	close(t->fd);
	t->fd = -1;
	return ret;
}

void bfh_close(struct bfh_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

int bfh_fdatasync(int fd)
{
	return fdatasync(fd) ? -errno : 0;
}
