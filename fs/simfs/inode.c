// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs inodes: allocation, the inode table, attributes, and extended
 * attributes with the per-file switches a tester sets by hand:
 *
 *   user.iomapsim.encrypted = 1|0   S_ENCRYPTED: the inode looks like an
 *                                   fscrypt file to iomap (no real cipher)
 *   user.iomapsim.integrity = 1|0   mappings carry IOMAP_F_INTEGRITY
 *   user.iomapsim.dops      = none|end_io|submit_io|bio_set|default
 *                                   which struct iomap_dio_ops is passed
 *
 * Each of these keeps a file's direct reads off the simple path for its
 * own reason, which the stats then show.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <linux/slab.h>
#include <sim/stats.h>
#include "simfs.h"

DEFINE_SIM_STAT(stat_xattr_switch, "simfs_xattr_switches");

#define XATTR_CREATE 0x1
#define XATTR_REPLACE 0x2
#define XATTR_USER_PREFIX "user."
#define SW_ENCRYPTED "user.iomapsim.encrypted"
#define SW_INTEGRITY "user.iomapsim.integrity"
#define SW_DOPS "user.iomapsim.dops"

/* What an inode adds to the metadata copy besides its extents. */
#define INODE_BASE_BYTES (sizeof(struct simfs_dinode) + SIMFS_INLINE_MAX)

static const char *const dops_names[SIMFS_DOPS_NR] = {
	[SIMFS_DOPS_NONE] = "none",
	[SIMFS_DOPS_END_IO] = "end_io",
	[SIMFS_DOPS_SUBMIT_IO] = "submit_io",
	[SIMFS_DOPS_BIO_SET] = "bio_set",
};

const char *simfs_dops_name(int kind)
{
	if (kind == SIMFS_DOPS_DEFAULT)
		return "default";
	if (kind < 0 || kind >= SIMFS_DOPS_NR)
		return "?";
	return dops_names[kind];
}

int simfs_dops_parse(const char *s, size_t len)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	for (int i = 0; i < SIMFS_DOPS_NR; i++)
		if (strlen(dops_names[i]) == len &&
		    !memcmp(s, dops_names[i], len))
			return i;
	if (len == 7 && !memcmp(s, "default", 7))
		return SIMFS_DOPS_DEFAULT;
	return -2;
}

s64 simfs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (s64)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- the table --------------------------------------------------------- */

static u32 ino_hash(struct simfs_sb_info *sbi, u64 ino)
{
	return (u32)((ino * 0x9E3779B97F4A7C15ULL) >> 40) & sbi->ihash_mask;
}

struct simfs_inode_info *simfs_iget(struct simfs_sb_info *sbi, u64 ino)
{
	struct simfs_inode_info *ei = sbi->ihash[ino_hash(sbi, ino)];

	while (ei && ei->vfs_inode.i_ino != ino)
		ei = ei->hash_next;
	return ei;
}

void simfs_inode_hash(struct simfs_sb_info *sbi, struct simfs_inode_info *ei)
{
	u32 h = ino_hash(sbi, ei->vfs_inode.i_ino);

	ei->hash_next = sbi->ihash[h];
	sbi->ihash[h] = ei;
	sbi->nr_inodes++;
}

void simfs_inode_unhash(struct simfs_sb_info *sbi, struct simfs_inode_info *ei)
{
	struct simfs_inode_info **pp =
		&sbi->ihash[ino_hash(sbi, ei->vfs_inode.i_ino)];

	while (*pp && *pp != ei)
		pp = &(*pp)->hash_next;
	if (*pp) {
		*pp = ei->hash_next;
		sbi->nr_inodes--;
	}
}

int simfs_inline_alloc(struct simfs_inode_info *ei)
{
	if (ei->inline_data)
		return 0;
	/*
	 * Aligned to its size so it never crosses a page: iomap requires
	 * inline data to sit inside one page (iomap_inline_data_valid).
	 */
	ei->inline_data = sim_kmalloc(SIMFS_INLINE_MAX, SIMFS_INLINE_MAX,
				      GFP_NOFS | __GFP_ZERO, SIM_ALLOC_SITE());
	return ei->inline_data ? 0 : -ENOMEM;
}

struct simfs_inode_info *simfs_inode_alloc(struct simfs_sb_info *sbi, u64 ino,
					   umode_t mode)
{
	struct simfs_inode_info *ei = kzalloc(sizeof(*ei), GFP_NOFS);

	if (!ei)
		return NULL;
	ei->sbi = sbi;
	sim_inode_init_once(&ei->vfs_inode, &sbi->sb);
	ei->vfs_inode.i_ino = ino;
	ei->vfs_inode.i_mode = mode;
	init_rwsem(&ei->map_lock);
	ei->dops = SIMFS_DOPS_DEFAULT;
	/* readdir offsets: 1 ".", 2 "..", 3 the front end's control dir */
	ei->next_cookie = 4;
	atomic_long_add(INODE_BASE_BYTES, &sbi->meta_bytes);
	return ei;
}

static long dirent_bytes(u16 name_len)
{
	return sizeof(struct simfs_ddirent) + ALIGN(name_len, 8);
}

static long xattr_bytes(u16 name_len, u32 value_len)
{
	return sizeof(struct simfs_dxattr) + ALIGN(name_len + value_len, 8);
}

void simfs_inode_free(struct simfs_inode_info *ei)
{
	struct simfs_sb_info *sbi = ei->sbi;
	long bytes = INODE_BASE_BYTES;

	for (u32 i = 0; i < ei->nr_dents; i++) {
		bytes += dirent_bytes(ei->dents[i].name_len);
		kfree(ei->dents[i].name);
	}
	for (u32 i = 0; i < ei->nr_xattrs; i++) {
		bytes += xattr_bytes(ei->xattrs[i].name_len,
				     ei->xattrs[i].value_len);
		kfree(ei->xattrs[i].name);
		kfree(ei->xattrs[i].value);
	}
	atomic_long_sub(bytes, &sbi->meta_bytes);
	atomic_long_sub((long)ei->nr_ext * sizeof(struct simfs_dextent),
			&sbi->meta_bytes);
	kfree(ei->dents);
	kfree(ei->xattrs);
	kfree(ei->ext);
	kfree(ei->inline_data);
	kfree(ei);
}

/*
 * The last reference to an unlinked inode is gone: give its blocks back
 * (held until the next commit, which will not contain the inode).
 */
void simfs_inode_maybe_evict(struct simfs_inode_info *ei)
{
	struct simfs_sb_info *sbi = ei->sbi;

	if (!ei->unlinked || ei->nlookup > 0 || ei->open_count > 0)
		return;
	simfs_inode_unhash(sbi, ei);
	down_write(&ei->map_lock);
	simfs_ext_free_all(ei);
	up_write(&ei->map_lock);
	simfs_mark_data_dirty(sbi);
	simfs_inode_free(ei);
}

long simfs_inode_meta_bytes(struct simfs_inode_info *ei)
{
	long n = sizeof(struct simfs_dinode);

	n += (long)ei->nr_ext * sizeof(struct simfs_dextent);
	if (ei->flags & SIMFS_IFL_INLINE)
		n += ALIGN(i_size_read(&ei->vfs_inode), 8);
	for (u32 i = 0; i < ei->nr_dents; i++)
		n += dirent_bytes(ei->dents[i].name_len);
	for (u32 i = 0; i < ei->nr_xattrs; i++)
		n += xattr_bytes(ei->xattrs[i].name_len,
				 ei->xattrs[i].value_len);
	return n;
}

/* ---- attributes -------------------------------------------------------- */

void simfs_getattr(struct simfs_inode_info *ei, struct simfs_attr *a)
{
	struct inode *inode = &ei->vfs_inode;
	u32 bs = i_blocksize(inode);

	down_read(&ei->map_lock);
	a->ino = inode->i_ino;
	a->mode = inode->i_mode;
	a->nlink = ei->nlink;
	a->uid = ei->uid;
	a->gid = ei->gid;
	a->size = i_size_read(inode);
	a->blocks = simfs_ext_blocks(ei) * (bs >> 9);
	a->blksize = bs;
	a->atime = ei->atime;
	a->mtime = ei->mtime;
	a->ctime = ei->ctime;
	up_read(&ei->map_lock);
	if (S_ISDIR(a->mode)) {
		mutex_lock(&ei->sbi->ns_lock);
		a->size = (u64)(ei->nr_dents + 2) * 32;
		mutex_unlock(&ei->sbi->ns_lock);
	}
}

int simfs_setattr(struct simfs_inode_info *ei, unsigned int valid,
		  const struct simfs_attr *a)
{
	struct inode *inode = &ei->vfs_inode;
	int ret = 0;

	if (ei->sbi->opts.read_only)
		return -EROFS;
	if (valid & SIMFS_SETATTR_SIZE) {
		if (S_ISDIR(inode->i_mode))
			return -EISDIR;
		inode_lock(inode);
		/* as ext4_setattr: no truncate while direct I/O runs */
		inode_dio_wait(inode);
		ret = simfs_truncate(ei, a->size);
		inode_unlock(inode);
		if (ret)
			return ret;
	}
	down_write(&ei->map_lock);
	if (valid & SIMFS_SETATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) | (a->mode & 07777);
	if (valid & SIMFS_SETATTR_UID)
		ei->uid = a->uid;
	if (valid & SIMFS_SETATTR_GID)
		ei->gid = a->gid;
	if (valid & SIMFS_SETATTR_ATIME)
		ei->atime = a->atime;
	if (valid & SIMFS_SETATTR_MTIME)
		ei->mtime = a->mtime;
	ei->ctime = simfs_now();
	up_write(&ei->map_lock);
	if (valid &
	    (SIMFS_SETATTR_MODE | SIMFS_SETATTR_UID | SIMFS_SETATTR_GID))
		simfs_mark_data_dirty(ei->sbi);
	else
		simfs_mark_time_dirty(ei->sbi);
	return 0;
}

/* ---- extended attributes ----------------------------------------------- */

static struct simfs_xattr *xattr_find(struct simfs_inode_info *ei,
				      const char *name, u32 *idx)
{
	size_t len = strlen(name);

	for (u32 i = 0; i < ei->nr_xattrs; i++) {
		if (ei->xattrs[i].name_len == len &&
		    !memcmp(ei->xattrs[i].name, name, len)) {
			*idx = i;
			return &ei->xattrs[i];
		}
	}
	return NULL;
}

/* "1"/"0" and friends, with an optional trailing newline. */
static int parse_bool(const void *value, size_t size)
{
	char buf[8];

	if (size >= sizeof(buf))
		return -1;
	memcpy(buf, value, size);
	buf[size] = 0;
	if (size && buf[size - 1] == '\n')
		buf[size - 1] = 0;
	if (!strcmp(buf, "1") || !strcmp(buf, "on") || !strcmp(buf, "yes") ||
	    !strcmp(buf, "true"))
		return 1;
	if (!strcmp(buf, "0") || !strcmp(buf, "off") || !strcmp(buf, "no") ||
	    !strcmp(buf, "false"))
		return 0;
	return -1;
}

static bool is_switch(const char *name)
{
	return !strcmp(name, SW_ENCRYPTED) || !strcmp(name, SW_INTEGRITY) ||
	       !strcmp(name, SW_DOPS);
}

static int check_switch(const char *name, const void *value, size_t size)
{
	if (!strcmp(name, SW_DOPS))
		return simfs_dops_parse(value, size) == -2 ? -EINVAL : 0;
	return parse_bool(value, size) < 0 ? -EINVAL : 0;
}

/* Derive the switches from the xattrs (map_lock held, or loading). */
void simfs_inode_set_switches(struct simfs_inode_info *ei)
{
	struct inode *inode = &ei->vfs_inode;
	struct simfs_xattr *x;
	u32 i;

	inode->i_flags &= ~S_ENCRYPTED;
	ei->integrity = false;
	ei->dops = SIMFS_DOPS_DEFAULT;
	x = xattr_find(ei, SW_ENCRYPTED, &i);
	if (x && parse_bool(x->value, x->value_len) == 1)
		inode->i_flags |= S_ENCRYPTED;
	x = xattr_find(ei, SW_INTEGRITY, &i);
	if (x && parse_bool(x->value, x->value_len) == 1)
		ei->integrity = true;
	x = xattr_find(ei, SW_DOPS, &i);
	if (x) {
		int k = simfs_dops_parse(x->value, x->value_len);

		if (k >= SIMFS_DOPS_DEFAULT)
			ei->dops = k;
	}
}

static int xattr_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (strncmp(name, XATTR_USER_PREFIX, strlen(XATTR_USER_PREFIX)))
		return -EOPNOTSUPP;
	if (len == strlen(XATTR_USER_PREFIX))
		return -EINVAL;
	if (len > SIMFS_XATTR_NAME_MAX)
		return -ERANGE;
	return 0;
}

int simfs_setxattr(struct simfs_inode_info *ei, const char *name,
		   const void *value, size_t size, int flags)
{
	struct inode *inode = &ei->vfs_inode;
	struct simfs_sb_info *sbi = ei->sbi;
	bool sw = is_switch(name);
	struct simfs_xattr *x;
	void *nv = NULL;
	u32 idx;
	int ret;

	if (sbi->opts.read_only)
		return -EROFS;
	ret = xattr_name_ok(name);
	if (ret)
		return ret;
	if (size > SIMFS_XATTR_VALUE_MAX)
		return -E2BIG;
	if (sw) {
		ret = check_switch(name, value, size);
		if (ret)
			return ret;
		/*
		 * A switch changes how direct I/O to the file is done:
		 * let what is in flight finish first, as changing the
		 * inode's flags under a running DIO would tear it.
		 */
		inode_lock(inode);
		inode_dio_wait(inode);
	}
	if (size) {
		nv = kmalloc(size, GFP_NOFS);
		if (!nv) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(nv, value, size);
	}

	down_write(&ei->map_lock);
	x = xattr_find(ei, name, &idx);
	if (x && (flags & XATTR_CREATE)) {
		ret = -EEXIST;
	} else if (!x && (flags & XATTR_REPLACE)) {
		ret = -ENODATA;
	} else if (x) {
		long delta = xattr_bytes(x->name_len, size) -
			     xattr_bytes(x->name_len, x->value_len);

		ret = delta > 0 ? simfs_meta_room(sbi, delta) : 0;
		if (!ret) {
			kfree(x->value);
			x->value = nv;
			x->value_len = size;
			nv = NULL;
			atomic_long_add(delta, &sbi->meta_bytes);
		}
	} else if (ei->nr_xattrs >= SIMFS_XATTR_PER_INODE) {
		ret = -ENOSPC;
	} else {
		size_t nlen = strlen(name);
		long bytes = xattr_bytes(nlen, size);
		struct simfs_xattr *arr;

		ret = simfs_meta_room(sbi, bytes);
		arr = ret ? NULL :
			    kmalloc_array(ei->nr_xattrs + 1, sizeof(*arr),
					  GFP_NOFS);
		if (!ret && !arr)
			ret = -ENOMEM;
		if (!ret) {
			char *nm = kmalloc(nlen, GFP_NOFS);

			if (!nm) {
				kfree(arr);
				ret = -ENOMEM;
			} else {
				memcpy(nm, name, nlen);
				if (ei->nr_xattrs)
					memcpy(arr, ei->xattrs,
					       ei->nr_xattrs * sizeof(*arr));
				arr[ei->nr_xattrs] =
					(struct simfs_xattr){ .name = nm,
							      .name_len = nlen,
							      .value = nv,
							      .value_len =
								      size };
				nv = NULL;
				kfree(ei->xattrs);
				ei->xattrs = arr;
				ei->nr_xattrs++;
				atomic_long_add(bytes, &sbi->meta_bytes);
			}
		}
	}
	if (!ret) {
		ei->ctime = simfs_now();
		if (sw) {
			simfs_inode_set_switches(ei);
			sim_stat_inc(&stat_xattr_switch);
		}
	}
	up_write(&ei->map_lock);
	if (!ret)
		simfs_mark_data_dirty(sbi);
out:
	kfree(nv);
	if (sw)
		inode_unlock(inode);
	return ret;
}

ssize_t simfs_getxattr(struct simfs_inode_info *ei, const char *name, void *buf,
		       size_t size)
{
	struct simfs_xattr *x;
	ssize_t ret;
	u32 idx;

	ret = xattr_name_ok(name);
	if (ret)
		return ret == -EOPNOTSUPP ? -ENODATA : ret;
	down_read(&ei->map_lock);
	x = xattr_find(ei, name, &idx);
	if (!x)
		ret = -ENODATA;
	else if (!size)
		ret = x->value_len;
	else if (size < x->value_len)
		ret = -ERANGE;
	else {
		if (x->value_len)
			memcpy(buf, x->value, x->value_len);
		ret = x->value_len;
	}
	up_read(&ei->map_lock);
	return ret;
}

ssize_t simfs_listxattr(struct simfs_inode_info *ei, char *buf, size_t size)
{
	size_t need = 0;
	ssize_t ret;

	down_read(&ei->map_lock);
	for (u32 i = 0; i < ei->nr_xattrs; i++)
		need += ei->xattrs[i].name_len + 1;
	if (!size) {
		ret = need;
	} else if (size < need) {
		ret = -ERANGE;
	} else {
		char *p = buf;

		for (u32 i = 0; i < ei->nr_xattrs; i++) {
			memcpy(p, ei->xattrs[i].name, ei->xattrs[i].name_len);
			p += ei->xattrs[i].name_len;
			*p++ = 0;
		}
		ret = need;
	}
	up_read(&ei->map_lock);
	return ret;
}

int simfs_removexattr(struct simfs_inode_info *ei, const char *name)
{
	struct inode *inode = &ei->vfs_inode;
	bool sw = is_switch(name);
	struct simfs_xattr *x;
	u32 idx;
	int ret;

	if (ei->sbi->opts.read_only)
		return -EROFS;
	ret = xattr_name_ok(name);
	if (ret)
		return ret == -EOPNOTSUPP ? -ENODATA : ret;
	if (sw) {
		inode_lock(inode);
		inode_dio_wait(inode);
	}
	down_write(&ei->map_lock);
	x = xattr_find(ei, name, &idx);
	if (!x) {
		ret = -ENODATA;
	} else {
		atomic_long_sub(xattr_bytes(x->name_len, x->value_len),
				&ei->sbi->meta_bytes);
		kfree(x->name);
		kfree(x->value);
		memmove(&ei->xattrs[idx], &ei->xattrs[idx + 1],
			(ei->nr_xattrs - idx - 1) * sizeof(*x));
		ei->nr_xattrs--;
		ei->ctime = simfs_now();
		if (sw)
			simfs_inode_set_switches(ei);
	}
	up_write(&ei->map_lock);
	if (!ret)
		simfs_mark_data_dirty(ei->sbi);
	if (sw)
		inode_unlock(inode);
	return ret;
}

void *simfs_grow_array(void *old, u32 nr, u32 *cap, u32 need, size_t size,
		       u32 first, gfp_t gfp)
{
	u32 ncap = max(need, *cap ? 2 * *cap : first);
	void *n = kmalloc_array(ncap, size, gfp);

	if (!n)
		return NULL;
	if (nr)
		memcpy(n, old, nr * size);
	kfree(old);
	*cap = ncap;
	return n;
}

long simfs_dirent_bytes(u16 name_len)
{
	return dirent_bytes(name_len);
}
