// SPDX-License-Identifier: GPL-2.0-only
/*
 * A direct write from a source buffer the kernel cannot read, at a
 * sub-block offset into a hole: the real-kernel reproducer of two iomap
 * findings.
 *
 *  - Tail zeroing replaces the error: in iomap_dio_bio_iter(), when
 *    bio_iov_iter_get_pages() fails, the pass falls through to the
 *    sub-block tail zeroing, whose "ret = iomap_dio_zero(...)" turns the
 *    -EFAULT into 0; with nothing copied the pass reports no progress,
 *    iomap_iter() stops and iomap_dio_rw() returns 0.  A caller that
 *    retries short writes spins for ever.
 *  - A second pass re-zeroes the head of a block the same dio wrote: with
 *    the first page of the buffer readable and the second not, the first
 *    pass writes one page and stops mid-block; the second pass starts at
 *    the next position inside an unwritten block, zeroes that block from
 *    its start up to the position (over the bytes just written), fails
 *    to pin, and its tail zeroing's 0 hides the error again.  The write
 *    reports 4096 bytes; the last 512 of them read back as zeroes.
 *
 * What it does: open FILE O_RDWR|O_CREAT|O_TRUNC|O_DIRECT, ftruncate() it
 * to 1 MiB (one hole; with -w the first 64 KiB are written first, so the
 * write lands on written blocks; with -u they are fallocate()d, so it
 * lands in unwritten extents), map 8 KiB and pwrite(fd, buf, 8192,
 * OFFSET) (OFFSET 512 unless -o says otherwise), with the buffer:
 *   prot-none   8 KiB mapped PROT_NONE
 *   unmapped    8 KiB mapped, then unmapped again
 *   half        the first page readable and filled with 0xAB, the second
 *               unmapped
 * Then the bytes the write reports are read back with O_DIRECT.
 *
 * Exit status: 1 when the kernel is wrong (the write returned 0 for a
 * non-empty request, reported bytes from an unreadable page, or reported
 * bytes that do not read back), 0 when it is right (an error such as
 * EFAULT, or a short count whose bytes are on disk), 2 when the test
 * could not run.  One line says what happened.
 *
 * Setup (root; a 512-byte-sector loop device, 4 KiB file system blocks;
 * losetup's default sector size is 512):
 *
 *	truncate -s 512M /tmp/img
 *	dev=$(losetup --find --show /tmp/img)
 *	mkfs.xfs -q -f -b size=4096 $dev     # or: mkfs.ext4 -q -F -b 4096 $dev
 *	mkdir -p /mnt/t && mount $dev /mnt/t
 *	build/dio_write_efault /mnt/t/f prot-none
 *	build/dio_write_efault /mnt/t/f half
 *	umount /mnt/t && losetup -d $dev && rm /tmp/img
 *
 * Measured on a build of 6.18.44 these machines booted until late 2026
 * (a 512 MiB image, the commands above):
 *   xfs, into a hole or into unwritten extents (-u), at 512:
 *	prot-none, unmapped: 0, errno 0 (exit 1)
 *	half: 4096; bytes 4096-4607 read back as zeroes (exit 1)
 *   xfs at 4096, or over written blocks (-w): -1 EFAULT (exit 0)
 *   ext4, every case above: -1 EFAULT (exit 0): it finishes a short
 *	direct write with a buffered one, which fails with EFAULT.
 * A later build with the same version string (booted on 2026-12-07)
 * carries upstream's fix ("iomap: don't lose a failed direct I/O bio's
 * error when zeroing the tail"): xfs gives -1 EFAULT (exit 0) in every
 * case above, "half" included.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define FILE_LEN (1 << 20)
#define BUF_LEN 8192
#define PAGE 4096
#define FILL 0xAB

static int usage(void)
{
	fprintf(stderr, "usage: dio_write_efault [-w|-u] [-o OFFSET] FILE "
			"prot-none|unmapped|half\n");
	return 2;
}

static int fail(const char *what)
{
	perror(what);
	return 2;
}

/* The source buffer of @mode; NULL with errno set on failure. */
static unsigned char *make_buf(const char *mode)
{
	unsigned char *p;

	if (!strcmp(mode, "prot-none")) {
		p = mmap(NULL, BUF_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	p = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (!strcmp(mode, "unmapped")) {
		if (munmap(p, BUF_LEN))
			return NULL;
		return p;
	}
	if (!strcmp(mode, "half")) {
		memset(p, FILL, PAGE);
		if (munmap(p + PAGE, BUF_LEN - PAGE))
			return NULL;
		return p;
	}
	errno = EINVAL;
	return NULL;
}

/* Written blocks under the write: the first 64 KiB hold 0x5A. */
static int prewrite(int fd)
{
	void *p;
	int ok;

	if (posix_memalign(&p, PAGE, 65536))
		return -1;
	memset(p, 0x5A, 65536);
	ok = pwrite(fd, p, 65536, 0) == 65536 && !fsync(fd);
	free(p);
	return ok ? 0 : -1;
}

/*
 * Read back [off, off + n) with O_DIRECT and count the bytes that are not
 * FILL (in @zeroes those that are 0); -1 if the read fails.
 */
static long count_wrong(const char *path, long long off, long n,
			long *first_wrong, long *zeroes)
{
	long long start = off & ~(long long)(PAGE - 1);
	size_t span = ((off + n - start) + PAGE - 1) & ~(size_t)(PAGE - 1);
	unsigned char *p;
	long i, wrong = 0;
	void *mem;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&mem, PAGE, span))
		return -1;
	p = mem;
	if (pread(fd, p, span, start) != (ssize_t)span) {
		free(mem);
		close(fd);
		return -1;
	}
	close(fd);
	*first_wrong = -1;
	*zeroes = 0;
	for (i = 0; i < n; i++)
		if (p[off - start + i] != FILL) {
			if (*first_wrong < 0)
				*first_wrong = off + i;
			*zeroes += !p[off - start + i];
			wrong++;
		}
	free(mem);
	return wrong;
}

int main(int argc, char **argv)
{
	long long off = 512;
	int written = 0, unwritten = 0, opt, fd, err;
	const char *path, *mode;
	unsigned char *buf;
	long wrong, first, zeroes;
	ssize_t ret;

	while ((opt = getopt(argc, argv, "wuo:")) != -1) {
		if (opt == 'w')
			written = 1;
		else if (opt == 'u')
			unwritten = 1;
		else if (opt == 'o')
			off = strtoll(optarg, NULL, 0);
		else
			return usage();
	}
	if (argc - optind != 2 || off < 0 || off > FILE_LEN - BUF_LEN ||
	    (written && unwritten))
		return usage();
	path = argv[optind];
	mode = argv[optind + 1];

	buf = make_buf(mode);
	if (!buf)
		return errno == EINVAL ? usage() : fail("mmap");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0)
		return fail(path);
	if (ftruncate(fd, FILE_LEN))
		return fail("ftruncate");
	if (written && prewrite(fd))
		return fail("writing the first 64 KiB");
	if (unwritten && fallocate(fd, 0, 0, 65536))
		return fail("fallocate");

	errno = 0;
	ret = pwrite(fd, buf, BUF_LEN, off);
	err = errno;
	close(fd);
	printf("%s, %s, %s: pwrite(fd, buf, %d, %lld) = %zd", path, mode,
	       written	 ? "over written blocks" :
	       unwritten ? "into unwritten extents" :
			   "into a hole",
	       BUF_LEN, off, ret);
	if (ret < 0) {
		printf(" (%s): right\n", strerror(err));
		return 0;
	}
	if (ret == 0) {
		printf(", errno %d: WRONG: a non-empty direct write returned "
		       "0\n",
		       err);
		return 1;
	}
	if (strcmp(mode, "half") || ret > PAGE) {
		printf(": WRONG: bytes reported written from a page the kernel "
		       "cannot read\n");
		return 1;
	}
	wrong = count_wrong(path, off, ret, &first, &zeroes);
	if (wrong < 0)
		return fail("reading back");
	if (wrong) {
		printf(": WRONG: %ld of the bytes reported written read back "
		       "otherwise, %ld of them as zeroes (from file offset "
		       "%ld)\n",
		       wrong, zeroes, first);
		return 1;
	}
	printf(": right (short, and the bytes are on disk)\n");
	return 0;
}
