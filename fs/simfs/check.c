// SPDX-License-Identifier: GPL-2.0-only
/*
 * The structural checks of a loaded simfs generation, shared by fsck and
 * mount (one checker: mount refuses exactly what fsck calls damaged, with
 * fsck's first error).  Everything mount trusts is checked here, or for
 * the superblock's fields by simfs_dsb_check() on both slots before
 * either is used (F-02): the metadata header, inode numbers (never 0,
 * below the next-inode counter, below the front end's control range),
 * types, flags and sizes, inline data against the in-memory buffer,
 * extent ranges and overlaps (within a file and between files),
 * directory entries (names, targets, duplicates), link counts, parent
 * pointers, reachability from the root, xattr names.
 *
 * What only a full fsck reports: nothing structural.  The check is
 * O(n log n) in the inodes and extents of the copy mount has in memory
 * anyway, so mount runs all of it.  fsck additionally lists every problem
 * instead of the first, and notes the states a crash or a torn
 * superblock write legitimately leave (state MOUNTED, an invalid older
 * slot, written blocks past EOF).  Neither reads file data: the format
 * has no data checksums, and reading every block would cost what the
 * device holds, not what the metadata holds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/slab.h>
#include "simfs.h"

static void vsay(struct simfs_fsck_report *r, bool error, const char *fmt,
		 va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (error)
		r->errors++;
	else
		r->notes++;
	if (r->msg)
		r->msg(r->arg, error, buf);
}

static void __attribute__((format(printf, 3, 4)))
say(struct simfs_fsck_report *r, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(r, error, fmt, ap);
	va_end(ap);
}

void simfs_report(struct simfs_fsck_report *r, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(r, error, fmt, ap);
	va_end(ap);
}

struct fsck_ino {
	u64 ino;
	struct simfs_rec *rec;
	u32 refs; /* directory entries naming it */
	u32 subdirs; /* for directories: child directories */
	u64 ref_parent; /* the directory whose entry names it */
};

struct fsck_run {
	u64 pblk;
	u64 len;
	u64 ino;
};

static int cmp_ino(const void *a, const void *b)
{
	const struct fsck_ino *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_run(const void *a, const void *b)
{
	const struct fsck_run *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

static struct fsck_ino *find_ino(struct fsck_ino *t, u64 n, u64 ino)
{
	struct fsck_ino key = { .ino = ino };

	return bsearch(&key, t, n, sizeof(*t), cmp_ino);
}

static bool name_bad(const char *name, u16 len)
{
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	return memchr(name, '/', len) || memchr(name, 0, len);
}

/* Two names of a directory or of an inode's xattrs are one name twice. */
static bool same_name(const char *a, u16 alen, const char *b, u16 blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

static void check_extents(struct simfs_fsck_report *r,
			  const struct simfs_geometry *g,
			  const struct simfs_rec *rec, struct fsck_run *runs,
			  u64 *nr_runs)
{
	u64 eof_blk = DIV_ROUND_UP(rec->size, (u64)g->block_size);
	u64 prev_end = 0;

	for (u32 i = 0; i < rec->nr_extents; i++) {
		struct simfs_dextent de;
		u64 lblk, pblk;
		u32 len, flags;

		memcpy(&de, &rec->extents[i], sizeof(de));
		lblk = simfs_le64_to_cpu(de.e_lblk);
		pblk = simfs_le64_to_cpu(de.e_pblk);
		len = simfs_le32_to_cpu(de.e_len);
		flags = simfs_le32_to_cpu(de.e_flags);
		if (!len) {
			say(r, true, "inode %llu: extent %u has length 0",
			    (unsigned long long)rec->ino, i);
			continue;
		}
		if (flags & ~SIMFS_EXT_UNWRITTEN)
			say(r, true,
			    "inode %llu: extent %u has unknown flags "
			    "%#x",
			    (unsigned long long)rec->ino, i, flags);
		if (i && lblk < prev_end)
			say(r, true,
			    "inode %llu: extent %u (file block %llu) "
			    "overlaps or is out of order",
			    (unsigned long long)rec->ino, i,
			    (unsigned long long)lblk);
		if (lblk + len < lblk ||
		    lblk + len > DIV_ROUND_UP(SIMFS_MAX_FILE_SIZE,
					      (u64)g->block_size))
			say(r, true,
			    "inode %llu: extent %u file range "
			    "overflows",
			    (unsigned long long)rec->ino, i);
		if (pblk < g->data_start || pblk >= g->nr_blocks ||
		    len > g->nr_blocks - pblk) {
			say(r, true,
			    "inode %llu: extent %u maps blocks "
			    "%llu..%llu outside the data area %llu..%llu",
			    (unsigned long long)rec->ino, i,
			    (unsigned long long)pblk,
			    (unsigned long long)(pblk + len - 1),
			    (unsigned long long)g->data_start,
			    (unsigned long long)(g->nr_blocks - 1));
		} else {
			runs[(*nr_runs)++] = (struct fsck_run){
				.pblk = pblk, .len = len, .ino = rec->ino
			};
			r->used_blocks += len;
		}
		/* F-01: what mount does with them (load_inode()) */
		if (S_ISREG(rec->mode) && !(flags & SIMFS_EXT_UNWRITTEN) &&
		    lblk + len > eof_blk)
			say(r, false,
			    "inode %llu: written blocks %llu..%llu "
			    "past end of file (a write was cut short); mount "
			    "frees them",
			    (unsigned long long)rec->ino,
			    (unsigned long long)max(lblk, eof_blk),
			    (unsigned long long)(lblk + len - 1));
		prev_end = lblk + len;
	}
}

static void check_header(struct simfs_fsck_report *r,
			 const struct simfs_geometry *g,
			 const struct simfs_meta *m)
{
	u32 mbs = simfs_le32_to_cpu(
		((const struct simfs_dmeta *)m->buf)->m_block_size);

	if (m->next_ino < SIMFS_FIRST_INO || m->next_ino > SIMFS_INO_LIMIT)
		say(r, true,
		    "next inode number (m_next_ino) %llu "
		    "out of range %u..%llu",
		    (unsigned long long)m->next_ino, SIMFS_FIRST_INO,
		    (unsigned long long)SIMFS_INO_LIMIT);
	if (mbs != g->block_size)
		say(r, true,
		    "metadata block size (m_block_size) %u, "
		    "superblock says %u",
		    mbs, g->block_size);
}

/* The inode's number, flags, mode bits, size and inline state. */
static void check_inode_fields(struct simfs_fsck_report *r,
			       const struct simfs_meta *m,
			       const struct simfs_rec *rec, bool feat_inline)
{
	bool inl = rec->flags & SIMFS_IFL_INLINE;

	if (rec->ino >= SIMFS_INO_LIMIT)
		say(r, true,
		    "inode %llu: number (i_ino) in "
		    "the control directory's range (from "
		    "%llu)",
		    (unsigned long long)rec->ino,
		    (unsigned long long)SIMFS_INO_LIMIT);
	else if (rec->ino == 0 || rec->ino >= m->next_ino)
		say(r, true,
		    "inode %llu: number (i_ino) out "
		    "of range (next inode number %llu)",
		    (unsigned long long)rec->ino,
		    (unsigned long long)m->next_ino);
	if (rec->flags & ~SIMFS_IFL_INLINE)
		say(r, true,
		    "inode %llu: unknown flags "
		    "(i_flags) %#x",
		    (unsigned long long)rec->ino, rec->flags);
	if (rec->mode & ~(u32)(S_IFMT | 07777))
		say(r, true,
		    "inode %llu: unknown mode bits "
		    "(i_mode) %#o",
		    (unsigned long long)rec->ino, rec->mode);
	if (rec->size > SIMFS_MAX_FILE_SIZE)
		say(r, true,
		    "inode %llu: size (i_size) %llu "
		    "above the largest file, %llu bytes",
		    (unsigned long long)rec->ino, (unsigned long long)rec->size,
		    (unsigned long long)SIMFS_MAX_FILE_SIZE);
	if (inl && !feat_inline)
		say(r, true,
		    "inode %llu: inline data, but "
		    "the superblock lacks the inline_data "
		    "feature (s_features)",
		    (unsigned long long)rec->ino);
}

/* What the inode's type allows: entries, inline bytes, file data. */
static void check_inode_type(struct simfs_fsck_report *r,
			     const struct simfs_meta *m, struct fsck_ino *t,
			     const struct simfs_rec *rec)
{
	bool inl = rec->flags & SIMFS_IFL_INLINE;

	if (S_ISREG(rec->mode)) {
		if (rec->nr_dirents)
			say(r, true,
			    "inode %llu: a regular file with "
			    "directory entries",
			    (unsigned long long)rec->ino);
		if (inl && (rec->nr_extents || rec->size > SIMFS_INLINE_MAX ||
			    rec->inline_len != rec->size))
			say(r, true,
			    "inode %llu: inline file with "
			    "size (i_size) %llu, %u inline bytes, %u "
			    "extents",
			    (unsigned long long)rec->ino,
			    (unsigned long long)rec->size, rec->inline_len,
			    rec->nr_extents);
		if (!inl && rec->inline_len)
			say(r, true,
			    "inode %llu: inline bytes without "
			    "the inline flag",
			    (unsigned long long)rec->ino);
	} else if (S_ISDIR(rec->mode)) {
		if (rec->nr_extents || inl || rec->inline_len)
			say(r, true, "directory %llu has file data",
			    (unsigned long long)rec->ino);
		if (!find_ino(t, m->nr_inodes, rec->parent))
			say(r, true,
			    "directory %llu: parent %llu "
			    "does not exist",
			    (unsigned long long)rec->ino,
			    (unsigned long long)rec->parent);
	} else {
		say(r, true, "inode %llu: unsupported file type %#o",
		    (unsigned long long)rec->ino, rec->mode & S_IFMT);
	}
}

static void check_xattrs(struct simfs_fsck_report *r,
			 const struct simfs_rec *rec)
{
	for (u32 k = 0; k < rec->nr_xattrs; k++) {
		const struct simfs_rec_xattr *x = &rec->xattrs[k];

		if (x->name_len <= 5 || memcmp(x->name, "user.", 5) ||
		    memchr(x->name, 0, x->name_len))
			say(r, true, "inode %llu: bad xattr name",
			    (unsigned long long)rec->ino);
		for (u32 j = 0; j < k; j++)
			if (same_name(rec->xattrs[j].name,
				      rec->xattrs[j].name_len, x->name,
				      x->name_len))
				say(r, true, "inode %llu: xattr %.*s twice",
				    (unsigned long long)rec->ino, x->name_len,
				    x->name);
	}
}

/*
 * A directory's entries: names, targets, and what each names counts
 * (the references and subdirectories check_links() compares).
 */
static void check_dirents(struct simfs_fsck_report *r,
			  const struct simfs_meta *m, struct fsck_ino *t,
			  const struct simfs_rec *rec)
{
	for (u32 k = 0; k < rec->nr_dirents; k++) {
		const struct simfs_rec_dirent *d = &rec->dirents[k];
		struct fsck_ino *c = find_ino(t, m->nr_inodes, d->ino);

		if (name_bad(d->name, d->name_len))
			say(r, true, "directory %llu: bad entry name",
			    (unsigned long long)rec->ino);
		for (u32 j = 0; j < k; j++)
			if (same_name(rec->dirents[j].name,
				      rec->dirents[j].name_len, d->name,
				      d->name_len))
				say(r, true, "directory %llu: name %.*s twice",
				    (unsigned long long)rec->ino, d->name_len,
				    d->name);
		if (!c) {
			say(r, true,
			    "directory %llu: entry %.*s names "
			    "missing inode %llu",
			    (unsigned long long)rec->ino, d->name_len, d->name,
			    (unsigned long long)d->ino);
			continue;
		}
		c->refs++;
		c->ref_parent = rec->ino;
		if (S_ISDIR(c->rec->mode)) {
			struct fsck_ino *p =
				find_ino(t, m->nr_inodes, rec->ino);

			p->subdirs++;
			if (c->rec->parent != rec->ino)
				say(r, true,
				    "directory %llu: parent "
				    "pointer %llu, but it is in "
				    "directory %llu",
				    (unsigned long long)c->ino,
				    (unsigned long long)c->rec->parent,
				    (unsigned long long)rec->ino);
		}
	}
}

static void check_root(struct simfs_fsck_report *r, const struct simfs_meta *m,
		       struct fsck_ino *t)
{
	struct fsck_ino *root = find_ino(t, m->nr_inodes, SIMFS_ROOT_INO);

	if (!root || !S_ISDIR(root->rec->mode))
		say(r, true, "no root directory");
	else if (root->refs)
		say(r, true, "the root directory has a name");
	else if (root->rec->parent != SIMFS_ROOT_INO)
		say(r, true,
		    "the root directory's parent "
		    "(i_parent) is %llu, not itself",
		    (unsigned long long)root->rec->parent);
}

/* Link counts, lost inodes, cycles: after every entry has been counted. */
static void check_links(struct simfs_fsck_report *r, const struct simfs_meta *m,
			struct fsck_ino *t)
{
	for (u64 i = 0; i < m->nr_inodes; i++) {
		struct fsck_ino *c = &t[i];
		u32 want;

		if (c->ino != SIMFS_ROOT_INO && !c->refs) {
			say(r, true, "inode %llu is in no directory (lost)",
			    (unsigned long long)c->ino);
			continue;
		}
		if (S_ISDIR(c->rec->mode)) {
			if (c->ino != SIMFS_ROOT_INO && c->refs > 1)
				say(r, true, "directory %llu has %u names",
				    (unsigned long long)c->ino, c->refs);
			want = 2 + c->subdirs;
		} else {
			want = c->refs;
		}
		if (c->rec->nlink != want)
			say(r, true, "inode %llu: link count %u, should be %u",
			    (unsigned long long)c->ino, c->rec->nlink, want);
		if (S_ISDIR(c->rec->mode)) {
			struct fsck_ino *p = c;
			u64 steps = 0;

			while (p && p->ino != SIMFS_ROOT_INO &&
			       steps++ <= m->nr_inodes)
				p = find_ino(t, m->nr_inodes, p->rec->parent);
			if (!p || p->ino != SIMFS_ROOT_INO)
				say(r, true,
				    "directory %llu is not reachable "
				    "from the root",
				    (unsigned long long)c->ino);
		}
	}
}

/* Blocks claimed twice, from every file's extents at once. */
static void check_runs(struct simfs_fsck_report *r, struct fsck_run *runs,
		       u64 nr_runs)
{
	qsort(runs, nr_runs, sizeof(*runs), cmp_run);
	for (u64 i = 1; i < nr_runs; i++)
		if (runs[i].pblk < runs[i - 1].pblk + runs[i - 1].len)
			say(r, true,
			    "block %llu is mapped by inode %llu and "
			    "inode %llu",
			    (unsigned long long)runs[i].pblk,
			    (unsigned long long)runs[i - 1].ino,
			    (unsigned long long)runs[i].ino);
}

int simfs_check_meta(const struct simfs_dsb *dsb,
		     const struct simfs_geometry *g, const struct simfs_meta *m,
		     struct simfs_fsck_report *r)
{
	bool feat_inline = simfs_le32_to_cpu(dsb->s_features) &
			   SIMFS_FEAT_INLINE_DATA;
	struct fsck_ino *t = NULL;
	struct fsck_run *runs = NULL;
	u64 nr_runs = 0, total_ext = 0;
	int ret;

	check_header(r, g, m);
	t = kcalloc(m->nr_inodes + 1, sizeof(*t), GFP_KERNEL);
	for (u64 i = 0; i < m->nr_inodes; i++)
		total_ext += m->recs[i].nr_extents;
	runs = kcalloc(total_ext + 1, sizeof(*runs), GFP_KERNEL);
	if (!t || !runs) {
		ret = -ENOMEM;
		goto out;
	}

	/* the inode table, sorted, without duplicates */
	for (u64 i = 0; i < m->nr_inodes; i++) {
		t[i].ino = m->recs[i].ino;
		t[i].rec = &m->recs[i];
	}
	qsort(t, m->nr_inodes, sizeof(*t), cmp_ino);
	for (u64 i = 1; i < m->nr_inodes; i++)
		if (t[i].ino == t[i - 1].ino)
			say(r, true, "inode %llu is stored twice",
			    (unsigned long long)t[i].ino);

	for (u64 i = 0; i < m->nr_inodes; i++) {
		struct simfs_rec *rec = &m->recs[i];

		check_inode_fields(r, m, rec, feat_inline);
		check_inode_type(r, m, t, rec);
		check_extents(r, g, rec, runs, &nr_runs);
		check_xattrs(r, rec);
		check_dirents(r, m, t, rec);
	}
	check_root(r, m, t);
	check_links(r, m, t);
	check_runs(r, runs, nr_runs);
	ret = 0;
out:
	kfree(t);
	kfree(runs);
	return ret;
}
