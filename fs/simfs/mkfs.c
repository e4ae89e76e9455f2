// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs_mkfs(): an empty file system (the root directory only) on a block
 * device.  Everything is checked before the first write, so a refused
 * mkfs changes nothing.  The new file system is generation 1 in slot 1;
 * slot 0 is zeroed so no older simfs superblock with a higher generation
 * can win at mount.  Foreign signatures are the caller's business (the
 * CLI probes with libblkid and, with --force, wipes them first).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <linux/slab.h>
#include "simfs.h"

void simfs_mkfs_opts_init(struct simfs_mkfs_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->inline_data = true;
}

static size_t root_record(u8 *p, s64 now)
{
	struct simfs_dinode di = {
		.i_ino = simfs_cpu_to_le64(SIMFS_ROOT_INO),
		.i_mode = simfs_cpu_to_le32(S_IFDIR | 0755),
		.i_nlink = simfs_cpu_to_le32(2),
		.i_uid = simfs_cpu_to_le32(getuid()),
		.i_gid = simfs_cpu_to_le32(getgid()),
		.i_atime = simfs_cpu_to_le64(now),
		.i_mtime = simfs_cpu_to_le64(now),
		.i_ctime = simfs_cpu_to_le64(now),
		.i_parent = simfs_cpu_to_le64(SIMFS_ROOT_INO),
	};

	memcpy(p, &di, sizeof(di));
	return sizeof(di);
}

int simfs_mkfs_check(struct block_device *bdev, const struct simfs_mkfs_opts *o,
		     u32 *bsp, struct simfs_geometry *g, char *err,
		     size_t errlen)
{
	unsigned int lbs = bdev_logical_block_size(bdev);
	u32 bs = o->block_size ? o->block_size : max(4096U, lbs);
	u64 dev_bytes = bdev_nr_bytes(bdev);
	struct simfs_geometry tmp;
	int ret;

	if (!g)
		g = &tmp;
	if (!is_power_of_2(bs) || bs < SIMFS_MIN_BLOCK_SIZE ||
	    bs > SIMFS_MAX_BLOCK_SIZE) {
		snprintf(err, errlen,
			 "block size %u: must be a power of two "
			 "from %u to %u",
			 bs, SIMFS_MIN_BLOCK_SIZE, SIMFS_MAX_BLOCK_SIZE);
		return -EINVAL;
	}
	ret = simfs_check_lbs(bdev, bs, err, errlen);
	if (ret)
		return ret;
	if (bdev_read_only(bdev)) {
		snprintf(err, errlen, "device is read-only");
		return -EROFS;
	}
	if (o->label && strlen(o->label) >= SIMFS_LABEL_LEN) {
		snprintf(err, errlen, "label longer than %d bytes",
			 SIMFS_LABEL_LEN - 1);
		return -EINVAL;
	}
	ret = simfs_geometry(dev_bytes, bs, g);
	if (ret) {
		snprintf(err, errlen,
			 "device too small: %llu bytes hold no "
			 "simfs with %u-byte blocks",
			 (unsigned long long)dev_bytes, bs);
		return ret;
	}
	if (bsp)
		*bsp = bs;
	return 0;
}

int simfs_mkfs(struct block_device *bdev, const struct simfs_mkfs_opts *o,
	       char *err, size_t errlen)
{
	unsigned int lbs = bdev_logical_block_size(bdev);
	struct simfs_geometry g;
	struct simfs_dmeta *h;
	struct simfs_dsb *dsb;
	s64 now = simfs_now();
	size_t len;
	u8 *meta, *sb0, *sb1;
	u32 bs;
	int ret;

	ret = simfs_mkfs_check(bdev, o, &bs, &g, err, errlen);
	if (ret)
		return ret;

	meta = simfs_buf_alloc(bs);
	sb0 = simfs_buf_alloc(bs);
	sb1 = simfs_buf_alloc(bs);
	ret = -ENOMEM;
	if (!meta || !sb0 || !sb1)
		goto out;

	/* generation 1: header and the root directory */
	h = (struct simfs_dmeta *)meta;
	len = SIMFS_META_HDR_SIZE +
	      root_record(meta + SIMFS_META_HDR_SIZE, now);
	memcpy(h->m_magic, SIMFS_META_MAGIC, 8);
	h->m_generation = simfs_cpu_to_le64(1);
	h->m_nr_inodes = simfs_cpu_to_le64(1);
	h->m_next_ino = simfs_cpu_to_le64(SIMFS_FIRST_INO);
	h->m_len = simfs_cpu_to_le64(len);
	h->m_block_size = simfs_cpu_to_le32(bs);

	dsb = (struct simfs_dsb *)sb1;
	memcpy(dsb->s_magic, SIMFS_MAGIC, 8);
	dsb->s_version = simfs_cpu_to_le32(SIMFS_VERSION);
	dsb->s_block_size = simfs_cpu_to_le32(bs);
	dsb->s_lbs = simfs_cpu_to_le32(lbs);
	/* F-02: as blk_validate_limits() rounds io_opt to a sector size */
	dsb->s_io_opt = simfs_cpu_to_le32(round_down(bdev_io_opt(bdev), lbs));
	dsb->s_nr_blocks = simfs_cpu_to_le64(g.nr_blocks);
	dsb->s_meta_start = simfs_cpu_to_le64(g.meta_start);
	dsb->s_meta_blocks = simfs_cpu_to_le64(g.meta_blocks);
	dsb->s_data_start = simfs_cpu_to_le64(g.data_start);
	dsb->s_generation = simfs_cpu_to_le64(1);
	dsb->s_meta_len = simfs_cpu_to_le64(len);
	dsb->s_meta_crc = simfs_cpu_to_le32(simfs_crc32c(0, meta, len));
	dsb->s_state = simfs_cpu_to_le32(SIMFS_STATE_CLEAN);
	dsb->s_features =
		simfs_cpu_to_le32(o->inline_data ? SIMFS_FEAT_INLINE_DATA : 0);
	dsb->s_inline_max =
		simfs_cpu_to_le32(o->inline_data ? SIMFS_INLINE_MAX : 0);
	dsb->s_mkfs_time = simfs_cpu_to_le64(now);
	dsb->s_commit_time = simfs_cpu_to_le64(now);
	if (getrandom(dsb->s_uuid, sizeof(dsb->s_uuid), 0) !=
	    sizeof(dsb->s_uuid))
		memcpy(dsb->s_uuid, &now, sizeof(now));
	if (o->label)
		snprintf(dsb->s_label, sizeof(dsb->s_label), "%s", o->label);
	simfs_dsb_seal(dsb);

	/* generation 1 lives in area 1 and slot 1 */
	ret = simfs_bdev_rw(bdev, REQ_OP_WRITE | REQ_META,
			    (g.meta_start + g.meta_blocks) * bs, meta, bs);
	if (!ret)
		ret = simfs_bdev_rw(bdev, REQ_OP_WRITE | REQ_META, 0, sb0, bs);
	if (!ret)
		ret = simfs_bdev_rw(bdev,
				    REQ_OP_WRITE | REQ_META | REQ_SYNC |
					    REQ_PREFLUSH | REQ_FUA,
				    bs, sb1, bs);
	if (ret)
		snprintf(err, errlen, "write failed: %s", strerror(-ret));
out:
	simfs_buf_free(meta);
	simfs_buf_free(sb0);
	simfs_buf_free(sb1);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}
