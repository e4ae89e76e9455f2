// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reading of `iomapsim run` options and `iomapsim batch` lines that
 * tests/real/real-batch.c shares: see args.h.  Plain C only, since that
 * file is built without the simulator's kernel-shaped headers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"

bool cli_parse_ull(const char *s, int base, unsigned long long *v, char **end)
{
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, end, base);
	return !errno && *end != s;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (!cli_parse_ull(s, 0, &v, &end))
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	}
	if (*end || (shift && v > (~0ULL >> shift)))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

int cli_split_colons(const char *s, char *buf, size_t size, char **f, int max)
{
	char *t, *save = NULL;
	int i, n = 0;

	if (strlen(s) >= size)
		return -1;
	strcpy(buf, s);
	for (i = 0; i < max; i++)
		f[i] = NULL;
	for (t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		if (n == max)
			return max + 1;
		f[n++] = t;
	}
	return n;
}

int cli_parse_iov_seg(char *tok, uint32_t *len, int32_t *page_off,
		      const char **off)
{
	char *at = strchr(tok, '@');
	uint64_t l, o = 0;

	if (at)
		*at = '\0';
	if (!cli_parse_u64(tok, &l) || !l || l > UINT32_MAX)
		return -1;
	*off = at ? at + 1 : NULL;
	if (at && (!cli_parse_u64(at + 1, &o) || o >= 4096))
		return -2;
	*len = (uint32_t)l;
	*page_off = at ? (int32_t)o : -1;
	return 0;
}

enum cli_iter cli_parse_iter(const char *s, uint64_t *segs)
{
	static const char *const words[] = {
		[CLI_ITER_UBUF] = "ubuf",
		[CLI_ITER_KVEC] = "kvec",
		[CLI_ITER_BVEC] = "bvec",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return (enum cli_iter)i;
	if (strncmp(s, "iovec:", 6))
		return CLI_ITER_BAD;
	if (cli_parse_u64(s + 6, segs) && *segs >= 1 && *segs <= 1024)
		return CLI_ITER_IOVEC;
	return strpbrk(s + 6, ",@") ? CLI_ITER_IOVEC_LIST : CLI_ITER_BAD;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Split @line into words in place, as a shell would for these options:
 * blanks separate, '...' and "..." quote, a backslash escapes the next
 * character, '#' at the start of a word ends the line.  Returns the number
 * of words, or -1 with @why set.
 */
static int split_words(char *line, char **words, int max, const char **why)
{
	char *r = line, *w = line;
	int n = 0;

	for (;;) {
		char quote = 0;

		while (is_blank(*r))
			r++;
		if (!*r || *r == '#')
			return n;
		if (n == max) {
			*why = "too many words";
			return -1;
		}
		words[n++] = w;
		for (; *r; r++) {
			if (quote) {
				if (*r == quote) {
					quote = 0;
					continue;
				}
				if (*r == '\\' && quote == '"' && r[1])
					r++;
				*w++ = *r;
				continue;
			}
			if (is_blank(*r))
				break;
			if (*r == '\'' || *r == '"') {
				quote = *r;
				continue;
			}
			if (*r == '\\' && r[1])
				r++;
			*w++ = *r;
		}
		if (quote) {
			*why = "unterminated quote";
			return -1;
		}
		/* the word ends here; the blank that ended it can be written */
		if (*r)
			r++;
		*w++ = '\0';
	}
}

int cli_split_request(char *line, char **words, int max, const char *name,
		      char ***argv, const char **why)
{
	char **args = words;
	int n = split_words(line, words + 1, max, why);

	if (n <= 0)
		return n;
	/* words[0] stands for the command's name, as argv[0] */
	if (n >= 2 && !strcmp(args[1], "iomapsim") && !strcmp(args[2], "run")) {
		args += 2;
		n -= 2;
	}
	args[0] = (char *)name;
	args[n + 1] = NULL;
	*argv = args;
	return n + 1;
}
