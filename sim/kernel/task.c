// SPDX-License-Identifier: GPL-2.0-only
/*
 * current, execution contexts, simulated CPUs, preemption and interrupt
 * masking, might_sleep(), schedule()/wake_up_process().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <sim/engine.h>
#include <sim/report.h>

__thread enum sim_context sim_ctx;
__thread int sim_preempt_count;
__thread int sim_irqs_disabled;
__thread int sim_cpu;
unsigned int nr_cpu_ids = 4;

static __thread struct task_struct *cur_task;
/* CPU whose lock this thread holds while preemption/IRQs are off. */
static __thread int held_cpu = -1;
static pthread_mutex_t cpu_locks[NR_CPUS] = { [0 ... NR_CPUS -
					       1] = PTHREAD_MUTEX_INITIALIZER };
static int next_pid = 1;
static unsigned int next_cpu;
static pthread_key_t task_key;
static pthread_once_t task_key_once = PTHREAD_ONCE_INIT;

/*
 * Task structs outlive their threads, as the kernel's do until an RCU
 * grace period has passed: a completion may still be inside
 * wake_up_process() for a task whose thread has just gone.  Dead tasks
 * wait here until the engine stops (sim_tasks_reap()).
 */
static struct task_struct *dead_tasks;
static pthread_mutex_t dead_lock = PTHREAD_MUTEX_INITIALIZER;

static void task_free(void *p)
{
	struct task_struct *t = p;

	if (!t || t->sim_engine_owned)
		return;
	pthread_mutex_lock(&dead_lock);
	t->sim_next_dead = dead_tasks;
	dead_tasks = t;
	pthread_mutex_unlock(&dead_lock);
}

void sim_tasks_reap(void)
{
	struct task_struct *t;

	pthread_mutex_lock(&dead_lock);
	t = dead_tasks;
	dead_tasks = NULL;
	pthread_mutex_unlock(&dead_lock);
	while (t) {
		struct task_struct *next = t->sim_next_dead;

		sim_waitqueue_destroy(&t->sim_wake);
		free(t);
		t = next;
	}
}

static void task_key_init(void)
{
	pthread_key_create(&task_key, task_free);
}

static struct task_struct *task_new(const char *comm, int cpu)
{
	struct task_struct *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	/* a bounded copy (snprintf() showed: tasks come and go per run) */
	for (size_t n = 0; comm[n] && n < sizeof(t->comm) - 1; n++)
		t->comm[n] = comm[n];
	t->pid = __atomic_fetch_add(&next_pid, 1, __ATOMIC_RELAXED);
	if (cpu < 0)
		cpu = (int)(__atomic_fetch_add(&next_cpu, 1, __ATOMIC_RELAXED) %
			    nr_cpu_ids);
	t->cpu = cpu;
	init_waitqueue_head(&t->sim_wake);
	return t;
}

struct task_struct *sim_task_attach(const char *comm, int cpu)
{
	struct task_struct *t;

	pthread_once(&task_key_once, task_key_init);
	t = task_new(comm, cpu);
	pthread_setspecific(task_key, t);
	cur_task = t;
	sim_cpu = t->cpu;
	sim_ctx = SIM_CTX_TASK;
	return t;
}

void sim_task_detach(void)
{
	struct task_struct *t = cur_task;

	cur_task = NULL;
	pthread_setspecific(task_key, NULL);
	task_free(t);
}

struct task_struct *sim_get_current(void)
{
	if (unlikely(!cur_task)) {
		char comm[TASK_COMM_LEN];

		snprintf(comm, sizeof(comm), "task-%d",
			 __atomic_load_n(&next_pid, __ATOMIC_RELAXED));
		sim_task_attach(comm, -1);
	}
	return cur_task;
}

/* Used by the engine to run a worker's code as that worker. */
struct task_struct *sim_set_current(struct task_struct *t)
{
	struct task_struct *old = cur_task;

	cur_task = t;
	return old;
}

struct task_struct *sim_task_new(const char *comm, int cpu, unsigned int flags)
{
	struct task_struct *t = task_new(comm, cpu);

	t->flags = flags;
	t->sim_engine_owned = true;
	return t;
}

void sim_task_free(struct task_struct *t)
{
	sim_waitqueue_destroy(&t->sim_wake);
	free(t);
}

int sim_task_set_cpu(int cpu)
{
	int old = sim_cpu;

	BUG_ON(cpu < 0 || cpu >= (int)nr_cpu_ids);
	/* migrating with preemption disabled is a kernel bug */
	WARN_ON_ONCE(sim_preempt_count || sim_irqs_disabled);
	current->cpu = cpu;
	sim_cpu = cpu;
	return old;
}

/*
 * Preemption and interrupt masking.  The threaded engine may run several
 * OS threads on one simulated CPU, so the first level of either takes the
 * CPU's lock: per-CPU data is then as exclusive as in the kernel.  The
 * deterministic engine runs one thread and needs no lock.
 */
static void cpu_enter(void)
{
	if (sim_preempt_count + sim_irqs_disabled == 0 &&
	    sim_engine_kind() == SIM_ENGINE_THREADED) {
		held_cpu = sim_cpu;
		pthread_mutex_lock(&cpu_locks[held_cpu]);
	}
}

static void cpu_exit(void)
{
	if (sim_preempt_count + sim_irqs_disabled == 0 && held_cpu >= 0) {
		pthread_mutex_unlock(&cpu_locks[held_cpu]);
		held_cpu = -1;
	}
}

void preempt_disable(void)
{
	cpu_enter();
	sim_preempt_count++;
}

void preempt_enable(void)
{
	if (WARN_ON_ONCE(sim_preempt_count <= 0))
		return;
	sim_preempt_count--;
	cpu_exit();
}

unsigned long sim_local_irq_save(void)
{
	unsigned long was = sim_irqs_disabled > 0;

	cpu_enter();
	sim_irqs_disabled++;
	return was;
}

void sim_local_irq_restore(unsigned long flags)
{
	if (WARN_ON_ONCE(sim_irqs_disabled <= 0))
		return;
	sim_irqs_disabled--;
	cpu_exit();
}

void sim_might_sleep(const char *file, int line, const char *func)
{
	if (likely(sim_ctx == SIM_CTX_TASK && !sim_preempt_count &&
		   !sim_irqs_disabled))
		return;
	sim_context_violation("sleeping function called from invalid context",
			      file, line, func);
}

void (*sim_sched_submit_work)(void);

void sim_before_sleep(void)
{
	static __thread bool in_hook;

	if (!sim_sched_submit_work || in_hook || sim_ctx != SIM_CTX_TASK)
		return;
	in_hook = true;
	sim_sched_submit_work();
	in_hook = false;
}

void schedule(void)
{
	struct task_struct *t = current;

	might_sleep();
	if (__atomic_load_n(&t->__state, __ATOMIC_SEQ_CST) == TASK_RUNNING)
		return;
	sim_before_sleep();
	sim_wait_prepare(&t->sim_wake, __FILE__, __LINE__, __func__);
	while (__atomic_load_n(&t->__state, __ATOMIC_SEQ_CST) != TASK_RUNNING)
		sim_wait_sleep(&t->sim_wake);
	sim_wait_finish(&t->sim_wake);
}

void io_schedule(void)
{
	schedule();
}

long io_schedule_timeout(long timeout)
{
	schedule();
	return timeout;
}

int wake_up_process(struct task_struct *p)
{
	if (__atomic_exchange_n(&p->__state, TASK_RUNNING, __ATOMIC_SEQ_CST) ==
	    TASK_RUNNING)
		return 0;
	wake_up(&p->sim_wake);
	return 1;
}

void get_task_struct(struct task_struct *t)
{
}

void put_task_struct(struct task_struct *t)
{
}
