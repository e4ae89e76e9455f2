/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _LINUX_COMPLETION_H
#define _LINUX_COMPLETION_H

#include <linux/wait.h>

struct completion {
	unsigned int done;
	wait_queue_head_t wait;
};

#define COMPLETION_INITIALIZER(work) \
	{ 0, __WAIT_QUEUE_HEAD_INITIALIZER((work).wait) }
#define DECLARE_COMPLETION(work) \
	struct completion work = COMPLETION_INITIALIZER(work)
#define DECLARE_COMPLETION_ONSTACK(work) DECLARE_COMPLETION(work)
#define DECLARE_COMPLETION_ONSTACK_MAP(work, map) DECLARE_COMPLETION(work)

void init_completion(struct completion *x);
void reinit_completion(struct completion *x);
void complete(struct completion *x);
void complete_all(struct completion *x);
#define wait_for_completion(x) \
	sim_wait_for_completion(x, __FILE__, __LINE__, __func__)
#define wait_for_completion_io(x) wait_for_completion(x)
void sim_wait_for_completion(struct completion *x, const char *file,
			     int line, const char *func);
bool try_wait_for_completion(struct completion *x);
bool completion_done(struct completion *x);

#endif /* _LINUX_COMPLETION_H */
