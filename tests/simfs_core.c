// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs without FUSE, on a ram device under the deterministic engine:
 * mkfs and its refusals, extent allocation and merging, unwritten
 * extents converted at direct-write completion, holes and unwritten
 * ranges reading as zeroes, inline data, buffered I/O, fallocate and
 * truncate, the namespace, and the commit: checksums, the superblock
 * flip, torn writes, held-back frees, and fsck finding corruption.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bio.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <sim/bdev.h>
#include <sim/iomap.h>
#include <sim/stats.h>
#include "harness.h"
#include "simfs.h"
#include "simfs_image.h"
#include "simfs_ram.h"

START_TEST(test_mkfs_mount_fsck)
{
	struct super_block *sb;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	ck_assert(simfs_probe(bdev));
	ck_assert_uint_eq(fsck_errors(), 0);
	sb = do_mount();
	ck_assert_uint_eq(sb->s_blocksize, 4096);
	ck_assert_ptr_nonnull(root_of(sb));
	finish_clean(sb);
}
END_TEST

START_TEST(test_mkfs_refuses)
{
	struct simfs_mkfs_opts o;
	char err[256];

	ram_dev(16 * MiB, 4096);
	simfs_mkfs_opts_init(&o);
	o.block_size = 512;
	ck_assert_int_eq(simfs_mkfs(bdev, &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "logical block size"));
	o.block_size = 3000;
	ck_assert_int_eq(simfs_mkfs(bdev, &o, err, sizeof(err)), -EINVAL);
	o.block_size = 128 << 10;
	ck_assert_int_eq(simfs_mkfs(bdev, &o, err, sizeof(err)), -EINVAL);
	/* nothing was written by the refusals */
	ck_assert(!simfs_probe(bdev));
	put_dev();

	ram_dev(1 * MiB, 512);
	simfs_mkfs_opts_init(&o);
	o.block_size = 65536;
	ck_assert_int_eq(simfs_mkfs(bdev, &o, err, sizeof(err)), -ENOSPC);
	ck_assert(!simfs_probe(bdev));
	put_dev();
}
END_TEST

START_TEST(test_dio_write_allocates_unwritten_then_converts)
{
	struct super_block *sb;
	struct simfs_inode_info *f;
	struct file *file;
	long conv0 = sim_stat_get("simfs_unwritten_converted");
	char *buf = abuf(16384, 0xab), *rd = abuf(16384, 0);

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	f = simfs_create(root_of(sb), "a", S_IFREG | 0644, 0, 0, false);
	ck_assert(!IS_ERR(f));
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert(!IS_ERR(file));
	ck_assert(file->f_mode & FMODE_DIO_PARALLEL_WRITE);

	/* 8 KiB at 0 then 8 KiB at 8 KiB: one merged, written extent */
	ck_assert_int_eq(rw(file, true, true, buf, 8192, 0), 8192);
	ck_assert(!(f->flags & SIMFS_IFL_INLINE));
	ck_assert_int_eq(rw(file, true, true, buf + 8192, 8192, 8192), 8192);
	ck_assert_int_eq(i_size_read(&f->vfs_inode), 16384);
	ck_assert_uint_eq(f->nr_ext, 1);
	ck_assert_uint_eq(f->ext[0].len, 4);
	ck_assert_uint_eq(f->ext[0].flags, 0);
	ck_assert_int_ge(sim_stat_get("simfs_unwritten_converted") - conv0, 2);

	ck_assert_int_eq(rw(file, false, true, rd, 16384, 0), 16384);
	ck_assert(all_bytes(rd, 0xab, 16384));

	/* a 512-byte write into a new block: the rest of it reads zero */
	memset(buf, 0x11, 512);
	ck_assert_int_eq(rw(file, true, true, buf, 512, 65536 + 1024), 512);
	ck_assert_int_eq(i_size_read(&f->vfs_inode), 65536 + 1536);
	memset(rd, 0xee, 4096);
	ck_assert_int_eq(rw(file, false, true, rd, 4096, 65536), 1536);
	ck_assert(all_bytes(rd, 0, 1024));
	ck_assert(all_bytes(rd + 1024, 0x11, 512));
	/* the zeroed tail of the block is there once the file grows */
	ck_assert_int_eq(simfs_truncate(f, 65536 + 4096), 0);
	ck_assert_int_eq(rw(file, false, true, rd, 4096, 65536), 4096);
	ck_assert(all_bytes(rd + 1536, 0, 4096 - 1536));
	/* and the gap between is a hole that reads as zeroes */
	ck_assert_int_eq(rw(file, false, true, rd, 8192, 16384), 8192);
	ck_assert(all_bytes(rd, 0, 8192));

	/* misaligned direct I/O: EINVAL (position and length) */
	ck_assert_int_eq(rw(file, false, true, rd, 4096, 100), -EINVAL);
	ck_assert_int_eq(rw(file, false, true, rd, 1000, 0), -EINVAL);
	ck_assert_int_eq(rw(file, true, true, buf, 4096, 100), -EINVAL);

	simfs_file_release(file);
	umount_clean(sb);

	/* it is all still there after a remount */
	sb = do_mount();
	f = simfs_lookup(root_of(sb), "a", false);
	ck_assert(!IS_ERR(f));
	file = simfs_file_open(f, O_RDONLY | O_DIRECT);
	ck_assert_int_eq(rw(file, false, true, rd, 8192, 0), 8192);
	ck_assert(all_bytes(rd, 0xab, 8192));
	simfs_file_release(file);
	do_umount(sb);
	put_dev();
	free(buf);
	free(rd);
}
END_TEST

START_TEST(test_fallocate_unwritten_and_punch)
{
	struct super_block *sb;
	struct simfs_inode_info *f;
	struct file *file;
	char *buf = abuf(65536, 0x5a), *rd = abuf(65536, 0xff);

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	f = simfs_create(root_of(sb), "p", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR | O_DIRECT);

	/* default mode: unwritten extents, size grows, reads zero */
	ck_assert_int_eq(simfs_fallocate(file, 0, 0, 65536), 0);
	ck_assert_int_eq(i_size_read(&f->vfs_inode), 65536);
	ck_assert_uint_eq(f->nr_ext, 1);
	ck_assert_uint_eq(f->ext[0].flags, SIMFS_EXT_UNWRITTEN);
	ck_assert_int_eq(rw(file, false, true, rd, 65536, 0), 65536);
	ck_assert(all_bytes(rd, 0, 65536));

	/* a write in the middle converts only its blocks */
	ck_assert_int_eq(rw(file, true, true, buf, 8192, 16384), 8192);
	ck_assert_uint_eq(f->nr_ext, 3);
	ck_assert_uint_eq(f->ext[1].flags, 0);
	ck_assert_int_eq(rw(file, false, true, rd, 65536, 0), 65536);
	ck_assert(all_bytes(rd, 0, 16384));
	ck_assert(all_bytes(rd + 16384, 0x5a, 8192));
	ck_assert(all_bytes(rd + 24576, 0, 65536 - 24576));

	/* KEEP_SIZE beyond EOF: no size change */
	ck_assert_int_eq(
		simfs_fallocate(file, FALLOC_FL_KEEP_SIZE, 65536, 8192), 0);
	ck_assert_int_eq(i_size_read(&f->vfs_inode), 65536);

	/* punch needs KEEP_SIZE */
	ck_assert_int_eq(simfs_fallocate(file, FALLOC_FL_PUNCH_HOLE, 0, 4096),
			 -EOPNOTSUPP);
	/* punch through the written part, unaligned ends zeroed */
	ck_assert_int_eq(simfs_fallocate(file,
					 FALLOC_FL_PUNCH_HOLE |
						 FALLOC_FL_KEEP_SIZE,
					 16384 + 100, 5000),
			 0);
	ck_assert_int_eq(rw(file, false, false, rd, 8192, 16384), 8192);
	ck_assert(all_bytes(rd, 0x5a, 100));
	ck_assert(all_bytes(rd + 100, 0, 5000));
	ck_assert(all_bytes(rd + 5100, 0x5a, 8192 - 5100));

	ck_assert_int_eq(simfs_fallocate(file, 0x40 /* UNSHARE */, 0, 4096),
			 -EOPNOTSUPP);
	simfs_file_release(file);
	finish_clean(sb);
	free(buf);
	free(rd);
}
END_TEST

START_TEST(test_inline_and_buffered)
{
	struct super_block *sb;
	struct simfs_inode_info *f;
	struct file *file;
	char *buf = abuf(20000, 0), *rd = abuf(20000, 0);

	for (int i = 0; i < 20000; i++)
		buf[i] = (char)(i * 7);
	ram_dev(16 * MiB, 512);
	do_mkfs(1024);
	sb = do_mount();
	f = simfs_create(root_of(sb), "tiny", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR);
	ck_assert_int_eq(rw(file, true, false, "hello", 5, 0), 5);
	ck_assert(f->flags & SIMFS_IFL_INLINE);
	ck_assert_int_eq(rw(file, false, false, rd, 100, 0), 5);
	ck_assert(!memcmp(rd, "hello", 5));
	simfs_file_release(file);

	/* direct read of an inline file: IOMAP_INLINE, generic path */
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(file, false, true, rd, 1024, 0), 5);
	ck_assert(!memcmp(rd, "hello", 5));
	simfs_file_release(file);

	do_umount(sb);
	sb = do_mount();
	f = simfs_lookup(root_of(sb), "tiny", false);
	file = simfs_file_open(f, O_RDWR);
	ck_assert_int_eq(rw(file, false, false, rd, 100, 0), 5);
	ck_assert(!memcmp(rd, "hello", 5));

	/* growing past the inline size moves it to a block, unaligned RMW */
	ck_assert_int_eq(rw(file, true, false, buf, 20000, 3), 20000);
	ck_assert(!(f->flags & SIMFS_IFL_INLINE));
	ck_assert_int_eq(rw(file, false, false, rd, 20000, 3), 20000);
	ck_assert(!memcmp(rd, buf, 20000));
	ck_assert_int_eq(rw(file, false, false, rd, 3, 0), 3);
	ck_assert(!memcmp(rd, "hel", 3));

	/* truncate down and up: the tail reads zero */
	ck_assert_int_eq(simfs_truncate(f, 1500), 0);
	ck_assert_int_eq(simfs_truncate(f, 4000), 0);
	ck_assert_int_eq(rw(file, false, false, rd, 4000, 0), 4000);
	ck_assert(all_bytes(rd + 1500, 0, 2500));
	ck_assert(!memcmp(rd + 3, buf, 1497));
	simfs_file_release(file);
	finish_clean(sb);
	free(buf);
	free(rd);
}
END_TEST

static int count_entry(void *arg, const char *name, u16 len, u64 ino, u32 mode,
		       u64 cookie)
{
	(*(int *)arg)++;
	return 0;
}

START_TEST(test_namespace)
{
	struct super_block *sb;
	struct simfs_inode_info *root, *d, *e;
	int n = 0;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	root = root_of(sb);
	d = simfs_create(root, "dir", S_IFDIR | 0755, 0, 0, false);
	ck_assert(!IS_ERR(d));
	ck_assert_uint_eq(root->nlink, 3);
	ck_assert(!IS_ERR(simfs_create(d, "x", S_IFREG | 0644, 0, 0, false)));
	ck_assert_ptr_eq(simfs_create(d, "x", S_IFREG | 0644, 0, 0, false),
			 ERR_PTR(-EEXIST));
	ck_assert_int_eq(simfs_rmdir(root, "dir"), -ENOTEMPTY);
	ck_assert_int_eq(simfs_rename(d, "x", root, "y", 0), 0);
	ck_assert(!IS_ERR(simfs_lookup(root, "y", false)));
	ck_assert_ptr_eq(simfs_lookup(d, "x", false), ERR_PTR(-ENOENT));
	/* a directory cannot move below itself */
	e = simfs_create(d, "sub", S_IFDIR | 0755, 0, 0, false);
	ck_assert_int_eq(simfs_rename(root, "dir", e, "loop", 0), -EINVAL);
	ck_assert_int_eq(simfs_rename(root, "y", d, "sub",
				      SIMFS_RENAME_NOREPLACE),
			 -EEXIST);
	ck_assert_int_eq(simfs_rename(root, "y", d, "sub", 0), -EISDIR);
	ck_assert_int_eq(
		simfs_rename(root, "y", d, "sub", SIMFS_RENAME_EXCHANGE), 0);
	ck_assert(S_ISDIR(simfs_lookup(root, "y", false)->vfs_inode.i_mode));
	simfs_readdir(root, 0, count_entry, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(simfs_unlink(d, "sub"), 0);
	ck_assert_int_eq(simfs_rmdir(root, "y"), 0);
	ck_assert_int_eq(simfs_rmdir(root, "dir"), 0);
	ck_assert_uint_eq(root->nlink, 2);

	/* switches from xattrs */
	e = simfs_create(root, "enc", S_IFREG | 0644, 0, 0, false);
	ck_assert_int_eq(
		simfs_setxattr(e, "user.iomapsim.encrypted", "1", 1, 0), 0);
	ck_assert(IS_ENCRYPTED(&e->vfs_inode));
	ck_assert_int_eq(simfs_setxattr(e, "user.iomapsim.dops", "bogus", 5, 0),
			 -EINVAL);
	ck_assert_int_eq(
		simfs_setxattr(e, "user.iomapsim.dops", "bio_set", 7, 0), 0);
	ck_assert_int_eq(e->dops, SIMFS_DOPS_BIO_SET);
	ck_assert_int_eq(simfs_setxattr(e, "trusted.x", "1", 1, 0),
			 -EOPNOTSUPP);
	do_umount(sb);
	sb = do_mount();
	e = simfs_lookup(root_of(sb), "enc", false);
	ck_assert(IS_ENCRYPTED(&e->vfs_inode));
	ck_assert_int_eq(e->dops, SIMFS_DOPS_BIO_SET);
	finish_clean(sb);
}
END_TEST

START_TEST(test_commit_and_corruption)
{
	struct super_block *sb;
	struct simfs_fsck_report r = { 0 };
	struct simfs_mount_opts mo = { 0 };
	u8 *disk;
	u64 gen;
	char err[256];

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	ck_assert(!IS_ERR(
		simfs_create(root_of(sb), "f", S_IFREG | 0644, 0, 0, false)));
	ck_assert_int_eq(simfs_commit(SIMFS_SB(sb)), 0);
	gen = SIMFS_SB(sb)->generation;
	do_umount(sb);

	/* a torn superblock write: the other slot's generation is used */
	disk = blksim_bdev_ram_data(bdev);
	disk[((gen + 1) & 1) * 4096 + 100] ^= 0xff;
	ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
	ck_assert_uint_eq(r.errors, 0);
	ck_assert_uint_eq(r.generation, gen);
	disk[((gen + 1) & 1) * 4096 + 100] ^= 0xff;

	/* a flipped bit in the committed metadata copy is found */
	{
		struct simfs_dsb *dsb = (void *)(disk + ((gen + 1) & 1) * 4096);
		u64 area = 2 + ((gen + 1) & 1) *
				       simfs_le64_to_cpu(dsb->s_meta_blocks);

		disk[area * 4096 + SIMFS_META_HDR_SIZE + 8] ^= 1;
		memset(&r, 0, sizeof(r));
		ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
		ck_assert_uint_ge(r.errors, 1);
		sb = simfs_mount(bdev, &mo, err, sizeof(err));
		ck_assert(IS_ERR(sb));
		ck_assert_ptr_nonnull(strstr(err, "checksum"));
		disk[area * 4096 + SIMFS_META_HDR_SIZE + 8] ^= 1;
	}
	ck_assert_uint_eq(fsck_errors(), 0);
	put_dev();
}
END_TEST

START_TEST(test_frees_held_until_commit)
{
	struct super_block *sb;
	struct simfs_sb_info *sbi;
	struct simfs_inode_info *f;
	struct file *file;
	char *buf = abuf(65536, 1);
	u64 free0;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	sbi = SIMFS_SB(sb);
	f = simfs_create(root_of(sb), "f", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(file, true, true, buf, 65536, 0), 65536);
	simfs_file_release(file);
	ck_assert_int_eq(simfs_commit(sbi), 0);
	free0 = simfs_alloc_free_count(sbi);
	ck_assert_int_eq(simfs_unlink(root_of(sb), "f"), 0);
	/* the committed copy still maps them: not free yet */
	ck_assert_uint_eq(simfs_alloc_free_count(sbi), free0);
	ck_assert_uint_eq(simfs_alloc_pending_count(sbi), 16);
	ck_assert_int_eq(simfs_commit(sbi), 0);
	ck_assert_uint_eq(simfs_alloc_free_count(sbi), free0 + 16);
	finish_clean(sb);
	free(buf);
}
END_TEST

START_TEST(test_enospc)
{
	struct super_block *sb;
	struct simfs_inode_info *f;
	struct file *file;
	size_t big = 8 * MiB;
	char *buf = abuf(big, 3);
	ssize_t n;

	ram_dev(4 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	f = simfs_create(root_of(sb), "f", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	n = rw(file, true, true, buf, big, 0);
	ck_assert_msg(n == -ENOSPC || (n > 0 && (size_t)n < big),
		      "write of more than the device: %zd", n);
	ck_assert_int_eq(simfs_fallocate(file, 0, 0, 64 * MiB), -ENOSPC);
	simfs_file_release(file);
	finish_clean(sb);
	free(buf);
}
END_TEST

static struct simfs_dinode *find_dinode(struct on_disk *od, u64 ino)
{
	for (size_t off = SIMFS_META_HDR_SIZE; off + 88 <= od->len; off += 8) {
		struct simfs_dinode *di = (void *)(od->meta + off);

		if (simfs_le64_to_cpu(di->i_ino) == ino &&
		    (simfs_le32_to_cpu(di->i_mode) & S_IFMT) &&
		    simfs_le32_to_cpu(di->i_nlink) < 100)
			return di;
	}
	ck_abort_msg("inode %llu not found in the copy",
		     (unsigned long long)ino);
	return NULL;
}

static void fsck_expect(const char *what)
{
	fsck_and_mount_refuse(what, NULL);
}

/* The original copy is back: sealed, it is clean again. */
static void clean_again_and_free(struct on_disk *od, void *buf, void *save)
{
	reseal(od);
	ck_assert_uint_eq(fsck_errors(), 0);
	put_dev();
	free(buf);
	free(save);
}

/*
 * Corruption the checksums cannot see (the copy is resealed after each
 * edit): fsck's own checks must find it, and mount must not trust it.
 */
START_TEST(test_fsck_semantic_corruption)
{
	struct super_block *sb;
	struct simfs_inode_info *f, *g;
	struct file *file;
	struct on_disk od;
	char *buf = abuf(8192, 9);
	u8 *save = malloc(1 << 20);
	struct simfs_dinode *di;
	struct simfs_dextent *fe, *ge;
	u64 fino, gino;
	size_t span;
	u32 v;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	f = simfs_create(root_of(sb), "f", S_IFREG | 0644, 0, 0, false);
	g = simfs_create(root_of(sb), "g", S_IFREG | 0644, 0, 0, false);
	fino = f->vfs_inode.i_ino;
	gino = g->vfs_inode.i_ino;
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(file, true, true, buf, 8192, 0), 8192);
	simfs_file_release(file);
	file = simfs_file_open(g, O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(file, true, true, buf, 8192, 0), 8192);
	simfs_file_release(file);
	umount_clean(sb);

	find_committed(&od, blksim_bdev_ram_data(bdev), 4096);
	span = od.len;
	memcpy(save, od.meta, span);

	/* a wrong link count */
	di = find_dinode(&od, SIMFS_ROOT_INO);
	v = simfs_le32_to_cpu(di->i_nlink);
	di->i_nlink = simfs_cpu_to_le32(v + 5);
	reseal(&od);
	fsck_expect("root link count");
	memcpy(od.meta, save, span);

	/* two files mapping the same block */
	fe = (void *)((u8 *)find_dinode(&od, fino) + sizeof(*di));
	ge = (void *)((u8 *)find_dinode(&od, gino) + sizeof(*di));
	ge->e_pblk = fe->e_pblk;
	reseal(&od);
	fsck_and_mount_refuse("cross-linked blocks", "mapped by inode");
	memcpy(od.meta, save, span);

	/* an extent outside the data area */
	fe = (void *)((u8 *)find_dinode(&od, fino) + sizeof(*di));
	fe->e_pblk = simfs_cpu_to_le64(1);
	reseal(&od);
	fsck_expect("extent over the superblock");
	memcpy(od.meta, save, span);

	/* a lost file: in no directory */
	find_dinode(&od, SIMFS_ROOT_INO)->i_nr_dirents = simfs_cpu_to_le32(0);
	reseal(&od);
	fsck_expect("truncated directory");
	memcpy(od.meta, save, span);

	clean_again_and_free(&od, buf, save);
}
END_TEST

/*
 * The classes of scripts/simfs-mutation-run.py, each made by hand with valid
 * checksums: fsck rejects each, naming the field where there is one, and
 * mount refuses each with fsck's first error.  Before, most of them
 * mounted, and an inline i_size beyond the inline bytes read daemon
 * heap (simfs_buffered_read_iter).
 */
START_TEST(test_mount_refuses_what_fsck_rejects)
{
	struct super_block *sb;
	struct simfs_inode_info *root, *d, *sub, *f, *t;
	struct file *file;
	struct on_disk od;
	struct simfs_dmeta *h;
	struct simfs_dsb dsb0;
	char *buf = abuf(8192, 5);
	u8 *save = malloc(1 << 20);
	u64 dino, subino, fino, tino;
	size_t span;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	root = root_of(sb);
	d = simfs_create(root, "d", S_IFDIR | 0755, 0, 0, false);
	sub = simfs_create(d, "sub", S_IFDIR | 0755, 0, 0, false);
	ck_assert(!IS_ERR(simfs_create(sub, "c", S_IFREG | 0644, 0, 0, false)));
	f = simfs_create(root, "f", S_IFREG | 0644, 0, 0, false);
	t = simfs_create(root, "t", S_IFREG | 0644, 0, 0, false);
	ck_assert(
		!IS_ERR(simfs_create(root, "x", S_IFREG | 0644, 0, 0, false)));
	ck_assert(
		!IS_ERR(simfs_create(root, "yy", S_IFREG | 0644, 0, 0, false)));
	dino = d->vfs_inode.i_ino;
	subino = sub->vfs_inode.i_ino;
	fino = f->vfs_inode.i_ino;
	tino = t->vfs_inode.i_ino;
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(file, true, true, buf, 8192, 0), 8192);
	simfs_file_release(file);
	file = simfs_file_open(t, O_RDWR);
	ck_assert_int_eq(rw(file, true, false, "fourteen bytes", 14, 0), 14);
	simfs_file_release(file);
	ck_assert(t->flags & SIMFS_IFL_INLINE);
	umount_clean(sb);

	find_committed(&od, blksim_bdev_ram_data(bdev), 4096);
	span = od.len;
	memcpy(save, od.meta, span);
	dsb0 = *od.dsb;
	h = (void *)od.meta;

#define CASE(what, field, edit)                     \
	do {                                        \
		edit;                               \
		reseal(&od);                        \
		fsck_and_mount_refuse(what, field); \
		memcpy(od.meta, save, span);        \
		*od.dsb = dsb0;                     \
	} while (0)

	CASE("entry naming a missing inode", "missing inode",
	     dirent_of(&od, SIMFS_ROOT_INO, "x")->d_ino =
		     simfs_cpu_to_le64(999));
	/* d/sub/c names d: a cycle, and d has two names */
	CASE("directory cycle", NULL,
	     dirent_of(&od, subino, "c")->d_ino = simfs_cpu_to_le64(dino));
	CASE("second name for the root", NULL,
	     dirent_of(&od, SIMFS_ROOT_INO, "x")->d_ino =
		     simfs_cpu_to_le64(SIMFS_ROOT_INO));
	CASE("name '.'", "bad entry name",
	     ((u8 *)dirent_of(&od, SIMFS_ROOT_INO, "x"))[16] = '.');
	CASE("name '..'", "bad entry name",
	     memcpy((u8 *)dirent_of(&od, SIMFS_ROOT_INO, "yy") + 16, "..", 2));
	CASE("name with '/'", "bad entry name",
	     ((u8 *)dirent_of(&od, SIMFS_ROOT_INO, "yy"))[17] = '/');
	CASE("name with NUL", "bad entry name",
	     ((u8 *)dirent_of(&od, SIMFS_ROOT_INO, "yy"))[17] = 0);
	CASE("file link count", "link count",
	     dinode_of(&od, fino)->i_nlink = simfs_cpu_to_le32(2));
	CASE("directory link count", "link count",
	     dinode_of(&od, dino)->i_nlink = simfs_cpu_to_le32(7));
	CASE("unknown inode flag", "i_flags",
	     dinode_of(&od, fino)->i_flags = simfs_cpu_to_le32(0x80));
	CASE("unknown extent flag", "unknown flags", {
		struct rec_at at;

		ck_assert(walk_to(&od, fino, &at));
		at.ext[0].e_flags = simfs_cpu_to_le32(4);
	});
	CASE("inline i_size beyond the inline bytes", "i_size",
	     dinode_of(&od, tino)->i_size = simfs_cpu_to_le64(5000));
	CASE("inline flag on an extent file", "inline file",
	     dinode_of(&od, fino)->i_flags =
		     simfs_cpu_to_le32(SIMFS_IFL_INLINE));
	CASE("i_size 2^64-1", "i_size",
	     dinode_of(&od, fino)->i_size = simfs_cpu_to_le64(U64_MAX));
	CASE("next inode 2^64-1", "m_next_ino",
	     h->m_next_ino = simfs_cpu_to_le64(U64_MAX));
	CASE("inode number in the control range", "i_ino", {
		h->m_next_ino = simfs_cpu_to_le64(SIMFS_INO_LIMIT);
		dinode_of(&od, fino)->i_ino =
			simfs_cpu_to_le64(SIMFS_INO_LIMIT + 1);
		dirent_of(&od, SIMFS_ROOT_INO, "f")->d_ino =
			simfs_cpu_to_le64(SIMFS_INO_LIMIT + 1);
	});
	CASE("unknown mode bits", "i_mode",
	     dinode_of(&od, fino)->i_mode =
		     simfs_cpu_to_le32(S_IFREG | 0644 | 0100000000));
	CASE("root's parent elsewhere", "i_parent",
	     dinode_of(&od, SIMFS_ROOT_INO)->i_parent =
		     simfs_cpu_to_le64(dino));
	CASE("unknown superblock state", "s_state",
	     od.dsb->s_state = simfs_cpu_to_le32(9));
	CASE("unknown feature bit", "s_features",
	     od.dsb->s_features = simfs_cpu_to_le32(1U << 7));
	CASE("unknown version, valid checksum", "s_version",
	     od.dsb->s_version = simfs_cpu_to_le32(2));
	CASE("generation near wrap", "s_generation", {
		od.dsb->s_generation = simfs_cpu_to_le64(U64_MAX);
		h->m_generation = simfs_cpu_to_le64(U64_MAX);
	});
#undef CASE
	clean_again_and_free(&od, buf, save);
}
END_TEST

/*
 * Inode numbers never wrap: with the counter one below the control
 * range, one create works and the next gets ENOSPC; the image stays
 * clean and mounts again.
 */
START_TEST(test_inode_numbers_exhausted)
{
	struct super_block *sb;
	struct simfs_inode_info *a, *b;
	struct on_disk od;
	struct simfs_statfs st;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	find_committed(&od, blksim_bdev_ram_data(bdev), 4096);
	((struct simfs_dmeta *)od.meta)->m_next_ino =
		simfs_cpu_to_le64(SIMFS_INO_LIMIT - 1);
	reseal(&od);
	ck_assert_uint_eq(fsck_errors(), 0);
	sb = do_mount();
	simfs_statfs(sb, &st);
	ck_assert_uint_eq(st.ffree, 1);
	a = simfs_create(root_of(sb), "a", S_IFREG | 0644, 0, 0, false);
	ck_assert(!IS_ERR(a));
	ck_assert_uint_eq(a->vfs_inode.i_ino, SIMFS_INO_LIMIT - 1);
	b = simfs_create(root_of(sb), "b", S_IFREG | 0644, 0, 0, false);
	ck_assert_ptr_eq(b, ERR_PTR(-ENOSPC));
	b = simfs_create(root_of(sb), "b", S_IFDIR | 0755, 0, 0, false);
	ck_assert_ptr_eq(b, ERR_PTR(-ENOSPC));
	umount_clean(sb);
	sb = do_mount();
	ck_assert_ptr_nonnull(simfs_lookup(root_of(sb), "a", false));
	do_umount(sb);
	put_dev();
}
END_TEST

/*
 * Truncating a file to zero and punching an empty file remove extents
 * from an empty (NULL) array: no memmove of NULL (UBSan in the
 * sanitizer build).
 */
START_TEST(test_truncate_and_punch_empty)
{
	struct super_block *sb;
	struct simfs_inode_info *f;
	struct file *file;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = do_mount();
	f = simfs_create(root_of(sb), "f", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR);
	ck_assert_int_eq(simfs_fallocate(file,
					 FALLOC_FL_PUNCH_HOLE |
						 FALLOC_FL_KEEP_SIZE,
					 0, 4096),
			 0);
	inode_lock(&f->vfs_inode);
	ck_assert_int_eq(simfs_truncate(f, 4096), 0);
	ck_assert_int_eq(simfs_truncate(f, 0), 0);
	inode_unlock(&f->vfs_inode);
	ck_assert_ptr_null(f->ext);
	ck_assert_int_eq(simfs_fallocate(file,
					 FALLOC_FL_PUNCH_HOLE |
						 FALLOC_FL_KEEP_SIZE,
					 0, 8192),
			 0);
	ck_assert_int_eq(simfs_fallocate(file, FALLOC_FL_ZERO_RANGE, 0, 8192),
			 0);
	simfs_file_release(file);
	finish_clean(sb);
}
END_TEST

static long completed_res;
static int completed_calls;

static void ki_done(struct kiocb *iocb, long res)
{
	completed_res = res;
	completed_calls++;
}

/* An asynchronous direct write, as io_uring or AIO would submit it. */
static ssize_t async_write(struct file *f, void *buf, size_t len, loff_t pos)
{
	static struct kiocb kiocb;
	static struct iov_iter iter;
	ssize_t ret;

	init_sync_kiocb(&kiocb, f);
	kiocb.ki_flags = IOCB_DIRECT;
	kiocb.ki_pos = pos;
	kiocb.ki_complete = ki_done;
	iov_iter_ubuf(&iter, ITER_SOURCE, buf, len);
	completed_calls = 0;
	ret = simfs_file_write_iter(&kiocb, &iter);
	sim_engine_drain();
	return ret;
}

/*
 * FMODE_DIO_PARALLEL_WRITE: declared per open file when the mount says
 * so (P-01..P-03); without it simfs runs direct writes to a file one at
 * a time: exclusive inode lock, waited for even when asynchronous.
 */
START_TEST(test_parallel_write_switch)
{
	struct simfs_mount_opts mo = { .no_parallel_dio_write = true };
	struct super_block *sb;
	struct simfs_inode_info *f;
	struct file *file;
	char *buf = abuf(8192, 7);
	char err[256];
	long serial0, shared0;

	ram_dev(16 * MiB, 512);
	do_mkfs(4096);
	sb = simfs_mount(bdev, &mo, err, sizeof(err));
	ck_assert_msg(!IS_ERR(sb), "mount: %s", err);
	f = simfs_create(root_of(sb), "w", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert(!(file->f_mode & FMODE_DIO_PARALLEL_WRITE));
	ck_assert(!(file->f_op->fop_flags & FOP_DIO_PARALLEL_WRITE));
	ck_assert_int_eq(rw(file, true, true, buf, 8192, 0), 8192);
	serial0 = sim_stat_get("simfs_dio_write_serialised");
	shared0 = sim_stat_get("simfs_dio_write_shared_lock");
	/* an aligned overwrite, submitted asynchronously: still waited for */
	ck_assert_int_eq(async_write(file, buf, 4096, 4096), 4096);
	ck_assert_int_eq(completed_calls, 0);
	ck_assert_int_eq(sim_stat_get("simfs_dio_write_serialised"),
			 serial0 + 1);
	ck_assert_int_eq(sim_stat_get("simfs_dio_write_shared_lock"), shared0);
	simfs_file_release(file);
	do_umount(sb);

	/* the default: declared, and the overwrite runs under a shared lock */
	sb = do_mount();
	f = simfs_lookup(root_of(sb), "w", false);
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert(file->f_mode & FMODE_DIO_PARALLEL_WRITE);
	ck_assert(file->f_op->fop_flags & FOP_DIO_PARALLEL_WRITE);
	shared0 = sim_stat_get("simfs_dio_write_shared_lock");
	ck_assert_int_eq(async_write(file, buf, 4096, 4096), -EIOCBQUEUED);
	ck_assert_int_eq(completed_calls, 1);
	ck_assert_int_eq(completed_res, 4096);
	ck_assert_int_eq(sim_stat_get("simfs_dio_write_shared_lock"),
			 shared0 + 1);
	/* an extending one takes the lock exclusive and waits (as ext4) */
	ck_assert_int_eq(async_write(file, buf, 4096, 8192), 4096);
	ck_assert_int_eq(i_size_read(&f->vfs_inode), 12288);
	simfs_file_release(file);
	finish_clean(sb);
	free(buf);
}
END_TEST

static Suite *simfs_suite(void)
{
	return sim_suite(
		"simfs_core", sim_tcase("core"), test_mkfs_mount_fsck,
		test_mkfs_refuses,
		test_dio_write_allocates_unwritten_then_converts,
		test_fallocate_unwritten_and_punch, test_inline_and_buffered,
		test_namespace, test_commit_and_corruption,
		test_frees_held_until_commit, test_enospc,
		test_parallel_write_switch, test_fsck_semantic_corruption,
		test_mount_refuses_what_fsck_rejects,
		test_inode_numbers_exhausted, test_truncate_and_punch_empty);
}

SIM_TEST_MAIN(simfs_suite)
