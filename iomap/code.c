// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which iomap code this build runs (<sim/iomap.h>): the embedded
 * iomap/direct-io.c and iter.c, or a kernel tree's, whose path and
 * checksums cmake/kernel-tree.cmake hands to this file alone (so that
 * reconfiguring against another tree rebuilds only it).
 */
#include <stdio.h>
#include <string.h>
#include <sim/iomap.h>
#include <sim/iomap_fs.h>

#ifdef IOMAPSIM_KSRC_TREE

/* "path=sum,path=sum" as configured */
static const char ksrc_sums[] = IOMAPSIM_KSRC_SUMS;

static void put_json_string(char **p, char *end, const char *s, size_t n)
{
	*p += snprintf(*p, end - *p, "\"");
	for (size_t i = 0; i < n && *p < end - 2; i++) {
		if (s[i] == '"' || s[i] == '\\')
			*(*p)++ = '\\';
		*(*p)++ = s[i];
	}
	*p += snprintf(*p, end - *p, "\"");
}

/* Each "path=sum" of IOMAPSIM_KSRC_SUMS, to @fn; @fn returns the new end. */
static char *for_each_sum(char *p, char *end,
		char *(*fn)(char *p, char *end, const char *path, int plen,
			    const char *sum, int slen, bool first))
{
	const char *s = ksrc_sums;
	bool first = true;

	while (*s) {
		const char *eq = strchr(s, '='), *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);

		p = fn(p, end, s, eq - s, eq + 1, n - (eq + 1 - s), first);
		first = false;
		s += n + (s[n] == ',');
	}
	return p;
}

static char *sum_json(char *p, char *end, const char *path, int plen,
		const char *sum, int slen, bool first)
{
	if (!first)
		p += snprintf(p, end - p, ",");
	put_json_string(&p, end, path, plen);
	p += snprintf(p, end - p, ":");
	put_json_string(&p, end, sum, slen);
	return p;
}

static char *sum_text(char *p, char *end, const char *path, int plen,
		const char *sum, int slen, bool first)
{
	return p + snprintf(p, end - p, " %.*s sha256 %.*s", plen, path, slen,
			    sum);
}

const char *iomap_sim_code_json(void)
{
	static char buf[8192];
	char *p = buf, *end = buf + sizeof(buf);

	if (buf[0])
		return buf;
	p += snprintf(p, end - p, "{\"tree\":");
	put_json_string(&p, end, IOMAPSIM_KSRC_TREE,
			strlen(IOMAPSIM_KSRC_TREE));
	p += snprintf(p, end - p, ",\"generation\":\"%c\",\"sha256\":{",
		      iomap_sim_generation());
	p = for_each_sum(p, end, sum_json);
	snprintf(p, end - p, "}}");
	return buf;
}

const char *iomap_sim_code_text(void)
{
	static char buf[8192];
	char *p = buf, *end = buf + sizeof(buf);

	if (buf[0])
		return buf;
	p += snprintf(p, end - p, "kernel tree %s (generation %c)",
		      IOMAPSIM_KSRC_TREE, iomap_sim_generation());
	for_each_sum(p, end, sum_text);
	return buf;
}

#else

const char *iomap_sim_code_json(void)
{
	return "\"embedded\"";
}

const char *iomap_sim_code_text(void)
{
	return "embedded (iomap/direct-io.c, iomap/iter.c)";
}

#endif
