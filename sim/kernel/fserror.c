// SPDX-License-Identifier: GPL-2.0-only
/*
 * fserror_report(): counted and remembered instead of sent to fsnotify.
 */
#include <pthread.h>
#include <linux/fserror.h>
#include <linux/sched.h>
#include <sim/stats.h>
#include <sim/trace.h>

DEFINE_SIM_STAT(stat_fserror_reports, "fserror_reports");

static pthread_mutex_t fserror_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_fserror_record last;
static bool have_last;

static const char *const type_names[] = {
	[FSERR_BUFFERED_READ] = "buffered_read",
	[FSERR_BUFFERED_WRITE] = "buffered_write",
	[FSERR_DIRECTIO_READ] = "directio_read",
	[FSERR_DIRECTIO_WRITE] = "directio_write",
	[FSERR_DATA_LOST] = "data_lost",
	[FSERR_METADATA] = "metadata",
};

void fserror_report(struct super_block *sb, struct inode *inode,
		    enum fserror_type type, loff_t pos, u64 len, int error,
		    gfp_t gfp)
{
	/* the event allocation may sleep with a blocking mask */
	if (gfpflags_allow_blocking(gfp))
		might_sleep();

	sim_trace("fserror_report",
		  "ino 0x%lx type %s pos 0x%llx len 0x%llx error %d",
		  inode ? inode->i_ino : 0UL,
		  (unsigned int)type < ARRAY_SIZE(type_names) ?
			  type_names[type] :
			  "?",
		  (unsigned long long)pos, (unsigned long long)len, error);
	sim_stat_inc(&stat_fserror_reports);

	pthread_mutex_lock(&fserror_lock);
	last = (struct sim_fserror_record){
		.ino = inode ? inode->i_ino : 0,
		.type = type,
		.pos = pos,
		.len = len,
		.error = error,
	};
	have_last = true;
	pthread_mutex_unlock(&fserror_lock);
}

long sim_fserror_count(void)
{
	return sim_stat_read(&stat_fserror_reports);
}

bool sim_fserror_last(struct sim_fserror_record *out)
{
	bool ret;

	pthread_mutex_lock(&fserror_lock);
	ret = have_last;
	if (ret)
		*out = last;
	pthread_mutex_unlock(&fserror_lock);
	return ret;
}

void sim_fserror_reset(void)
{
	pthread_mutex_lock(&fserror_lock);
	have_last = false;
	pthread_mutex_unlock(&fserror_lock);
	__atomic_store_n(&stat_fserror_reports.v, 0, __ATOMIC_RELAXED);
}
