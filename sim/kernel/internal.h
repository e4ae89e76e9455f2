/* SPDX-License-Identifier: GPL-2.0-only */
/* Interfaces between the files of sim/kernel; not for other layers. */
#ifndef _SIM_KERNEL_INTERNAL_H
#define _SIM_KERNEL_INTERNAL_H

#include <linux/sched.h>
#include <sim/engine.h>
#include <sim/rand.h>

struct workqueue_struct;

/* task.c */
struct task_struct *sim_set_current(struct task_struct *t);
struct task_struct *sim_task_new(const char *comm, int cpu, unsigned int flags);
void sim_task_free(struct task_struct *t);
void sim_tasks_reap(void);

/* engine.c */
/*
 * What differs between the two engines, as the kernel would put it: an
 * ops table (engine-det.c, engine-threaded.c) that engine.c calls through.
 * start and stop may be NULL (the deterministic engine has no threads).
 */
struct sim_engine_ops {
	int (*start)(const struct sim_engine_opts *opts);
	void (*stop)(void);
	void (*post)(struct sim_event *ev);
	/* run one event; false: nothing ran (the threaded engine never does) */
	bool (*step)(void);
	void (*drain)(void);
	void (*settle)(void);
};
extern const struct sim_engine_ops sim_det_ops, sim_thr_ops;

struct sim_engine_state {
	bool running;
	enum sim_engine_kind kind;
	const struct sim_engine_ops *ops;
	enum sim_sched_policy policy;
	u64 seed;
	struct sim_rand rng;
	pthread_mutex_t lock;
	long pending;
	u64 seq;
	struct sim_source *sources;
};
extern struct sim_engine_state sim_eng;
void sim_engine_ensure(void);
void sim_engine_deadlock(const char *file, int line, const char *func);
/* Run @ev now on this thread in @ctx on @cpu as task @as (NULL: current). */
void sim_engine_run_event(struct sim_event *ev, enum sim_context ctx, int cpu,
			  struct task_struct *as);
void sim_engine_event_done(void);

/* engine-det.c */
void sim_det_post(struct sim_event *ev);
bool sim_det_step(void);
void sim_det_settle(void);
void sim_det_reset(void);

/* engine-threaded.c */
int sim_thr_start(unsigned int nr_irq_threads);
void sim_thr_stop(void);
void sim_thr_post(struct sim_event *ev);
void sim_thr_drain(void);

/* workqueue.c */
int sim_workqueues_init(void);
void sim_workqueues_exit(void);
void sim_workqueues_flush_all(void);
struct task_struct *sim_wq_worker(struct workqueue_struct *wq);

#endif /* _SIM_KERNEL_INTERNAL_H */
