/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mount daemon for test programs that are not Check suites
 * (simfs_fsx.c, simfs_powerloss.c): `iomapsim mount -f` run as a child
 * process, waited for until its control directory answers, unmounted
 * with fusermount3 and reaped (a clean unmount exits 0).  Errors come
 * back as -1 with the reason in @why; the caller decides what fails.
 * Also the seeded generator those programs draw their operations from.
 */
#ifndef _SIMFS_DAEMON_H
#define _SIMFS_DAEMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#ifndef SKIP_CODE
#define SKIP_CODE 77
#endif

/* splitmix64: the whole sequence is the seed's, on any host */
static uint64_t sd_rng_state;

static inline uint64_t rnd(void)
{
	uint64_t z = (sd_rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Does the iomap code of @bin have a simple read path?  Asked of the
 * binary (`iomapsim --version` lists its features), as the mount runs it.
 */
static inline bool sd_has_simple(const char *bin)
{
	char cmd[4200], line[4096] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s --version", bin);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p) && !strstr(line, "features:"))
		;
	if (p)
		pclose(p);
	return strstr(line, "simple=") && !strstr(line, "simple=none");
}

/* 0 <= result < @n (0 for @n <= 0) */
static inline long long below(long long n)
{
	return n > 0 ? (long long)(rnd() % (uint64_t)n) : 0;
}

/*
 * The options simfs_fsx and simfs_powerloss share, -s SEED, -n OPS and
 * -v: was @c, from getopt(), one of them?
 */
static inline bool sd_common_opt(int c, uint64_t *seed, long *ops,
				 bool *verbose)
{
	switch (c) {
	case 's':
		*seed = strtoull(optarg, NULL, 0);
		return true;
	case 'n':
		*ops = strtol(optarg, NULL, 10);
		return true;
	case 'v':
		*verbose = true;
		return true;
	}
	return false;
}

/* -n wants a positive count: a usage error (status 2) said otherwise */
static inline bool sd_ops_valid(const char *prog, long ops)
{
	if (ops > 0)
		return true;
	fprintf(stderr, "%s: -n wants a positive count\n", prog);
	return false;
}

struct sd_mount {
	char bin[4096]; /* the iomapsim command */
	char mnt[512];
	char log[512]; /* the daemon's stdout and stderr */
	pid_t pid;
};

/* Run a shell command, both output streams into @out; its exit status. */
static inline int __attribute__((format(printf, 3, 4)))
sd_run(char *out, size_t len, const char *fmt, ...)
{
	char cmd[2048], line[512];
	size_t n = 0;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	if (out && len)
		out[0] = 0;
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (out && n + strlen(line) < len) {
			strcpy(out + n, line);
			n += strlen(line);
		}
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Root, /dev/fuse, fusermount3 and $IOMAPSIM_BIN/iomapsim, or why not. */
static inline const char *sd_missing(struct sd_mount *d)
{
	const char *b = getenv("IOMAPSIM_BIN");
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->pid = -1;
	if (geteuid() != 0)
		return "needs root (FUSE mounts)";
	if (access("/dev/fuse", R_OK | W_OK))
		return "no usable /dev/fuse";
	if (system("command -v fusermount3 >/dev/null 2>&1"))
		return "no fusermount3 (Debian package fuse3)";
	snprintf(d->bin, sizeof(d->bin), "%s/iomapsim", b ? b : ".");
	if (stat(d->bin, &st))
		return "no iomapsim binary (set IOMAPSIM_BIN)";
	return NULL;
}

/* Is a simfs FUSE mount on @mnt? */
/*
 * What sd_missing() checks (exit 77 with the reason if anything is
 * missing), then a fresh directory /var/tmp/iomapsim-TAG-XXXXXX in @dir
 * holding the mount point (mnt) and the daemon's log (mount.log).
 */
static inline void sd_setup(struct sd_mount *d, const char *tag, char *dir,
			    size_t len)
{
	const char *why = sd_missing(d);

	if (!why) {
		snprintf(dir, len, "/var/tmp/iomapsim-%s-XXXXXX", tag);
		if (!mkdtemp(dir))
			why = "cannot make a temporary directory in /var/tmp";
	}
	if (why) {
		printf("SKIP: %s\n", why);
		exit(SKIP_CODE);
	}
	snprintf(d->mnt, sizeof(d->mnt), "%s/mnt", dir);
	snprintf(d->log, sizeof(d->log), "%s/mount.log", dir);
	if (mkdir(d->mnt, 0755)) {
		printf("mkdir %s: %s\n", d->mnt, strerror(errno));
		exit(1);
	}
}

static inline bool sd_mounted_at(const char *mnt)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, mnt) && strstr(line, "fuse.iomapsim"))
			found = true;
	fclose(f);
	return found;
}

static inline bool sd_mounted(const struct sd_mount *d)
{
	return sd_mounted_at(d->mnt);
}

/* `iomapsim mount -f [-o OPTS] TARGET MNT`, up within 20 s. */
static inline int sd_mount(struct sd_mount *d, const char *target,
			   const char *opts, char *why, size_t len)
{
	char stats[600];
	struct stat st;
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (opts && *opts)
			execl(d->bin, d->bin, "mount", "-f", "-o", opts, target,
			      d->mnt, (char *)NULL);
		else
			execl(d->bin, d->bin, "mount", "-f", target, d->mnt,
			      (char *)NULL);
		_exit(127);
	}
	d->pid = pid;
	snprintf(stats, sizeof(stats), "%s/.iomapsim/stats", d->mnt);
	for (int i = 0; i < 2000; i++) {
		int status;

		if (sd_mounted(d) && !stat(stats, &st))
			return 0;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			d->pid = -1;
			snprintf(why, len,
				 "iomapsim mount exited (status %#x) "
				 "before mounting; see %s",
				 status, d->log);
			return -1;
		}
		usleep(10000);
	}
	snprintf(why, len, "the mount did not come up in 20 s");
	return -1;
}

/* fusermount3 -u, then the daemon must exit 0: it committed. */
static inline int sd_umount(struct sd_mount *d, char *why, size_t len)
{
	char out[256];
	int status;

	if (sd_run(out, sizeof(out), "fusermount3 -u %s", d->mnt)) {
		snprintf(why, len, "fusermount3 -u: %.200s", out);
		return -1;
	}
	if (waitpid(d->pid, &status, 0) != d->pid) {
		snprintf(why, len, "waitpid: %s", strerror(errno));
		return -1;
	}
	d->pid = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, len,
			 "the daemon ended with status %#x after the "
			 "unmount; see %s",
			 status, d->log);
		return -1;
	}
	return 0;
}

/* Whatever state a failure left: unmounted, the daemon reaped. */
static inline void sd_cleanup(struct sd_mount *d)
{
	char out[256];

	if (d->pid > 0) {
		/* lazily: a file the caller left open must not hang us */
		if (sd_mounted(d))
			sd_run(out, sizeof(out), "fusermount3 -u -z %s",
			       d->mnt);
		waitpid(d->pid, NULL, 0);
		d->pid = -1;
	}
	if (d->mnt[0] && sd_mounted(d))
		sd_run(out, sizeof(out), "fusermount3 -u -z %s", d->mnt);
}

static inline void sd_dump_log(const struct sd_mount *d)
{
	char line[1024];
	FILE *f = fopen(d->log, "r");

	if (!f)
		return;
	printf("---- daemon log %s ----\n", d->log);
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	printf("----\n");
	fclose(f);
}

/*
 * The rest of a FAILED line the caller began: the reason (@fmt, @ap),
 * then the daemon's log, and the mount gone.
 */
static inline void sd_vfail(struct sd_mount *d, const char *fmt, va_list ap)
{
	vprintf(fmt, ap);
	printf("\n");
	sd_dump_log(d);
	sd_cleanup(d);
}

#endif /* _SIMFS_DAEMON_H */
