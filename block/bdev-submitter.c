// SPDX-License-Identifier: GPL-2.0-only
/*
 * A submitter's completion context (<sim/bdev.h>): what a thread that
 * submits bios can do about its own bios' completions, whatever the
 * device.  A backend that has such a context says so with
 * blksim_bdev_ops.submitter; a wrapper hands the question on to the device
 * under it (blksim_bdev_ops.lower); every other device has none, and the
 * answers here are those of a device without one.
 */
#include <errno.h>
#include <sim/bdev.h>

/* @bdev, or the device under its wrappers, if it has a context. */
static struct block_device *submitter_bdev(struct block_device *bdev)
{
	while (bdev && !bdev->bd_ops->submitter && bdev->bd_ops->lower)
		bdev = bdev->bd_ops->lower(bdev);
	return bdev && bdev->bd_ops->submitter ? bdev : NULL;
}

int blksim_bdev_submitter_fd(struct block_device *bdev)
{
	bdev = submitter_bdev(bdev);
	return bdev ? bdev->bd_ops->submitter->fd(bdev) : -EOPNOTSUPP;
}

unsigned int blksim_bdev_submitter_outstanding(struct block_device *bdev)
{
	bdev = submitter_bdev(bdev);
	return bdev ? bdev->bd_ops->submitter->outstanding(bdev) : 0;
}

int blksim_bdev_submitter_reap(struct block_device *bdev, bool wait)
{
	bdev = submitter_bdev(bdev);
	return bdev ? bdev->bd_ops->submitter->reap(bdev, wait) : 0;
}

int blksim_bdev_submitter_wait(struct block_device *bdev,
			    struct blksim_bdev_spin *spin)
{
	bdev = submitter_bdev(bdev);
	if (bdev)
		return bdev->bd_ops->submitter->wait(bdev, spin);
	spin->polled = spin->hit = false;
	spin->spent_ns = 0;
	return 0;
}

int blksim_bdev_submitter_defer(struct block_device *bdev, bool on)
{
	bdev = submitter_bdev(bdev);
	return bdev ? bdev->bd_ops->submitter->defer(bdev, on) : -EOPNOTSUPP;
}
