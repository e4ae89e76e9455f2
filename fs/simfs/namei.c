// SPDX-License-Identifier: GPL-2.0-only
/*
 * Directories: lookup, create (files and directories), unlink, rmdir,
 * rename (with RENAME_NOREPLACE and RENAME_EXCHANGE), readdir.  All under
 * sbi->ns_lock, which also guards link counts and the inode table.
 *
 * A directory is a list of entries in insertion order, each with a
 * cookie that readdir uses as its offset: cookies only grow, so an
 * `rm -rf` that deletes while it reads neither skips nor repeats entries.
 */
#include <errno.h>
#include <string.h>
#include <linux/slab.h>
#include "simfs.h"

static int name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len)
		return -ENOENT;
	if (len > SIMFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	return 0;
}

static struct simfs_dirent *dent_find(struct simfs_inode_info *dir,
				      const char *name, u32 *idx)
{
	size_t len = strlen(name);

	for (u32 i = 0; i < dir->nr_dents; i++) {
		struct simfs_dirent *d = &dir->dents[i];

		if (d->name_len == len && !memcmp(d->name, name, len)) {
			if (idx)
				*idx = i;
			return d;
		}
	}
	return NULL;
}

static int dent_add(struct simfs_inode_info *dir, const char *name, u64 ino)
{
	size_t len = strlen(name);
	struct simfs_dirent *d;
	char *nm;

	if (dir->nr_dents == dir->cap_dents) {
		d = simfs_grow_array(dir->dents, dir->nr_dents, &dir->cap_dents,
				     dir->nr_dents + 1, sizeof(*d), 8,
				     GFP_NOFS);
		if (!d)
			return -ENOMEM;
		dir->dents = d;
	}
	nm = kmalloc(len, GFP_NOFS);
	if (!nm)
		return -ENOMEM;
	memcpy(nm, name, len);
	d = &dir->dents[dir->nr_dents++];
	*d = (struct simfs_dirent){ .ino = ino,
				    .cookie = dir->next_cookie++,
				    .name_len = len,
				    .name = nm };
	atomic_long_add(simfs_dirent_bytes(len), &dir->sbi->meta_bytes);
	return 0;
}

static void dent_del(struct simfs_inode_info *dir, u32 idx)
{
	struct simfs_dirent *d = &dir->dents[idx];

	atomic_long_sub(simfs_dirent_bytes(d->name_len), &dir->sbi->meta_bytes);
	kfree(d->name);
	memmove(d, d + 1, (dir->nr_dents - idx - 1) * sizeof(*d));
	dir->nr_dents--;
}

static void touch(struct simfs_inode_info *ei, s64 now)
{
	down_write(&ei->map_lock);
	ei->mtime = ei->ctime = now;
	up_write(&ei->map_lock);
}

struct simfs_inode_info *simfs_lookup(struct simfs_inode_info *dir,
				      const char *name, bool ref)
{
	struct simfs_sb_info *sbi = dir->sbi;
	struct simfs_inode_info *ei = NULL;
	struct simfs_dirent *d;
	int ret = name_ok(name);

	if (ret == -EINVAL)
		ret = -ENOENT;
	if (ret)
		return ERR_PTR(ret);
	if (!S_ISDIR(dir->vfs_inode.i_mode))
		return ERR_PTR(-ENOTDIR);
	mutex_lock(&sbi->ns_lock);
	d = dent_find(dir, name, NULL);
	if (d)
		ei = simfs_iget(sbi, d->ino);
	if (ei && ref)
		ei->nlookup++;
	mutex_unlock(&sbi->ns_lock);
	if (!ei)
		return ERR_PTR(-ENOENT);
	return ei;
}

struct simfs_inode_info *simfs_create(struct simfs_inode_info *dir,
				      const char *name, umode_t mode, u32 uid,
				      u32 gid, bool ref)
{
	struct simfs_sb_info *sbi = dir->sbi;
	struct simfs_inode_info *ei;
	bool inline_ok = simfs_le32_to_cpu(sbi->dsb.s_features) &
			 SIMFS_FEAT_INLINE_DATA;
	s64 now = simfs_now();
	int ret;

	if (sbi->opts.read_only)
		return ERR_PTR(-EROFS);
	ret = name_ok(name);
	if (ret)
		return ERR_PTR(ret == -ENOENT ? -EINVAL : ret);
	if (!S_ISREG(mode) && !S_ISDIR(mode))
		return ERR_PTR(-EOPNOTSUPP);
	if (!S_ISDIR(dir->vfs_inode.i_mode))
		return ERR_PTR(-ENOTDIR);

	mutex_lock(&sbi->ns_lock);
	if (dir->unlinked) {
		ret = -ENOENT;
		goto out;
	}
	if (dent_find(dir, name, NULL)) {
		ret = -EEXIST;
		goto out;
	}
	ret = simfs_meta_room(sbi, sizeof(struct simfs_dinode) +
					   SIMFS_INLINE_MAX +
					   simfs_dirent_bytes(strlen(name)));
	if (ret)
		goto out;
	/* never wrap, never reach the front end's control inodes */
	if (sbi->next_ino >= SIMFS_INO_LIMIT) {
		ret = -ENOSPC;
		goto out;
	}
	ei = simfs_inode_alloc(sbi, sbi->next_ino, mode);
	if (!ei) {
		ret = -ENOMEM;
		goto out;
	}
	if (S_ISREG(mode) && inline_ok) {
		ret = simfs_inline_alloc(ei);
		if (ret) {
			simfs_inode_free(ei);
			goto out;
		}
		ei->flags |= SIMFS_IFL_INLINE;
	}
	ret = dent_add(dir, name, ei->vfs_inode.i_ino);
	if (ret) {
		simfs_inode_free(ei);
		goto out;
	}
	sbi->next_ino++;
	ei->uid = uid;
	ei->gid = gid;
	ei->atime = ei->mtime = ei->ctime = now;
	if (S_ISDIR(mode)) {
		ei->nlink = 2;
		ei->parent = dir->vfs_inode.i_ino;
		dir->nlink++;
	} else {
		ei->nlink = 1;
	}
	if (ref)
		ei->nlookup++;
	simfs_inode_hash(sbi, ei);
	touch(dir, now);
	simfs_mark_data_dirty(sbi);
	mutex_unlock(&sbi->ns_lock);
	return ei;
out:
	mutex_unlock(&sbi->ns_lock);
	return ERR_PTR(ret);
}

/* Drop one name of @victim (ns_lock held). */
static void drop_link(struct simfs_inode_info *victim, s64 now)
{
	if (S_ISDIR(victim->vfs_inode.i_mode))
		victim->nlink = 0;
	else if (victim->nlink)
		victim->nlink--;
	down_write(&victim->map_lock);
	victim->ctime = now;
	up_write(&victim->map_lock);
	if (!victim->nlink) {
		victim->unlinked = true;
		simfs_inode_maybe_evict(victim);
	}
}

static int remove_entry(struct simfs_inode_info *dir, const char *name,
			bool want_dir)
{
	struct simfs_sb_info *sbi = dir->sbi;
	struct simfs_inode_info *victim;
	struct simfs_dirent *d;
	s64 now = simfs_now();
	u32 idx;
	int ret = 0;

	if (sbi->opts.read_only)
		return -EROFS;
	if (!S_ISDIR(dir->vfs_inode.i_mode))
		return -ENOTDIR;
	mutex_lock(&sbi->ns_lock);
	d = dent_find(dir, name, &idx);
	victim = d ? simfs_iget(sbi, d->ino) : NULL;
	if (!victim) {
		ret = -ENOENT;
		goto out;
	}
	if (want_dir) {
		if (!S_ISDIR(victim->vfs_inode.i_mode)) {
			ret = -ENOTDIR;
			goto out;
		}
		if (victim->nr_dents) {
			ret = -ENOTEMPTY;
			goto out;
		}
		dir->nlink--;
	} else if (S_ISDIR(victim->vfs_inode.i_mode)) {
		ret = -EISDIR;
		goto out;
	}
	dent_del(dir, idx);
	touch(dir, now);
	drop_link(victim, now);
	simfs_mark_data_dirty(sbi);
out:
	mutex_unlock(&sbi->ns_lock);
	return ret;
}

int simfs_unlink(struct simfs_inode_info *dir, const char *name)
{
	return remove_entry(dir, name, false);
}

int simfs_rmdir(struct simfs_inode_info *dir, const char *name)
{
	return remove_entry(dir, name, true);
}

/* Is @dir @anc or below it?  (ns_lock held) */
static bool is_below(struct simfs_sb_info *sbi, struct simfs_inode_info *dir,
		     struct simfs_inode_info *anc)
{
	for (int depth = 0; dir && depth < 4096; depth++) {
		if (dir == anc)
			return true;
		if (dir->vfs_inode.i_ino == SIMFS_ROOT_INO)
			return false;
		dir = simfs_iget(sbi, dir->parent);
	}
	return false;
}

/* A rename's two names, once looked up under ns_lock. */
struct rename_names {
	struct simfs_inode_info *odir, *ndir;
	const char *oname, *nname;
	struct simfs_dirent *od, *nd;
	struct simfs_inode_info *src, *dst;
	bool src_dir, dst_dir;
	u32 oidx;
};

/* RENAME_EXCHANGE: the two entries swap inodes. */
static int rename_exchange(struct simfs_sb_info *sbi, struct rename_names *r)
{
	if (!r->dst)
		return -ENOENT;
	if (r->dst_dir && is_below(sbi, r->odir, r->dst))
		return -EINVAL;
	r->od->ino = r->dst->vfs_inode.i_ino;
	r->nd->ino = r->src->vfs_inode.i_ino;
	if (r->src_dir) {
		r->src->parent = r->ndir->vfs_inode.i_ino;
		r->odir->nlink--;
		r->ndir->nlink++;
	}
	if (r->dst_dir) {
		r->dst->parent = r->odir->vfs_inode.i_ino;
		r->ndir->nlink--;
		r->odir->nlink++;
	}
	return 0;
}

/* A plain rename: the new name, replacing what it named, if anything. */
static int rename_move(struct simfs_sb_info *sbi, struct rename_names *r,
		       unsigned int flags, s64 now)
{
	int ret;

	if (r->dst) {
		if (flags & SIMFS_RENAME_NOREPLACE)
			return -EEXIST;
		if (r->src_dir && !r->dst_dir)
			return -ENOTDIR;
		if (!r->src_dir && r->dst_dir)
			return -EISDIR;
		if (r->dst_dir && r->dst->nr_dents)
			return -ENOTEMPTY;
	} else {
		ret = simfs_meta_room(sbi,
				      simfs_dirent_bytes(strlen(r->nname)));
		if (ret)
			return ret;
	}

	if (r->dst) {
		/* the new name takes over the entry of the one it replaces */
		r->nd->ino = r->src->vfs_inode.i_ino;
		if (r->dst_dir)
			r->ndir->nlink--;
		drop_link(r->dst, now);
	} else {
		ret = dent_add(r->ndir, r->nname, r->src->vfs_inode.i_ino);
		if (ret)
			return ret;
		/* dent_add may have moved odir's array if odir == ndir */
		r->od = dent_find(r->odir, r->oname, &r->oidx);
	}
	dent_del(r->odir, r->oidx);
	if (r->src_dir) {
		r->src->parent = r->ndir->vfs_inode.i_ino;
		r->odir->nlink--;
		r->ndir->nlink++;
	}
	return 0;
}

int simfs_rename(struct simfs_inode_info *odir, const char *oname,
		 struct simfs_inode_info *ndir, const char *nname,
		 unsigned int flags)
{
	struct simfs_sb_info *sbi = odir->sbi;
	struct rename_names r = {
		.odir = odir, .ndir = ndir, .oname = oname, .nname = nname
	};
	s64 now = simfs_now();
	u32 nidx;
	int ret;

	if (sbi->opts.read_only)
		return -EROFS;
	if ((flags & SIMFS_RENAME_NOREPLACE) && (flags & SIMFS_RENAME_EXCHANGE))
		return -EINVAL;
	if (flags & ~(SIMFS_RENAME_NOREPLACE | SIMFS_RENAME_EXCHANGE))
		return -EINVAL;
	ret = name_ok(nname);
	if (ret)
		return ret == -ENOENT ? -EINVAL : ret;
	if (!S_ISDIR(odir->vfs_inode.i_mode) ||
	    !S_ISDIR(ndir->vfs_inode.i_mode))
		return -ENOTDIR;

	mutex_lock(&sbi->ns_lock);
	r.od = dent_find(odir, oname, &r.oidx);
	r.src = r.od ? simfs_iget(sbi, r.od->ino) : NULL;
	if (!r.src) {
		ret = -ENOENT;
		goto out;
	}
	r.src_dir = S_ISDIR(r.src->vfs_inode.i_mode);
	r.nd = dent_find(ndir, nname, &nidx);
	if (r.nd) {
		r.dst = simfs_iget(sbi, r.nd->ino);
		r.dst_dir = r.dst && S_ISDIR(r.dst->vfs_inode.i_mode);
	}
	if (r.dst == r.src) {
		ret = 0; /* same inode: nothing to do, as POSIX says */
		goto out;
	}
	if (ndir->unlinked) {
		ret = -ENOENT;
		goto out;
	}
	/* a directory must not move below itself */
	if (r.src_dir && is_below(sbi, ndir, r.src)) {
		ret = -EINVAL;
		goto out;
	}

	if (flags & SIMFS_RENAME_EXCHANGE)
		ret = rename_exchange(sbi, &r);
	else
		ret = rename_move(sbi, &r, flags, now);
	if (ret)
		goto out;
	touch(odir, now);
	if (ndir != odir)
		touch(ndir, now);
	down_write(&r.src->map_lock);
	r.src->ctime = now;
	up_write(&r.src->map_lock);
	simfs_mark_data_dirty(sbi);
	ret = 0;
out:
	mutex_unlock(&sbi->ns_lock);
	return ret;
}

int simfs_readdir(struct simfs_inode_info *dir, u64 pos,
		  int (*fn)(void *arg, const char *name, u16 len, u64 ino,
			    u32 mode, u64 cookie),
		  void *arg)
{
	struct simfs_sb_info *sbi = dir->sbi;
	u32 lo = 0, hi;

	if (!S_ISDIR(dir->vfs_inode.i_mode))
		return -ENOTDIR;
	mutex_lock(&sbi->ns_lock);
	/* entries are in cookie order: binary search the first after pos */
	hi = dir->nr_dents;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (dir->dents[mid].cookie <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (u32 i = lo; i < dir->nr_dents; i++) {
		struct simfs_dirent *d = &dir->dents[i];
		struct simfs_inode_info *ei = simfs_iget(sbi, d->ino);

		if (!ei)
			continue;
		if (fn(arg, d->name, d->name_len, d->ino, ei->vfs_inode.i_mode,
		       d->cookie))
			break;
	}
	mutex_unlock(&sbi->ns_lock);
	return 0;
}
