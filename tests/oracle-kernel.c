// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real kernel as the oracle: ext4 and xfs on loop devices over files
 * in the build tree, one file laid out with data, a hole, an unwritten
 * extent (fallocate) and a short tail; its extent map, read with FIEMAP,
 * is given to `iomapsim run` (--size, --map), and a grid of direct-I/O
 * requests runs both ways: as syscalls on the real file (pread/pwrite,
 * preadv2/pwritev2 with RWF_* flags, io_uring, an IOPOLL ring) and as
 * `iomapsim run` requests.  Compared: the return value or errno, the
 * bytes read (against the file's known contents, which the simulator's
 * "data" check uses too), and after a write the file size and the bytes
 * on disk.  Every difference is printed with both sides; the ones that
 * come from the file system's own policy, not iomap's, are listed below
 * (known[]) with the rule (docs/rules.md 3.R) and do not fail the test.
 *
 * Some cases write from a source the kernel cannot read all of (the
 * buffer unmapped from its start, or from its second page: `iomapsim
 * run --fault unmapped:OFF`).  Unmapped, not PROT_NONE: UML's
 * copy_from_user() reads a PROT_NONE page (6.1.176 and 6.12.118 both
 * write(2) 8192 bytes from one), so ext4's buffered fallback would
 * succeed there where pinning fails; an unmapped page faults on every
 * kernel.  There both answers are checked in
 * themselves: a non-empty write must not return 0, and the bytes it
 * reports written must read back.  The kernel's wrong answer is a
 * FINDING, printed with the finding's name (findings[]), whether or not
 * the simulator agrees.  The simulator's code giving a finding's wrong
 * answer where the kernel gives the right one (the error the finding
 * loses) is that kernel carrying the fix: reported, not a failure.  So
 * the test holds whichever of the findings the running kernel carries,
 * and the last lines name them.  Anything else that differs fails.
 *
 * The kernel is whichever runs this program: the machine's own (on loop
 * devices over files in the build tree), or a UML kernel built from a
 * tree (scripts/uml-oracle.sh), which gives it a block device to format
 * in ORACLE_DEVICE instead.
 *
 * ORACLE_VERBOSE=1 prints the cases that agree as well; ORACLE_CASES=N,M
 * runs only those cases.
 *
 * Needs root, mkfs.ext4 and mkfs.xfs (xfsprogs, installed by
 * scripts/quickstart.sh), and loop devices or ORACLE_DEVICE; without them
 * it prints why and exits 77.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>

/*
 * From the simulator (fs/testfs), declared here with plain C types: this
 * file is built without the simulator's kernel-shaped headers, which
 * would hide the system's <linux/fs.h> that FIEMAP and liburing need.
 */
void testfs_pattern_fill(unsigned char *dst, long long off, size_t len);
void testfs_write_pattern_fill(unsigned char *dst, long long off, size_t len);

#define FSB 4096
/* how long a request may take before it counts as unanswered */
#define ANSWER_SECS 20
#define IMG_SIZE (512LL << 20) /* sparse; xfs wants 300 MiB */
#define MAX_SEG 4
#define BUF_SIZE (64 << 10)

/* The file: data, hole, unwritten, data with a short tail. */
#define DATA0_END 16384
#define UNWR_START 32768
#define UNWR_END 49152
#define FILE_SIZE (65536 + 1000)

enum method { M_PRW, M_PRWV2, M_URING, M_URING_POLL };
static const char *const method_names[] = { "pread/pwrite", "preadv2/pwritev2",
					    "io_uring", "io_uring-iopoll" };

struct ocase {
	bool write;
	enum method m;
	int rwf; /* RWF_* for preadv2/pwritev2 */
	long long pos;
	unsigned int nseg;
	unsigned int len[MAX_SEG];
	int off[MAX_SEG]; /* [0]: buffer offset; then -1 or @page off */
	/* the source is unmapped from unreadable_from bytes into it */
	bool unreadable;
	int unreadable_from;
};

static size_t case_len(const struct ocase *c)
{
	size_t n = 0;

	for (unsigned int i = 0; i < c->nseg; i++)
		n += c->len[i];
	return n;
}

struct side {
	long ret; /* bytes or -errno */
	bool data_ok; /* read: bytes as the file holds them */
	long long i_size; /* after the request */
	bool disk_ok; /* write: the bytes on disk afterwards */
	bool no_answer; /* the kernel did not complete it in ANSWER_SECS */
	char json[1024]; /* the simulator's outcome */
};

/* A difference this kernel legitimately shows (not the baseline). */
struct known {
	const char *fs; /* NULL: both */
	bool (*match)(const struct ocase *c, const struct side *k,
		      const struct side *s);
	const char *reason;
};

static bool nowait_write(const struct ocase *c, const struct side *k)
{
	return c->write && (c->rwf & RWF_NOWAIT) && k->ret == -EAGAIN;
}

static bool xfs_nowait_write(const struct ocase *c, const struct side *k,
			     const struct side *s)
{
	(void)s;
	return nowait_write(c, k);
}

/* An aligned overwrite of blocks that hold data, inside the file. */
static bool written_overwrite(const struct ocase *c)
{
	long long end = c->pos + (long long)case_len(c);

	return !(c->pos % FSB) && !(end % FSB) && end <= FILE_SIZE &&
	       (end <= DATA0_END || c->pos >= UNWR_END);
}

static bool ext4_nowait_refused(const struct ocase *c, const struct side *k,
				const struct side *s)
{
	return nowait_write(c, k) &&
	       (s->i_size > FILE_SIZE || !written_overwrite(c));
}

/* A polled read the simulated block layer refuses on a queue without poll */
static bool polled_on_unpollable(const struct ocase *c, const struct side *k,
				 const struct side *s)
{
	return c->m == M_URING_POLL && s->ret == -EOPNOTSUPP && k->ret >= 0 &&
	       k->data_ok;
}

/* 100 + 3996 bytes, the second right after the first in memory */
static bool merged_segments(const struct ocase *c, const struct side *k,
			    const struct side *s)
{
	return c->nseg == 2 && c->len[0] == 100 && c->off[1] < 0 &&
	       k->ret == 4096 && s->ret == -EINVAL;
}

/*
 * ext4 finishes a direct write that came back short, 0 included, with a
 * buffered write (ext4_dio_write_iter() -> ext4_buffered_write_iter()),
 * which faults on the same source: EFAULT where iomap (the simulator)
 * said 0 or a short count.
 */
static bool ext4_buffered_after_short(const struct ocase *c,
				      const struct side *k,
				      const struct side *s)
{
	return c->unreadable && k->ret == -EFAULT && s->ret >= 0 &&
	       (size_t)s->ret < (size_t)c->len[0];
}

static const struct known known[] = {
	{ NULL, merged_segments,
	  "R-01: the kernel's bio_iov_add_page()/bio_iov_add_folio() merges "
	  "a segment that continues the previous one in memory into the same "
	  "bvec (bvec_try_merge_page()), so 100 + 3996 contiguous bytes are "
	  "one 4096-byte bvec and pass bio_split_io_at(); the simulated block "
	  "layer extracts each iovec segment into bvecs of its own, as "
	  "iov_iter_extract_bvecs() does, and the 100-byte bvec fails the "
	  "length check (B-30).  The same lengths apart in memory give EINVAL "
	  "on both sides" },
	{ "xfs", xfs_nowait_write,
	  "R-02: RWF_NOWAIT writes on xfs: xfs_file_write_checks() calls "
	  "kiocb_modified(), which under IOCB_NOWAIT refuses with EAGAIN when "
	  "the timestamps need a transaction, before iomap is called; testfs "
	  "keeps no timestamps (file-system policy, not iomap's)" },
	{ "ext4", ext4_buffered_after_short,
	  "R-03: ext4 completes a short direct write with a buffered one "
	  "(ext4_dio_write_iter() -> ext4_buffered_write_iter()), which "
	  "faults on the unreadable source: EFAULT, where iomap's own answer "
	  "is 0 or a short count (the findings 0001-tail-zeroing-replaces-"
	  "error and 0002-second-pass-rezeroes-head, hidden by ext4's "
	  "fallback, or a correct short write); testfs has no buffered "
	  "fallback" },
	{ "ext4", ext4_nowait_refused,
	  "R-04: RWF_NOWAIT writes on ext4: ext4_dio_write_checks() refuses "
	  "with EAGAIN before iomap a write that would block: one past EOF "
	  "(the inode lock exclusive, an orphan record) and, in trees that "
	  "allow only pure overwrites (6.1), one that is unaligned or not "
	  "over written blocks (ext4_overwrite_io()); testfs blocks on "
	  "nothing there (file-system policy, not iomap's)" },
	{ NULL, polled_on_unpollable,
	  "R-05: a polled (IOPOLL) read on a queue that cannot poll: "
	  "submit_bio_noacct() of 6.1 clears REQ_POLLED (bio_clear_polled()) "
	  "and the bio completes by interrupt; the simulated block layer "
	  "follows later trees, whose submit path ends such a bio with "
	  "BLK_STS_NOTSUPP (B-26)" },
};

/*
 * A wrong answer of the kernel itself, found by the simulator first: its
 * name (as the simulator's findings call it) and what shows it.
 */
struct finding {
	const char *fs; /* NULL: both */
	const char *name;
	bool (*match)(const struct ocase *c, const struct side *k);
	const char *what;
	/* the right answer a kernel with the fix gives where @s is wrong */
	bool (*fixed)(const struct ocase *c, const struct side *k,
		      const struct side *s);
	const char *fix;
};

/* A non-empty write that returned 0 (errno 0). */
static bool write_returned_zero(const struct ocase *c, const struct side *k)
{
	return c->write && k->ret == 0;
}

/* The bytes a read can return: up to EOF. */
static long avail(const struct ocase *c)
{
	long long n = FILE_SIZE - c->pos;

	return n <= 0 ? 0 : n < (long long)case_len(c) ? n : (long)case_len(c);
}

/* A polled read that returned fewer bytes than the file holds there. */
static bool iopoll_read_short(const struct ocase *c, const struct side *k)
{
	return !c->write && c->m == M_URING_POLL && k->ret >= 0 &&
	       k->ret < avail(c);
}

/* A write that reported bytes which do not read back. */
static bool reported_not_on_disk(const struct ocase *c, const struct side *k)
{
	return c->write && k->ret > 0 && !k->disk_ok;
}

/*
 * The source's fault, kept: what iomap_dio_bio_iter() hands back when
 * bio_iov_iter_get_pages() cannot pin the source and nothing is lost.
 */
static bool kept_efault(const struct ocase *c, const struct side *k,
			const struct side *s)
{
	(void)s;
	return c->unreadable && k->ret == -EFAULT;
}

/* The error kept, or a short count that is on disk. */
static bool kept_efault_or_on_disk(const struct ocase *c, const struct side *k,
				   const struct side *s)
{
	return kept_efault(c, k, s) ||
	       (k->ret > 0 && k->disk_ok && k->ret <= s->ret);
}

static const struct finding findings[] = {
	{ NULL, "0001-tail-zeroing-replaces-error", write_returned_zero,
	  "iomap_dio_bio_iter(): bio_iov_iter_get_pages() fails (the source "
	  "cannot be pinned) and the pass falls through to the sub-block "
	  "tail zeroing, whose \"ret = iomap_dio_zero()\" replaces the "
	  "-EFAULT with 0; with nothing copied iomap_iter() stops and "
	  "iomap_dio_rw() returns 0",
	  kept_efault,
	  "the failed pin's -EFAULT survives the tail zeroing (\"iomap: "
	  "don't lose a failed direct I/O bio's error when zeroing the "
	  "tail\")" },
	{ NULL, "0002-second-pass-rezeroes-head", reported_not_on_disk,
	  "a first pass writes the readable page and stops mid-block; the "
	  "second pass starts inside the same unwritten block, zeroes it "
	  "from its start up to the position (G-30) over the bytes just "
	  "written, fails to pin, and its tail zeroing's 0 hides the error: "
	  "the write reports bytes that read back as zeroes (K6)",
	  kept_efault_or_on_disk,
	  "no bytes are reported that are not on disk: the second pass's "
	  "-EFAULT survives (0001's fix) or the head is not zeroed again" },
	{ NULL, "0005-iopoll-partial-read-loses-bytes", iopoll_read_short,
	  "io_uring (6.1): a polled read that iomap completes in the "
	  "submitter short of its length (at EOF, G-48a) is retried from "
	  "io-wq for the rest; the retry's 0 reaches the CQE through "
	  "io_complete_rw_iopoll(), which does not add io->bytes_done "
	  "(io_fixup_rw_res()) as io_complete_rw() does: the bytes read are "
	  "lost from the result",
	  NULL, NULL },
};

static char img_path[PATH_MAX], loop_dev[64], mnt_dir[256];
/* the device formatted: the loop device, or ORACLE_DEVICE */
static const char *dev_path;
static bool mounted;

static int skip(const char *why)
{
	printf("SKIP: %s\n", why);
	return 77;
}

/*
 * Run @argv, its standard input from the file @in when not NULL; its
 * stdout into @out; the exit status.
 */
static int run_in(char *const argv[], const char *in, char *out, size_t outlen)
{
	int p[2], st;
	ssize_t n = 0, r;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);
		int fd = in ? open(in, O_RDONLY) : -1;

		if (fd >= 0)
			dup2(fd, 0);
		dup2(p[1], 1);
		if (null >= 0 && !out)
			dup2(null, 2);
		close(p[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (out && (size_t)n + 1 < outlen &&
	       (r = read(p[0], out + n, outlen - 1 - n)) > 0)
		n += r;
	if (out)
		out[n] = '\0';
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(char *const argv[], char *out, size_t outlen)
{
	return run_in(argv, NULL, out, outlen);
}

static bool have(const char *prog)
{
	char *argv[] = { "sh", "-c", NULL, NULL };
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", prog);
	argv[2] = cmd;
	return run(argv, NULL, 0) == 0;
}

static void teardown(void)
{
	/* a request the kernel never completed keeps the file busy */
	if (mounted && (!umount(mnt_dir) || !umount2(mnt_dir, MNT_DETACH)))
		mounted = false;
	if (mnt_dir[0] && !mounted)
		rmdir(mnt_dir);
	if (loop_dev[0]) {
		char *argv[] = { "losetup", "-d", loop_dev, NULL };

		run(argv, NULL, 0);
		loop_dev[0] = '\0';
	}
	if (img_path[0])
		unlink(img_path);
	img_path[0] = mnt_dir[0] = '\0';
}

/* A loop device over a sparse file in the build tree, in dev_path. */
static int setup_loop(const char *fs)
{
	const char *bin = getenv("IOMAPSIM_BIN");
	char *losetup[] = { "losetup", "--find", "--show", img_path, NULL };
	int fd;

	snprintf(img_path, sizeof(img_path), "%s/oracle-%s-XXXXXX",
		 bin ? bin : ".", fs);
	fd = mkstemp(img_path);
	if (fd < 0 || ftruncate(fd, IMG_SIZE)) {
		perror(img_path);
		return -1;
	}
	close(fd);
	if (run(losetup, loop_dev, sizeof(loop_dev)) || !loop_dev[0])
		return -1;
	loop_dev[strcspn(loop_dev, "\n")] = '\0';
	dev_path = loop_dev;
	return 0;
}

/* A file system of type @fs on the device, mounted. */
static int setup(const char *fs)
{
	char *mkfs_ext4[] = {
		"mkfs.ext4", "-q", "-F", "-b", "4096", NULL, NULL
	};
	char *mkfs_xfs[] = { "mkfs.xfs",  "-q", "-f", "-b",
			     "size=4096", NULL, NULL };

	dev_path = getenv("ORACLE_DEVICE");
	if (!dev_path && setup_loop(fs))
		return -1;
	mkfs_ext4[5] = mkfs_xfs[5] = (char *)dev_path;
	if (run(!strcmp(fs, "xfs") ? mkfs_xfs : mkfs_ext4, NULL, 0))
		return -1;
	strcpy(mnt_dir, "/tmp/iomapsim-oracle-XXXXXX");
	if (!mkdtemp(mnt_dir) || mount(dev_path, mnt_dir, fs, 0, NULL)) {
		perror(mnt_dir);
		return -1;
	}
	mounted = true;
	return 0;
}

/* What reads of the file return at @off: testfs's pattern where data. */
static void model_fill(unsigned char *dst, long long off, size_t len)
{
	size_t i;

	testfs_pattern_fill(dst, off, len);
	for (i = 0; i < len; i++, off++)
		if (!(off < DATA0_END || (off >= UNWR_END && off < FILE_SIZE)))
			dst[i] = 0;
}

/* Lay the file out again; its path in @path. */
static int make_file(char *path, size_t len)
{
	static unsigned char buf[FILE_SIZE];
	int fd;

	snprintf(path, len, "%s/f", mnt_dir);
	unlink(path);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	testfs_pattern_fill(buf, 0, FILE_SIZE);
	if (pwrite(fd, buf, DATA0_END, 0) != DATA0_END ||
	    pwrite(fd, buf + UNWR_END, FILE_SIZE - UNWR_END, UNWR_END) !=
		    FILE_SIZE - UNWR_END ||
	    fallocate(fd, 0, UNWR_START, UNWR_END - UNWR_START) || fsync(fd) ||
	    /*
	     * No cached pages: a RWF_NOWAIT direct write over cached pages
	     * is -EAGAIN (kiocb_invalidate_pages()), and testfs's file has
	     * none either.
	     */
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The file's extent map as `iomapsim run` options. */
static int read_map(const char *path, char *opts, size_t len)
{
	/* room for 32 extents after the header (fm_extents[] is flexible) */
	union {
		struct fiemap fm;
		char room[sizeof(struct fiemap) +
			  32 * sizeof(struct fiemap_extent)];
	} m = { 0 };
	long long cursor = 0, end = (FILE_SIZE + FSB - 1) / FSB * FSB;
	size_t n;
	unsigned int i;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	m.fm.fm_length = ~0ULL;
	m.fm.fm_flags = FIEMAP_FLAG_SYNC;
	m.fm.fm_extent_count = 32;
	if (ioctl(fd, FS_IOC_FIEMAP, &m)) {
		close(fd);
		return -1;
	}
	close(fd);
	n = snprintf(opts, len, "--size %d", FILE_SIZE);
	for (i = 0; i < m.fm.fm_mapped_extents && cursor < end; i++) {
		const struct fiemap_extent *e = &m.fm.fm_extents[i];
		long long lo = e->fe_logical, hi = lo + e->fe_length;

		if (hi > end) /* preallocation past EOF: not file data */
			hi = end;
		if (lo > cursor)
			n += snprintf(opts + n, len - n,
				      " --map hole:%lld:%lld", cursor,
				      lo - cursor);
		if (hi > lo)
			n += snprintf(opts + n, len - n, " --map %s:%lld:%lld",
				      e->fe_flags & FIEMAP_EXTENT_UNWRITTEN ?
					      "unwritten" :
					      "mapped",
				      lo, hi - lo);
		cursor = hi;
	}
	return n < len ? 0 : -1;
}

/*
 * The request on an io_uring ring (IOPOLL for M_URING_POLL) into k->ret;
 * 0, or the ring's setup error.
 */
static int uring_issue(const struct ocase *c, int fd, struct iovec *iov,
		       struct side *k)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int rc = io_uring_queue_init(
		4, &ring, c->m == M_URING_POLL ? IORING_SETUP_IOPOLL : 0);

	if (rc)
		return rc;
	sqe = io_uring_get_sqe(&ring);
	if (c->write)
		io_uring_prep_writev(sqe, fd, iov, c->nseg, c->pos);
	else
		io_uring_prep_readv(sqe, fd, iov, c->nseg, c->pos);
	/*
	 * An IOPOLL wait honours no timeout (io_iopoll_check()), only a
	 * signal: SIGALRM, which interrupts without restart
	 */
	alarm(ANSWER_SECS);
	rc = io_uring_submit_and_wait(&ring, 1);
	if (rc >= 0)
		rc = io_uring_wait_cqe(&ring, &cqe);
	alarm(0);
	k->no_answer = rc == -EINTR;
	k->ret = rc < 0 ? rc : cqe->res;
	io_uring_queue_exit(&ring);
	return 0;
}

/* The kernel side: the request as syscalls on the real file. */
static int kernel_side(const struct ocase *c, const char *path, struct side *k)
{
	static unsigned char buf[BUF_SIZE] __attribute__((aligned(4096)));
	static unsigned char want[BUF_SIZE], got[BUF_SIZE];
	struct iovec iov[MAX_SEG];
	size_t len = case_len(c), at = 0, done = 0;
	unsigned char *mem = buf;
	struct stat st;
	int fd, rc;

	/* a source the kernel cannot read all of: memory of its own */
	if (c->unreadable) {
		mem = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return -1;
	}
	memset(mem, 0xee, BUF_SIZE);
	for (unsigned int i = 0; i < c->nseg; i++) {
		if (i && c->off[i] >= 0)
			at = (at + 4095) / 4096 * 4096 + c->off[i];
		else if (!i)
			at = c->off[0];
		iov[i].iov_base = mem + at;
		iov[i].iov_len = c->len[i];
		if (c->write)
			testfs_write_pattern_fill(mem + at, c->pos + done,
						  c->len[i]);
		at += c->len[i];
		done += c->len[i];
	}

	if (c->unreadable) {
		size_t from = c->off[0] + c->unreadable_from;

		if (munmap(mem + from, BUF_SIZE - from)) {
			munmap(mem, BUF_SIZE);
			return -1;
		}
	}
	fd = open(path, (c->write ? O_RDWR : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		if (c->unreadable)
			munmap(mem, BUF_SIZE);
		return -1;
	}
	switch (c->m) {
	case M_PRW:
		k->ret = c->write ? pwrite(fd, iov[0].iov_base, len, c->pos) :
				    pread(fd, iov[0].iov_base, len, c->pos);
		if (k->ret < 0)
			k->ret = -errno;
		break;
	case M_PRWV2:
		k->ret = c->write ? pwritev2(fd, iov, c->nseg, c->pos, c->rwf) :
				    preadv2(fd, iov, c->nseg, c->pos, c->rwf);
		if (k->ret < 0)
			k->ret = -errno;
		break;
	default:
		rc = uring_issue(c, fd, iov, k);
		if (rc) {
			close(fd);
			return rc;
		}
		break;
	}
	fstat(fd, &st);
	k->i_size = st.st_size;
	close(fd);
	if (c->unreadable)
		munmap(mem, BUF_SIZE);

	/* the bytes read, gathered, against the file's contents */
	k->data_ok = true;
	if (!c->write && k->ret > 0) {
		done = 0;
		for (unsigned int i = 0; i < c->nseg && done < (size_t)k->ret;
		     i++) {
			size_t n = c->len[i];

			if (n > (size_t)k->ret - done)
				n = k->ret - done;
			memcpy(got + done, iov[i].iov_base, n);
			done += n;
		}
		model_fill(want, c->pos, k->ret);
		k->data_ok = !memcmp(got, want, k->ret);
	}
	/* after a write: what is on disk where it wrote */
	k->disk_ok = true;
	if (c->write && k->ret > 0) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || pread(fd, got, k->ret, c->pos) != k->ret)
			k->disk_ok = false;
		if (fd >= 0)
			close(fd);
		testfs_write_pattern_fill(want, c->pos, k->ret);
		k->disk_ok = k->disk_ok && !memcmp(got, want, k->ret);
	}
	return 0;
}

/* The same request as an `iomapsim run` command line, into @cmd. */
static void sim_cmdline(const struct ocase *c, const char *map, char *cmd,
			size_t len)
{
	static const struct {
		int rwf;
		const char *name;
	} flags[] = {
		{ RWF_NOWAIT, "NOWAIT" },
		{ RWF_HIPRI, "HIPRI" },
		{ RWF_DSYNC, "DSYNC" },
		{ RWF_SYNC, "SYNC" },
	};
	const char *sep = " --iocb ";
	size_t n;

	n = snprintf(cmd, len,
		     "--fs-block %d --lbs 512 %s --no-poll --op %s "
		     "--pos %lld --len %zu --buf-offset %d --iter iovec:",
		     FSB, map, c->write ? "write" : "read", c->pos, case_len(c),
		     c->off[0]);
	for (unsigned int i = 0; i < c->nseg; i++) {
		n += snprintf(cmd + n, len - n, "%s%u", i ? "," : "",
			      c->len[i]);
		if (i && c->off[i] >= 0)
			n += snprintf(cmd + n, len - n, "@%d", c->off[i]);
	}
	/* one segment: "iovec:L" would be a count, "iovec:L@0" is not */
	if (c->nseg == 1)
		n += snprintf(cmd + n, len - n, "@0");
	if (c->m == M_PRWV2)
		for (unsigned int i = 0; i < 4; i++)
			if (c->rwf & flags[i].rwf) {
				n += snprintf(cmd + n, len - n, "%s%s", sep,
					      flags[i].name);
				sep = ",";
			}
	/*
	 * The source unreadable from there; and the file system's write
	 * completion converts unwritten extents, as xfs_dio_write_end_io()
	 * and ext4_dio_write_end_io() do, so that the bytes a short write
	 * reports are checked where they land (an unconverted extent reads
	 * zeroes whatever was written).
	 */
	if (c->unreadable)
		n += snprintf(cmd + n, len - n,
			      " --fault unmapped:%d --dops end_io",
			      c->unreadable_from);
	if (c->m == M_URING || c->m == M_URING_POLL)
		n += snprintf(cmd + n, len - n, " --async");
	if (c->m == M_URING_POLL)
		n += snprintf(cmd + n, len - n, " --iocb HIPRI");
}

static long json_long(const char *json, const char *key, long dflt)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	return p ? strtol(p + strlen(k), NULL, 10) : dflt;
}

/* The grid of cases, and the simulator's outcome of each. */
static struct ocase grid[512];
static unsigned int nr_grid;
static char sim_json[512][1024];

static bool case_chosen(unsigned int i);

/*
 * Every chosen case through one `iomapsim batch` (one process, not one a
 * case: inside UML a fork and exec cost more than the request), its JSON
 * line into sim_json[case].
 */
static int sim_batch(const char *map)
{
	const char *bin = getenv("IOMAPSIM_BIN");
	char exe[PATH_MAX], in[] = "/tmp/iomapsim-oracle-batch-XXXXXX";
	char cmd[2048], *out, *line, *save = NULL;
	char *argv[] = { exe, "batch", NULL };
	unsigned int idx[512], n = 0, i;
	size_t outlen = sizeof(sim_json) + 4096;
	int fd = mkstemp(in), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return -1;
	for (i = 0; i < nr_grid; i++) {
		if (!case_chosen(i))
			continue;
		sim_cmdline(&grid[i], map, cmd, sizeof(cmd));
		fprintf(f, "%s\n", cmd);
		idx[n++] = i;
	}
	fclose(f);
	out = malloc(outlen);
	snprintf(exe, sizeof(exe), "%s/iomapsim", bin ? bin : ".");
	rc = out ? run_in(argv, in, out, outlen) : -1;
	unlink(in);
	memset(sim_json, 0, sizeof(sim_json));
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		long no = json_long(line, "line", 0);

		if (no >= 1 && (unsigned long)no <= n)
			snprintf(sim_json[idx[no - 1]], sizeof(sim_json[0]),
				 "%s", line);
	}
	free(out);
	return rc;
}

static int sim_side(unsigned int i, struct side *s)
{
	if (sim_json[i][0] != '{' || strstr(sim_json[i], "\"error\":"))
		return -1;
	snprintf(s->json, sizeof(s->json), "%s", sim_json[i]);
	s->ret = json_long(s->json, "ret", LONG_MIN);
	s->i_size = json_long(s->json, "i_size", -1);
	s->data_ok = !strstr(s->json, "\"data\":\"mismatch\"");
	s->disk_ok = s->data_ok;
	return 0;
}

static void describe(const struct ocase *c, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s %s pos %lld segs",
			    c->write ? "write" : "read", method_names[c->m],
			    c->pos);

	/* as --iter iovec: takes them, the buffer offset first */
	n += snprintf(buf + n, len - n, " %u (buffer +%d)", c->len[0],
		      c->off[0]);
	for (unsigned int i = 1; i < c->nseg; i++)
		n += c->off[i] < 0 ?
			     snprintf(buf + n, len - n, ",%u", c->len[i]) :
			     snprintf(buf + n, len - n, ",%u@%d", c->len[i],
				      c->off[i]);
	if (c->rwf)
		n += snprintf(buf + n, len - n, " rwf %#x", c->rwf);
	if (c->unreadable)
		snprintf(buf + n, len - n, " source unmapped from +%d",
			 c->unreadable_from);
}

/* ---- the grid ----------------------------------------------------- */

static void add(bool write, enum method m, int rwf, long long pos,
		unsigned int nseg, const unsigned int *len, const int *off)
{
	struct ocase *c = &grid[nr_grid++];

	c->write = write;
	c->m = m;
	c->rwf = rwf;
	c->pos = pos;
	c->nseg = nseg;
	memcpy(c->len, len, nseg * sizeof(*len));
	memcpy(c->off, off, nseg * sizeof(*off));
}

static void build_grid(void)
{
	/* buffer layouts: offsets, a second segment, segment lengths */
	static const struct {
		unsigned int nseg, len[MAX_SEG];
		int off[MAX_SEG];
	} lay[] = {
		{ 1, { 4096 }, { 0 } },
		{ 1, { 4096 }, { 1 } },
		{ 1, { 4096 }, { 8 } },
		{ 1, { 4096 }, { 511 } },
		{ 1, { 4096 }, { 512 } },
		{ 1, { 4096 }, { 2048 } },
		{ 1, { 512 }, { 1 } },
		{ 1, { 8192 }, { 0 } },
		{ 2, { 4096, 4096 }, { 0, 1 } },
		{ 2, { 4096, 4096 }, { 0, 512 } },
		{ 2, { 100, 3996 }, { 0, 0 } },
		{ 2, { 100, 3996 }, { 0, -1 } },
		{ 2, { 512, 3584 }, { 0, 0 } },
		{ 2, { 3584, 512 }, { 0, 1 } },
	};
	/* where: data, hole, unwritten, the tail, past EOF, sub-block */
	static const long long where[] = { 0, 16384, 32768, 65536, 73728, 512 };
	static const int rwfs[] = { 0, RWF_NOWAIT, RWF_HIPRI, RWF_DSYNC };
	static const long long unreadable_at[] = { DATA0_END + 512,
						   UNWR_START + 512, DATA0_END,
						   UNWR_START, 512 };
	unsigned int l, w, f;

	for (l = 0; l < sizeof(lay) / sizeof(lay[0]); l++) {
		for (w = 0; w < 2; w++) {
			add(w, lay[l].nseg == 1 ? M_PRW : M_PRWV2, 0, 0,
			    lay[l].nseg, lay[l].len, lay[l].off);
			add(w, M_URING, 0, 4096, lay[l].nseg, lay[l].len,
			    lay[l].off);
		}
	}
	for (w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
		for (f = 0; f < sizeof(rwfs) / sizeof(rwfs[0]); f++) {
			add(false, M_PRWV2, rwfs[f], where[w], 1, lay[0].len,
			    lay[0].off);
			add(true, M_PRWV2, rwfs[f], where[w], 1, lay[0].len,
			    lay[0].off);
		}
		add(false, M_URING_POLL, 0, where[w], 1, lay[0].len,
		    lay[0].off);
	}
	/* misaligned position and length */
	add(false, M_PRW, 0, 1, 1, lay[0].len, lay[0].off);
	add(false, M_PRW, 0, 0, 1, (const unsigned int[]){ 100 }, lay[0].off);
	add(true, M_PRW, 0, 4095, 1, lay[0].len, lay[0].off);

	/*
	 * 8 KiB written from a source unreadable from its start or from its
	 * second page, at a sub-block offset and at a block into the hole
	 * and the unwritten extent, and at a sub-block offset into data.
	 */
	for (w = 0; w < sizeof(unreadable_at) / sizeof(unreadable_at[0]); w++) {
		for (f = 0; f < 2; f++) {
			add(true, M_PRW, 0, unreadable_at[w], 1, lay[7].len,
			    lay[7].off);
			grid[nr_grid - 1].unreadable = true;
			grid[nr_grid - 1].unreadable_from = f * 4096;
		}
	}
}

/* ---- one file system ---------------------------------------------- */

#define NR_FINDINGS (sizeof(findings) / sizeof(findings[0]))
#define NR_KNOWN (sizeof(known) / sizeof(known[0]))

/*
 * An answer wrong in itself: a non-empty write that returned 0 or bytes
 * not on disk; a read that returned fewer bytes than the file holds
 * there (it may stop early only with an error).
 */
static bool wrong_answer(const struct ocase *c, const struct side *x)
{
	if (!c->write)
		return x->ret >= 0 && x->ret < avail(c);
	return case_len(c) && (x->ret == 0 || (x->ret > 0 && !x->disk_ok));
}

/* The finding that names @x's wrong answer on @fs, or -1. */
static int finding_of(const char *fs, const struct ocase *c,
		      const struct side *x)
{
	unsigned int j;

	for (j = 0; j < NR_FINDINGS; j++)
		if ((!findings[j].fs || !strcmp(findings[j].fs, fs)) &&
		    findings[j].match(c, x))
			return j;
	return -1;
}

struct tally {
	unsigned int cases, same, explained, found, fixed, unanswered;
	unsigned int unexplained;
	/* per finding: cases where the kernel carries it, or the fix */
	unsigned int carries[NR_FINDINGS], has_fix[NR_FINDINGS];
};

/*
 * One difference, or a wrong answer of the kernel: printed with its
 * explanation and counted.  In order: the kernel wrong (a finding, or
 * unexplained); file-system policy (known[]); the simulator's code wrong
 * where the kernel is right (the kernel has the finding's fix);
 * anything else unexplained.
 */
static void judge(const char *fs, const struct ocase *c, const struct side *k,
		  const struct side *s, struct tally *t)
{
	int f = finding_of(fs, c, k);
	unsigned int j;

	if (wrong_answer(c, k)) {
		if (f < 0) {
			printf("  UNEXPLAINED: the kernel's answer is wrong and "
			       "no finding lists it\n");
			t->unexplained++;
			return;
		}
		/* the same answer, wrong the same way */
		printf("  FINDING %s%s: %s\n", findings[f].name,
		       k->ret == s->ret && k->i_size == s->i_size &&
				       k->disk_ok == s->disk_ok ?
			       " (the simulator agrees)" :
			       "",
		       findings[f].what);
		t->found++;
		t->carries[f]++;
		return;
	}
	for (j = 0; j < NR_KNOWN; j++)
		if ((!known[j].fs || !strcmp(known[j].fs, fs)) &&
		    known[j].match(c, k, s)) {
			printf("  explained, %s\n", known[j].reason);
			t->explained++;
			return;
		}
	f = wrong_answer(c, s) ? finding_of(fs, c, s) : -1;
	if (f >= 0 && findings[f].fixed && findings[f].fixed(c, k, s)) {
		printf("  FIXED IN THIS KERNEL %s: the simulator's code gives "
		       "the finding's answer; the kernel's is right: %s\n",
		       findings[f].name, findings[f].fix);
		t->fixed++;
		t->has_fix[f]++;
		return;
	}
	printf("  UNEXPLAINED\n");
	t->unexplained++;
}

/* ORACLE_CASES=N,M,...: only those cases (to look at one again) */
static bool case_chosen(unsigned int i)
{
	const char *p = getenv("ORACLE_CASES");
	char *end;

	if (!p || !*p)
		return true;
	while (*p) {
		if (strtoul(p, &end, 10) == i && end != p)
			return true;
		if (end == p || !*end)
			break;
		p = end + 1;
	}
	return false;
}

static int run_fs(const char *fs, struct tally *t)
{
	char path[PATH_MAX], map[1024], what[256];
	bool dirty = true;
	unsigned int i;

	if (setup(fs)) {
		printf("%s: cannot set up the device and file system\n", fs);
		return -1;
	}
	if (make_file(path, sizeof(path)) || read_map(path, map, sizeof(map))) {
		printf("%s: cannot lay out the file\n", fs);
		return -1;
	}
	printf("%s on %s: %s\n", fs, dev_path, map);
	if (sim_batch(map)) {
		printf("%s: iomapsim batch failed\n", fs);
		return -1;
	}
	for (i = 0; i < nr_grid; i++) {
		const struct ocase *c = &grid[i];
		struct side k = { 0 }, s = { 0 };

		if (!case_chosen(i))
			continue;
		if (dirty && make_file(path, sizeof(path)))
			return -1;
		dirty = c->write;
		if (kernel_side(c, path, &k) || sim_side(i, &s)) {
			printf("%s case %u: could not run\n", fs, i);
			return -1;
		}
		t->cases++;
		describe(c, what, sizeof(what));
		if (k.no_answer) {
			/*
			 * Nothing to compare: the running kernel's trouble,
			 * not the code under test's (seen once on a loaded
			 * machine's 6.18.44, an io_uring request on a loop
			 * device); said, counted, and the file laid again
			 */
			printf("%s case %u: %s\n  NO ANSWER: the kernel did "
			       "not complete the request in %d s\n",
			       fs, i, what, ANSWER_SECS);
			t->unanswered++;
			dirty = true;
			continue;
		}
		if (k.ret == s.ret && k.data_ok && s.data_ok &&
		    (!c->write ||
		     (k.i_size == s.i_size && k.disk_ok && s.disk_ok)) &&
		    !wrong_answer(c, &k)) {
			t->same++;
			if (getenv("ORACLE_VERBOSE") &&
			    *getenv("ORACLE_VERBOSE"))
				printf("%s case %u: %s: both %ld\n", fs, i,
				       what, k.ret);
			continue;
		}
		printf("%s case %u: %s\n  kernel: ret %ld%s i_size %lld%s\n"
		       "  iomapsim run: %s\n",
		       fs, i, what, k.ret,
		       k.data_ok ? "" : " (bytes read differ from the file)",
		       k.i_size,
		       k.disk_ok ? "" :
				   " (bytes reported written differ on disk)",
		       s.json);
		judge(fs, c, &k, &s, t);
	}
	unlink(path);
	teardown();
	return 0;
}

/* Which findings this kernel shows on @fs, and which it has the fix for. */
static void print_findings(const char *fs, const struct tally *t)
{
	const char *sep = "";
	unsigned int j;

	printf("%s: this kernel carries:", fs);
	for (j = 0; j < NR_FINDINGS; j++)
		if (t->carries[j]) {
			printf("%s %s (%u cases)", sep, findings[j].name,
			       t->carries[j]);
			sep = ",";
		}
	printf("%s; has the fix for:", *sep ? "" : " none");
	sep = "";
	for (j = 0; j < NR_FINDINGS; j++)
		if (t->has_fix[j]) {
			printf("%s %s (%u cases)", sep, findings[j].name,
			       t->has_fix[j]);
			sep = ",";
		}
	printf("%s\n", *sep ? "" : " none shown");
}

/* SIGALRM only interrupts a wait (no SA_RESTART): ANSWER_SECS */
static void on_alarm(int sig)
{
	(void)sig;
}

/* Why this program cannot run here, or NULL. */
static const char *missing(void)
{
	const char *dev = getenv("ORACLE_DEVICE");

	if (geteuid())
		return "needs root (loop devices, mkfs, mount)";
	if (dev && access(dev, R_OK | W_OK))
		return "ORACLE_DEVICE is not a device this program can open";
	if (!dev && access("/dev/loop-control", F_OK))
		return "no /dev/loop-control";
	if ((!dev && !have("losetup")) || !have("mkfs.ext4") ||
	    !have("mkfs.xfs"))
		return "needs losetup, mkfs.ext4 (e2fsprogs) and mkfs.xfs "
		       "(xfsprogs): scripts/quickstart.sh deps";
	return NULL;
}

int main(void)
{
	static const char *const fss[] = { "ext4", "xfs" };
	const char *why = missing();
	unsigned int f, fails = 0;
	struct utsname u;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (why)
		return skip(why);
	sigaction(SIGALRM, &(struct sigaction){ .sa_handler = on_alarm }, NULL);
	atexit(teardown);
	build_grid();
	/* the version string alone does not say which fixes it carries */
	if (!uname(&u))
		printf("kernel: %s %s %s\n", u.sysname, u.release, u.version);
	for (f = 0; f < 2; f++) {
		struct tally t = { 0 };

		if (run_fs(fss[f], &t)) {
			teardown();
			return 1;
		}
		printf("%s: %u cases, %u the same, %u explained, %u findings, "
		       "%u fixed in this kernel, %u unanswered, %u "
		       "unexplained\n",
		       fss[f], t.cases, t.same, t.explained, t.found, t.fixed,
		       t.unanswered, t.unexplained);
		print_findings(fss[f], &t);
		fails += t.unexplained;
	}
	return fails ? 1 : 0;
}
