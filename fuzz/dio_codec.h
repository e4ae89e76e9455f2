/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_dio's input format: bytes <-> a request for the request runner
 * (fs/testfs/request.h) plus the engine seed, and the equivalent
 * `iomapsim run ...` command line.
 *
 * Only what `iomapsim run` can express is encoded, so every input, and so
 * every finding, is a one-line command.  The layout is fixed-offset and
 * append-only (fuzz_common.h): a 40-byte header, then 6 bytes per extent,
 * then 8 bytes per fault.
 *
 *  off  size  field
 *   0   1     fs block size: 512 << (b % 8)
 *   1   1     device logical block size: 512 << (b % 4), at most the above
 *   2   1     file: 1 encrypted, 2 no-simple-mount, 4 write-cache, 8 fua
 *   3   1     dops (b % 4): none, end_io, submit_io, bio_set; b == 4:
 *             ioend (a value no input before it held)
 *   4   1     iomap entry point (b % 3): ops, next, begin
 *   5   1     request: 1 write, 2 async, 4 no-simple, 8 done_before given
 *   6   1     iterator (b % 4): ubuf, iovec, kvec, bvec
 *   7   1     completion (b % 4): irq, inline, deferred, random
 *   8   2+2   i_size: blocks, tail      (see dio_span() below)
 *  12   2+2   pos: blocks, tail
 *  16   2+2   len: blocks, tail
 *  20   2     iovec segments: 1 + v % 1024 (at most len)
 *  22   2     buffer offset
 *  24   2     done_before (if flagged)
 *  26   1     IOCB_*: 1 NOWAIT, 2 HIPRI, 4 DSYNC, 8 SYNC, 16 ATOMIC
 *  27   1     IOMAP_DIO_* (low 6 bits, the kernel's values)
 *  28   4     engine seed
 *  32   1     extents: b % 17 (0: the whole file mapped)
 *  33   1     faults: b % 9
 *  34   1     snap: 1 pos, 2 len, 4 buffer offset down to 512 bytes
 *  35   1     device: dma_alignment 2^(b & 15) - 1 if that is 1..12, else
 *             the default 511; 0x10 no poll queues
 *  36   1     explicit iovec segments: b % 5 (0: none; iovec only)
 *  37   1     their first segment's length: b < 128: 4 b bytes, else
 *             512 (b - 127) bytes; 0 (or too long): equal pieces; the
 *             others share the rest equally, the last the remainder
 *  38   1     segment i (1..4) starts in a page of its own if bit i - 1
 *  39   1     ... at this offset: b < 128: b, else 32 (b - 128)
 *
 * Extent: type (b % 5, the IOMAP_* type), flags (1 new, 2 shared, 4 dirty,
 * 8 integrity, 16 stale, 32 atomic: IOMAP_F_ATOMIC_BIO, and the device
 * gets IOMAPSIM_ATOMIC_MAX atomic writes), gap from the previous extent's
 * end (blocks), length (blocks, at least 1).  An inline extent's data
 * ends s bytes short of its last block, where s is (g / 3 % 10922 +
 * 10922 * (l / 8)) % fsb for small-range gap g and length l codes (0 for
 * the large range); the next extent's gap counts from the end of that
 * block.  Fault: kind (b % 4: bio-error, alloc-fail,
 * short-pin, begin-error), a (u8), b (u16), c (u32).
 *
 * Sizes in blocks use a two-range code so random inputs stay small (a
 * run costs in proportion to the file): v < 0x8000 means v % SMALL
 * blocks, otherwise (v & 0x7fff) % (limit + 1).  A tail t is t % (2 fsb),
 * and 0 when that is >= fsb, so half the values are block aligned.
 */
#ifndef _FUZZ_DIO_CODEC_H
#define _FUZZ_DIO_CODEC_H

#include <stdio.h>
#include <linux/types.h>
#include "request.h"

#define DIO_HDR_SIZE 40
#define DIO_EXT_SIZE 6
#define DIO_FAULT_SIZE 8
#define DIO_MAX_EXT 16
#define DIO_MAX_FAULTS 8
#define DIO_FAULT_SPEC 48

/*
 * Largest i_size, position and extent end, and largest request, in whole
 * blocks; a tail of up to a block less than 64 KiB comes on top.
 */
#define DIO_MAX_SPAN (1 << 20)
#define DIO_MAX_LEN (256 << 10)
#define DIO_MAX_BUF (DIO_MAX_LEN + 65536) /* any decoded len fits */

struct dio_input {
	struct testfs_request req;
	u64 seed;
	char spec[IOMAPSIM_MAX_FAULTS][DIO_FAULT_SPEC];
	/*
	 * The dio and extent flag bits as the input gives them, by name:
	 * a flag the iomap code linked in lacks decodes to nothing in @req,
	 * and @missing names it (the input cannot be expressed here, as
	 * `iomapsim run` refuses the flag).
	 */
	u8 dio_bits;
	u8 ext_bits[DIO_MAX_EXT];
	const char *missing;
};

/* Every byte string decodes to a request (which may still be refused). */
void dio_decode(const u8 *data, size_t size, struct dio_input *in);

/*
 * The inverse, for the seed corpus: 0 with @buf/@len filled, or -EINVAL
 * and a reason when @req uses something the format (or `iomapsim run`)
 * cannot express.  @buf must hold DIO_MAX_INPUT bytes.
 */
#define DIO_MAX_INPUT                                \
	(DIO_HDR_SIZE + DIO_MAX_EXT * DIO_EXT_SIZE + \
	 DIO_MAX_FAULTS * DIO_FAULT_SIZE)
int dio_encode(const struct testfs_request *req, u64 seed, u8 *buf, size_t *len,
	       char *why, size_t whylen);

/* "iomapsim run --fs-block ... --seed S" for @in. */
void dio_print_cmdline(const struct dio_input *in, FILE *out);

#endif /* _FUZZ_DIO_CODEC_H */
