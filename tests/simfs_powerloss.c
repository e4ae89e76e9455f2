// SPDX-License-Identifier: GPL-2.0-only
/*
 * simfs_powerloss: power-loss replay, the dm-log-writes method, through
 * the real FUSE mount.
 *
 * A fresh image is copied aside (the base), then mounted with
 * -o logwrites=LOG,commit=0, so every write, flush and FUA bio that
 * reaches the image is logged in completion order (block/backend-logw.c,
 * format in <sim/logw-format.h>).  A seeded random workload modifies
 * files (O_DIRECT and buffered writes, truncate, punch hole, zero range,
 * create, unlink), fsyncs or fdatasyncs some of them, and marks the log
 * through MOUNT/.iomapsim/log-writes: "mod:F" before it touches file F,
 * "fsync:F:V" once an fsync of F returned, V naming the contents F had.
 *
 * Then the log is replayed into copies of the base: up to each flush
 * entry, and up to a few random entries between flushes, each time with
 * only what was durable there (FUA writes, and writes a logged flush
 * covers; the other writes are dropped, as a power failure may drop
 * them).  Each copy must be fsck-clean (exit 0: an unclean unmount is
 * expected) and, mounted, show every file whose last mark before that
 * point is an fsync with exactly the contents it had then.
 *
 *   simfs_powerloss [-s SEED] [-n OPS] [-v]
 *
 * Needs root, /dev/fuse and fusermount3, or exits 77 with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/falloc.h>
#include "simfs_daemon.h"
#include "../block/include/sim/logw-format.h"

#define NF 5 /* files p0..p4 */
#define MAXF (256 << 10) /* the model's room per file */
/* each op is about one replay point; TSan's daemon is the slowest */
#if defined(__SANITIZE_THREAD__)
#define DEFAULT_OPS 120
#else
#define DEFAULT_OPS 240
#endif
#define MAX_VERSIONS 4096

struct pfile {
	unsigned char buf[MAXF]; /* zero from size on */
	long long size;
	bool exists;
};

/* What a file held when an fsync of it returned. */
struct version {
	long long size;
	unsigned char *data;
};

struct entry {
	struct logw_entry e;
	long payload; /* file offset of the data or name */
	int mark_f, mark_v; /* a mark: file, version (-1: "mod") */
};

static struct sd_mount dm;
static char tmpdir[256], img[512], base[512], work[512], logp[512];
static struct pfile files[NF];
static struct version versions[MAX_VERSIONS];
static int nr_versions;
static struct entry *ents;
static long nr_ents;
static bool write_cache; /* else every write is durable */
static uint64_t seed;
static bool verbose;

static void cleanup_files(void)
{
	unlink(img);
	unlink(base);
	unlink(work);
	unlink(logp);
	unlink(dm.log);
	rmdir(dm.mnt);
	rmdir(tmpdir);
}

static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
	va_list ap;

	printf("simfs_powerloss: FAILED (seed %" PRIu64 "): ", seed);
	va_start(ap, fmt);
	sd_vfail(&dm, fmt, ap);
	va_end(ap);
	printf("the base image, the log and the last replayed copy are kept "
	       "in %s\n",
	       tmpdir);
	exit(1);
}

static char *fpath(int f)
{
	static char p[2][600];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/p%d", dm.mnt, f);
	return p[k];
}

static void mark(const char *fmt, ...)
{
	char path[600], text[128];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/.iomapsim/log-writes", dm.mnt);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		fail("%s: %s", path, strerror(errno));
	if (write(fd, text, n) != n) {
		int err = errno;

		close(fd);
		fail("\"%s\": %s", text, strerror(err));
	}
	close(fd);
}

/* ---- the workload ----------------------------------------------------- */

static int open_f(int f, int flags)
{
	int fd = open(fpath(f), flags, 0644);

	if (fd < 0)
		fail("open p%d: %s", f, strerror(errno));
	return fd;
}

static void pwrite_all(int fd, const void *p, long long len, long long off,
		       int f)
{
	ssize_t n = pwrite(fd, p, len, off);

	if (n != len)
		fail("write p%d at %lld, %lld bytes: %zd (%s)", f, off, len, n,
		     n < 0 ? strerror(errno) : "short");
}

static void modify(int f)
{
	struct pfile *pf = &files[f];
	long long off, len;
	int fd, r = below(100);

	mark("mod:%d", f);
	if (!pf->exists) {
		fd = open_f(f, O_RDWR | O_CREAT | O_TRUNC);
		close(fd);
		pf->exists = true;
		pf->size = 0;
		memset(pf->buf, 0, MAXF);
		return;
	}
	if (r < 35) { /* O_DIRECT, 4 KiB grain */
		unsigned char *b;

		off = below(MAXF / 4096) * 4096;
		len = (1 + below(16)) * 4096;
		if (off + len > MAXF)
			len = MAXF - off;
		if (posix_memalign((void **)&b, 4096, len))
			fail("out of memory");
		for (long long i = 0; i < len; i++)
			b[i] = (unsigned char)rnd();
		fd = open_f(f, O_RDWR | O_DIRECT);
		pwrite_all(fd, b, len, off, f);
		close(fd);
		memcpy(pf->buf + off, b, len);
		free(b);
	} else if (r < 65) { /* buffered, any byte */
		unsigned char b[16384];

		off = below(MAXF - 1);
		len = 1 + below(sizeof(b));
		if (off + len > MAXF)
			len = MAXF - off;
		for (long long i = 0; i < len; i++)
			b[i] = (unsigned char)rnd();
		fd = open_f(f, O_RDWR);
		pwrite_all(fd, b, len, off, f);
		close(fd);
		memcpy(pf->buf + off, b, len);
	} else if (r < 77) { /* truncate */
		long long size = below(MAXF + 1);

		if (truncate(fpath(f), size))
			fail("truncate p%d to %lld: %s", f, size,
			     strerror(errno));
		if (size < pf->size)
			memset(pf->buf + size, 0, pf->size - size);
		pf->size = size;
		return;
	} else if (r < 94) { /* punch hole or zero range */
		int mode = below(2) ?
				   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
				   FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE;

		off = below(MAXF - 1);
		len = 1 + below(MAXF / 4);
		if (off + len > MAXF)
			len = MAXF - off;
		fd = open_f(f, O_RDWR);
		if (fallocate(fd, mode, off, len))
			fail("fallocate p%d mode %#x: %s", f, mode,
			     strerror(errno));
		close(fd);
		if (off < pf->size)
			memset(pf->buf + off, 0,
			       (off + len < pf->size ? off + len : pf->size) -
				       off);
		return;
	} else { /* unlink */
		if (unlink(fpath(f)))
			fail("unlink p%d: %s", f, strerror(errno));
		pf->exists = false;
		return;
	}
	if (off + len > pf->size)
		pf->size = off + len;
}

static void sync_file(int f, bool datasync)
{
	struct version *v;
	int fd;

	if (!files[f].exists)
		return;
	if (nr_versions == MAX_VERSIONS)
		fail("more than %d fsyncs", MAX_VERSIONS);
	fd = open_f(f, O_RDWR);
	if (datasync ? fdatasync(fd) : fsync(fd))
		fail("%s p%d: %s", datasync ? "fdatasync" : "fsync", f,
		     strerror(errno));
	close(fd);
	v = &versions[nr_versions];
	v->size = files[f].size;
	v->data = malloc(v->size ? v->size : 1);
	if (!v->data)
		fail("out of memory");
	memcpy(v->data, files[f].buf, v->size);
	mark("fsync:%d:%d", f, nr_versions++);
}

static void workload(long ops)
{
	for (long i = 0; i < ops; i++) {
		int f = below(NF);

		modify(f);
		if (below(3) == 0)
			sync_file(f, below(2));
		/* and now and then another file's, which commits f too */
		if (below(10) == 0)
			sync_file(below(NF), false);
	}
	/* every file durable at the end: the last points check them all */
	for (int f = 0; f < NF; f++)
		sync_file(f, false);
}

/* ---- the log ------------------------------------------------------------ */

static void read_log(void)
{
	struct logw_super s;
	long cap = 0;
	FILE *lf = fopen(logp, "rb");

	if (!lf || fread(&s, sizeof(s), 1, lf) != 1)
		fail("%s: cannot read the log header", logp);
	if (memcmp(s.magic, LOGW_MAGIC, sizeof(s.magic)) ||
	    s.version != LOGW_VERSION || s.sector_size != 512)
		fail("%s: not a version %d log-writes log", logp, LOGW_VERSION);
	write_cache = s.features & LOGW_SUPER_WRITE_CACHE;
	for (;;) {
		struct entry *en;

		if (nr_ents == cap) {
			cap = cap ? cap * 2 : 4096;
			ents = realloc(ents, cap * sizeof(*ents));
			if (!ents)
				fail("out of memory");
		}
		en = &ents[nr_ents];
		if (fread(&en->e, sizeof(en->e), 1, lf) != 1)
			break;
		if (en->e.magic != LOGW_ENTRY_MAGIC ||
		    en->e.seq != (uint64_t)nr_ents ||
		    (en->e.type == LOGW_FLUSH &&
		     en->e.covers > (uint64_t)nr_ents))
			fail("%s: entry %ld is damaged", logp, nr_ents);
		en->payload = ftell(lf);
		en->mark_f = -1;
		if (en->e.type == LOGW_MARK) {
			char name[LOGW_MARK_MAX + 1] = "";

			if (en->e.len > LOGW_MARK_MAX ||
			    fread(name, en->e.len, 1, lf) != 1)
				fail("%s: mark %ld is damaged", logp, nr_ents);
			name[en->e.len] = 0;
			en->mark_v = -1;
			if (sscanf(name, "fsync:%d:%d", &en->mark_f,
				   &en->mark_v) != 2 &&
			    sscanf(name, "mod:%d", &en->mark_f) != 1)
				fail("%s: unknown mark \"%s\"", logp, name);
		} else if (fseek(lf, en->e.len, SEEK_CUR)) {
			fail("%s: entry %ld is cut short", logp, nr_ents);
		}
		nr_ents++;
	}
	fclose(lf);
}

/* Copy the base, sparse: only its data extents. */
static void copy_base(void)
{
	int in = open(base, O_RDONLY), out;
	struct stat st;
	static char buf[1 << 20];
	off_t pos = 0;

	out = open(work, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0 || fstat(in, &st) || ftruncate(out, st.st_size))
		fail("copying %s: %s", base, strerror(errno));
	while ((pos = lseek(in, pos, SEEK_DATA)) >= 0) {
		off_t end = lseek(in, pos, SEEK_HOLE);

		while (pos < end) {
			ssize_t n = pread(in, buf,
					  end - pos < (off_t)sizeof(buf) ?
						  end - pos :
						  (off_t)sizeof(buf),
					  pos);

			if (n <= 0 || pwrite(out, buf, n, pos) != n)
				fail("copying %s: %s", base, strerror(errno));
			pos += n;
		}
	}
	close(in);
	close(out);
}

/* The copy as the media could be after entries [0, @p): durable only. */
static long build_copy(long p)
{
	uint64_t covered = 0;
	static char *buf;
	static size_t bufsz;
	long applied = 0;
	FILE *lf;
	int out;

	for (long i = 0; i < p; i++)
		if (ents[i].e.type == LOGW_FLUSH && ents[i].e.covers > covered)
			covered = ents[i].e.covers;
	copy_base();
	lf = fopen(logp, "rb");
	out = open(work, O_RDWR);
	if (!lf || out < 0)
		fail("replay: %s", strerror(errno));
	for (long i = 0; i < p; i++) {
		const struct logw_entry *e = &ents[i].e;

		if (e->type != LOGW_WRITE ||
		    (write_cache && !(e->flags & LOGW_FUA) &&
		     e->seq >= covered))
			continue;
		if (e->len > bufsz) {
			bufsz = e->len;
			buf = realloc(buf, bufsz);
		}
		if (!buf || fseek(lf, ents[i].payload, SEEK_SET) ||
		    fread(buf, e->len, 1, lf) != 1 ||
		    pwrite(out, buf, e->len, e->sector * 512) != e->len)
			fail("replaying entry %ld: %s", i, strerror(errno));
		applied++;
	}
	fclose(lf);
	close(out);
	return applied;
}

static void check_file(int f, const struct version *v, long p)
{
	unsigned char *got = malloc(MAXF + 1);
	int fd = open(fpath(f), O_RDONLY);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		fail("point %ld: p%d, fsync'ed before it, cannot be opened: %s",
		     p, f, strerror(errno));
	if (fstat(fd, &st) || st.st_size != v->size)
		fail("point %ld: p%d has size %lld, fsync'ed with %lld", p, f,
		     (long long)st.st_size, v->size);
	n = pread(fd, got, MAXF + 1, 0);
	if (n != v->size)
		fail("point %ld: p%d read %zd bytes, want %lld", p, f, n,
		     v->size);
	for (long long i = 0; i < v->size; i++)
		if (got[i] != v->data[i])
			fail("point %ld: p%d differs at offset %lld from what "
			     "it had when fsync'ed (0x%02x, want 0x%02x)",
			     p, f, i, got[i], v->data[i]);
	close(fd);
	free(got);
}

/* One replay point: fsck, mount, every fsync'ed file as it was. */
static int check_point(long p)
{
	int want[NF], nr = 0;
	char out[4096], why[1024];
	long applied;

	for (int f = 0; f < NF; f++)
		want[f] = -1;
	for (long i = 0; i < p; i++)
		if (ents[i].e.type == LOGW_MARK)
			want[ents[i].mark_f] = ents[i].mark_v;
	applied = build_copy(p);
	if (sd_run(out, sizeof(out), "%s fsck %s", dm.bin, work))
		fail("point %ld of %ld (%ld writes applied): fsck: %s", p,
		     nr_ents, applied, out);
	if (sd_mount(&dm, work, "ro", why, sizeof(why)))
		fail("point %ld: mount: %s", p, why);
	for (int f = 0; f < NF; f++) {
		if (want[f] < 0)
			continue;
		check_file(f, &versions[want[f]], p);
		nr++;
	}
	if (sd_umount(&dm, why, sizeof(why)))
		fail("point %ld: %s", p, why);
	if (verbose)
		printf("point %ld: %ld writes, %d files checked\n", p, applied,
		       nr);
	return nr;
}

int main(int argc, char **argv)
{
	long ops = DEFAULT_OPS, nflush = 0, nrand = 0, nfiles = 0, prev = 0;
	char out[2048];
	int c;

	seed = time(NULL) ^ (uint64_t)getpid() << 20;
	while ((c = getopt(argc, argv, "s:n:v")) != -1) {
		if (!sd_common_opt(c, &seed, &ops, &verbose)) {
			fprintf(stderr, "usage: simfs_powerloss [-s SEED] "
					"[-n OPS] [-v]\n");
			return 2;
		}
	}
	if (!sd_ops_valid("simfs_powerloss", ops))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sd_rng_state = seed;
	sd_setup(&dm, "pl", tmpdir, sizeof(tmpdir));
	snprintf(img, sizeof(img), "%s/img", tmpdir);
	snprintf(base, sizeof(base), "%s/base", tmpdir);
	snprintf(work, sizeof(work), "%s/replayed", tmpdir);
	snprintf(logp, sizeof(logp), "%s/log", tmpdir);
	printf("simfs_powerloss: seed %" PRIu64 ", %ld ops\n", seed, ops);
	fflush(stdout);

	if (sd_run(out, sizeof(out), "%s mkfs %s --size 32m", dm.bin, img))
		fail("mkfs: %s", out);
	if (sd_run(out, sizeof(out), "cp --sparse=always %s %s", img, base))
		fail("cp: %s", out);
	snprintf(out, sizeof(out), "logwrites=%s,commit=0", logp);
	if (sd_mount(&dm, img, out, out, sizeof(out)))
		fail("mount: %s", out);
	workload(ops);
	if (sd_umount(&dm, out, sizeof(out)))
		fail("%s", out);

	read_log();
	/* each flush, and now and then a point between two of them */
	for (long i = 0; i < nr_ents; i++) {
		if (ents[i].e.type != LOGW_FLUSH)
			continue;
		if (i - prev > 1 && below(3) == 0) {
			nfiles += check_point(prev + 1 + below(i - prev - 1));
			nrand++;
		}
		nfiles += check_point(i + 1);
		nflush++;
		prev = i + 1;
	}
	if (nflush < 10)
		fail("only %ld flushes in the log: the workload did not sync",
		     nflush);
	printf("simfs_powerloss: %ld log entries, %ld replay points checked "
	       "(%ld flush points, %ld between flushes), %ld fsync'ed files "
	       "compared, %d fsyncs (seed %" PRIu64 ")\n",
	       nr_ents, nflush + nrand, nflush, nrand, nfiles, nr_versions,
	       seed);
	cleanup_files();
	return 0;
}
