/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Crafting simfs images in tests: the committed superblock and metadata
 * copy on a disk held in memory (a ram device's data, or an image file
 * mapped with mmap), the records of the copy, and resealing after an
 * edit, so the checksums hold and fsck's own checks must find it.  Only
 * the on-disk format (format.h) is used: the FUSE tests include it next
 * to the system's headers.
 */
#ifndef _SIMFS_IMAGE_H
#define _SIMFS_IMAGE_H

#include <check.h>
#include <string.h>
#include "format.h"

/* The committed metadata copy on the disk, and its superblock. */
struct on_disk {
	u8 *disk;
	u32 bs;
	struct simfs_dsb *dsb;
	u8 *meta;
	size_t len;
};

static inline size_t img_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The superblock slot @slot of @od's disk. */
static inline struct simfs_dsb *img_slot(struct on_disk *od, int slot)
{
	return (struct simfs_dsb *)(od->disk + (size_t)slot * od->bs);
}

/* The newer valid-looking slot of @disk (block size @bs) and its copy. */
static inline void find_committed(struct on_disk *od, u8 *disk, u32 bs)
{
	struct simfs_dsb *s0, *s1;
	u64 gen;

	od->disk = disk;
	od->bs = bs;
	s0 = img_slot(od, 0);
	s1 = img_slot(od, 1);
	od->dsb = !simfs_dsb_has_magic(s0) ||
				  simfs_le64_to_cpu(s1->s_generation) >
					  simfs_le64_to_cpu(s0->s_generation) ?
			  s1 :
			  s0;
	gen = simfs_le64_to_cpu(od->dsb->s_generation);
	od->meta =
		disk + (simfs_le64_to_cpu(od->dsb->s_meta_start) +
			(gen & 1) * simfs_le64_to_cpu(od->dsb->s_meta_blocks)) *
			       bs;
	od->len = simfs_le64_to_cpu(od->dsb->s_meta_len);
}

/* After editing the copy: a valid checksum again, so fsck must look. */
static inline void reseal(struct on_disk *od)
{
	od->dsb->s_meta_crc =
		simfs_cpu_to_le32(simfs_crc32c(0, od->meta, od->len));
	simfs_dsb_seal(od->dsb);
}

/* Walk the copy's records: the dinode of @ino, its dirents, its end. */
struct rec_at {
	struct simfs_dinode *di;
	struct simfs_dextent *ext;
	u8 *inline_data;
	u8 *dirents; /* the first struct simfs_ddirent */
};

static inline bool walk_to(struct on_disk *od, u64 ino, struct rec_at *at)
{
	size_t off = SIMFS_META_HDR_SIZE;
	struct simfs_dmeta *h = (void *)od->meta;

	for (u64 i = 0; i < simfs_le64_to_cpu(h->m_nr_inodes); i++) {
		struct simfs_dinode *di = (void *)(od->meta + off);
		u32 ne = simfs_le32_to_cpu(di->i_nr_extents);
		u32 il = simfs_le32_to_cpu(di->i_inline_len);
		u32 nd = simfs_le32_to_cpu(di->i_nr_dirents);
		u32 nx = simfs_le32_to_cpu(di->i_nr_xattrs);

		at->di = di;
		off += sizeof(*di);
		at->ext = (void *)(od->meta + off);
		off += (size_t)ne * sizeof(struct simfs_dextent);
		at->inline_data = od->meta + off;
		off += img_pad8(il);
		at->dirents = od->meta + off;
		for (u32 k = 0; k < nd; k++) {
			struct simfs_ddirent *d = (void *)(od->meta + off);

			off += sizeof(*d) +
			       img_pad8(simfs_le16_to_cpu(d->d_name_len));
		}
		for (u32 k = 0; k < nx; k++) {
			struct simfs_dxattr *x = (void *)(od->meta + off);

			off += sizeof(*x) +
			       img_pad8(simfs_le16_to_cpu(x->x_name_len) +
					simfs_le32_to_cpu(x->x_value_len));
		}
		if (simfs_le64_to_cpu(di->i_ino) == ino)
			return true;
	}
	return false;
}

/* The entry @name of directory @dir in the copy. */
static inline struct simfs_ddirent *dirent_of(struct on_disk *od, u64 dir,
					      const char *name)
{
	struct rec_at at;
	u8 *p;

	ck_assert(walk_to(od, dir, &at));
	p = at.dirents;
	for (u32 k = 0; k < simfs_le32_to_cpu(at.di->i_nr_dirents); k++) {
		struct simfs_ddirent *d = (void *)p;
		u16 len = simfs_le16_to_cpu(d->d_name_len);

		if (len == strlen(name) && !memcmp(p + sizeof(*d), name, len))
			return d;
		p += sizeof(*d) + img_pad8(len);
	}
	ck_abort_msg("no entry %s in %llu", name, (unsigned long long)dir);
	return NULL;
}

static inline struct simfs_dinode *dinode_of(struct on_disk *od, u64 ino)
{
	struct rec_at at;

	ck_assert(walk_to(od, ino, &at));
	return at.di;
}

/* The dinode of the root directory's entry @name. */
static inline struct simfs_dinode *dinode_named(struct on_disk *od,
						const char *name)
{
	return dinode_of(
		od,
		simfs_le64_to_cpu(dirent_of(od, SIMFS_ROOT_INO, name)->d_ino));
}

/*
 * What a crash leaves when an extending write's blocks reached the disk
 * but its size update did not: root entry @name's i_size set to @size,
 * the copy resealed.
 */
static inline void cut_size(struct on_disk *od, const char *name, u64 size)
{
	dinode_named(od, name)->i_size = simfs_cpu_to_le64(size);
	reseal(od);
}

#endif /* _SIMFS_IMAGE_H */
