// SPDX-License-Identifier: GPL-2.0-only
/*
 * iomapsim bench --profile (see bench-profile.h).
 *
 * callgrind writes, per function, the instructions executed in it ("self")
 * and per call site the instructions executed in the callee and below
 * ("inclusive").  A function belongs to the layer of the source file it
 * is defined in; a function outside this source tree (libc's memset,
 * malloc, pthread_mutex_lock) is charged to the layer that called it, so
 * the kmalloc shim's malloc counts as simulated kernel and the ram
 * device's memcpy as device.  The file is read with names and positions
 * uncompressed (--compress-strings=no --compress-pos=no).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "bench-profile.h"

enum layer {
	L_IOMAP,
	L_FS,
	L_BLOCK,
	L_KERNEL,
	L_DEVICE,
	L_HARNESS,
	NR_LAYERS,
};

static const char *const layer_names[NR_LAYERS] = {
	"iomap",  "fs (testfs)", "block", "simulated kernel",
	"device", "harness",
};

struct fn {
	char *file, *name;
	unsigned long long self;
	int layer; /* -1: outside the tree */
	bool homed; /* layer from its body's file, not a header's */
	struct fn *hnext;
};

#define NR_BUCKETS 4096

/* A call's inclusive cost, charged once every function has its layer. */
struct edge {
	struct fn *caller, *callee;
	unsigned long long cost;
};

struct profile {
	struct fn *buckets[NR_BUCKETS];
	struct edge *edges;
	size_t nr_edges, cap_edges;
	struct fn **all;
	size_t nr, cap;
	unsigned long long layer[NR_LAYERS];
	unsigned long long iomap_alloc; /* iomap -> kernel allocator calls */
	unsigned long long total;
};

static int layer_of(const char *file)
{
	static const char src[] = IOMAPSIM_SOURCE_DIR "/";
	const char *rel;

	/*
	 * Kernel-source mode: the build copies the tree's fs/iomap/ files
	 * to <build>/ksrc/fs/iomap/ and compiles them there.
	 */
	if (strstr(file, "/ksrc/fs/iomap/"))
		return L_IOMAP;
	if (strncmp(file, src, sizeof(src) - 1))
		return -1;
	rel = file + sizeof(src) - 1;
	/*
	 * iomap/fs-dio.c is not iomap: its iomapsim_dio_rw() is the file
	 * system's ->read_iter/->write_iter call site (XFS's
	 * xfs_file_dio_read(), ext4's ext4_dio_read_iter()): it builds the
	 * file system's iomap_ops, chooses between iomap_dio_rw() and
	 * __iomap_dio_rw() (the per-call and per-mount simple=0, as btrfs
	 * makes that choice) and tells the observer what it offered.  It
	 * lives under iomap/ only because it is the one file outside the
	 * kernel sources that knows the API generation.  The merge's profile
	 * counts the iomap functions alone, so it is charged to the fs.
	 */
	if (!strcmp(rel, "iomap/fs-dio.c") ||
	    !strcmp(rel, "fs/testfs/testfs.c"))
		return L_FS;
	if (!strncmp(rel, "iomap/", 6))
		return L_IOMAP;
	if (!strncmp(rel, "block/backend", 13) ||
	    !strncmp(rel, "block/host/", 11))
		return L_DEVICE;
	if (!strncmp(rel, "block/", 6))
		return L_BLOCK;
	if (!strncmp(rel, "sim/kernel/", 11) ||
	    !strncmp(rel, "sim/include/", 12))
		return L_KERNEL;
	return L_HARNESS;
}

static bool is_header(const char *file)
{
	size_t n = strlen(file);

	return n > 2 && !strcmp(file + n - 2, ".h");
}

static bool is_allocator(const struct fn *f)
{
	static const char alloc_c[] = "/sim/kernel/alloc.c";
	size_t n = strlen(f->file), k = sizeof(alloc_c) - 1;

	return n >= k && !strcmp(f->file + n - k, alloc_c);
}

static struct fn *lookup(struct profile *p, const char *file, const char *name)
{
	unsigned long h = 5381;
	const char *s;
	struct fn *f;

	for (s = name; *s; s++)
		h = h * 33 + (unsigned char)*s;
	for (s = file; *s; s++)
		h = h * 33 + (unsigned char)*s;
	for (f = p->buckets[h % NR_BUCKETS]; f; f = f->hnext)
		if (!strcmp(f->name, name) && !strcmp(f->file, file))
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->file = strdup(file);
	f->name = strdup(name);
	if (!f->file || !f->name)
		return NULL;
	f->layer = layer_of(file);
	f->hnext = p->buckets[h % NR_BUCKETS];
	p->buckets[h % NR_BUCKETS] = f;
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct fn **a = realloc(p->all, cap * sizeof(*a));

		if (!a)
			return NULL;
		p->all = a;
		p->cap = cap;
	}
	p->all[p->nr++] = f;
	return f;
}

/* "123 4567": position then Ir; returns the cost. */
static unsigned long long cost_of(const char *line)
{
	const char *sp = strchr(line, ' ');

	return sp ? strtoull(sp + 1, NULL, 10) : 0;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

static int parse(struct profile *p, FILE *in)
{
	char line[4096], fl[4096] = "???", cfl[4096] = "";
	struct fn *cur = NULL, *callee = NULL;
	bool call_cost = false;

	while (fgets(line, sizeof(line), in)) {
		chomp(line);
		if (call_cost) {
			unsigned long long c = cost_of(line);

			call_cost = false;
			if (!cur || !callee)
				continue;
			if (p->nr_edges == p->cap_edges) {
				size_t cap = p->cap_edges ? 2 * p->cap_edges :
							    1024;
				struct edge *e =
					realloc(p->edges, cap * sizeof(*e));

				if (!e)
					return -ENOMEM;
				p->edges = e;
				p->cap_edges = cap;
			}
			p->edges[p->nr_edges++] =
				(struct edge){ cur, callee, c };
			continue;
		}
		if ((!strncmp(line, "fi=", 3) || !strncmp(line, "fe=", 3)) &&
		    cur && !cur->homed && is_header(cur->file) &&
		    !is_header(line + 3)) {
			/*
			 * The function's first instruction came from a
			 * header's inline function: it belongs where its own
			 * body is, the first source file it returns to.
			 */
			cur->layer = layer_of(line + 3);
			cur->homed = true;
		} else if (!strncmp(line, "fl=", 3)) {
			snprintf(fl, sizeof(fl), "%s", line + 3);
		} else if (!strncmp(line, "fn=", 3)) {
			cur = lookup(p, fl, line + 3);
			if (!cur)
				return -ENOMEM;
			cfl[0] = '\0';
		} else if (!strncmp(line, "cfl=", 4) ||
			   !strncmp(line, "cfi=", 4)) {
			snprintf(cfl, sizeof(cfl), "%s", line + 4);
		} else if (!strncmp(line, "cfn=", 4)) {
			callee = lookup(p, cfl[0] ? cfl : fl, line + 4);
			if (!callee)
				return -ENOMEM;
			cfl[0] = '\0';
		} else if (!strncmp(line, "calls=", 6)) {
			call_cost = true;
		} else if (!strncmp(line, "summary:", 8) ||
			   !strncmp(line, "totals:", 7)) {
			p->total = strtoull(strchr(line, ':') + 1, NULL, 10);
		} else if (line[0] >= '0' && line[0] <= '9' && cur) {
			cur->self += cost_of(line);
		}
	}
	return 0;
}

static int by_self(const void *a, const void *b)
{
	const struct fn *x = *(struct fn *const *)a,
			*y = *(struct fn *const *)b;

	return x->self < y->self ? 1 : x->self > y->self ? -1 : 0;
}

static void report(struct profile *p, uint64_t ios, unsigned int top)
{
	unsigned long long sum = 0;
	size_t i;
	int l;

	for (i = 0; i < p->nr; i++)
		if (p->all[i]->layer >= 0)
			p->layer[p->all[i]->layer] += p->all[i]->self;
	for (i = 0; i < p->nr_edges; i++) {
		const struct edge *e = &p->edges[i];

		/* a call out of the tree is the caller's cost */
		if (e->caller->layer >= 0 && e->callee->layer < 0)
			p->layer[e->caller->layer] += e->cost;
		if (e->caller->layer == L_IOMAP && is_allocator(e->callee))
			p->iomap_alloc += e->cost;
	}
	for (l = 0; l < NR_LAYERS; l++)
		sum += p->layer[l];
	printf("  instructions per I/O by layer (callgrind, %llu requests):\n",
	       (unsigned long long)ios);
	for (l = 0; l < NR_LAYERS; l++)
		printf("    %-18s %9.1f  %5.1f%%\n", layer_names[l],
		       (double)p->layer[l] / ios,
		       sum ? 100.0 * p->layer[l] / sum : 0);
	printf("    %-18s %9.1f\n", "total", (double)p->total / ios);
	if (sum != p->total)
		printf("    (layers add up to %.1f: code outside the tree called back into it)\n",
		       (double)sum / ios);
	printf("  iomap layer with its heap allocations (the dio's kmalloc+kfree): %.1f per I/O\n",
	       (double)(p->layer[L_IOMAP] + p->iomap_alloc) / ios);
	if (!top)
		return;
	qsort(p->all, p->nr, sizeof(*p->all), by_self);
	printf("  top functions by own instructions per I/O:\n");
	for (i = 0; i < p->nr && i < top; i++) {
		const struct fn *f = p->all[i];

		if (!f->self)
			break;
		printf("    %9.1f  %5.1f%%  %-36s %s\n", (double)f->self / ios,
		       100.0 * f->self / p->total, f->name,
		       f->layer >= 0 ? layer_names[f->layer] :
				       "(outside: charged to its caller)");
	}
}

static void profile_free(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->all[i]->file);
		free(p->all[i]->name);
		free(p->all[i]);
	}
	free(p->all);
	free(p->edges);
}

static bool have_valgrind(void)
{
	return !system("valgrind --version >/dev/null 2>&1");
}

int bench_profile(int argc, char **argv, uint64_t ios, unsigned int top)
{
	char count[40], outopt[64], self[4096];
	char out[] = "/tmp/iomapsim-callgrind-XXXXXX";
	const char **cargv;
	struct profile *p;
	int fd, i, n = 0, status;
	ssize_t len;
	FILE *in;
	pid_t pid;

	if (!have_valgrind()) {
		printf("  profile: valgrind is not installed, no instruction counts (scripts/quickstart.sh installs it)\n");
		return 0;
	}
	if (!ios) {
		fprintf(stderr,
			"iomapsim bench: nothing measured to profile\n");
		return 1;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		fprintf(stderr,
			"iomapsim bench: cannot find my own executable\n");
		return 1;
	}
	self[len] = '\0';
	fd = mkstemp(out);
	if (fd < 0) {
		fprintf(stderr, "iomapsim bench: mkstemp: %s\n",
			strerror(errno));
		return 1;
	}
	close(fd);

	cargv = calloc(argc + 12, sizeof(*cargv));
	if (!cargv)
		return 1;
	snprintf(outopt, sizeof(outopt), "--callgrind-out-file=%s", out);
	cargv[n++] = "valgrind";
	cargv[n++] = "--tool=callgrind";
	cargv[n++] = outopt;
	cargv[n++] = "--toggle-collect=wl_measure";
	cargv[n++] = "--compress-strings=no";
	cargv[n++] = "--compress-pos=no";
	cargv[n++] = "--quiet";
	cargv[n++] = self;
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "--profile"))
			cargv[n++] = argv[i];
	/* the same requests as measured: no default may differ */
	snprintf(count, sizeof(count), "--count=%llu", (unsigned long long)ios);
	cargv[n++] = count;
	cargv[n++] = "--profile-child";
	cargv[n] = NULL;

	pid = fork();
	if (pid == 0) {
		execvp("valgrind", (char *const *)cargv);
		_exit(127);
	}
	free(cargv);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr,
			"iomapsim bench: the run under callgrind failed\n");
		unlink(out);
		return 1;
	}
	in = fopen(out, "r");
	p = calloc(1, sizeof(*p));
	if (!in || !p || parse(p, in)) {
		fprintf(stderr, "iomapsim bench: cannot read %s\n", out);
		if (in)
			fclose(in);
		unlink(out);
		free(p);
		return 1;
	}
	fclose(in);
	unlink(out);
	report(p, ios, top);
	profile_free(p);
	free(p);
	return 0;
}
