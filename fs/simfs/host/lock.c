// SPDX-License-Identifier: GPL-2.0-only
/*
 * Who may write an image: one mount, mkfs or fsck at a time, so two
 * writers never hand out the same blocks (see simfs-host.h).
 *
 * Two kinds of fcntl lock on the target, on different bytes:
 *
 *  - byte 0, an open file description (OFD) lock: the exclusion itself.
 *    It belongs to the lock's own descriptor, so no other open and close
 *    of the image in the same process drops it (a POSIX lock would go
 *    with any close(2) of the file, and the file backend, libblkid and
 *    wipefs-style wiping all open the target), and a fork after locking
 *    would share it rather than lose it.  F_OFD_GETLK reports no pid, so
 *  - byte HOLDER, a POSIX read lock: a tag saying who holds byte 0 and in
 *    which role.  F_GETLK returns the pid of a POSIX lock, which is how a
 *    refused mount names the holder.  The tag is only a label: if some
 *    close(2) in the holder drops it, exclusion still stands and the
 *    refusal just cannot name the pid.
 *
 * The mount daemon takes both after it has forked (the pid is the
 * serving process), moves its tag to SIMFS_HOLD_CLOSING when FUSE lets
 * go of the mount point, and drops the lock after its last commit: a
 * mount that finds a CLOSING (or fsck) holder waits for it instead of
 * failing, so `fusermount3 -u M; iomapsim mount IMG M` just works.  As
 * the daemon learns of the unmount a moment after fusermount3 returns, a
 * MOUNT holder gets a short grace before it is named.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../simfs-host.h"

static const char *const role[SIMFS_HOLD_NR] = {
	[SIMFS_HOLD_MOUNT] = "mounted",
	[SIMFS_HOLD_MKFS] = "being formatted by mkfs",
	[SIMFS_HOLD_FSCK] = "being checked by fsck",
	[SIMFS_HOLD_CLOSING] = "being unmounted (its last commit)",
};

static int ofd_lock(int fd, short type)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1
	};

	return fcntl(fd, F_OFD_SETLK, &fl) ? -errno : 0;
}

static int tag(int fd, int holder, short type)
{
	struct flock fl = { .l_type = type,
			    .l_whence = SEEK_SET,
			    .l_start = holder,
			    .l_len = 1 };

	return fcntl(fd, F_SETLK, &fl) ? -errno : 0;
}

/* The first tag another process holds on @fd's file: holder, *pid. */
static int find_tag(int fd, long *pid)
{
	for (int h = 1; h < SIMFS_HOLD_NR; h++) {
		struct flock fl = { .l_type = F_WRLCK,
				    .l_whence = SEEK_SET,
				    .l_start = h,
				    .l_len = 1 };

		if (!fcntl(fd, F_GETLK, &fl) && fl.l_type != F_UNLCK &&
		    fl.l_pid > 0) {
			*pid = fl.l_pid;
			return h;
		}
	}
	*pid = 0;
	return SIMFS_HOLD_NONE;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

void simfs_host_lock_describe(int holder, long pid, char *err, size_t errlen)
{
	if (holder > SIMFS_HOLD_NONE && holder < SIMFS_HOLD_NR)
		snprintf(err, errlen, "image is %s (pid %ld)", role[holder],
			 pid);
	else
		snprintf(err, errlen,
			 "image is in use (locked by a process "
			 "that does not say which)");
}

int simfs_host_lock(const char *path, int holder, bool shared,
		    unsigned int wait_ms, struct simfs_host_lock *l, char *err,
		    size_t errlen)
{
	unsigned int waited = 0;
	int other = SIMFS_HOLD_NONE, ret;
	long pid = 0;

	l->fd = open(path, (shared ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	l->holder = SIMFS_HOLD_NONE;
	l->busy_holder = SIMFS_HOLD_NONE;
	l->busy_pid = 0;
	if (l->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		return ret;
	}
	for (;;) {
		ret = ofd_lock(l->fd, shared ? F_RDLCK : F_WRLCK);
		if (ret != -EAGAIN)
			break;
		other = find_tag(l->fd, &pid);
		/*
		 * A holder that is finishing (an unmount's last commit, an
		 * fsck) is waited for.  A mount is given a grace: when
		 * fusermount3 -u returns, its daemon may not have seen the
		 * unmount yet and still says MOUNT; a live one is named
		 * once the grace is over.  So is mkfs, and a holder whose
		 * tag is not set yet (a lock taken a moment ago).
		 */
		if (waited >= wait_ms ||
		    ((other == SIMFS_HOLD_MOUNT || other == SIMFS_HOLD_NONE) &&
		     waited >= SIMFS_HOST_LOCK_GRACE_MS) ||
		    other == SIMFS_HOLD_MKFS)
			break;
		sleep_ms(20);
		waited += 20;
	}
	if (ret == -EAGAIN) {
		close(l->fd);
		l->fd = -1;
		l->busy_holder = other;
		l->busy_pid = pid;
		simfs_host_lock_describe(other, pid, err, errlen);
		return -EBUSY;
	}
	if (ret) {
		snprintf(err, errlen, "cannot lock it: %s", strerror(-ret));
		close(l->fd);
		l->fd = -1;
		return ret;
	}
	simfs_host_lock_retag(l, holder);
	return 0;
}

void simfs_host_lock_retag(struct simfs_host_lock *l, int holder)
{
	int old = l->holder;

	if (l->fd < 0)
		return;
	/* the new tag first: a querier never sees none */
	if (holder != old) {
		tag(l->fd, holder, F_RDLCK);
		if (old != SIMFS_HOLD_NONE)
			tag(l->fd, old, F_UNLCK);
	} else {
		/* set again: some close(2) of the file may have dropped it */
		tag(l->fd, holder, F_RDLCK);
	}
	l->holder = holder;
}

void simfs_host_unlock(struct simfs_host_lock *l)
{
	/* closing the descriptor drops the OFD lock and (POSIX) the tag */
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	l->holder = SIMFS_HOLD_NONE;
}
