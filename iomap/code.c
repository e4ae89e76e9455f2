// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which iomap code this build runs (<sim/iomap.h>): the embedded
 * iomap/direct-io.c and iter.c, or a kernel tree's, whose path and
 * checksums cmake/kernel-tree.cmake hands to this file alone (so that
 * reconfiguring against another tree rebuilds only it).
 */
#include <pthread.h>
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

static char code_json[8192], code_text[8192];

static void code_json_fill(void)
{
	char *p = code_json, *end = code_json + sizeof(code_json);

	p += snprintf(p, end - p, "{\"tree\":");
	put_json_string(&p, end, IOMAPSIM_KSRC_TREE,
			strlen(IOMAPSIM_KSRC_TREE));
	p += snprintf(p, end - p, ",\"generation\":\"%c\",\"sha256\":{",
		      iomap_sim_generation());
	p = for_each_sum(p, end, sum_json);
	snprintf(p, end - p, "}}");
}

static void code_text_fill(void)
{
	char *p = code_text, *end = code_text + sizeof(code_text);

	p += snprintf(p, end - p, "kernel tree %s (generation %c)",
		      IOMAPSIM_KSRC_TREE, iomap_sim_generation());
	for_each_sum(p, end, sum_text);
}

/* filled once, whichever thread asks first (the mount's stats file) */
static pthread_once_t code_once = PTHREAD_ONCE_INIT;

static void code_fill(void)
{
	code_json_fill();
	code_text_fill();
}

const char *iomap_sim_code_json(void)
{
	pthread_once(&code_once, code_fill);
	return code_json;
}

const char *iomap_sim_code_text(void)
{
	pthread_once(&code_once, code_fill);
	return code_text;
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
