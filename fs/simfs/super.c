// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs super block: reading the superblock slots, mount (load the
 * committed metadata copy into memory, rebuild the block bitmap from the
 * extents), the atomic commit (new copy into the idle area, then the
 * superblock flip with preflush + FUA), statfs, unmount.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/slab.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "simfs.h"

DEFINE_SIM_STAT(stat_commits, "simfs_commits");
DEFINE_SIM_STAT(stat_commit_bytes, "simfs_commit_bytes");
DEFINE_SIM_STAT(stat_commit_grouped, "simfs_commit_grouped");
DEFINE_SIM_STAT(stat_commit_errors, "simfs_commit_errors");

#define IHASH_BITS 16

/* ---- superblock slots --------------------------------------------------- */

struct simfs_sb_slots {
	struct simfs_dsb slot[2];
	bool valid[2];
	int refused; /* a sound slot breaking a rule, or -1 */
	char why[2][200];
	int best; /* -1: none valid */
};

static int read_slot(struct block_device *bdev, u64 pos, struct simfs_dsb *out)
{
	unsigned int lbs = bdev_logical_block_size(bdev);
	void *buf;
	int ret;

	if (pos + lbs > (u64)bdev_nr_bytes(bdev))
		return -ENXIO;
	buf = simfs_buf_alloc(lbs);
	if (!buf)
		return -ENOMEM;
	ret = simfs_bdev_rw(bdev, REQ_OP_READ | REQ_META, pos, buf, lbs);
	if (!ret)
		memcpy(out, buf, sizeof(*out));
	simfs_buf_free(buf);
	return ret;
}

/* A sound superblock at byte @at that says block size @says. */
static void misplaced(struct simfs_sb_slots *s, u32 at, u32 says)
{
	snprintf(s->why[1], sizeof(s->why[1]),
		 "block size (s_block_size) "
		 "%u, but it lies at byte %u, where slot 1 of %u-byte blocks "
		 "lies",
		 says, at, at);
}

/*
 * Slot 1 sits one block in.  With no slot 0 to say the block size (@ref
 * NULL), every size is tried: a sound superblock where slot 1 of another
 * block size would be is not slot 1, the search goes on, and if nothing
 * else is found it is what the image is refused for.  With a sound slot
 * 0 whose slot 1 is not where its block size puts it, the other places
 * are looked at too: a sound superblock of the same file system there
 * means slot 0's block size is the wrong one (F-02); another file
 * system's leftover is passed over.
 */
static void find_slot1(struct block_device *bdev, struct simfs_sb_slots *s,
		       const struct simfs_dsb *ref)
{
	unsigned int lbs = bdev_logical_block_size(bdev);
	u32 skip = ref ? simfs_le32_to_cpu(ref->s_block_size) : 0;
	char torn[sizeof(s->why[1])];
	u32 found = 0, found_says = 0;

	memcpy(torn, s->why[1], sizeof(torn));
	for (u32 bs = max(lbs, (unsigned int)SIMFS_MIN_BLOCK_SIZE);
	     bs <= SIMFS_MAX_BLOCK_SIZE; bs *= 2) {
		u32 says;
		int ret;

		if (bs == skip)
			continue;
		if (read_slot(bdev, bs, &s->slot[1]))
			break;
		ret = simfs_dsb_check(&s->slot[1], 1, s->why[1],
				      sizeof(s->why[1]));
		if (ret == -EUCLEAN)
			continue;
		says = simfs_le32_to_cpu(s->slot[1].s_block_size);
		if (ref) {
			if (memcmp(s->slot[1].s_uuid, ref->s_uuid,
				   sizeof(ref->s_uuid)))
				continue;
			if (!ret &&
			    !simfs_dsb_check_pair(ref, &s->slot[1], s->why[1],
						  sizeof(s->why[1])))
				misplaced(s, bs, says);
			s->refused = 1;
			return;
		}
		if (says != bs) {
			if (!found) {
				found = bs;
				found_says = says;
			}
			continue;
		}
		if (ret)
			s->refused = 1;
		else
			s->valid[1] = true;
		return;
	}
	if (found) {
		misplaced(s, found, found_says);
		s->refused = 1;
	} else if (ref) {
		memcpy(s->why[1], torn, sizeof(torn));
	} else {
		snprintf(s->why[1], sizeof(s->why[1]),
			 "no valid copy at any block size");
	}
}

/*
 * Read both slots and judge them by the same rules (F-02, F-03): a slot
 * without the magic or with a bad checksum is passed over, a sound one
 * breaking a rule refuses the image, whichever generation it holds.
 */
static int read_slots(struct block_device *bdev, struct simfs_sb_slots *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->best = -1;
	s->refused = -1;
	ret = read_slot(bdev, 0, &s->slot[0]);
	if (ret)
		return ret;
	ret = simfs_dsb_check(&s->slot[0], 0, s->why[0], sizeof(s->why[0]));
	if (ret == -EPROTONOSUPPORT) {
		s->refused = 0;
		return 0;
	}
	s->valid[0] = !ret;
	if (s->valid[0]) {
		u32 bs = simfs_le32_to_cpu(s->slot[0].s_block_size);

		/* a device too short for it: as a write that never landed */
		if (!read_slot(bdev, bs, &s->slot[1])) {
			ret = simfs_dsb_check(&s->slot[1], 1, s->why[1],
					      sizeof(s->why[1]));
			if (!ret)
				ret = simfs_dsb_check_pair(&s->slot[0],
							   &s->slot[1],
							   s->why[1],
							   sizeof(s->why[1]));
			if (ret == -EPROTONOSUPPORT)
				s->refused = 1;
			s->valid[1] = !ret;
			if (ret == -EUCLEAN)
				find_slot1(bdev, s, &s->slot[0]);
		}
	} else {
		find_slot1(bdev, s, NULL);
	}
	if (s->refused >= 0)
		return 0;
	if (s->valid[0] && s->valid[1])
		s->best = simfs_le64_to_cpu(s->slot[1].s_generation) >
			  simfs_le64_to_cpu(s->slot[0].s_generation);
	else if (s->valid[0])
		s->best = 0;
	else if (s->valid[1])
		s->best = 1;
	return 0;
}

bool simfs_probe(struct block_device *bdev)
{
	struct simfs_sb_slots s;

	/* a magic in either slot counts, even with a bad checksum */
	if (read_slots(bdev, &s))
		return false;
	return s.best >= 0 || s.refused >= 0 || simfs_dsb_has_magic(&s.slot[0]);
}

int simfs_check_lbs(struct block_device *bdev, u32 bs, char *err, size_t errlen)
{
	unsigned int lbs = bdev_logical_block_size(bdev);

	if (bs < lbs) {
		snprintf(err, errlen,
			 "block size %u is below the device's "
			 "logical block size %u",
			 bs, lbs);
		return -EINVAL;
	}
	return 0;
}

/*
 * What the superblock's rules cannot know: the device under it (both
 * slots agree on these fields when both are sound).
 */
static int check_geometry(struct block_device *bdev,
			  const struct simfs_dsb *dsb, struct simfs_geometry *g,
			  char *err, size_t errlen)
{
	u32 bs = simfs_le32_to_cpu(dsb->s_block_size);
	int ret;

	g->block_size = bs;
	g->nr_blocks = simfs_le64_to_cpu(dsb->s_nr_blocks);
	g->meta_start = simfs_le64_to_cpu(dsb->s_meta_start);
	g->meta_blocks = simfs_le64_to_cpu(dsb->s_meta_blocks);
	g->data_start = simfs_le64_to_cpu(dsb->s_data_start);
	ret = simfs_check_lbs(bdev, bs, err, errlen);
	if (ret)
		return ret;
	if (g->nr_blocks > (u64)bdev_nr_bytes(bdev) / bs) {
		snprintf(err, errlen,
			 "file system has %llu blocks of %u "
			 "bytes (s_nr_blocks) but the device holds only %llu "
			 "bytes",
			 (unsigned long long)g->nr_blocks, bs,
			 (unsigned long long)bdev_nr_bytes(bdev));
		return -EUCLEAN;
	}
	return 0;
}

/* Read and verify the metadata copy @dsb points at. */
static int read_meta(struct block_device *bdev, const struct simfs_dsb *dsb,
		     const struct simfs_geometry *g, struct simfs_meta *m,
		     char *err, size_t errlen)
{
	u64 gen = simfs_le64_to_cpu(dsb->s_generation);
	u64 len = simfs_le64_to_cpu(dsb->s_meta_len);
	u64 area = g->meta_start + (gen & 1) * g->meta_blocks;
	size_t rlen = round_up(len, (u64)g->block_size);
	void *buf;
	u32 crc;
	int ret;

	buf = simfs_buf_alloc(rlen);
	if (!buf)
		return -ENOMEM;
	ret = simfs_bdev_rw(bdev, REQ_OP_READ | REQ_META, area * g->block_size,
			    buf, rlen);
	if (ret) {
		snprintf(err, errlen, "cannot read the metadata copy: %s",
			 strerror(-ret));
		simfs_buf_free(buf);
		return ret;
	}
	crc = simfs_crc32c(0, buf, len);
	if (crc != simfs_le32_to_cpu(dsb->s_meta_crc)) {
		snprintf(err, errlen,
			 "metadata copy of generation %llu fails "
			 "its checksum (stored %08x, computed %08x)",
			 (unsigned long long)gen,
			 simfs_le32_to_cpu(dsb->s_meta_crc), crc);
		simfs_buf_free(buf);
		return -EUCLEAN;
	}
	ret = simfs_meta_parse(buf, len, m, err, errlen);
	if (!ret && m->generation != gen) {
		snprintf(err, errlen,
			 "metadata copy is of generation %llu "
			 "(m_generation), superblock says %llu (s_generation)",
			 (unsigned long long)m->generation,
			 (unsigned long long)gen);
		ret = -EUCLEAN;
	}
	if (ret)
		simfs_meta_free(m);
	return ret;
}

int simfs_load(struct block_device *bdev, struct simfs_dsb *dsb,
	       struct simfs_geometry *g, struct simfs_meta *m, char *err,
	       size_t errlen, int *slot_state)
{
	struct simfs_sb_slots s;
	int ret;

	ret = read_slots(bdev, &s);
	if (ret) {
		snprintf(err, errlen, "cannot read the superblock: %s",
			 strerror(-ret));
		return ret;
	}
	if (slot_state)
		*slot_state = s.valid[0] | (s.valid[1] << 1);
	/*
	 * A superblock whose checksum holds was written whole: if it says
	 * something this build does not understand or a value out of range,
	 * the image is not for this build to use, whichever slot is newer.
	 * Only a missing magic or a bad checksum is a torn write (F-03).
	 */
	if (s.refused >= 0) {
		snprintf(err, errlen, "superblock slot %d: %s", s.refused,
			 s.why[s.refused]);
		return -EUCLEAN;
	}
	if (s.best < 0) {
		if (simfs_dsb_has_magic(&s.slot[0]))
			snprintf(err, errlen,
				 "no valid superblock: slot 0: "
				 "%s; slot 1: %s",
				 s.why[0], s.why[1]);
		else
			snprintf(err, errlen,
				 "not a simfs file system "
				 "(no superblock magic)");
		return -EINVAL;
	}
	*dsb = s.slot[s.best];
	ret = check_geometry(bdev, dsb, g, err, errlen);
	if (ret)
		return ret;
	return read_meta(bdev, dsb, g, m, err, errlen);
}

/* ---- mount --------------------------------------------------------------- */

static void free_all_inodes(struct simfs_sb_info *sbi)
{
	if (!sbi->ihash)
		return;
	for (u32 h = 0; h <= sbi->ihash_mask; h++) {
		while (sbi->ihash[h]) {
			struct simfs_inode_info *ei = sbi->ihash[h];

			sbi->ihash[h] = ei->hash_next;
			simfs_inode_free(ei);
		}
	}
	kvfree(sbi->ihash);
	sbi->ihash = NULL;
}

/*
 * The record's extents into @ei (whose array holds them all), marked used
 * in the allocator: -EUCLEAN with the reason in @err for one that
 * overlaps, is out of order or out of range.
 */
static int load_extents(struct simfs_sb_info *sbi, struct simfs_inode_info *ei,
			const struct simfs_rec *r, char *err, size_t errlen)
{
	for (u32 i = 0; i < r->nr_extents; i++) {
		struct simfs_dextent de;
		struct simfs_extent *e = &ei->ext[i];

		memcpy(&de, &r->extents[i], sizeof(de));
		e->lblk = simfs_le64_to_cpu(de.e_lblk);
		e->pblk = simfs_le64_to_cpu(de.e_pblk);
		e->len = simfs_le32_to_cpu(de.e_len);
		e->flags = simfs_le32_to_cpu(de.e_flags);
		if (!e->len ||
		    (i && e->lblk < ei->ext[i - 1].lblk + ei->ext[i - 1].len) ||
		    simfs_alloc_mark_used(sbi, e->pblk, e->len)) {
			snprintf(err, errlen,
				 "inode %llu: extent %u "
				 "(%llu+%u -> %llu) overlaps or is out of "
				 "range; run iomapsim fsck",
				 (unsigned long long)r->ino, i,
				 (unsigned long long)e->lblk, e->len,
				 (unsigned long long)e->pblk);
			ei->nr_ext = i;
			return -EUCLEAN;
		}
		ei->nr_ext = i + 1;
	}
	atomic_long_add((long)ei->nr_ext * sizeof(struct simfs_dextent),
			&sbi->meta_bytes);
	return 0;
}

static int load_dirents(struct simfs_sb_info *sbi, struct simfs_inode_info *ei,
			const struct simfs_rec *r)
{
	for (u32 i = 0; i < r->nr_dirents; i++) {
		const struct simfs_rec_dirent *d = &r->dirents[i];
		struct simfs_dirent *nd;

		if (ei->nr_dents == ei->cap_dents) {
			nd = simfs_grow_array(ei->dents, ei->nr_dents,
					      &ei->cap_dents, ei->nr_dents + 1,
					      sizeof(*nd), 8, GFP_KERNEL);
			if (!nd)
				return -ENOMEM;
			ei->dents = nd;
		}
		nd = &ei->dents[ei->nr_dents];
		nd->name = kmalloc(d->name_len, GFP_KERNEL);
		if (!nd->name)
			return -ENOMEM;
		memcpy(nd->name, d->name, d->name_len);
		nd->name_len = d->name_len;
		nd->ino = d->ino;
		nd->cookie = ei->next_cookie++;
		ei->nr_dents++;
		atomic_long_add(simfs_dirent_bytes(d->name_len),
				&sbi->meta_bytes);
	}
	return 0;
}

static int load_xattrs(struct simfs_sb_info *sbi, struct simfs_inode_info *ei,
		       const struct simfs_rec *r)
{
	if (simfs_load_array(ei->xattrs, r->nr_xattrs))
		return -ENOMEM;
	for (u32 i = 0; i < r->nr_xattrs; i++) {
		const struct simfs_rec_xattr *x = &r->xattrs[i];
		struct simfs_xattr *nx = &ei->xattrs[i];

		nx->name = kmalloc(x->name_len, GFP_KERNEL);
		nx->value =
			kmalloc(x->value_len ? x->value_len : 1, GFP_KERNEL);
		if (!nx->name || !nx->value) {
			kfree(nx->name);
			kfree(nx->value);
			return -ENOMEM;
		}
		memcpy(nx->name, x->name, x->name_len);
		memcpy(nx->value, x->value, x->value_len);
		nx->name_len = x->name_len;
		nx->value_len = x->value_len;
		ei->nr_xattrs++;
		atomic_long_add(sizeof(struct simfs_dxattr) +
					ALIGN(x->name_len + x->value_len, 8),
				&sbi->meta_bytes);
	}
	return 0;
}

static int load_inode(struct simfs_sb_info *sbi, const struct simfs_rec *r,
		      char *err, size_t errlen)
{
	struct simfs_inode_info *ei;
	int ret = -ENOMEM;

	if (simfs_iget(sbi, r->ino)) {
		snprintf(err, errlen, "inode %llu appears twice",
			 (unsigned long long)r->ino);
		return -EUCLEAN;
	}
	ei = simfs_inode_alloc(sbi, r->ino, r->mode);
	if (!ei)
		return -ENOMEM;
	ei->nlink = r->nlink;
	ei->uid = r->uid;
	ei->gid = r->gid;
	ei->atime = r->atime;
	ei->mtime = r->mtime;
	ei->ctime = r->ctime;
	ei->parent = r->parent;
	ei->flags = r->flags;
	i_size_write(&ei->vfs_inode, r->size);

	if (r->nr_extents) {
		ei->ext = kmalloc_array(r->nr_extents, sizeof(*ei->ext),
					GFP_KERNEL);
		if (!ei->ext)
			goto fail;
		ei->cap_ext = r->nr_extents;
	}
	ret = load_extents(sbi, ei, r, err, errlen);
	if (ret)
		goto fail_hash;
	/*
	 * F-01: written blocks past EOF are what a crash leaves of an
	 * extending write whose new size was not committed (fsck notes
	 * them).  They are freed, as ext4's orphan cleanup truncates such
	 * blocks at mount; the mount's first commit records it.
	 */
	if (S_ISREG(r->mode) && !(r->flags & SIMFS_IFL_INLINE)) {
		long freed = simfs_ext_trim_written(
			ei, DIV_ROUND_UP(r->size, (u64)sbi->geo.block_size));

		if (freed < 0) {
			ret = freed;
			goto fail_hash;
		}
	}

	ret = -ENOMEM;
	if (r->flags & SIMFS_IFL_INLINE) {
		if (simfs_inline_alloc(ei))
			goto fail_hash;
		memcpy(ei->inline_data, r->inline_data,
		       min_t(u32, r->inline_len, SIMFS_INLINE_MAX));
	}
	ret = load_dirents(sbi, ei, r);
	if (!ret)
		ret = load_xattrs(sbi, ei, r);
	if (ret)
		goto fail_hash;
	simfs_inode_set_switches(ei);
	simfs_inode_hash(sbi, ei);
	return 0;

fail:
	simfs_inode_free(ei);
	return ret;
fail_hash:
	/* blocks marked so far stay marked: the mount is failing anyway */
	simfs_inode_free(ei);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory loading inode %llu",
			 (unsigned long long)r->ino);
	return ret;
}

struct first_error {
	char *err;
	size_t errlen;
	bool seen;
};

static void keep_first_error(void *arg, bool error, const char *text)
{
	struct first_error *f = arg;

	if (error && !f->seen) {
		snprintf(f->err, f->errlen, "%s; run iomapsim fsck", text);
		f->seen = true;
	}
}

/*
 * Refuse what fsck would call damaged, with fsck's first error: mount
 * trusts these invariants (inline data within its buffer, extents
 * within the data area and disjoint, one name per directory, ...).
 */
static int check_before_mount(struct simfs_sb_info *sbi,
			      const struct simfs_meta *m, char *err,
			      size_t errlen)
{
	struct first_error f = { .err = err, .errlen = errlen };
	struct simfs_fsck_report r = { .msg = keep_first_error, .arg = &f };
	int ret = simfs_check_meta(&sbi->dsb, &sbi->geo, m, &r);

	if (ret) {
		snprintf(err, errlen, "out of memory checking the metadata");
		return ret;
	}
	return r.errors ? -EUCLEAN : 0;
}

struct super_block *simfs_mount(struct block_device *bdev,
				const struct simfs_mount_opts *o, char *err,
				size_t errlen)
{
	struct simfs_sb_info *sbi;
	struct simfs_meta m;
	struct simfs_inode_info *root;
	char dummy[8];
	int ret;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return ERR_PTR(-ENOMEM);
	sbi->bdev = bdev;
	sbi->opts = *o;
	sbi->parallel_dio_write = !o->no_parallel_dio_write;
	mutex_init(&sbi->commit_lock);
	mutex_init(&sbi->ns_lock);

	ret = simfs_load(bdev, &sbi->dsb, &sbi->geo, &m, err, errlen, NULL);
	if (ret)
		goto fail_free;
	/* fsck's checks, all of them, before anything is served */
	ret = check_before_mount(sbi, &m, err, errlen);
	if (ret)
		goto fail_meta;
	if (bdev_read_only(bdev) && !o->read_only) {
		snprintf(err, errlen, "device is read-only; mount with -o ro");
		ret = -EROFS;
		goto fail_meta;
	}
	sbi->generation = simfs_le64_to_cpu(sbi->dsb.s_generation);
	sbi->last_meta_len = m.len;

	sbi->sb.s_blocksize = sbi->geo.block_size;
	sbi->sb.s_blocksize_bits = __builtin_ctz(sbi->geo.block_size);
	sbi->sb.s_bdev = bdev;
	sbi->sb.s_fs_info = sbi;
	if (o->read_only)
		sbi->sb.s_flags |= SB_RDONLY;
	if (o->no_simple)
		sbi->sb.s_iflags |= SB_I_SIM_NO_SIMPLE_DIO;
	snprintf(sbi->sb.s_id, sizeof(sbi->sb.s_id), "%s", bdev->bd_name);

	sbi->ihash_mask = (1U << IHASH_BITS) - 1;
	sbi->ihash = kvzalloc(sizeof(*sbi->ihash) << IHASH_BITS, GFP_KERNEL);
	ret = -ENOMEM;
	if (!sbi->ihash)
		goto fail_meta;
	ret = simfs_alloc_init(sbi);
	if (ret)
		goto fail_meta;
	atomic_long_set(&sbi->meta_bytes, SIMFS_META_HDR_SIZE);

	sbi->next_ino = max(m.next_ino, (u64)SIMFS_FIRST_INO);
	for (u64 i = 0; i < m.nr_inodes; i++) {
		ret = load_inode(sbi, &m.recs[i], err, errlen);
		if (ret)
			goto fail_inodes;
		if (m.recs[i].ino >= sbi->next_ino)
			sbi->next_ino = m.recs[i].ino + 1;
	}
	simfs_meta_free(&m);

	root = simfs_iget(sbi, SIMFS_ROOT_INO);
	if (!root || !S_ISDIR(root->vfs_inode.i_mode)) {
		snprintf(err, errlen, "no root directory; run iomapsim fsck");
		ret = -EUCLEAN;
		goto fail_inodes;
	}
	ret = simfs_dio_ops_init(sbi);
	if (ret) {
		snprintf(err, errlen, "cannot set up the dio bio_set");
		goto fail_inodes;
	}
	/* nothing is dirty yet */
	sbi->committed_data_seq = atomic_long_read(&sbi->data_seq);
	sbi->committed_any_seq = atomic_long_read(&sbi->any_seq);

	if (!o->read_only) {
		/* mark it in use: fsck then knows a crash happened */
		sbi->state = SIMFS_STATE_MOUNTED;
		simfs_mark_data_dirty(sbi);
		ret = simfs_commit(sbi);
		if (ret) {
			snprintf(err, errlen,
				 "cannot write the superblock: "
				 "%s",
				 strerror(-ret));
			goto fail_ops;
		}
	}
	sim_trace("simfs_mount", "dev=%s gen=%llu bs=%u inodes=%llu",
		  bdev->bd_name, (unsigned long long)sbi->generation,
		  sbi->geo.block_size, (unsigned long long)sbi->nr_inodes);
	return &sbi->sb;

fail_ops:
	simfs_dio_ops_exit(sbi);
fail_inodes:
	free_all_inodes(sbi);
	simfs_alloc_exit(sbi);
fail_meta:
	simfs_meta_free(&m);
	kvfree(sbi->ihash);
fail_free:
	mutex_destroy(&sbi->commit_lock);
	mutex_destroy(&sbi->ns_lock);
	kfree(sbi);
	return ERR_PTR(ret);
}

int simfs_unmount(struct super_block *sb)
{
	struct simfs_sb_info *sbi = SIMFS_SB(sb);
	int ret = 0;

	/* completions still queued would run against freed inodes */
	if (sb->s_dio_done_wq)
		flush_workqueue(sb->s_dio_done_wq);
	if (!sbi->opts.read_only) {
		sbi->state = SIMFS_STATE_CLEAN;
		simfs_mark_data_dirty(sbi);
		ret = simfs_commit(sbi);
	}
	sb_destroy_dio_done_wq(sb);
	simfs_dio_ops_exit(sbi);
	free_all_inodes(sbi);
	simfs_alloc_exit(sbi);
	mutex_destroy(&sbi->commit_lock);
	mutex_destroy(&sbi->ns_lock);
	kfree(sbi);
	return ret;
}

/* ---- commit ---------------------------------------------------------------- */

struct blob {
	u8 *buf;
	size_t len, cap;
};

static int blob_reserve(struct blob *b, size_t more)
{
	size_t cap = b->cap;
	u8 *n;

	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more)
		cap *= 2;
	n = simfs_buf_alloc(cap);
	if (!n)
		return -ENOMEM;
	memcpy(n, b->buf, b->len);
	simfs_buf_free(b->buf);
	b->buf = n;
	b->cap = cap;
	return 0;
}

static void *blob_put(struct blob *b, const void *p, size_t n)
{
	void *at = b->buf + b->len;

	memcpy(at, p, n);
	b->len += n;
	return at;
}

static void blob_put_padded(struct blob *b, const void *p, size_t n)
{
	blob_put(b, p, n);
	memset(b->buf + b->len, 0, ALIGN(n, 8) - n);
	b->len += ALIGN(n, 8) - n;
}

/* One inode into the copy: ns_lock and map_lock held. */
static int encode_inode(struct blob *b, struct simfs_inode_info *ei)
{
	struct inode *inode = &ei->vfs_inode;
	bool inl = ei->flags & SIMFS_IFL_INLINE;
	u32 inline_len =
		inl ? min_t(u64, i_size_read(inode), SIMFS_INLINE_MAX) : 0;
	struct simfs_dinode di = {
		.i_ino = simfs_cpu_to_le64(inode->i_ino),
		.i_mode = simfs_cpu_to_le32(inode->i_mode),
		.i_nlink = simfs_cpu_to_le32(ei->nlink),
		.i_uid = simfs_cpu_to_le32(ei->uid),
		.i_gid = simfs_cpu_to_le32(ei->gid),
		.i_size = simfs_cpu_to_le64(i_size_read(inode)),
		.i_atime = simfs_cpu_to_le64(ei->atime),
		.i_mtime = simfs_cpu_to_le64(ei->mtime),
		.i_ctime = simfs_cpu_to_le64(ei->ctime),
		.i_parent = simfs_cpu_to_le64(ei->parent),
		.i_flags = simfs_cpu_to_le32(ei->flags),
		.i_nr_extents = simfs_cpu_to_le32(ei->nr_ext),
		.i_inline_len = simfs_cpu_to_le32(inline_len),
		.i_nr_dirents = simfs_cpu_to_le32(ei->nr_dents),
		.i_nr_xattrs = simfs_cpu_to_le32(ei->nr_xattrs),
	};
	int ret = blob_reserve(b, simfs_inode_meta_bytes(ei) + 8);

	if (ret)
		return ret;
	blob_put(b, &di, sizeof(di));
	for (u32 i = 0; i < ei->nr_ext; i++) {
		struct simfs_dextent de = {
			.e_lblk = simfs_cpu_to_le64(ei->ext[i].lblk),
			.e_pblk = simfs_cpu_to_le64(ei->ext[i].pblk),
			.e_len = simfs_cpu_to_le32(ei->ext[i].len),
			.e_flags = simfs_cpu_to_le32(ei->ext[i].flags),
		};

		blob_put(b, &de, sizeof(de));
	}
	if (inline_len || inl)
		blob_put_padded(b, ei->inline_data, inline_len);
	for (u32 i = 0; i < ei->nr_dents; i++) {
		struct simfs_ddirent dd = {
			.d_ino = simfs_cpu_to_le64(ei->dents[i].ino),
			.d_name_len = simfs_cpu_to_le16(ei->dents[i].name_len),
		};

		blob_put(b, &dd, sizeof(dd));
		blob_put_padded(b, ei->dents[i].name, ei->dents[i].name_len);
	}
	for (u32 i = 0; i < ei->nr_xattrs; i++) {
		struct simfs_xattr *x = &ei->xattrs[i];
		struct simfs_dxattr dx = {
			.x_name_len = simfs_cpu_to_le16(x->name_len),
			.x_value_len = simfs_cpu_to_le32(x->value_len),
		};
		size_t n = x->name_len + x->value_len;

		blob_put(b, &dx, sizeof(dx));
		blob_put(b, x->name, x->name_len);
		blob_put(b, x->value, x->value_len);
		memset(b->buf + b->len, 0, ALIGN(n, 8) - n);
		b->len += ALIGN(n, 8) - n;
	}
	return 0;
}

static int serialise(struct simfs_sb_info *sbi, struct blob *b, u64 gen)
{
	struct simfs_dmeta *h;
	u64 nr = 0;
	int ret = 0;

	b->cap = max_t(size_t, 64 << 10,
		       round_up(sbi->last_meta_len + (16 << 10), PAGE_SIZE));
	b->buf = simfs_buf_alloc(b->cap);
	if (!b->buf)
		return -ENOMEM;
	b->len = SIMFS_META_HDR_SIZE;

	mutex_lock(&sbi->ns_lock);
	for (u32 hb = 0; hb <= sbi->ihash_mask && !ret; hb++) {
		for (struct simfs_inode_info *ei = sbi->ihash[hb]; ei;
		     ei = ei->hash_next) {
			/* unlinked, open files die with a crash */
			if (ei->unlinked)
				continue;
			down_read(&ei->map_lock);
			ret = encode_inode(b, ei);
			up_read(&ei->map_lock);
			if (ret)
				break;
			nr++;
		}
	}
	h = (struct simfs_dmeta *)b->buf;
	memset(h, 0, sizeof(*h));
	memcpy(h->m_magic, SIMFS_META_MAGIC, 8);
	h->m_generation = simfs_cpu_to_le64(gen);
	h->m_nr_inodes = simfs_cpu_to_le64(nr);
	h->m_next_ino = simfs_cpu_to_le64(sbi->next_ino);
	h->m_len = simfs_cpu_to_le64(b->len);
	h->m_block_size = simfs_cpu_to_le32(sbi->geo.block_size);
	mutex_unlock(&sbi->ns_lock);
	return ret;
}

int simfs_commit(struct simfs_sb_info *sbi)
{
	long want_data = atomic_long_read(&sbi->data_seq);
	long want_any = atomic_long_read(&sbi->any_seq);
	u32 bs = sbi->geo.block_size;
	struct simfs_dsb *dsb;
	struct blob b = { 0 };
	long seq_data, seq_any;
	u64 gen, epoch, area;
	size_t wlen;
	void *sbuf;
	int ret;

	if (sbi->opts.read_only)
		return -EROFS;
	mutex_lock(&sbi->commit_lock);
	/* someone else's commit, started after our change, covered it */
	if (want_data - sbi->committed_data_seq <= 0 &&
	    want_any - sbi->committed_any_seq <= 0) {
		mutex_unlock(&sbi->commit_lock);
		sim_stat_inc(&stat_commit_grouped);
		return blkdev_issue_flush(sbi->bdev);
	}

	gen = sbi->generation + 1;
	seq_data = atomic_long_read(&sbi->data_seq);
	seq_any = atomic_long_read(&sbi->any_seq);
	epoch = simfs_alloc_commit_begin(sbi);
	ret = serialise(sbi, &b, gen);
	if (ret)
		goto out;
	if (b.len > sbi->geo.meta_blocks * bs) {
		ret = -ENOSPC;
		goto out;
	}
	wlen = round_up(b.len, (size_t)bs);
	area = sbi->geo.meta_start + (gen & 1) * sbi->geo.meta_blocks;
	ret = simfs_bdev_rw(sbi->bdev, REQ_OP_WRITE | REQ_SYNC | REQ_META,
			    area * bs, b.buf, wlen);
	if (ret)
		goto out;

	sbuf = simfs_buf_alloc(bs);
	if (!sbuf) {
		ret = -ENOMEM;
		goto out;
	}
	dsb = sbuf;
	*dsb = sbi->dsb;
	dsb->s_generation = simfs_cpu_to_le64(gen);
	dsb->s_meta_len = simfs_cpu_to_le64(b.len);
	dsb->s_meta_crc = simfs_cpu_to_le32(simfs_crc32c(0, b.buf, b.len));
	dsb->s_state = simfs_cpu_to_le32(sbi->state);
	dsb->s_commit_time = simfs_cpu_to_le64(simfs_now());
	simfs_dsb_seal(dsb);
	/*
	 * The flip: the preflush makes the new copy (and file data written
	 * before this commit) stable before the superblock can point at
	 * it; FUA makes the superblock itself stable before we return.
	 */
	ret = simfs_bdev_rw(sbi->bdev,
			    REQ_OP_WRITE | REQ_SYNC | REQ_META | REQ_PREFLUSH |
				    REQ_FUA,
			    (gen & 1) * bs, sbuf, bs);
	if (!ret) {
		sbi->dsb = *dsb;
		sbi->generation = gen;
		sbi->last_meta_len = b.len;
		WRITE_ONCE(sbi->committed_data_seq, seq_data);
		WRITE_ONCE(sbi->committed_any_seq, seq_any);
		simfs_alloc_commit_done(sbi, epoch);
		sim_stat_inc(&stat_commits);
		sim_stat_add(&stat_commit_bytes, b.len);
		sim_trace("simfs_commit", "gen=%llu bytes=%zu",
			  (unsigned long long)gen, b.len);
	}
	simfs_buf_free(sbuf);
out:
	simfs_buf_free(b.buf);
	if (ret) {
		sbi->last_commit_error = ret;
		sim_stat_inc(&stat_commit_errors);
		sim_trace("simfs_commit_error", "gen=%llu err=%d",
			  (unsigned long long)gen, ret);
	}
	mutex_unlock(&sbi->commit_lock);
	return ret;
}

int simfs_sync_fs(struct super_block *sb, int wait)
{
	struct simfs_sb_info *sbi = SIMFS_SB(sb);

	if (sbi->opts.read_only)
		return 0;
	if (atomic_long_read(&sbi->any_seq) ==
	    READ_ONCE(sbi->committed_any_seq))
		return 0;
	return simfs_commit(sbi);
}

void simfs_statfs(struct super_block *sb, struct simfs_statfs *st)
{
	struct simfs_sb_info *sbi = SIMFS_SB(sb);
	long cap = sbi->geo.meta_blocks * sbi->geo.block_size;
	long per = sizeof(struct simfs_dinode) + SIMFS_INLINE_MAX + 32;
	long used = atomic_long_read(&sbi->meta_bytes);

	st->block_size = sbi->geo.block_size;
	st->blocks = sbi->geo.nr_blocks - sbi->geo.data_start;
	st->bfree = simfs_alloc_free_count(sbi);
	st->bavail = st->bfree;
	mutex_lock(&sbi->ns_lock);
	st->files = sbi->nr_inodes + max(0L, (cap - cap / 8 - used) / per);
	st->ffree = min(st->files - sbi->nr_inodes,
			(u64)(SIMFS_INO_LIMIT - sbi->next_ino));
	st->files = sbi->nr_inodes + st->ffree;
	mutex_unlock(&sbi->ns_lock);
	st->name_max = SIMFS_NAME_MAX;
}

void simfs_set_simple(struct super_block *sb, bool on)
{
	if (on)
		__atomic_fetch_and(&sb->s_iflags, ~SB_I_SIM_NO_SIMPLE_DIO,
				   __ATOMIC_RELAXED);
	else
		__atomic_fetch_or(&sb->s_iflags, SB_I_SIM_NO_SIMPLE_DIO,
				  __ATOMIC_RELAXED);
}

bool simfs_get_simple(struct super_block *sb)
{
	return !(__atomic_load_n(&sb->s_iflags, __ATOMIC_RELAXED) &
		 SB_I_SIM_NO_SIMPLE_DIO);
}
