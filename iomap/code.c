// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which iomap code this build runs (<sim/iomap.h>): the embedded
 * iomap/direct-io.c and iter.c, or a kernel tree's, whose path and
 * checksums cmake/kernel-tree.cmake hands to this file alone (so that
 * reconfiguring against another tree rebuilds only it), and what that
 * code offers (<sim/iomap_features.h>).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <linux/compiler.h>
#include <sim/iomap.h>
#include <sim/iomap_features.h>

/* ---- features ------------------------------------------------------------ */

struct feature {
	const char *name;
	const char *value;	/* NULL: a yes/no feature, see @on */
	bool on;
};

#define FEAT_WORD(n, v) { .name = (n), .value = (v) }
#define FEAT_BOOL(n, b) { .name = (n), .on = (b) }

/* the words, chosen by the preprocessor (a static initializer's) */
#if IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_NONE
#define SIMPLE_WORD "none"
#elif IOMAPSIM_SIMPLE_PATH == IOMAPSIM_SIMPLE_IN_DIO_RW
#define SIMPLE_WORD "iomap_dio_rw"
#else
#define SIMPLE_WORD "iomap_dio_read_simple"
#endif
#if IOMAPSIM_ZERO_PAGE == IOMAPSIM_ZERO_PAGE0
#define ZERO_WORD "ZERO_PAGE"
#elif IOMAPSIM_ZERO_PAGE == IOMAPSIM_ZERO_PAGE_64K
#define ZERO_WORD "64k_page"
#else
#define ZERO_WORD "largest_zero_folio"
#endif
#define __word(x) #x
#define WORD(x) __word(x)

/*
 * In the order of cmake/ksrc/features.cmake's message; the names are the
 * "features" object of `iomapsim run`'s "code" key.
 */
static const struct feature features[] = {
	FEAT_WORD("simple", SIMPLE_WORD),
	FEAT_WORD("mapping", IOMAPSIM_MAPPING_NEXT_FN ? "iomap_iter_next_fn" :
							"iomap_ops"),
	FEAT_WORD("iter", IOMAPSIM_ITER_STATUS ? "iomap_iter_advance" :
						 "processed"),
	FEAT_WORD("bio_iov_iter_get_pages", WORD(IOMAPSIM_GET_PAGES_ARGS)),
	FEAT_WORD("zero", ZERO_WORD),
	FEAT_BOOL("caller_comp", IOMAPSIM_DIO_CALLER_COMP),
	FEAT_BOOL("inline_comp", IOMAPSIM_DIO_INLINE_COMP),
	FEAT_BOOL("comp_work", IOMAPSIM_DIO_COMP_WORK),
	FEAT_BOOL("atomic", IOMAPSIM_ATOMIC),
	FEAT_BOOL("fsblock_aligned", IOMAPSIM_FSBLOCK_ALIGNED),
	FEAT_BOOL("bounce", IOMAPSIM_BOUNCE),
	FEAT_BOOL("f_integrity", IOMAPSIM_F_INTEGRITY),
	FEAT_BOOL("fs_integrity", IOMAPSIM_FS_INTEGRITY),
	FEAT_BOOL("crypto_submit", IOMAPSIM_CRYPTO_SUBMIT),
	FEAT_BOOL("kmalloc_obj", IOMAPSIM_KMALLOC_OBJ),
	FEAT_BOOL("ioend_direct", IOMAPSIM_IOEND_DIRECT),
	FEAT_BOOL("dio_trace", IOMAPSIM_DIO_TRACE),
	FEAT_BOOL("fserror", IOMAPSIM_FSERROR),
	FEAT_BOOL("dma_checked_upfront", IOMAPSIM_DMA_CHECKED_UPFRONT),
	FEAT_BOOL("inline_one_page", IOMAPSIM_INLINE_ONE_PAGE),
	FEAT_BOOL("bio_opflags_helper", IOMAPSIM_BIO_OPFLAGS_HELPER),
	FEAT_BOOL("kiocb_invalidate", IOMAPSIM_KIOCB_INVALIDATE),
	FEAT_BOOL("fua_no_cache", IOMAPSIM_FUA_NO_CACHE),
	FEAT_BOOL("zero_returns_int", IOMAPSIM_ZERO_RETURNS_INT),
	FEAT_BOOL("bio_page_refs", IOMAPSIM_BIO_PAGE_REFS),
	FEAT_BOOL("error_punt", IOMAPSIM_ERROR_PUNT),
	FEAT_BOOL("read_wq", IOMAPSIM_READ_WQ),
	FEAT_BOOL("atomic_put_pinned", IOMAPSIM_ATOMIC_PUT_PINNED),
	FEAT_BOOL("fua_mapped_only", IOMAPSIM_FUA_MAPPED_ONLY),
	FEAT_BOOL("proposal", IOMAPSIM_PROPOSAL),
};

static __maybe_unused char *features_json(char *p, char *end)
{
	p += snprintf(p, end - p, "{");
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		const struct feature *f = &features[i];

		p += snprintf(p, end - p, "%s\"%s\":", i ? "," : "", f->name);
		if (f->value)
			p += snprintf(p, end - p, "\"%s\"", f->value);
		else
			p += snprintf(p, end - p, "%s",
				      f->on ? "true" : "false");
	}
	return p + snprintf(p, end - p, "}");
}

/* "simple=none mapping=iomap_ops ... atomic fsblock_aligned ..." */
static char *features_text(char *p, char *end)
{
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		const struct feature *f = &features[i];

		if (f->value)
			p += snprintf(p, end - p, "%s%s=%s", i ? " " : "",
				      f->name, f->value);
		else if (f->on)
			p += snprintf(p, end - p, " %s", f->name);
	}
	return p;
}

/* ---- the code ------------------------------------------------------------ */

static char code_json[8192], code_text[8192];

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
static char *sums_map(char *p, char *end,
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

static void code_fill(void)
{
	char *p = code_json, *end = code_json + sizeof(code_json);

	p += snprintf(p, end - p, "{\"tree\":");
	put_json_string(&p, end, IOMAPSIM_KSRC_TREE,
			strlen(IOMAPSIM_KSRC_TREE));
	p += snprintf(p, end - p, ",\"features\":");
	p = features_json(p, end);
	p += snprintf(p, end - p, ",\"sha256\":{");
	p = sums_map(p, end, sum_json);
	snprintf(p, end - p, "}}");

	p = code_text;
	end = code_text + sizeof(code_text);
	p += snprintf(p, end - p, "kernel tree %s;", IOMAPSIM_KSRC_TREE);
	p = sums_map(p, end, sum_text);
	p += snprintf(p, end - p, "; features: ");
	features_text(p, end);
}

#else

static void code_fill(void)
{
	char *p = code_text, *end = code_text + sizeof(code_text);

	snprintf(code_json, sizeof(code_json), "\"embedded\"");
	p += snprintf(p, end - p,
		      "embedded (iomap/direct-io.c, iomap/iter.c); features: ");
	features_text(p, end);
}

#endif

/* filled once, whichever thread asks first (the mount's stats file) */
static pthread_once_t code_once = PTHREAD_ONCE_INIT;

const char *iomapsim_code_json(void)
{
	pthread_once(&code_once, code_fill);
	return code_json;
}

const char *iomapsim_code_text(void)
{
	pthread_once(&code_once, code_fill);
	return code_text;
}
