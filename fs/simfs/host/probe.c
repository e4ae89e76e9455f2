// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host side of mkfs: libblkid probing and wiping, statx STATX_DIOALIGN,
 * sparse image files.  Compiled with the system headers only (see
 * block/host/README.md): <sys/stat.h>'s statx pulls in <linux/stat.h>.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <blkid/blkid.h>
#include <linux/fs.h>
#include "../simfs-host.h"

#define SIMFS_MAGIC "IOMAPSFS"

static void copy_value(blkid_probe pr, const char *name, char *out, size_t len)
{
	const char *v = NULL;

	if (!blkid_probe_lookup_value(pr, name, &v, NULL) && v)
		snprintf(out, len, "%s", v);
}

static void probe_topology(blkid_probe pr, struct simfs_host_probe *p)
{
	blkid_topology tp = blkid_probe_get_topology(pr);

	if (!tp)
		return;
	p->logical_sector_size = blkid_topology_get_logical_sector_size(tp);
	p->physical_sector_size = blkid_topology_get_physical_sector_size(tp);
	p->minimum_io_size = blkid_topology_get_minimum_io_size(tp);
	p->optimal_io_size = blkid_topology_get_optimal_io_size(tp);
	p->topology_from_blkid = true;
}

static void probe_dioalign(int fd, struct simfs_host_probe *p)
{
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align) {
		p->dio_mem_align = stx.stx_dio_mem_align;
		p->dio_offset_align = stx.stx_dio_offset_align;
		p->dioalign_from_statx = true;
	}
#endif
}

/*
 * A libblkid probe of @fd for superblocks (@sb_flags) and partition
 * tables (@part_flags), or NULL with @err saying so.
 */
static blkid_probe probe_new(int fd, int sb_flags, int part_flags, char *err,
			     size_t errlen)
{
	blkid_probe pr = blkid_new_probe();

	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		if (pr)
			blkid_free_probe(pr);
		snprintf(err, errlen, "libblkid cannot probe it");
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, sb_flags);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, part_flags);
	return pr;
}

int simfs_host_probe(const char *path, struct simfs_host_probe *p, char *err,
		     size_t errlen)
{
	blkid_probe pr;
	struct stat st;
	char magic[8];
	int fd, rc;

	memset(p, 0, sizeof(*p));
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "is a directory");
		return -EISDIR;
	}
	p->is_blockdev = S_ISBLK(st.st_mode);
	p->is_regular = S_ISREG(st.st_mode);
	if (!p->is_blockdev && !p->is_regular) {
		snprintf(err, errlen,
			 "neither a block device nor a regular "
			 "file");
		return -ENODEV;
	}
	/* O_EXCL on a block device: EBUSY if mounted or otherwise held */
	fd = open(path, O_RDONLY | O_CLOEXEC | (p->is_blockdev ? O_EXCL : 0));
	if (fd < 0) {
		rc = -errno;
		snprintf(
			err, errlen, "%s",
			rc == -EBUSY ?
				"device is busy (mounted, or in use by something "
				"else)" :
				strerror(errno));
		return rc;
	}
	if (p->is_blockdev) {
		if (ioctl(fd, BLKGETSIZE64, &p->size))
			p->size = 0;
	} else {
		p->size = st.st_size;
		probe_dioalign(fd, p);
	}
	/* slot 0 at offset 0, slot 1 one block in: any block size */
	for (off_t off = 0; off <= 65536 && !p->simfs;
	     off = off ? 2 * off : 512)
		if (pread(fd, magic, sizeof(magic), off) == sizeof(magic) &&
		    !memcmp(magic, SIMFS_MAGIC, sizeof(magic)))
			p->simfs = true;

	pr = probe_new(
		fd, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE | BLKID_SUBLKS_LABEL,
		BLKID_PARTS_MAGIC, err, errlen);
	if (!pr) {
		close(fd);
		return -EIO;
	}
	rc = blkid_do_safeprobe(pr);
	if (rc == -2) {
		p->ambivalent = true;
		snprintf(p->found, sizeof(p->found), "several signatures");
	} else if (rc == 0) {
		copy_value(pr, "TYPE", p->found, sizeof(p->found));
		copy_value(pr, "USAGE", p->found_usage, sizeof(p->found_usage));
		copy_value(pr, "LABEL", p->found_label, sizeof(p->found_label));
		if (!p->found[0]) {
			copy_value(pr, "PTTYPE", p->found, sizeof(p->found));
			if (p->found[0])
				snprintf(p->found_usage, sizeof(p->found_usage),
					 "partition table");
		}
	}
	probe_topology(pr, p);
	blkid_free_probe(pr);
	close(fd);
	return 0;
}

int simfs_host_wipe(const char *path, char *err, size_t errlen)
{
	blkid_probe pr;
	int fd, rc = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	pr = probe_new(fd, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM,
		       BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT, err, errlen);
	if (!pr) {
		close(fd);
		return -EIO;
	}
	/* wipefs -a: erase what is found, probe again, until nothing is */
	while (blkid_do_probe(pr) == 0) {
		if (blkid_do_wipe(pr, 0)) {
			snprintf(err, errlen, "cannot wipe a signature: %s",
				 strerror(errno));
			rc = -EIO;
			break;
		}
	}
	blkid_free_probe(pr);
	if (!rc && fsync(fd)) {
		snprintf(err, errlen, "fsync: %s", strerror(errno));
		rc = -errno;
	}
	close(fd);
	return rc;
}

int simfs_host_create_image(const char *path, uint64_t size, char *err,
			    size_t errlen)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0) {
		snprintf(err, errlen, "cannot create: %s", strerror(errno));
		return -errno;
	}
	if (ftruncate(fd, (off_t)size)) {
		int ret = -errno;

		snprintf(err, errlen, "cannot size it to %llu bytes: %s",
			 (unsigned long long)size, strerror(errno));
		close(fd);
		unlink(path);
		return ret;
	}
	close(fd);
	return 0;
}

int simfs_host_resize(const char *path, uint64_t size, char *err, size_t errlen)
{
	if (truncate(path, (off_t)size)) {
		snprintf(err, errlen, "cannot size it to %llu bytes: %s",
			 (unsigned long long)size, strerror(errno));
		return -errno;
	}
	return 0;
}
