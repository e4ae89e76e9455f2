/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * simfs on-disk format.
 *
 * The device, in file system blocks of s_block_size bytes:
 *
 *   block 0                      superblock slot 0
 *   block 1                      superblock slot 1
 *   [meta_start, +meta_blocks)   metadata area 0
 *   [.. + meta_blocks, +meta_blocks) metadata area 1
 *   [data_start, nr_blocks)      data blocks
 *
 * All metadata (inodes, extent maps, inline data, directory entries,
 * extended attributes) is one serialised "metadata copy" with a crc32c.
 * A commit writes the new copy into the area the current generation does
 * not use, then (with a preflush, so the copy and any file data written
 * before are stable first) writes superblock generation g+1 into slot
 * (g+1) & 1 with FUA.  Mount takes the valid slot with the highest
 * generation: a torn superblock write fails its checksum and the previous
 * generation, whose area was not touched, is used.  This is the "new copy,
 * then flip" scheme of log-structured and copy-on-write file systems, in
 * its smallest form; there is no journal to replay.
 *
 * Blocks freed since the last commit are not reused before the next one,
 * because the committed copy may still point at them (ext4 and XFS hold
 * freed extents back until their transaction commits for the same reason).
 *
 * F-01: space past end of file reads as zeroes whatever the device holds
 * there, as in XFS and ext4.  A crash can leave written blocks past
 * i_size (an extending write's blocks reached the disk, its new size was
 * not committed): mount frees the ones wholly past EOF and fsck says it
 * will; whatever the EOF block holds after EOF is zeroed when i_size
 * moves out (truncate up, an extending write, fallocate).
 *
 * Integers are little-endian.  Every variable-length record is padded to
 * 8 bytes.
 */
#ifndef _SIMFS_FORMAT_H
#define _SIMFS_FORMAT_H

#include <linux/types.h>

/* 8 bytes at the start of each superblock slot */
#define SIMFS_MAGIC "IOMAPSFS"
#define SIMFS_META_MAGIC "SIMFSMD1" /* metadata copy header */
#define SIMFS_VERSION 1

#define SIMFS_MIN_BLOCK_SIZE 512
#define SIMFS_MAX_BLOCK_SIZE 65536
#define SIMFS_DEF_BLOCK_SIZE 4096
/* Each metadata area: a 64th of the device within these, in whole blocks. */
#define SIMFS_META_AREA_MIN (64U << 10)
#define SIMFS_META_AREA_MAX (64U << 20)
/* The smallest data area mkfs makes, in blocks. */
#define SIMFS_MIN_DATA_BLOCKS 16

#define SIMFS_ROOT_INO 1
#define SIMFS_FIRST_INO 2
/*
 * Inode numbers stay below this: the FUSE front end's control directory
 * (/.iomapsim/) uses the numbers from here on, and a counter that wrapped
 * would hand out the root's.  m_next_ino may equal it (all used: creates
 * fail with ENOSPC), never exceed it.
 */
#define SIMFS_INO_LIMIT (1ULL << 62)
/* Largest i_size (and end of any extent), as s_maxbytes. */
#define SIMFS_MAX_FILE_SIZE (1ULL << 52)
/* Generations stay below this, so g + 1 never wraps to an older one. */
#define SIMFS_MAX_GENERATION (1ULL << 62)
#define SIMFS_NAME_MAX 255
/* Files up to this size keep their data in the inode (IOMAP_INLINE). */
#define SIMFS_INLINE_MAX 128
/* Extended attributes: user.* only, small. */
#define SIMFS_XATTR_NAME_MAX 255
#define SIMFS_XATTR_VALUE_MAX 1024
#define SIMFS_XATTR_PER_INODE 32
/* Longest extent, in blocks (keeps mapping lengths far from overflow). */
#define SIMFS_EXT_MAX_LEN (1U << 30)

/* s_state */
#define SIMFS_STATE_CLEAN 1 /* unmounted cleanly */
#define SIMFS_STATE_MOUNTED 2 /* mounted, or the mounter died */

/* s_features: a bit this build does not know refuses the image */
#define SIMFS_FEAT_INLINE_DATA (1U << 0)
#define SIMFS_FEAT_KNOWN SIMFS_FEAT_INLINE_DATA

/* i_flags */
#define SIMFS_IFL_INLINE (1U << 0) /* data in the inode */

/* e_flags */
#define SIMFS_EXT_UNWRITTEN (1U << 0) /* allocated, reads as zeroes */

#define SIMFS_SB_SIZE 256
#define SIMFS_LABEL_LEN 32

/*
 * The superblock's fields and their valid values (F-02).  fsck and mount
 * judge both slots by the same rules, whichever is newer, before either
 * is used.  A slot whose checksum holds was written whole: a value out of
 * range refuses the image, the field named.  Only a slot without the
 * magic or with a bad checksum, what a torn or short write leaves, is
 * passed over for the other (F-03).
 *
 *  s_magic        SIMFS_MAGIC (else not a slot: a torn write, or none)
 *  s_version      SIMFS_VERSION
 *  s_block_size   a power of two, SIMFS_MIN_BLOCK_SIZE..SIMFS_MAX_BLOCK_SIZE,
 *                 at least the device's logical block size; slot 1 lies one
 *                 block in, so it says what slot 0 says
 *  s_lbs          the device's logical block size at mkfs: a power of two,
 *                 512..s_block_size
 *  s_io_opt       the device's optimal I/O size at mkfs: 0 (none), or a
 *                 multiple of s_lbs (the kernel rounds io_opt down to the
 *                 physical block size, itself a multiple of it)
 *  s_nr_blocks    s_data_start + SIMFS_MIN_DATA_BLOCKS up to what the
 *                 device holds
 *  s_meta_start   2: the blocks after the two slots
 *  s_meta_blocks  SIMFS_META_AREA_MIN..SIMFS_META_AREA_MAX bytes, rounded
 *                 up to whole blocks
 *  s_data_start   s_meta_start + 2 * s_meta_blocks
 *  s_generation   1..SIMFS_MAX_GENERATION - 1; even in slot 0, odd in
 *                 slot 1 (generation g is committed into slot g & 1)
 *  s_meta_len     a multiple of 8, SIMFS_META_HDR_SIZE up to the area's
 *                 s_meta_blocks * s_block_size bytes
 *  s_meta_crc     any: checked against the copy of the slot in use only
 *                 (a commit in flight overwrites the older slot's copy
 *                 before it overwrites that slot)
 *  s_state        SIMFS_STATE_CLEAN or SIMFS_STATE_MOUNTED; not MOUNTED
 *                 at generation 1, which only mkfs writes, CLEAN
 *  s_features     no bit outside SIMFS_FEAT_KNOWN
 *  s_inline_max   SIMFS_INLINE_MAX with SIMFS_FEAT_INLINE_DATA, else 0 (the
 *                 limit this build keeps inline files to)
 *  s_mkfs_time    any (ns since the epoch; clocks can go back)
 *  s_commit_time  any
 *  s_uuid         any
 *  s_label        NUL-terminated (up to 31 bytes), NULs after it
 *  s_reserved     zero
 *  s_crc          crc32c of the bytes before it
 *
 * A commit writes s_generation, s_meta_len, s_meta_crc, s_state,
 * s_commit_time and s_crc; when both slots are sound, every other field
 * is the same in both.
 */

struct simfs_dsb {
	u8 s_magic[8];
	__le32 s_version;
	__le32 s_block_size;
	__le32 s_lbs; /* device logical block size at mkfs */
	__le32 s_io_opt; /* device optimal I/O size at mkfs, or 0 */
	__le64 s_nr_blocks;
	__le64 s_meta_start;
	__le64 s_meta_blocks; /* per area */
	__le64 s_data_start;
	__le64 s_generation;
	__le64 s_meta_len; /* bytes of the metadata copy */
	__le32 s_meta_crc;
	__le32 s_state;
	__le32 s_features;
	__le32 s_inline_max;
	__le64 s_mkfs_time; /* ns since the epoch */
	__le64 s_commit_time;
	u8 s_uuid[16];
	char s_label[SIMFS_LABEL_LEN];
	u8 s_reserved[100];
	__le32 s_crc; /* crc32c of the bytes before it */
} __attribute__((packed));

_Static_assert(sizeof(struct simfs_dsb) == SIMFS_SB_SIZE, "sb size");

#define SIMFS_META_HDR_SIZE 64

struct simfs_dmeta {
	u8 m_magic[8];
	__le64 m_generation;
	__le64 m_nr_inodes;
	__le64 m_next_ino;
	__le64 m_len; /* whole copy, header included */
	__le32 m_block_size;
	__le32 m_pad;
	u8 m_reserved[16];
} __attribute__((packed));

_Static_assert(sizeof(struct simfs_dmeta) == SIMFS_META_HDR_SIZE, "md size");

/*
 * One inode, followed by: i_nr_extents extents, i_inline_len bytes of
 * inline data (padded), i_nr_dirents directory entries, i_nr_xattrs
 * extended attributes.
 */
struct simfs_dinode {
	__le64 i_ino;
	__le32 i_mode;
	__le32 i_nlink;
	__le32 i_uid;
	__le32 i_gid;
	__le64 i_size;
	__le64 i_atime; /* ns since the epoch */
	__le64 i_mtime;
	__le64 i_ctime;
	__le64 i_parent; /* directories: the parent directory */
	__le32 i_flags;
	__le32 i_nr_extents;
	__le32 i_inline_len;
	__le32 i_nr_dirents;
	__le32 i_nr_xattrs;
	__le32 i_pad;
} __attribute__((packed));

_Static_assert(sizeof(struct simfs_dinode) == 88, "dinode size");

struct simfs_dextent {
	__le64 e_lblk; /* first file block */
	__le64 e_pblk; /* first device block */
	__le32 e_len; /* blocks */
	__le32 e_flags;
} __attribute__((packed));

/* followed by the name, padded */
struct simfs_ddirent {
	__le64 d_ino;
	__le16 d_name_len;
	__le16 d_pad;
	__le32 d_pad2;
} __attribute__((packed));

/* followed by the name and the value, padded together */
struct simfs_dxattr {
	__le16 x_name_len;
	__le16 x_pad;
	__le32 x_value_len;
} __attribute__((packed));

/* ---- geometry --------------------------------------------------------- */

struct simfs_geometry {
	u32 block_size;
	u64 nr_blocks;
	u64 meta_start;
	u64 meta_blocks;
	u64 data_start;
};

/*
 * Lay out a device of @dev_bytes with @block_size blocks.  Returns 0, or
 * -ENOSPC when the device is too small for the superblocks, two metadata
 * areas and at least 16 data blocks.
 */
int simfs_geometry(u64 dev_bytes, u32 block_size, struct simfs_geometry *g);

/* ---- decoded metadata (shared by mount and fsck) ---------------------- */

struct simfs_rec_dirent {
	u64 ino;
	u16 name_len;
	const char *name; /* not NUL-terminated, points into the copy */
};

struct simfs_rec_xattr {
	u16 name_len;
	u32 value_len;
	const char *name;
	const void *value;
};

struct simfs_rec {
	u64 ino;
	u32 mode;
	u32 nlink;
	u32 uid;
	u32 gid;
	u64 size;
	s64 atime, mtime, ctime;
	u64 parent;
	u32 flags;
	u32 nr_extents;
	u32 inline_len;
	u32 nr_dirents;
	u32 nr_xattrs;
	const struct simfs_dextent *extents; /* into the copy, unaligned */
	const void *inline_data;
	struct simfs_rec_dirent *dirents; /* kmalloc'ed */
	struct simfs_rec_xattr *xattrs; /* kmalloc'ed */
};

/*
 * @n zeroed elements into the array @p of a record being loaded, left
 * alone when @n is 0: 0 or -ENOMEM.  A macro so that the allocation
 * (<linux/slab.h>) stays accounted to the caller's line (<sim/alloc.h>).
 */
#define simfs_load_array(p, n)                                        \
	({                                                            \
		int __ret = 0;                                        \
		if (n) {                                              \
			(p) = kcalloc((n), sizeof(*(p)), GFP_KERNEL); \
			if (!(p))                                     \
				__ret = -ENOMEM;                      \
		}                                                     \
		__ret;                                                \
	})

struct simfs_meta {
	void *buf; /* the copy (owned) */
	size_t len;
	u64 generation;
	u64 next_ino;
	u64 nr_inodes;
	struct simfs_rec *recs; /* nr_inodes of them */
};

/*
 * Parse a metadata copy (takes ownership of @buf, kfree()d by
 * simfs_meta_free()).  Structural problems (bad magic, a record running
 * past the end, a name too long) fail with -EUCLEAN and a reason in @err;
 * semantic checks are fsck's.
 */
int simfs_meta_parse(void *buf, size_t len, struct simfs_meta *m, char *err,
		     size_t errlen);
void simfs_meta_free(struct simfs_meta *m);

/* ---- superblock ------------------------------------------------------- */

void simfs_dsb_seal(struct simfs_dsb *dsb);
/*
 * Superblock slot @slot (0 or 1) by the rules above (F-02, F-03): 0 if it
 * has our magic and a good checksum and every field is in range.
 * -EUCLEAN: no magic or a bad checksum (a torn write: the other slot may
 * be used).  -EPROTONOSUPPORT: a sound superblock that must not be used
 * (a version or feature this build does not know, a field out of range),
 * the field named in @err; never taken for a torn write.
 */
int simfs_dsb_check(const struct simfs_dsb *dsb, int slot, char *err,
		    size_t errlen);
/*
 * Two sound slots: 0, or -EPROTONOSUPPORT when they differ in a field
 * only mkfs writes, the field of slot 1 named in @err.
 */
int simfs_dsb_check_pair(const struct simfs_dsb *s0, const struct simfs_dsb *s1,
			 char *err, size_t errlen);
bool simfs_dsb_has_magic(const void *buf);

u32 simfs_crc32c(u32 crc, const void *data, size_t len);

/* little-endian helpers for the packed structures */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define simfs_cpu_to_le16(x) ((__le16)(x))
#define simfs_cpu_to_le32(x) ((__le32)(x))
#define simfs_cpu_to_le64(x) ((__le64)(x))
#define simfs_le16_to_cpu(x) ((u16)(x))
#define simfs_le32_to_cpu(x) ((u32)(x))
#define simfs_le64_to_cpu(x) ((u64)(x))
#else
#define simfs_cpu_to_le16(x) ((__le16)__builtin_bswap16(x))
#define simfs_cpu_to_le32(x) ((__le32)__builtin_bswap32(x))
#define simfs_cpu_to_le64(x) ((__le64)__builtin_bswap64(x))
#define simfs_le16_to_cpu(x) __builtin_bswap16(x)
#define simfs_le32_to_cpu(x) __builtin_bswap32(x)
#define simfs_le64_to_cpu(x) __builtin_bswap64(x)
#endif

#endif /* _SIMFS_FORMAT_H */
