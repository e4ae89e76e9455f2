// SPDX-License-Identifier: GPL-2.0-only
/*
 * An O_DIRECT pwritev() whose last segment is off the device's DMA
 * alignment, after enough aligned segments for more than one bio: the
 * real-kernel reproducer of finding 0004.
 *
 * In trees whose bio_iov_iter_get_pages() checks the memory while it
 * builds the bio ("block: validate user space vectors during
 * extraction"), the second bio takes aligned segments, then meets the
 * misaligned one: bio_iov_iter_get_pages() releases the bio's pages and
 * returns -EINVAL without reverting the iterator over the segments it
 * took.  iomap_dio_bio_iter() keeps the first bio's bytes, re-expands the
 * iterator by what it did not submit, and the next pass's
 * bio_iov_vecs_to_alloc() -> iov_iter_npages() walks segments until that
 * count is used up: past the end of the iovec array.  Under KASAN:
 * "BUG: KASAN: slab-out-of-bounds in iov_iter_npages"; without it the
 * write still fails with EINVAL, after reading memory it does not own.
 *
 * What it does: open FILE O_RDWR|O_CREAT|O_DIRECT, write its first
 * 2 MiB with plain aligned writes (so the direct write lands on written
 * blocks and XFS takes its unaligned-write path for none of it), then
 * pwritev(fd, iov, 34, 0) with 33 segments of 32 KiB from page-aligned
 * memory and a 34th of 512 bytes one byte past a page boundary.  The
 * iovec array is allocated on its own (malloc of exactly 34 entries), so
 * that the read past it is a read past a heap object.
 *
 * Exit status: 0 when the write failed with EINVAL (what every kernel
 * answers; the out-of-bounds read, where there is one, shows only in
 * the kernel log), 1 for any other answer, 2 when it could not run.
 *
 * Setup: any file system on a device with 512-byte sectors and
 * dma_alignment 511 (a ubd device in UML, a loop device); measured in
 * docs/findings/0004-refused-bio-leaves-iterator-past-segments.md.
 *
 *	build/dio_iovec_past_segments /mnt/t/f
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#define NR_ALIGNED 33
#define SEG (32 << 10)
#define TAIL 512
#define FILE_LEN (2 << 20)

int main(int argc, char **argv)
{
	struct iovec *iov;
	char *mem, *tail;
	ssize_t ret;
	int fd, i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	/* the segments' memory, and one page more for the misaligned tail */
	if (posix_memalign((void **)&mem, 4096, NR_ALIGNED * SEG + 8192)) {
		fprintf(stderr, "out of memory\n");
		return 2;
	}
	memset(mem, 0x5a, NR_ALIGNED * SEG + 8192);
	for (i = 0; i < FILE_LEN; i += NR_ALIGNED * SEG)
		if (pwrite(fd, mem,
			   FILE_LEN - i < NR_ALIGNED * SEG ? FILE_LEN - i :
							     NR_ALIGNED * SEG,
			   i) < 0) {
			perror("pwrite");
			return 2;
		}
	iov = malloc((NR_ALIGNED + 1) * sizeof(*iov));
	if (!iov)
		return 2;
	for (i = 0; i < NR_ALIGNED; i++) {
		iov[i].iov_base = mem + i * SEG;
		iov[i].iov_len = SEG;
	}
	tail = mem + NR_ALIGNED * SEG + 4096 + 1;
	iov[NR_ALIGNED].iov_base = tail;
	iov[NR_ALIGNED].iov_len = TAIL;
	ret = pwritev(fd, iov, NR_ALIGNED + 1, 0);
	printf("%s: pwritev(fd, %d x %d + %d bytes 1 past a page, 0) = %zd",
	       argv[1], NR_ALIGNED, SEG, TAIL, ret);
	if (ret < 0)
		printf(" (%s)", strerror(errno));
	printf(": %s\n", ret < 0 && errno == EINVAL ?
				 "EINVAL, as expected; look in the kernel log "
				 "for a KASAN report" :
				 "unexpected");
	free(iov);
	free(mem);
	close(fd);
	return ret < 0 && errno == EINVAL ? 0 : 1;
}
