/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `iomapsim run` and `iomapsim batch` read, in plain C (no
 * kernel-shaped header): tests/real/real-batch.c, built without them to
 * run the same request lines on a real kernel, reads them with this code
 * too, so that both sides take a line the same way.
 */
#ifndef _IOMAPSIM_CLI_ARGS_H
#define _IOMAPSIM_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A number at the start of @s in @base (0: decimal, 0x or 0 prefixed),
 * without a sign; *@end points after it.  False if there is none or it
 * does not fit.
 */
bool cli_parse_ull(const char *s, int base, unsigned long long *v, char **end);

/*
 * A size or count: decimal or 0x hex, optionally followed by k, m or g
 * (binary multiples).  False if @s is not one.
 */
bool cli_parse_u64(const char *s, uint64_t *out);

/*
 * @s split at ':' (empty fields skipped, as strtok() does) in @buf of
 * @size bytes: the first @max fields into @f, NULL for those missing.
 * Returns how many there are (@max + 1 when there are more), or -1 when
 * @s does not fit into @buf.
 */
int cli_split_colons(const char *s, char *buf, size_t size, char **f, int max);

/*
 * One segment of --iter iovec:L1,L2@OFF,... (@tok, cut at its '@'): its
 * length, 1 .. UINT32_MAX, in *@len and the offset into a page of its own
 * it starts at, 0 .. 4095, in *@page_off (-1: right after the segment
 * before).  0, -1 for a bad length, or -2 for a bad offset (*@off).
 */
int cli_parse_iov_seg(char *tok, uint32_t *len, int32_t *page_off,
		      const char **off);

/* The iterators --iter names. */
enum cli_iter {
	CLI_ITER_UBUF,
	CLI_ITER_KVEC,
	CLI_ITER_BVEC,
	CLI_ITER_IOVEC, /* iovec:K: K equal pieces of one buffer */
	CLI_ITER_IOVEC_LIST, /* iovec:L1,L2@OFF,...: segments of their own */
	CLI_ITER_BAD,
};

/*
 * The iterator --iter @s names: ubuf, kvec, bvec, iovec:K with K (1 ..
 * 1024) in *@segs, or a list of segments to read from @s + 6 with
 * cli_parse_iov_seg(); CLI_ITER_BAD for anything else.
 */
enum cli_iter cli_parse_iter(const char *s, uint64_t *segs);

/*
 * One request line of `iomapsim batch` as an argument vector: split in
 * place into @words[1..@max] as a shell would split these options, an
 * "iomapsim run" in front skipped, @name as argv[0] and a NULL after the
 * last one.  Returns argc with *@argv set, 0 for a blank or comment line,
 * or -1 with *@why set.
 */
int cli_split_request(char *line, char **words, int max, const char *name,
		      char ***argv, const char **why);

#endif /* _IOMAPSIM_CLI_ARGS_H */
