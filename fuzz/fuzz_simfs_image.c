// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_simfs_image: simfs images, as fsck and mount read them.
 *
 * The input is an image in small: a superblock and the metadata copy it
 * points at, placed on a 2 MiB in-memory device (the ram backend) where a
 * commit of that generation would have put them.  Every other byte of the
 * device is stale, never zero, as a used disk's blocks are: an extent
 * past i_size (what a crash leaves of an extending write) then maps
 * bytes a file must not show.  With the RESEAL mode
 * bit the harness recomputes every checksum and length the mutation broke
 * (s_meta_len, m_len, s_meta_crc, the superblock's crc), so mutations get
 * past the checksums to the structure checks; without it, the checksums
 * themselves are under test.  Then:
 *
 *  - simfs_fsck() judges the image;
 *  - simfs_mount() in process (deterministic engine) must agree: it
 *    mounts exactly the images fsck calls clean (one checker);
 *  - a mounted image gets a bounded workload driven by the header's
 *    seed: lookups and readdir, buffered and direct reads and writes,
 *    truncate (to zero too), fallocate (punch, zero range, allocate),
 *    creates, mkdir, unlink, rmdir;
 *  - F-01: whenever an operation moves a file's i_size out, what lies
 *    between the old end of file and the new one reads as zeroes, but
 *    for the bytes the operation itself wrote;
 *  - a clean unmount must succeed, and fsck must then call it clean;
 *  - no sanitizer report, no WARN_ON, no context violation, every
 *    allocation, bio and page given back.
 *
 * Input: 16-byte header (mode, ops, seed), 256 bytes of superblock, the
 * metadata copy (the rest).  fuzz/gen-simfs-seeds.sh makes the seeds from
 * real images: mkfs, a mount and a workload through FUSE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bio.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/kernel.h>
#include <sim/bdev.h>
#include <sim/bio.h>
#include <sim/engine.h>
#include <sim/iomap.h>
#include "fuzz_common.h"
#include "simfs.h"

#define DEV_SIZE (2ULL << 20)
#define MAX_OPS 32
#define MAX_DIRS 16
#define IO_MAX (64U << 10)

struct image_hdr {
	u8 mode; /* MODE_* */
	u8 nr_ops; /* workload ops: nr_ops % MAX_OPS */
	u8 pad[2];
	u8 seed[4]; /* the workload's choices */
	u8 reserved[8];
};

#define MODE_RESEAL 0x1 /* recompute lengths and checksums */

_Static_assert(sizeof(struct image_hdr) == 16, "header");

struct state {
	struct image_hdr h;
	size_t meta_len;
	bool damaged, accepted;
	int op;
	const char *what;
	u64 rng;
	char fsck_first[256];
	char mount_err[256];
};

static struct block_device *bdev;
static u8 *iobuf, *chkbuf;
static const u8 zeroes[4096];

static void describe(FILE *out, void *arg)
{
	struct state *s = arg;

	fprintf(out,
		"mode %#x, %zu-byte metadata copy, fsck: %s%s%s, mount: "
		"%s%s%s; workload op %d (%s) of %u",
		s->h.mode, s->meta_len, s->damaged ? "damaged (" : "clean",
		s->fsck_first, s->damaged ? ")" : "",
		s->accepted ? "accepted" : "refused (",
		s->accepted ? "" : s->mount_err, s->accepted ? "" : ")", s->op,
		s->what ? s->what : "-", s->h.nr_ops % MAX_OPS);
}

static u32 rnd(struct state *s)
{
	/* splitmix64: every seed a different, replayable sequence */
	u64 z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (u32)((z ^ (z >> 31)) >> 16);
}

static void first_error(void *arg, bool error, const char *text)
{
	struct state *s = arg;

	if (error && !s->fsck_first[0])
		snprintf(s->fsck_first, sizeof(s->fsck_first), "%s", text);
}

/* Place superblock and copy where generation g's commit would have. */
static void place(struct state *s, const u8 *sb, const u8 *meta, size_t len)
{
	u8 *disk = blksim_bdev_ram_data(bdev);
	struct simfs_dsb dsb;
	u64 gen, start, blocks, area;
	u32 bs;

	memcpy(&dsb, sb, sizeof(dsb));
	bs = simfs_le32_to_cpu(dsb.s_block_size);
	if (bs < SIMFS_MIN_BLOCK_SIZE || bs > SIMFS_MAX_BLOCK_SIZE ||
	    !is_power_of_2(bs))
		bs = 4096;
	gen = simfs_le64_to_cpu(dsb.s_generation);
	start = simfs_le64_to_cpu(dsb.s_meta_start);
	blocks = simfs_le64_to_cpu(dsb.s_meta_blocks);
	if (s->h.mode & MODE_RESEAL) {
		u8 *mlen = (u8 *)meta + offsetof(struct simfs_dmeta, m_len);

		if (len >= SIMFS_META_HDR_SIZE) {
			u64 v = simfs_cpu_to_le64(len);

			memcpy(mlen, &v, sizeof(v));
		}
		dsb.s_meta_len = simfs_cpu_to_le64(len);
		dsb.s_meta_crc = simfs_cpu_to_le32(simfs_crc32c(0, meta, len));
		simfs_dsb_seal(&dsb);
	}
	memcpy(disk + (gen & 1) * bs, &dsb, sizeof(dsb));
	if (start < DEV_SIZE / bs && blocks < DEV_SIZE / bs) {
		area = (start + (gen & 1) * blocks) * bs;
		if (area < DEV_SIZE && len <= DEV_SIZE - area)
			memcpy(disk + area, meta, len);
	}
}

static ssize_t rw(struct file *f, bool write, bool direct, size_t len,
		  loff_t pos)
{
	return simfs_rw_sync(f, write, direct, iobuf, len, pos);
}

/* Stale bytes everywhere, never zero: sector n holds 0x80 | n % 128. */
static void fill_stale(void)
{
	u8 *disk = blksim_bdev_ram_data(bdev);

	for (u64 sec = 0; sec < DEV_SIZE / 512; sec++)
		memset(disk + sec * 512, 0x80 | (sec & 0x7f), 512);
}

/* The offset of the first non-zero byte of buf[0, len), or len. */
static size_t zero_up_to(const u8 *buf, size_t len)
{
	size_t at = 0;

	while (at < len) {
		size_t n = min(len - at, sizeof(zeroes));

		if (memcmp(buf + at, zeroes, n))
			break;
		at += n;
	}
	while (at < len && !buf[at])
		at++;
	return at;
}

/*
 * File bytes [@from, @to), read into chkbuf from file offset @at, are
 * zeroes: the file grew from @old to @size over them.
 */
static void zero_in_chunk(loff_t at, loff_t from, loff_t to, loff_t old,
			  loff_t size)
{
	size_t n, i;

	if (from >= to)
		return;
	n = to - from;
	i = zero_up_to(chkbuf + (from - at), n);
	FUZZ_CHECK(i == n,
		   "byte %lld reads %#x: the file grew from %lld to "
		   "%lld, and this lies past its old end of file",
		   (long long)(from + i), chkbuf[from - at + i], (long long)old,
		   (long long)size);
}

/*
 * F-01: @ei's i_size was @old before an operation that wrote
 * [@wpos, @wend) (empty: none).  What it grew by reads as zeroes but for
 * those bytes: nothing the device held past the old end of file shows.
 */
static void check_grown(struct simfs_inode_info *ei, loff_t old, loff_t wpos,
			loff_t wend)
{
	loff_t size = i_size_read(&ei->vfs_inode);
	struct file *f;

	if (size <= old)
		return;
	if (wend <= wpos)
		wpos = wend = size;
	f = simfs_file_open(ei, O_RDONLY);
	FUZZ_CHECK(!IS_ERR(f), "open to read back: %ld", PTR_ERR(f));
	for (loff_t at = old; at < size;) {
		loff_t end = min_t(loff_t, size, at + IO_MAX);
		ssize_t got =
			simfs_rw_sync(f, false, false, chkbuf, end - at, at);

		FUZZ_CHECK(got == end - at,
			   "read back of %lld bytes at %lld "
			   "(i_size %lld): %zd",
			   (long long)(end - at), (long long)at,
			   (long long)size, got);
		zero_in_chunk(at, at, min(end, wpos), old, size);
		zero_in_chunk(at, max(at, wend), end, old, size);
		at = end;
	}
	simfs_file_release(f);
}

struct pick {
	struct state *s;
	u32 want, seen;
	char name[SIMFS_NAME_MAX + 1];
	u64 ino;
};

static int pick_one(void *arg, const char *name, u16 len, u64 ino, u32 mode,
		    u64 cookie)
{
	struct pick *p = arg;

	if (p->seen++ == p->want) {
		memcpy(p->name, name, len);
		p->name[len] = 0;
		p->ino = ino;
		return 1;
	}
	return 0;
}

/* Some entry of @dir (readdir + lookup), or NULL. */
static struct simfs_inode_info *
some_entry(struct state *s, struct simfs_inode_info *dir, char *name)
{
	struct pick p = { .s = s, .want = rnd(s) % 8 };
	struct simfs_inode_info *ei;

	simfs_readdir(dir, 0, pick_one, &p);
	if (!p.name[0] && p.seen) {
		p.want = rnd(s) % p.seen;
		p.seen = 0;
		simfs_readdir(dir, 0, pick_one, &p);
	}
	if (!p.name[0])
		return NULL;
	strcpy(name, p.name);
	ei = simfs_lookup(dir, p.name, false);
	FUZZ_CHECK(!IS_ERR(ei) && ei->vfs_inode.i_ino == p.ino,
		   "readdir's entry %s does not look up", p.name);
	return ei;
}

static loff_t some_pos(struct state *s, bool direct)
{
	static const loff_t at[] = { 0,	  1,	100,  127,  128,   511,
				     512, 4095, 4096, 8192, 65536, 1 << 20 };
	loff_t pos = at[rnd(s) % ARRAY_SIZE(at)];

	return direct ? round_down(pos, 512) : pos;
}

static size_t some_len(struct state *s, bool direct)
{
	static const size_t n[] = { 1, 14, 128, 129, 512, 4096, 8192, IO_MAX };
	size_t len = n[rnd(s) % ARRAY_SIZE(n)];

	return direct ? round_up(len, 512) : len;
}

/* One operation on a regular file. */
static void file_op(struct state *s, struct simfs_inode_info *ei)
{
	bool direct = rnd(s) & 1;
	struct file *f = simfs_file_open(ei, O_RDWR | (direct ? O_DIRECT : 0));
	struct inode *inode = &ei->vfs_inode;
	loff_t pos = some_pos(s, direct);
	size_t len = some_len(s, direct);
	loff_t old = i_size_read(inode), wend = 0;
	ssize_t ret;

	if (IS_ERR(f))
		return;
	switch (rnd(s) % 6) {
	case 0:
		s->what = direct ? "direct read" : "buffered read";
		ret = rw(f, false, direct, len, pos);
		FUZZ_CHECK(ret >= 0 || ret == -EINVAL, "read: %zd", ret);
		break;
	case 1:
		s->what = direct ? "direct write" : "buffered write";
		ret = rw(f, true, direct, len, pos);
		FUZZ_CHECK(ret >= 0 || ret == -ENOSPC || ret == -EINVAL,
			   "write: %zd", ret);
		if (ret > 0)
			wend = pos + ret;
		break;
	case 2: {
		static const loff_t sz[] = { 0,	  1,	14,   128,
					     129, 4096, 5000, 1 << 20 };

		s->what = "truncate";
		inode_lock(inode);
		inode_dio_wait(inode);
		ret = simfs_truncate(ei, sz[rnd(s) % ARRAY_SIZE(sz)]);
		inode_unlock(inode);
		FUZZ_CHECK(!ret || ret == -ENOSPC, "truncate: %zd", ret);
		break;
	}
	case 3:
		s->what = "punch hole";
		ret = simfs_fallocate(
			f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, pos,
			len);
		FUZZ_CHECK(!ret || ret == -ENOSPC, "punch: %zd", ret);
		break;
	case 4:
		s->what = "zero range";
		ret = simfs_fallocate(f, FALLOC_FL_ZERO_RANGE, pos, len);
		FUZZ_CHECK(!ret || ret == -ENOSPC, "zero range: %zd", ret);
		break;
	default:
		s->what = "fallocate";
		ret = simfs_fallocate(f, 0, pos, len);
		FUZZ_CHECK(!ret || ret == -ENOSPC, "fallocate: %zd", ret);
		break;
	}
	simfs_file_release(f);
	check_grown(ei, old, pos, wend);
}

/*
 * create or mkdir (@what) of @name in @dir: a name taken, a full device,
 * a directory removed under it, and for mkdir a full link count
 * (-EMLINK) are answers; anything else is a finding.
 */
static struct simfs_inode_info *make(struct state *s,
				     struct simfs_inode_info *dir,
				     const char *name, umode_t mode,
				     const char *what)
{
	struct simfs_inode_info *ei;

	s->what = what;
	ei = simfs_create(dir, name, mode, 0, 0, false);
	FUZZ_CHECK(!IS_ERR(ei) || PTR_ERR(ei) == -EEXIST ||
			   PTR_ERR(ei) == -ENOSPC || PTR_ERR(ei) == -ENOENT ||
			   (S_ISDIR(mode) && PTR_ERR(ei) == -EMLINK),
		   "%s: %ld", what, PTR_ERR(ei));
	return ei;
}

static void workload(struct state *s, struct super_block *sb)
{
	struct simfs_inode_info *dirs[MAX_DIRS];
	unsigned int nr_dirs = 1;
	char name[SIMFS_NAME_MAX + 1];

	dirs[0] = simfs_iget(SIMFS_SB(sb), SIMFS_ROOT_INO);
	for (s->op = 0; s->op < s->h.nr_ops % MAX_OPS; s->op++) {
		struct simfs_inode_info *dir = dirs[rnd(s) % nr_dirs];
		struct simfs_inode_info *ei;
		char fresh[16];

		s->what = "lookup";
		ei = some_entry(s, dir, name);
		snprintf(fresh, sizeof(fresh), "n%u", rnd(s) % 64);
		switch (rnd(s) % 8) {
		case 0:
			ei = make(s, dir, fresh, S_IFREG | 0644, "create");
			break;
		case 1:
			ei = make(s, dir, fresh, S_IFDIR | 0755, "mkdir");
			if (!IS_ERR(ei) && nr_dirs < MAX_DIRS)
				dirs[nr_dirs++] = ei;
			break;
		case 2:
			if (!ei)
				break;
			s->what = S_ISDIR(ei->vfs_inode.i_mode) ? "rmdir" :
								  "unlink";
			if (S_ISDIR(ei->vfs_inode.i_mode)) {
				/* it may be one of ours: keep the list live */
				for (unsigned int i = 1; i < nr_dirs; i++)
					if (dirs[i] == ei)
						goto skip;
				simfs_rmdir(dir, name);
			} else {
				simfs_unlink(dir, name);
			}
skip:
			break;
		default:
			if (!ei)
				break;
			if (S_ISDIR(ei->vfs_inode.i_mode)) {
				if (nr_dirs < MAX_DIRS)
					dirs[nr_dirs++] = ei;
			} else {
				file_op(s, ei);
			}
			break;
		}
		sim_engine_drain();
	}
	s->what = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct blksim_ram_opts ro = { .size = DEV_SIZE,
				      .logical_block_size = 512 };
	char err[128];

	fuzz_engine_start();
	bdev = blksim_bdev_ram_create(&ro, err, sizeof(err));
	if (IS_ERR(bdev)) {
		fprintf(stderr, "fuzz_simfs_image: ram device: %s\n", err);
		abort();
	}
	if (posix_memalign((void **)&iobuf, 4096, IO_MAX) ||
	    posix_memalign((void **)&chkbuf, 4096, IO_MAX))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct state st;
	static u8 sb[SIMFS_SB_SIZE];
	struct state *s = &st;
	struct simfs_fsck_report r = { .msg = first_error, .arg = s };
	struct simfs_mount_opts mo = { 0 };
	struct super_block *msb;
	struct fuzz_in in;
	u8 *meta;
	int ret;

	memset(s, 0, sizeof(*s));
	fuzz_in_init(&in, data, size);
	fuzz_take_header(&in, &s->h, sizeof(s->h));
	memset(sb, 0, sizeof(sb));
	for (size_t i = 0; i < sizeof(sb); i++)
		sb[i] = fuzz_u8(&in);
	s->meta_len = size - in.pos;
	s->rng = (u64)s->h.seed[0] | (u64)s->h.seed[1] << 8 |
		 (u64)s->h.seed[2] << 16 | (u64)s->h.seed[3] << 24;
	/* a private, writable copy (RESEAL edits m_len) */
	meta = malloc(s->meta_len ? s->meta_len : 1);
	if (!meta)
		return 0;
	memcpy(meta, data + in.pos, s->meta_len);

	fill_stale();
	place(s, sb, meta, s->meta_len);
	free(meta);
	fuzz_set_describer(describe, s);
	fuzz_accounting_begin();

	ret = simfs_fsck(bdev, &r);
	s->damaged = ret || r.errors;
	msb = simfs_mount(bdev, &mo, s->mount_err, sizeof(s->mount_err));
	s->accepted = !IS_ERR(msb);
	FUZZ_CHECK(s->accepted == !s->damaged, "fsck and mount disagree");
	if (s->accepted) {
		workload(s, msb);
		ret = simfs_unmount(msb);
		FUZZ_CHECK(!ret, "clean unmount failed: %d", ret);
		memset(&r, 0, sizeof(r));
		r.msg = first_error;
		r.arg = s;
		s->fsck_first[0] = 0;
		ret = simfs_fsck(bdev, &r);
		FUZZ_CHECK(!ret && !r.errors,
			   "fsck after the workload and "
			   "a clean unmount: %s",
			   s->fsck_first);
	}
	iomapsim_dio_exit();
	blksim_bio_drain_caches();
	fuzz_accounting_check(0, 0, NULL);
	return 0;
}
