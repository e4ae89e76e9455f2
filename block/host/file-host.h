/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Opening the file backend's target and finding its limits, behind plain
 * C types: stat/open with O_DIRECT, statx(STATX_DIOALIGN), libblkid
 * topology, block-device ioctls and sysfs (a host file, see README.md).
 */
#ifndef _BLOCK_HOST_FILE_HOST_H
#define _BLOCK_HOST_FILE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bfh_target {
	int fd;
	bool is_blockdev;
	uint64_t size;			/* bytes */
	unsigned int dio_mem_align;	/* buffer address and length */
	unsigned int dio_offset_align;	/* file offset and length */
	bool from_statx;		/* alignment from STATX_DIOALIGN */
	bool probed;			/* alignment found by trial reads */
	bool from_blkid;		/* topology from libblkid */
	unsigned int logical_block_size; /* block device; 0 for a file */
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int blksize;		/* st_blksize */
	/* block device queue (sysfs); 0 / false when unknown */
	unsigned int max_sectors;
	unsigned int max_hw_sectors;
	unsigned int max_segments;
	unsigned int max_segment_size;
	bool write_cache;
	bool fua;
	bool rotational;
};

/*
 * Open @path with O_DIRECT (read-only or read-write) and describe it.
 * Returns 0, or -errno with one line in @err:
 *   -ENOENT and the like  stat(2) failed ("PATH: No such file or directory")
 *   -EISDIR  a directory          -ENODEV  neither file nor block device
 *   -EROFS   read-only target while writes were asked for
 *   -EBUSY   a block device for writing is held (opened O_EXCL)
 *   -EINVAL  no O_DIRECT support (open refused it, or statx says so)
 */
int bfh_open(const char *path, bool read_only, struct bfh_target *t,
	     char *err, size_t errlen);
void bfh_close(struct bfh_target *t);
/* fdatasync(2): 0 or -errno. */
int bfh_fdatasync(int fd);

#endif /* _BLOCK_HOST_FILE_HOST_H */
