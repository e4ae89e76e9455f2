// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control directory /.iomapsim/ of a mount, in the spirit of sysfs
 * and debugfs: one small text file per knob.
 *
 *   stats   counters of this mount (the daemon serves one mount):
 *           simple-path hits, fallbacks by reason, bios, per-CPU bio
 *           cache hits, workqueue punts, simfs and device counters.
 *           Write "reset" (or 0) to zero the counters.
 *   trace   the most recent trace-ring events.  Write 0/1 to stop/start
 *           recording, "clear" to empty it.  Off unless mounted with
 *           -o trace=on (it costs every I/O); the file then says so.
 *   simple  1 if direct I/O may take iomap's simple path; write 0 or 1.
 *   fault   the device's active fault rules ("ID SPEC hits=H"); write a
 *           spec to add one, "-ID" to remove one, "clear" for all.  At
 *           most BLKSIM_FAULT_MAX_RULES (64) rules: one more is refused
 *           with ENOSPC.
 *   log-writes  with -o logwrites=PATH: "entries N", the log's length;
 *           write a NAME to add a mark of that name to the log
 *           (dm-log-writes' "mark" message); EINVAL without logging.
 *
 * One write(2) is one value, applied whole or not at all: whitespace may
 * follow it (echo's newline) but not precede it, and a value that is
 * empty, longer than FUSEVFS_CTL_VALUE_MAX, holds a NUL, a second line or any
 * other whitespace, or is not one the file knows is refused with EINVAL
 * before anything is applied.
 *
 * A file's text is made when it is opened (like seq_file's), so a reader
 * sees one consistent snapshot.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sim/bdev.h>
#include <sim/iomap.h>
#include <sim/stats.h>
#include <sim/trace.h>
#include "iomapsim-mount.h"
#include "fusevfs-internal.h"

#define TRACE_LINES 2000

static const struct {
	const char *name;
	u32 mode;
} ctl_files[FUSEVFS_CTL_NR] = {
	[FUSEVFS_CTL_STATS] = { "stats", S_IFREG | 0644 },
	[FUSEVFS_CTL_TRACE] = { "trace", S_IFREG | 0644 },
	[FUSEVFS_CTL_SIMPLE] = { "simple", S_IFREG | 0644 },
	[FUSEVFS_CTL_FAULT] = { "fault", S_IFREG | 0644 },
	[FUSEVFS_CTL_LOGW] = { "log-writes", S_IFREG | 0644 },
};

/* The log-writes device under the fault wrapper, or NULL. */
static struct block_device *logw_dev(struct fusevfs_mount *m)
{
	struct block_device *b = blksim_bdev_fault_lower(m->bdev);

	return blksim_bdev_logw_lower(b) ? b : NULL;
}

void fusevfs_ctl_attr(uint64_t ino, struct fusevfs_attr *a)
{
	int k = (int)(ino - FUSEVFS_CTL_DIR_INO);

	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->blksize = 4096;
	if (k == 0) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = ctl_files[k].mode;
		a->nlink = 1;
	}
}

int fusevfs_ctl_lookup(const char *name, struct fusevfs_attr *out)
{
	for (int k = 1; k < FUSEVFS_CTL_NR; k++) {
		if (!strcmp(name, ctl_files[k].name)) {
			fusevfs_ctl_attr(FUSEVFS_CTL_DIR_INO + k, out);
			return 0;
		}
	}
	return -ENOENT;
}

int fusevfs_ctl_readdir(uint64_t off,
			int (*fill)(void *arg, const char *name, uint64_t ino,
				    uint32_t mode, uint64_t next_off),
			void *arg)
{
	if (off < 1 && fill(arg, ".", FUSEVFS_CTL_DIR_INO, S_IFDIR, 1))
		return 0;
	if (off < 2 && fill(arg, "..", SIMFS_ROOT_INO, S_IFDIR, 2))
		return 0;
	for (uint64_t k = 1; k < FUSEVFS_CTL_NR; k++)
		if (off < k + 2 &&
		    fill(arg, ctl_files[k].name, FUSEVFS_CTL_DIR_INO + k,
			 S_IFREG, k + 2))
			return 0;
	return 0;
}

static void stats_text(struct fusevfs_mount *m, FILE *f)
{
	struct blksim_bdev_counters c;
	struct blksim_file_info fi;
	struct simfs_statfs st;

	simfs_statfs(m->sb, &st);
	fprintf(f,
		"# iomapsim mount of %s: generation %llu, block size %u, "
		"%llu of %llu blocks free\n",
		m->target, (unsigned long long)m->sbi->generation,
		st.block_size, (unsigned long long)st.bfree,
		(unsigned long long)st.blocks);
	if (blksim_bdev_file_info(logw_dev(m) ?
					  blksim_bdev_logw_lower(logw_dev(m)) :
					  blksim_bdev_fault_lower(m->bdev),
				  &fi))
		fprintf(f,
			"# device: %s, O_DIRECT alignment %u/%u bytes, "
			"queue depth %u\n",
			fi.is_blockdev ? "block device" : "file",
			fi.dio_mem_align, fi.dio_offset_align, fi.queue_depth);
	/*
	 * What the block layer asks of user buffers (B-29): the FUSE module
	 * hands us its own, so only a program through `iomapsim run` or on
	 * the real device meets this mask.
	 */
	fprintf(f,
		"# queue: logical block %u, dma_alignment %#x (buffers "
		"aligned to %u bytes), max_sectors %u, max_segments %u, "
		"poll %s\n",
		bdev_logical_block_size(m->bdev), bdev_dma_alignment(m->bdev),
		bdev_dma_alignment(m->bdev) + 1,
		queue_max_sectors(bdev_get_queue(m->bdev)),
		bdev_max_segments(m->bdev),
		bdev_get_queue(m->bdev)->limits.features & BLK_FEAT_POLL ?
			"yes" :
			"no");
	fprintf(f, "# iomap code: %s\n", iomapsim_code_text());
	fprintf(f, "# simple path: %s; parallel direct writes: %s\n",
		simfs_get_simple(m->sb) ? "on" : "off",
		READ_ONCE(m->sbi->parallel_dio_write) ? "on" : "off");
	if (blksim_bdev_get_counters(m->bdev, &c))
		fprintf(f,
			"device_read_bios %llu\ndevice_write_bios %llu\n"
			"device_flush_calls %llu\ndevice_fua_bios %llu\n"
			"device_error_bios %llu\ndevice_max_inflight %llu\n",
			(unsigned long long)c.read_bios,
			(unsigned long long)c.write_bios,
			(unsigned long long)c.flush_calls,
			(unsigned long long)c.fua_bios,
			(unsigned long long)c.error_bios,
			(unsigned long long)c.max_inflight);
	sim_stats_print(f, false);
}

int fusevfs_ctl_open(struct fusevfs_mount *m, uint64_t ino,
		     struct fusevfs_fh *h)
{
	int k = (int)(ino - FUSEVFS_CTL_DIR_INO);
	FILE *f;

	if (k <= 0 || k >= FUSEVFS_CTL_NR)
		return -EISDIR;
	h->kind = FUSEVFS_FH_CTL;
	h->ctl = k;
	f = open_memstream(&h->text, &h->len);
	if (!f)
		return -ENOMEM;
	switch (k) {
	case FUSEVFS_CTL_STATS:
		stats_text(m, f);
		break;
	case FUSEVFS_CTL_TRACE:
		/* an empty file would look like a stack that did nothing */
		if (!sim_tracing())
			fprintf(f, "# trace ring disabled: mount with -o "
				   "trace=on, or write 1 to this file\n");
		sim_trace_dump(f, TRACE_LINES);
		break;
	case FUSEVFS_CTL_SIMPLE:
		fprintf(f, "%d\n", simfs_get_simple(m->sb));
		break;
	case FUSEVFS_CTL_FAULT: {
		size_t need = blksim_bdev_fault_list(m->bdev, NULL, 0);
		char *buf = malloc(need + 1);

		if (buf) {
			blksim_bdev_fault_list(m->bdev, buf, need + 1);
			fputs(buf, f);
			free(buf);
		}
		break;
	}
	case FUSEVFS_CTL_LOGW:
		if (logw_dev(m))
			fprintf(f, "entries %llu\n",
				(unsigned long long)blksim_bdev_logw_entries(
					logw_dev(m)));
		else
			fprintf(f, "# not recording: mount with -o "
				   "logwrites=PATH\n");
		break;
	}
	if (fclose(f))
		return -ENOMEM;
	return 0;
}

void fusevfs_ctl_release(struct fusevfs_fh *h)
{
	free(h->text);
}

#define FUSEVFS_CTL_VALUE_MAX 255

/* One value per write; @data is not NUL-terminated. */
long fusevfs_ctl_write(struct fusevfs_mount *m, struct fusevfs_fh *h,
		       const char *data, size_t size)
{
	char val[FUSEVFS_CTL_VALUE_MAX + 1];
	char err[256];
	size_t n = size;
	int ret;

	while (n && isspace((unsigned char)data[n - 1]))
		n--;
	if (!n || n > FUSEVFS_CTL_VALUE_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!data[i] || isspace((unsigned char)data[i]))
			return -EINVAL;
	memcpy(val, data, n);
	val[n] = 0;

	switch (h->ctl) {
	case FUSEVFS_CTL_STATS:
		if (strcmp(val, "reset") && strcmp(val, "0"))
			return -EINVAL;
		sim_stats_reset();
		break;
	case FUSEVFS_CTL_TRACE:
		if (!strcmp(val, "0") || !strcmp(val, "1"))
			sim_trace_enable(val[0] == '1');
		else if (!strcmp(val, "clear"))
			sim_trace_reset();
		else
			return -EINVAL;
		break;
	case FUSEVFS_CTL_SIMPLE:
		if (strcmp(val, "0") && strcmp(val, "1"))
			return -EINVAL;
		simfs_set_simple(m->sb, val[0] == '1');
		break;
	case FUSEVFS_CTL_FAULT:
		ret = blksim_bdev_fault_command(m->bdev, val, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "iomapsim: fault: %s\n", err);
			return ret == -ENOSPC ? -ENOSPC : -EINVAL;
		}
		break;
	case FUSEVFS_CTL_LOGW:
		if (!logw_dev(m))
			return -EINVAL;
		/* -EINVAL: too long for a mark; -EIO: the log failed */
		ret = blksim_bdev_logw_mark(logw_dev(m), val);
		if (ret)
			return ret;
		break;
	default:
		return -EPERM;
	}
	return size;
}
