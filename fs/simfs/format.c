// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs on-disk format: geometry, superblock sealing and checking, the
 * crc32c both use, and the parser of the metadata copy that mount and fsck
 * share (see format.h for the layout).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include "format.h"

/* ---- crc32c (Castagnoli, reflected, as the kernel's crc32c()) -------- */

static u32 crc32c_table[256];

static void __attribute__((constructor)) crc32c_init(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? 0x82f63b78U : 0);
		crc32c_table[i] = c;
	}
}

u32 simfs_crc32c(u32 crc, const void *data, size_t len)
{
	const u8 *p = data;

	crc = ~crc;
	while (len--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- geometry --------------------------------------------------------- */

int simfs_geometry(u64 dev_bytes, u32 block_size, struct simfs_geometry *g)
{
	u64 meta_bytes;

	memset(g, 0, sizeof(*g));
	if (!block_size || !is_power_of_2(block_size))
		return -EINVAL;
	g->block_size = block_size;
	g->nr_blocks = dev_bytes / block_size;

	/*
	 * Each metadata area is a 64th of the device, 64 KiB to 64 MiB: at
	 * 24 bytes an extent and 88 an inode that is room for thousands of
	 * files on the smallest image and millions of extents on a big one.
	 */
	meta_bytes = clamp(dev_bytes / 64, (u64)SIMFS_META_AREA_MIN,
			   (u64)SIMFS_META_AREA_MAX);
	g->meta_blocks = DIV_ROUND_UP(meta_bytes, block_size);
	g->meta_start = 2;
	g->data_start = g->meta_start + 2 * g->meta_blocks;
	if (g->nr_blocks < g->data_start + SIMFS_MIN_DATA_BLOCKS)
		return -ENOSPC;
	return 0;
}

/* ---- superblock ------------------------------------------------------- */

bool simfs_dsb_has_magic(const void *buf)
{
	return !memcmp(buf, SIMFS_MAGIC, 8);
}

void simfs_dsb_seal(struct simfs_dsb *dsb)
{
	dsb->s_crc = simfs_cpu_to_le32(
		simfs_crc32c(0, dsb, offsetof(struct simfs_dsb, s_crc)));
}

/* A sound superblock that must not be used: @err says which field. */
static int __attribute__((format(printf, 3, 4)))
refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EPROTONOSUPPORT;
}

/* The index of the first non-zero byte of @p, or -1. */
static long first_nonzero(const void *p, size_t len)
{
	const u8 *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return i;
	return -1;
}

/* The magic, the checksum, and what this build can read at all. */
static int dsb_check_header(const struct simfs_dsb *dsb, char *err,
			    size_t errlen)
{
	u32 crc = simfs_crc32c(0, dsb, offsetof(struct simfs_dsb, s_crc));
	u32 feat = simfs_le32_to_cpu(dsb->s_features);

	if (!simfs_dsb_has_magic(dsb)) {
		snprintf(err, errlen, "no simfs magic");
		return -EUCLEAN;
	}
	if (crc != simfs_le32_to_cpu(dsb->s_crc)) {
		snprintf(err, errlen,
			 "superblock checksum mismatch "
			 "(stored %08x, computed %08x)",
			 simfs_le32_to_cpu(dsb->s_crc), crc);
		return -EUCLEAN;
	}
	if (simfs_le32_to_cpu(dsb->s_version) != SIMFS_VERSION)
		return refuse(err, errlen,
			      "unsupported simfs version "
			      "(s_version) %u, this build reads %u",
			      simfs_le32_to_cpu(dsb->s_version), SIMFS_VERSION);
	if (feat & ~SIMFS_FEAT_KNOWN)
		return refuse(err, errlen,
			      "unknown feature bits (s_features) "
			      "%#x",
			      feat & ~SIMFS_FEAT_KNOWN);
	return 0;
}

/* Block sizes and the areas' places and sizes. */
static int dsb_check_geometry(const struct simfs_dsb *dsb, char *err,
			      size_t errlen)
{
	u32 bs = simfs_le32_to_cpu(dsb->s_block_size);
	u32 lbs = simfs_le32_to_cpu(dsb->s_lbs);
	u32 io_opt = simfs_le32_to_cpu(dsb->s_io_opt);
	u64 nr = simfs_le64_to_cpu(dsb->s_nr_blocks);
	u64 mstart = simfs_le64_to_cpu(dsb->s_meta_start);
	u64 mblocks = simfs_le64_to_cpu(dsb->s_meta_blocks);
	u64 dstart = simfs_le64_to_cpu(dsb->s_data_start);
	u64 min_mb, max_mb;

	if (bs < SIMFS_MIN_BLOCK_SIZE || bs > SIMFS_MAX_BLOCK_SIZE ||
	    !is_power_of_2(bs))
		return refuse(err, errlen,
			      "bad block size (s_block_size) %u: "
			      "not a power of two from %u to %u",
			      bs, SIMFS_MIN_BLOCK_SIZE, SIMFS_MAX_BLOCK_SIZE);
	if (lbs < SIMFS_MIN_BLOCK_SIZE || lbs > bs || !is_power_of_2(lbs))
		return refuse(err, errlen,
			      "logical block size (s_lbs) %u: "
			      "not a power of two from %u to the block size "
			      "%u",
			      lbs, SIMFS_MIN_BLOCK_SIZE, bs);
	if (io_opt % lbs)
		return refuse(err, errlen,
			      "optimal I/O size (s_io_opt) %u: "
			      "not 0 or a multiple of the logical block size "
			      "%u",
			      io_opt, lbs);
	if (mstart != 2)
		return refuse(err, errlen,
			      "metadata start (s_meta_start) "
			      "%llu: not 2",
			      (unsigned long long)mstart);
	min_mb = DIV_ROUND_UP(SIMFS_META_AREA_MIN, bs);
	max_mb = DIV_ROUND_UP(SIMFS_META_AREA_MAX, bs);
	if (mblocks < min_mb || mblocks > max_mb)
		return refuse(err, errlen,
			      "metadata area (s_meta_blocks) %llu "
			      "blocks of %u bytes (s_block_size): not "
			      "%llu..%llu",
			      (unsigned long long)mblocks, bs,
			      (unsigned long long)min_mb,
			      (unsigned long long)max_mb);
	if (dstart != mstart + 2 * mblocks)
		return refuse(err, errlen,
			      "data start (s_data_start) %llu: "
			      "not s_meta_start + 2 x s_meta_blocks = %llu",
			      (unsigned long long)dstart,
			      (unsigned long long)(mstart + 2 * mblocks));
	if (nr < dstart + SIMFS_MIN_DATA_BLOCKS)
		return refuse(err, errlen,
			      "block count (s_nr_blocks) %llu: "
			      "below the data start %llu + %u",
			      (unsigned long long)nr,
			      (unsigned long long)dstart,
			      SIMFS_MIN_DATA_BLOCKS);
	return 0;
}

/* The generation in @slot, the metadata copy it names, state, inline. */
static int dsb_check_state(const struct simfs_dsb *dsb, int slot, char *err,
			   size_t errlen)
{
	u32 bs = simfs_le32_to_cpu(dsb->s_block_size);
	u32 state = simfs_le32_to_cpu(dsb->s_state);
	u32 feat = simfs_le32_to_cpu(dsb->s_features);
	u32 inl = simfs_le32_to_cpu(dsb->s_inline_max);
	u32 want_inl = feat & SIMFS_FEAT_INLINE_DATA ? SIMFS_INLINE_MAX : 0;
	u64 mblocks = simfs_le64_to_cpu(dsb->s_meta_blocks);
	u64 gen = simfs_le64_to_cpu(dsb->s_generation);
	u64 mlen = simfs_le64_to_cpu(dsb->s_meta_len);

	if (!gen || gen >= SIMFS_MAX_GENERATION)
		return refuse(err, errlen,
			      "generation (s_generation) %llu out "
			      "of range 1..%llu",
			      (unsigned long long)gen,
			      (unsigned long long)SIMFS_MAX_GENERATION - 1);
	if ((gen & 1) != (u64)slot)
		return refuse(err, errlen,
			      "generation (s_generation) %llu in "
			      "slot %d, which holds the %s ones",
			      (unsigned long long)gen, slot,
			      slot ? "odd" : "even");
	if (mlen < SIMFS_META_HDR_SIZE || mlen > mblocks * bs || mlen % 8)
		return refuse(err, errlen,
			      "metadata copy length (s_meta_len) "
			      "%llu: not a multiple of 8 from %u to the area's "
			      "%llu bytes",
			      (unsigned long long)mlen, SIMFS_META_HDR_SIZE,
			      (unsigned long long)(mblocks * bs));
	if (state != SIMFS_STATE_CLEAN && state != SIMFS_STATE_MOUNTED)
		return refuse(err, errlen, "unknown state (s_state) %u", state);
	if (state == SIMFS_STATE_MOUNTED && gen == 1)
		return refuse(err, errlen,
			      "state (s_state) %u, mounted, at "
			      "generation 1, which only mkfs writes, clean",
			      state);
	if (inl != want_inl)
		return refuse(err, errlen,
			      "inline limit (s_inline_max) %u: "
			      "not %u %s the inline_data feature (s_features)",
			      inl, want_inl, want_inl ? "with" : "without");
	return 0;
}

/* The label and the reserved bytes: nothing after their ends. */
static int dsb_check_label(const struct simfs_dsb *dsb, char *err,
			   size_t errlen)
{
	size_t label_len;
	long at;

	label_len = strnlen(dsb->s_label, SIMFS_LABEL_LEN);
	if (label_len == SIMFS_LABEL_LEN)
		return refuse(err, errlen,
			      "label (s_label): no NUL ends it "
			      "within its %d bytes",
			      SIMFS_LABEL_LEN);
	at = first_nonzero(dsb->s_label + label_len,
			   SIMFS_LABEL_LEN - label_len);
	if (at >= 0)
		return refuse(err, errlen,
			      "label (s_label): byte %zu, after "
			      "its end, is not zero",
			      label_len + at);
	at = first_nonzero(dsb->s_reserved, sizeof(dsb->s_reserved));
	if (at >= 0)
		return refuse(err, errlen,
			      "reserved bytes (s_reserved): byte "
			      "%ld is not zero",
			      at);
	return 0;
}

/* F-02, F-03: the table above format.h's struct simfs_dsb, in its order. */
int simfs_dsb_check(const struct simfs_dsb *dsb, int slot, char *err,
		    size_t errlen)
{
	int ret;

	ret = dsb_check_header(dsb, err, errlen);
	if (!ret)
		ret = dsb_check_geometry(dsb, err, errlen);
	if (!ret)
		ret = dsb_check_state(dsb, slot, err, errlen);
	if (!ret)
		ret = dsb_check_label(dsb, err, errlen);
	return ret;
}

/* What only mkfs writes: the same in both slots (F-02). */
static const struct {
	const char *what, *field;
	size_t off, len;
} sb_fixed[] = {
#define FIXED(what, f)                                     \
	{                                                  \
		what, #f, offsetof(struct simfs_dsb, f),   \
			sizeof(((struct simfs_dsb *)0)->f) \
	}
	FIXED("block size", s_block_size),
	FIXED("logical block size", s_lbs),
	FIXED("optimal I/O size", s_io_opt),
	FIXED("block count", s_nr_blocks),
	FIXED("metadata area", s_meta_blocks),
	FIXED("features", s_features),
	FIXED("inline limit", s_inline_max),
	FIXED("mkfs time", s_mkfs_time),
	FIXED("uuid", s_uuid),
	FIXED("label", s_label),
#undef FIXED
};

int simfs_dsb_check_pair(const struct simfs_dsb *s0, const struct simfs_dsb *s1,
			 char *err, size_t errlen)
{
	for (size_t i = 0; i < ARRAY_SIZE(sb_fixed); i++) {
		const u8 *a = (const u8 *)s0 + sb_fixed[i].off;
		const u8 *b = (const u8 *)s1 + sb_fixed[i].off;
		u64 va = 0, vb = 0;

		if (!memcmp(a, b, sb_fixed[i].len))
			continue;
		if (sb_fixed[i].len > sizeof(u64))
			return refuse(err, errlen,
				      "%s (%s) differs from slot "
				      "0's",
				      sb_fixed[i].what, sb_fixed[i].field);
		/* little-endian on disk */
		for (size_t k = sb_fixed[i].len; k--;) {
			va = va << 8 | a[k];
			vb = vb << 8 | b[k];
		}
		return refuse(err, errlen, "%s (%s) %llu, slot 0 says %llu",
			      sb_fixed[i].what, sb_fixed[i].field,
			      (unsigned long long)vb, (unsigned long long)va);
	}
	return 0;
}

/* ---- metadata copy parser --------------------------------------------- */

struct cursor {
	const u8 *p;
	size_t off, len;
};

static const void *take(struct cursor *c, size_t n)
{
	const void *r;

	if (n > c->len - c->off)
		return NULL;
	r = c->p + c->off;
	c->off += n;
	return r;
}

static const void *take_padded(struct cursor *c, size_t n)
{
	const void *r = take(c, n);

	if (r && take(c, ALIGN(n, 8) - n) == NULL)
		return NULL;
	return r;
}

void simfs_meta_free(struct simfs_meta *m)
{
	if (m->recs) {
		for (u64 i = 0; i < m->nr_inodes; i++) {
			kfree(m->recs[i].dirents);
			kfree(m->recs[i].xattrs);
		}
		kfree(m->recs);
	}
	kfree(m->buf);
	memset(m, 0, sizeof(*m));
}

static int parse_rec(struct cursor *c, struct simfs_rec *r, char *err,
		     size_t errlen)
{
	const struct simfs_dinode *di = take(c, sizeof(*di));
	size_t at = c->off;

	if (!di)
		goto trunc;
	r->ino = simfs_le64_to_cpu(di->i_ino);
	r->mode = simfs_le32_to_cpu(di->i_mode);
	r->nlink = simfs_le32_to_cpu(di->i_nlink);
	r->uid = simfs_le32_to_cpu(di->i_uid);
	r->gid = simfs_le32_to_cpu(di->i_gid);
	r->size = simfs_le64_to_cpu(di->i_size);
	r->atime = (s64)simfs_le64_to_cpu(di->i_atime);
	r->mtime = (s64)simfs_le64_to_cpu(di->i_mtime);
	r->ctime = (s64)simfs_le64_to_cpu(di->i_ctime);
	r->parent = simfs_le64_to_cpu(di->i_parent);
	r->flags = simfs_le32_to_cpu(di->i_flags);
	r->nr_extents = simfs_le32_to_cpu(di->i_nr_extents);
	r->inline_len = simfs_le32_to_cpu(di->i_inline_len);
	r->nr_dirents = simfs_le32_to_cpu(di->i_nr_dirents);
	r->nr_xattrs = simfs_le32_to_cpu(di->i_nr_xattrs);

	if (r->nr_extents > (c->len - c->off) / sizeof(struct simfs_dextent))
		goto trunc;
	r->extents =
		take(c, (size_t)r->nr_extents * sizeof(struct simfs_dextent));
	if (r->inline_len > SIMFS_INLINE_MAX) {
		snprintf(err, errlen, "inode %llu: inline length %u > %u",
			 (unsigned long long)r->ino, r->inline_len,
			 SIMFS_INLINE_MAX);
		return -EUCLEAN;
	}
	r->inline_data = take_padded(c, r->inline_len);
	if (!r->inline_data)
		goto trunc;

	if (r->nr_dirents > (c->len - c->off) / sizeof(struct simfs_ddirent))
		goto trunc;
	if (simfs_load_array(r->dirents, r->nr_dirents))
		return -ENOMEM;
	for (u32 i = 0; i < r->nr_dirents; i++) {
		const struct simfs_ddirent *dd = take(c, sizeof(*dd));
		struct simfs_rec_dirent *d = &r->dirents[i];

		if (!dd)
			goto trunc;
		d->ino = simfs_le64_to_cpu(dd->d_ino);
		d->name_len = simfs_le16_to_cpu(dd->d_name_len);
		if (!d->name_len || d->name_len > SIMFS_NAME_MAX) {
			snprintf(err, errlen,
				 "inode %llu: entry %u has name "
				 "length %u",
				 (unsigned long long)r->ino, i, d->name_len);
			return -EUCLEAN;
		}
		d->name = take_padded(c, d->name_len);
		if (!d->name)
			goto trunc;
	}

	if (r->nr_xattrs > SIMFS_XATTR_PER_INODE) {
		snprintf(err, errlen, "inode %llu: %u xattrs",
			 (unsigned long long)r->ino, r->nr_xattrs);
		return -EUCLEAN;
	}
	if (simfs_load_array(r->xattrs, r->nr_xattrs))
		return -ENOMEM;
	for (u32 i = 0; i < r->nr_xattrs; i++) {
		const struct simfs_dxattr *dx = take(c, sizeof(*dx));
		struct simfs_rec_xattr *x = &r->xattrs[i];
		const char *p;

		if (!dx)
			goto trunc;
		x->name_len = simfs_le16_to_cpu(dx->x_name_len);
		x->value_len = simfs_le32_to_cpu(dx->x_value_len);
		if (!x->name_len || x->name_len > SIMFS_XATTR_NAME_MAX ||
		    x->value_len > SIMFS_XATTR_VALUE_MAX) {
			snprintf(err, errlen,
				 "inode %llu: xattr %u sizes "
				 "%u/%u",
				 (unsigned long long)r->ino, i, x->name_len,
				 x->value_len);
			return -EUCLEAN;
		}
		p = take_padded(c, (size_t)x->name_len + x->value_len);
		if (!p)
			goto trunc;
		x->name = p;
		x->value = p + x->name_len;
	}
	return 0;

trunc:
	snprintf(err, errlen,
		 "inode record at byte %zu runs past the end of "
		 "the metadata copy",
		 at);
	return -EUCLEAN;
}

int simfs_meta_parse(void *buf, size_t len, struct simfs_meta *m, char *err,
		     size_t errlen)
{
	struct cursor c = { .p = buf, .len = len };
	const struct simfs_dmeta *h;
	int ret;

	memset(m, 0, sizeof(*m));
	m->buf = buf;
	m->len = len;
	h = take(&c, sizeof(*h));
	if (!h || memcmp(h->m_magic, SIMFS_META_MAGIC, 8)) {
		snprintf(err, errlen, "metadata copy has no header magic");
		return -EUCLEAN;
	}
	if (simfs_le64_to_cpu(h->m_len) != len) {
		snprintf(err, errlen,
			 "metadata copy length %llu, superblock "
			 "says %zu",
			 (unsigned long long)simfs_le64_to_cpu(h->m_len), len);
		return -EUCLEAN;
	}
	m->generation = simfs_le64_to_cpu(h->m_generation);
	m->next_ino = simfs_le64_to_cpu(h->m_next_ino);
	m->nr_inodes = simfs_le64_to_cpu(h->m_nr_inodes);
	if (m->nr_inodes > len / sizeof(struct simfs_dinode)) {
		snprintf(err, errlen, "metadata copy claims %llu inodes",
			 (unsigned long long)m->nr_inodes);
		m->nr_inodes = 0;
		return -EUCLEAN;
	}
	m->recs = kcalloc(m->nr_inodes ? m->nr_inodes : 1, sizeof(*m->recs),
			  GFP_KERNEL);
	if (!m->recs)
		return -ENOMEM;
	for (u64 i = 0; i < m->nr_inodes; i++) {
		ret = parse_rec(&c, &m->recs[i], err, errlen);
		if (ret)
			return ret;
	}
	if (c.off != len) {
		snprintf(err, errlen, "%zu stray bytes after the last inode",
			 len - c.off);
		return -EUCLEAN;
	}
	return 0;
}
