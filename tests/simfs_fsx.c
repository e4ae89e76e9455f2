// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs_fsx: our own fsx.  Random operations through the real FUSE mount
 * (`iomapsim mount -f` as its own process, the sanitized one in a
 * sanitizer tree) checked against an in-memory model of several files:
 * O_DIRECT and buffered reads and writes at 512 B and 4 KiB grain
 * (buffered ones at any byte too), truncate, fallocate (allocate, keep
 * size, punch hole, zero range, and the modes the mount must refuse),
 * copy_file_range, fsync, fdatasync, whole-file verification, and
 * remount: unmount, `iomapsim fsck`, mount again, compare every file.
 *
 * Every call's result is predicted by the model: the byte count, or the
 * exact errno where the kernel or the mount refuses (EOPNOTSUPP for a
 * fallocate mode FUSE or simfs does not do, EINVAL for an empty range,
 * a misaligned direct I/O or an overlapping copy within one file).
 *
 *   simfs_fsx [-s SEED] [-n OPS] [-l LOGFILE] [-r REPLAYFILE] [-v]
 *
 * The operations come from SEED alone (and the model), so a seed replays;
 * each is also written, one per line, to LOGFILE (default: a file kept
 * next to the image when the run fails), which -r replays exactly, and
 * which can be cut down by hand.  On a miscompare the seed, the op number,
 * the op and the ones before it are printed.
 *
 * Needs root, /dev/fuse and fusermount3, or exits 77 with the reason.
 * IOMAPSIM_BIN names the build tree with the iomapsim binary;
 * IOMAPSIM_FSX_OPS and IOMAPSIM_FSX_SEED stand in for -n and -s.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/falloc.h>
#include "simfs_daemon.h"

#define NFILES 4
#define MAXLEN (1 << 20) /* the model's room per file */
#define MAXIO (128 << 10) /* largest single read or write */
#define HISTORY 24 /* ops printed before a failure */

/*
 * Ops per CI run: about 15 s in the plain build, under a minute with
 * ASan+UBSan; TSan's daemon is several times slower again.
 */
#if defined(__SANITIZE_THREAD__)
#define DEFAULT_OPS 5000
#else
#define DEFAULT_OPS 20000
#endif
#define DEFAULT_REMOUNTS 20 /* per default run, spread evenly */

enum op_kind {
	OP_DWRITE,
	OP_DREAD,
	OP_BWRITE,
	OP_BREAD,
	OP_TRUNCATE,
	OP_FALLOC,
	OP_COPY,
	OP_FSYNC,
	OP_FDATASYNC,
	OP_VERIFY,
	OP_REMOUNT,
	NR_OP_KINDS,
};

static const char *const op_name[NR_OP_KINDS] = {
	[OP_DWRITE] = "dwrite",	      [OP_DREAD] = "dread",
	[OP_BWRITE] = "bwrite",	      [OP_BREAD] = "bread",
	[OP_TRUNCATE] = "truncate",   [OP_FALLOC] = "falloc",
	[OP_COPY] = "copy",	      [OP_FSYNC] = "fsync",
	[OP_FDATASYNC] = "fdatasync", [OP_VERIFY] = "verify",
	[OP_REMOUNT] = "remount",
};

/* One operation; the fields an op does not use are 0. */
struct op {
	enum op_kind kind;
	int f, f2; /* file (source for copy), destination */
	long long off, len, off2;
	int mode; /* fallocate mode */
	unsigned int data; /* the written pattern's seed */
};

struct model_file {
	unsigned char *buf; /* MAXLEN bytes; zero from size on */
	long long size;
};

static struct model_file model[NFILES];
static int bfd[NFILES] = { -1, -1, -1, -1 }, dfd[NFILES] = { -1, -1, -1, -1 };

static struct sd_mount dm;
static char tmpdir[256], img[512];
static char ops_path[512];
static unsigned int dio_min = 512; /* the mount's O_DIRECT alignment */
static bool verbose;
static long nr_einval_reads; /* misaligned direct reads refused */

static struct op history[HISTORY];
static long nr_done;
static uint64_t run_seed;
static FILE *ops_log;

/* ---- small helpers ---------------------------------------------------- */

static void cleanup(void);

static void describe(const struct op *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s %d %d %lld %lld %lld %d %u", op_name[o->kind],
		 o->f, o->f2, o->off, o->len, o->off2, o->mode, o->data);
}

/* Report a failure with what led to it, keep the op log, and exit 1. */
static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
	char d[160];
	va_list ap;
	long first = nr_done - HISTORY + 1;

	printf("simfs_fsx: FAILED at op %ld (seed %" PRIu64 "): ", nr_done,
	       run_seed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	printf("the last operations (op# kind file file2 off len off2 mode "
	       "data):\n");
	for (long i = first < 0 ? 0 : first; i <= nr_done; i++) {
		describe(&history[i % HISTORY], d, sizeof(d));
		printf("  %6ld %s\n", i, d);
	}
	if (ops_log) {
		fclose(ops_log);
		ops_log = NULL;
		printf("all %ld operations are in %s; replay with: simfs_fsx "
		       "-r %s (or -s %" PRIu64 ")\n",
		       nr_done + 1, ops_path, ops_path, run_seed);
	}
	sd_dump_log(&dm);
	cleanup();
	printf("the image and the daemon's log are kept in %s\n", tmpdir);
	exit(1);
}

/* The bytes a write with pattern @data puts at file offset @pos on. */
static void fill(unsigned char *p, long long len, unsigned int data,
		 long long pos)
{
	for (long long i = 0; i < len; i++) {
		uint32_t x = (uint32_t)(pos + i) * 2654435761u ^ data;

		x ^= x >> 15;
		x *= 0x2c1b3c6dU;
		p[i] = (unsigned char)(x >> 24);
	}
}

static void *abuf(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len ? len : 1))
		fail("out of memory");
	return p;
}

/* ---- the mount ---------------------------------------------------------- */

static void path_of(char *buf, size_t len, int f)
{
	snprintf(buf, len, "%s/f%d", dm.mnt, f);
}

static void open_files(bool create)
{
	char p[600];

	for (int f = 0; f < NFILES; f++) {
		path_of(p, sizeof(p), f);
		bfd[f] = open(p, O_RDWR | (create ? O_CREAT | O_TRUNC : 0),
			      0644);
		if (bfd[f] < 0)
			fail("open %s: %s", p, strerror(errno));
		dfd[f] = open(p, O_RDWR | O_DIRECT);
		if (dfd[f] < 0)
			fail("open %s O_DIRECT: %s", p, strerror(errno));
	}
}

static void close_files(void)
{
	for (int f = 0; f < NFILES; f++) {
		if (bfd[f] >= 0 && close(bfd[f]))
			fail("close f%d: %s", f, strerror(errno));
		if (dfd[f] >= 0 && close(dfd[f]))
			fail("close f%d (O_DIRECT): %s", f, strerror(errno));
		bfd[f] = dfd[f] = -1;
	}
}

static void mount_fs(void)
{
	char why[1024];

	if (sd_mount(&dm, img, NULL, why, sizeof(why)))
		fail("%s", why);
}

static void umount_fs(void)
{
	char why[1024];

	if (sd_umount(&dm, why, sizeof(why)))
		fail("%s", why);
}

static void cleanup(void)
{
	for (int f = 0; f < NFILES; f++) {
		if (bfd[f] >= 0)
			close(bfd[f]);
		if (dfd[f] >= 0)
			close(dfd[f]);
		bfd[f] = dfd[f] = -1;
	}
	sd_cleanup(&dm);
}

/* ---- the model's verdicts ----------------------------------------------- */

/* Compare @n bytes read at @off of file @f with the model. */
static void compare(int f, long long off, const unsigned char *got, long long n,
		    const char *how)
{
	const unsigned char *want = model[f].buf + off;

	if (!memcmp(got, want, n))
		return;
	for (long long i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			long long j = i;

			while (j < n && got[j] != want[j])
				j++;
			fail("%s of f%d: miscompare at offset %lld (0x%llx): "
			     "got 0x%02x, want 0x%02x; %lld bytes differ from "
			     "there (file size %lld)",
			     how, f, off + i, off + i, got[i], want[i], j - i,
			     model[f].size);
		}
	}
}

static void check_ret(ssize_t ret, int err, long long want, int want_err,
		      const char *what)
{
	if (want_err) {
		if (ret != -1 || err != want_err)
			fail("%s: want -1 with %s, got %zd (%s)", what,
			     strerror(want_err), ret,
			     ret < 0 ? strerror(err) : "no error");
		return;
	}
	if (ret < 0)
		fail("%s: %s", what, strerror(err));
	if (ret != want)
		fail("%s: %zd bytes, want %lld", what, ret, want);
}

static void check_size(int f)
{
	struct stat st;

	if (fstat(bfd[f], &st))
		fail("fstat f%d: %s", f, strerror(errno));
	if (st.st_size != model[f].size)
		fail("f%d: size %lld, want %lld", f, (long long)st.st_size,
		     model[f].size);
}

static void model_write(int f, long long off, const unsigned char *p,
			long long len)
{
	if (!len)
		return; /* nothing written extends nothing */
	memcpy(model[f].buf + off, p, len);
	if (off + len > model[f].size)
		model[f].size = off + len;
}

static void model_zero(int f, long long off, long long len)
{
	long long end = off + len < model[f].size ? off + len : model[f].size;

	if (off < end)
		memset(model[f].buf + off, 0, end - off);
}

static void model_truncate(int f, long long size)
{
	if (size < model[f].size)
		memset(model[f].buf + size, 0, model[f].size - size);
	model[f].size = size;
}

/* ---- ops ---------------------------------------------------------------- */

static bool dio_aligned(const struct op *o)
{
	return !(o->off % dio_min) && !(o->len % dio_min);
}

static long long readable(int f, long long off, long long len)
{
	long long left = model[f].size - off;

	return left <= 0 ? 0 : left < len ? left : len;
}

static void do_write(const struct op *o, bool direct)
{
	unsigned char *buf = abuf(o->len);
	char what[64];
	int err = 0;
	ssize_t ret;

	snprintf(what, sizeof(what), "%s f%d", op_name[o->kind], o->f);
	fill(buf, o->len, o->data, o->off);
	ret = pwrite(direct ? dfd[o->f] : bfd[o->f], buf, o->len, o->off);
	if (ret < 0)
		err = errno;
	if (direct && !dio_aligned(o)) {
		check_ret(ret, err, 0, EINVAL, what);
	} else {
		check_ret(ret, err, o->len, 0, what);
		model_write(o->f, o->off, buf, o->len);
	}
	free(buf);
}

static void do_read(const struct op *o, bool direct)
{
	unsigned char *buf = abuf(o->len);
	long long want = readable(o->f, o->off, o->len);
	char what[64];
	int err = 0;
	ssize_t ret;

	snprintf(what, sizeof(what), "%s f%d", op_name[o->kind], o->f);
	memset(buf, 0xa5, o->len);
	ret = pread(direct ? dfd[o->f] : bfd[o->f], buf, o->len, o->off);
	if (ret < 0)
		err = errno;
	/*
	 * iomap checks the alignment of a direct read only where it maps
	 * blocks to read (iomap_dio_bio_iter()): past EOF, in a hole or an
	 * unwritten extent a misaligned read succeeds with zeroes, as it
	 * does in the kernel.  The model does not track the mapping, so a
	 * misaligned read must fail with EINVAL or return the right bytes.
	 */
	if (direct && !dio_aligned(o) && ret < 0) {
		check_ret(ret, err, 0, EINVAL, what);
		nr_einval_reads++;
	} else {
		check_ret(ret, err, want, 0, what);
		compare(o->f, o->off, buf, want, what);
	}
	free(buf);
}

/* What the kernel's VFS and FUSE client or simfs answer for @mode. */
static int falloc_errno(const struct op *o)
{
	int mode = o->mode;

	if (o->len <= 0)
		return EINVAL;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
		     FALLOC_FL_ZERO_RANGE))
		return EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) &&
	    (!(mode & FALLOC_FL_KEEP_SIZE) || (mode & FALLOC_FL_ZERO_RANGE)))
		return EOPNOTSUPP;
	return 0;
}

static void do_falloc(const struct op *o)
{
	int want_err = falloc_errno(o);
	int ret = fallocate(bfd[o->f], o->mode, o->off, o->len);
	int err = ret ? errno : 0;
	char what[64];

	snprintf(what, sizeof(what), "fallocate f%d mode %#x", o->f, o->mode);
	check_ret(ret, err, 0, want_err, what);
	if (want_err)
		return;
	if (o->mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		model_zero(o->f, o->off, o->len);
	if (!(o->mode & FALLOC_FL_KEEP_SIZE) &&
	    o->off + o->len > model[o->f].size)
		model[o->f].size = o->off + o->len;
}

static void do_copy(const struct op *o)
{
	long long want = readable(o->f, o->off, o->len);
	loff_t in = o->off, out = o->off2;
	/* generic_copy_file_checks(): cut at the source's EOF, then this */
	bool overlap = o->f == o->f2 && o->off < o->off2 + want &&
		       o->off2 < o->off + want;
	unsigned char *tmp;
	char what[64];
	ssize_t ret;
	int err;

	snprintf(what, sizeof(what), "copy_file_range f%d -> f%d", o->f, o->f2);
	ret = copy_file_range(bfd[o->f], &in, bfd[o->f2], &out, o->len, 0);
	err = ret < 0 ? errno : 0;
	if (overlap) {
		check_ret(ret, err, 0, EINVAL, what);
		return;
	}
	/* a short copy is allowed (the splice fallback), a lost one not */
	if (ret > 0 && ret < want)
		want = ret;
	check_ret(ret, err, want, 0, what);
	if (in != o->off + ret || out != o->off2 + ret)
		fail("%s: offsets moved to %lld and %lld after %zd bytes", what,
		     (long long)in, (long long)out, ret);
	tmp = malloc(want ? want : 1);
	memcpy(tmp, model[o->f].buf + o->off, want);
	model_write(o->f2, o->off2, tmp, want);
	free(tmp);
}

/* Every byte of @f both ways, and its size. */
static void verify_file(int f, const char *why)
{
	long long size = model[f].size, dlen = (size + 4095) & ~4095LL;
	unsigned char *buf = abuf(dlen + 4096);
	char what[96];
	ssize_t ret;

	check_size(f);
	snprintf(what, sizeof(what), "%s: buffered read", why);
	ret = pread(bfd[f], buf, size + 4096, 0);
	check_ret(ret, ret < 0 ? errno : 0, size, 0, what);
	compare(f, 0, buf, size, what);
	snprintf(what, sizeof(what), "%s: O_DIRECT read", why);
	ret = pread(dfd[f], buf, dlen + 4096, 0);
	check_ret(ret, ret < 0 ? errno : 0, size, 0, what);
	compare(f, 0, buf, size, what);
	free(buf);
}

static void do_remount(void)
{
	char out[4096];

	close_files();
	umount_fs();
	if (sd_run(out, sizeof(out), "%s fsck %s", dm.bin, img) ||
	    !strstr(out, "clean"))
		fail("fsck after a clean unmount: %s", out);
	mount_fs();
	open_files(false);
	for (int f = 0; f < NFILES; f++)
		verify_file(f, "after remount");
}

static void run_op(const struct op *o)
{
	history[nr_done % HISTORY] = *o;
	if (ops_log) {
		char d[160];

		describe(o, d, sizeof(d));
		fprintf(ops_log, "%s\n", d);
		fflush(ops_log);
	}
	if (verbose) {
		char d[160];

		describe(o, d, sizeof(d));
		printf("%6ld %s\n", nr_done, d);
	}
	switch (o->kind) {
	case OP_DWRITE:
	case OP_BWRITE:
		do_write(o, o->kind == OP_DWRITE);
		break;
	case OP_DREAD:
	case OP_BREAD:
		do_read(o, o->kind == OP_DREAD);
		break;
	case OP_TRUNCATE: {
		int ret = ftruncate(bfd[o->f], o->off);

		check_ret(ret, ret ? errno : 0, 0, 0, "ftruncate");
		model_truncate(o->f, o->off);
		check_size(o->f);
		break;
	}
	case OP_FALLOC:
		do_falloc(o);
		break;
	case OP_COPY:
		do_copy(o);
		break;
	case OP_FSYNC:
	case OP_FDATASYNC: {
		int fd = o->mode ? dfd[o->f] : bfd[o->f];
		int ret = o->kind == OP_FSYNC ? fsync(fd) : fdatasync(fd);

		check_ret(ret, ret ? errno : 0, 0, 0, op_name[o->kind]);
		break;
	}
	case OP_VERIFY:
		verify_file(o->f, "verify");
		break;
	case OP_REMOUNT:
		do_remount();
		break;
	default:
		fail("unknown op %d", o->kind);
	}
}

/* ---- generating ops ------------------------------------------------------ */

/* An offset and length at @grain, the end within the model's room. */
static void pick_range(struct op *o, long long grain, long long maxlen)
{
	long long blocks = MAXLEN / grain;
	long long size = model[o->f].size;

	/* mostly near or inside the file, sometimes anywhere */
	if (size && below(4))
		o->off = below((size + 65536 < MAXLEN ? size + 65536 : MAXLEN) /
			       grain) *
			 grain;
	else
		o->off = below(blocks) * grain;
	o->len = (1 + below(maxlen / grain)) * grain;
	if (o->off + o->len > MAXLEN)
		o->len = MAXLEN - o->off;
	if (!o->len) {
		o->off -= grain;
		o->len = grain;
	}
}

static long long pick_grain(bool any_byte)
{
	switch (below(any_byte ? 3 : 2)) {
	case 0:
		return 512;
	case 1:
		return 4096;
	default:
		return 1;
	}
}

static const int falloc_modes[] = {
	0,
	FALLOC_FL_KEEP_SIZE,
	FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	FALLOC_FL_ZERO_RANGE,
	FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
	/* refused, each with its errno */
	FALLOC_FL_PUNCH_HOLE,
	FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
	FALLOC_FL_COLLAPSE_RANGE,
	FALLOC_FL_INSERT_RANGE,
	FALLOC_FL_UNSHARE_RANGE,
};

/*
 * Every run starts here: empty files, fresh and after a remount (no
 * extent array at all), truncated up and down, punched and zeroed, where
 * the sanitizers once stopped the daemon.
 */
static const struct op preamble[] = {
#define EMPTY_FILE_OPS(f)                                             \
	{ OP_TRUNCATE, f, 0, 4096, 0, 0, 0, 0 },                      \
		{ OP_TRUNCATE, f, 0, 0, 0, 0, 0, 0 },                 \
		{ OP_FALLOC,                                          \
		  f,                                                  \
		  0,                                                  \
		  0,                                                  \
		  8192,                                               \
		  0,                                                  \
		  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,         \
		  0 },                                                \
	{                                                             \
		OP_FALLOC, f, 0, 4096, 8192, 0,                       \
			FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0 \
	}
	EMPTY_FILE_OPS(0),
	EMPTY_FILE_OPS(1),
	{ OP_REMOUNT, 0, 0, 0, 0, 0, 0, 0 },
	EMPTY_FILE_OPS(0),
	EMPTY_FILE_OPS(2),
	{ OP_TRUNCATE, 3, 0, 0, 0, 0, 0, 0 },
	{ OP_FALLOC, 3, 0, 0, 65536, 0,
	  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0 },
#undef EMPTY_FILE_OPS
};
#define NR_PREAMBLE ((long)(sizeof(preamble) / sizeof(preamble[0])))

static void gen_op(struct op *o, long i, long ops, long remount_every)
{
	unsigned int r;

	if (i < NR_PREAMBLE) {
		*o = preamble[i];
		return;
	}
	memset(o, 0, sizeof(*o));
	o->f = below(NFILES);
	o->data = (unsigned int)rnd();
	if (remount_every && i && !(i % remount_every) && i < ops - 1) {
		o->kind = OP_REMOUNT;
		return;
	}
	r = below(100);
	if (r < 20) {
		o->kind = OP_DWRITE;
		pick_range(o, pick_grain(false), 64 << 10);
		/* now and then a misaligned one: EINVAL, nothing changes */
		if (!below(50))
			o->off += 100;
	} else if (r < 36) {
		o->kind = OP_DREAD;
		pick_range(o, pick_grain(false), MAXIO);
		if (!below(50))
			o->len += 1;
	} else if (r < 50) {
		o->kind = OP_BWRITE;
		pick_range(o, pick_grain(true), 64 << 10);
	} else if (r < 62) {
		o->kind = OP_BREAD;
		pick_range(o, pick_grain(true), MAXIO);
	} else if (r < 68) {
		long long grain = pick_grain(true);

		o->kind = OP_TRUNCATE;
		/* shrink more often than grow: files stay interesting */
		o->off = below((below(2) ? model[o->f].size : MAXLEN) / grain +
			       1) *
			 grain;
		/* empty files too: punching or truncating them again */
		if (!below(8))
			o->off = 0;
	} else if (r < 79) {
		o->kind = OP_FALLOC;
		o->mode = falloc_modes[below(sizeof(falloc_modes) /
					     sizeof(falloc_modes[0]))];
		pick_range(o, pick_grain(true), 256 << 10);
		if (!below(40))
			o->len = 0;
	} else if (r < 87) {
		o->kind = OP_COPY;
		o->f2 = below(NFILES);
		pick_range(o, pick_grain(true), 64 << 10);
		o->off2 = below((MAXLEN - o->len) / 512 + 1) * 512;
		if (below(2))
			o->off2 += below(512);
		if (o->off2 + o->len > MAXLEN)
			o->off2 = MAXLEN - o->len;
	} else if (r < 91) {
		o->kind = below(2) ? OP_FSYNC : OP_FDATASYNC;
		o->mode = below(2); /* 1: on the O_DIRECT descriptor */
	} else {
		o->kind = OP_VERIFY;
	}
}

static bool parse_op(const char *line, struct op *o)
{
	char name[32];

	memset(o, 0, sizeof(*o));
	if (sscanf(line, "%31s %d %d %lld %lld %lld %d %u", name, &o->f, &o->f2,
		   &o->off, &o->len, &o->off2, &o->mode, &o->data) != 8)
		return false;
	for (int k = 0; k < NR_OP_KINDS; k++) {
		if (!strcmp(name, op_name[k])) {
			o->kind = k;
			return o->f >= 0 && o->f < NFILES && o->f2 >= 0 &&
			       o->f2 < NFILES && o->off >= 0 && o->len >= 0 &&
			       o->off2 >= 0 &&
			       o->off + o->len <= MAXLEN + 512 &&
			       o->off2 + o->len <= MAXLEN && o->len <= MAXLEN;
		}
	}
	return false;
}

/* ---- main ----------------------------------------------------------------- */

static void setup(void)
{
	char out[2048], *p;

	sd_setup(&dm, "fsx", tmpdir, sizeof(tmpdir));
	snprintf(img, sizeof(img), "%s/img", tmpdir);
	if (sd_run(out, sizeof(out), "%s mkfs %s --size 64m", dm.bin, img))
		fail("mkfs: %s", out);
	/* the device's logical block: the finest O_DIRECT grain */
	p = strstr(out, "logical block ");
	if (p)
		dio_min = strtoul(p + 14, NULL, 10);
	if (dio_min < 512 || dio_min > 4096)
		dio_min = 512;
	for (int f = 0; f < NFILES; f++) {
		model[f].buf = calloc(1, MAXLEN);
		if (!model[f].buf)
			fail("out of memory");
	}
	mount_fs();
	open_files(true);
}

static void remove_tmp(bool keep_ops)
{
	unlink(img);
	unlink(dm.log);
	if (!keep_ops)
		unlink(ops_path);
	rmdir(dm.mnt);
	rmdir(tmpdir);
}

int main(int argc, char **argv)
{
	const char *replay = NULL, *logfile = NULL, *env;
	long ops = DEFAULT_OPS, remount_every;
	bool seeded = false;
	FILE *rf = NULL;
	struct timespec t0, t1;
	int c;

	if ((env = getenv("IOMAPSIM_FSX_OPS")))
		ops = strtol(env, NULL, 10);
	if ((env = getenv("IOMAPSIM_FSX_SEED"))) {
		run_seed = strtoull(env, NULL, 0);
		seeded = true;
	}
	while ((c = getopt(argc, argv, "s:n:l:r:v")) != -1) {
		if (sd_common_opt(c, &run_seed, &ops, &verbose)) {
			seeded |= c == 's';
			continue;
		}
		switch (c) {
		case 'l':
			logfile = optarg;
			break;
		case 'r':
			replay = optarg;
			break;
		default:
			fprintf(stderr, "usage: simfs_fsx [-s SEED] [-n OPS] "
					"[-l LOGFILE] [-r REPLAYFILE] [-v]\n");
			return 2;
		}
	}
	if (!sd_ops_valid("simfs_fsx", ops))
		return 2;
	if (replay && !(rf = fopen(replay, "r"))) {
		fprintf(stderr, "simfs_fsx: %s: %s\n", replay, strerror(errno));
		return 2;
	}
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		run_seed = (uint64_t)ts.tv_sec * 1000003u ^ ts.tv_nsec ^
			   (uint64_t)getpid() << 32;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sd_rng_state = run_seed;
	signal(SIGPIPE, SIG_IGN);
	setup();
	if (logfile)
		snprintf(ops_path, sizeof(ops_path), "%s", logfile);
	else
		snprintf(ops_path, sizeof(ops_path),
			 "/var/tmp/simfs_fsx-%" PRIu64 ".ops", run_seed);
	ops_log = fopen(ops_path, "w");
	if (!ops_log)
		fail("%s: %s", ops_path, strerror(errno));
	if (replay)
		printf("simfs_fsx: replaying %s\n", replay);
	else
		printf("simfs_fsx: seed %" PRIu64 ", %ld ops, %d files, "
		       "O_DIRECT grain %u\n",
		       run_seed, ops, NFILES, dio_min);
	fflush(stdout);

	remount_every = ops / (DEFAULT_REMOUNTS + 1);
	if (remount_every < 200)
		remount_every = 200;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (nr_done = 0;; nr_done++) {
		struct op o;

		if (rf) {
			char line[256];

			if (!fgets(line, sizeof(line), rf))
				break;
			if (!parse_op(line, &o)) {
				fprintf(stderr,
					"simfs_fsx: %s: bad line %ld: "
					"%s",
					replay, nr_done + 1, line);
				cleanup();
				remove_tmp(false);
				return 2;
			}
		} else {
			if (nr_done >= ops)
				break;
			gen_op(&o, nr_done, ops, remount_every);
		}
		run_op(&o);
	}
	/* the end state must survive an unmount too */
	{
		struct op o = { .kind = OP_REMOUNT };

		run_op(&o);
		nr_done++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close_files();
	umount_fs();
	fclose(ops_log);
	ops_log = NULL;
	printf("simfs_fsx: %ld ops passed (seed %" PRIu64 ") in %.1f s\n",
	       nr_done, run_seed,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	cleanup();
	remove_tmp(logfile != NULL);
	if (rf)
		fclose(rf);
	return 0;
}
