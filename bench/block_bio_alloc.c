// SPDX-License-Identifier: GPL-2.0-only
/*
 * bio allocation cost, with and without the per-CPU bio cache (B-03).
 *
 * Prints nanoseconds per bio_alloc() + bio_put() pair and heap
 * allocations (sim_alloc_total() delta) per pair in steady state for:
 *   cache, same CPU      - put on the allocating CPU (the common case);
 *   cache, hard-IRQ put  - put from a simulated interrupt on the same CPU,
 *                          as an end_io does (free_list_irq and splice);
 *   cache, cross CPU     - allocated on CPU 0, put on CPU 1: CPU 0 always
 *                          misses and CPU 1's cache overflows (the worst
 *                          case discussed with B-03's change);
 *   no cache             - the default before B-03: mempool every time.
 * Bios go in batches of 64 so the CPU switch is amortised.  Deterministic
 * engine: one thread, no contention, only the code path is measured.
 *
 * usage: bench_block_bio_alloc [pairs]   (default 2000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <sim/alloc.h>
#include <sim/bio.h>
#include <sim/engine.h>
#include <sim/stats.h>
#include <sim/trace.h>

#define BATCH 64

enum put_mode {
	PUT_SAME_CPU,
	PUT_HARDIRQ,
	PUT_OTHER_CPU,
};

struct irq_put {
	struct sim_event ev;
	struct bio **bios;
};

static void irq_put_fn(struct sim_event *ev)
{
	struct irq_put *p = container_of(ev, struct irq_put, ev);

	for (int i = 0; i < BATCH; i++)
		bio_put(p->bios[i]);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static void one_batch(enum put_mode mode)
{
	struct bio *bios[BATCH];
	struct irq_put p = { .bios = bios };

	for (int i = 0; i < BATCH; i++)
		bios[i] = bio_alloc(NULL, 1, REQ_OP_READ, GFP_KERNEL);

	switch (mode) {
	case PUT_SAME_CPU:
		for (int i = 0; i < BATCH; i++)
			bio_put(bios[i]);
		break;
	case PUT_HARDIRQ:
		p.ev.fn = irq_put_fn;
		p.ev.ctx = SIM_CTX_HARDIRQ;
		p.ev.cpu = -1;
		sim_event_run_now(&p.ev, SIM_CTX_HARDIRQ);
		break;
	case PUT_OTHER_CPU:
		sim_task_set_cpu(1);
		for (int i = 0; i < BATCH; i++)
			bio_put(bios[i]);
		sim_task_set_cpu(0);
		break;
	}
}

static void run(const char *name, enum put_mode mode, bool cache,
		unsigned long pairs)
{
	unsigned long batches = pairs / BATCH, i;
	long allocs, hits, misses;
	u64 t0, t1;

	blksim_bio_percpu_cache_default = cache;
	blksim_bio_drain_caches();

	/* warm up: fill the caches, settle the mempool */
	for (i = 0; i < 1024; i++)
		one_batch(mode);

	hits = sim_stat_get("bio_cache_hit");
	misses = sim_stat_get("bio_cache_miss");
	allocs = sim_alloc_total();
	t0 = now_ns();
	for (i = 0; i < batches; i++)
		one_batch(mode);
	t1 = now_ns();
	allocs = sim_alloc_total() - allocs;
	hits = sim_stat_get("bio_cache_hit") - hits;
	misses = sim_stat_get("bio_cache_miss") - misses;

	printf("%-22s %9.1f ns/pair %7.3f allocs/pair  hits %-9ld misses %ld\n",
	       name, (double)(t1 - t0) / (double)(batches * BATCH),
	       (double)allocs / (double)(batches * BATCH), hits, misses);
}

int main(int argc, char **argv)
{
	struct sim_engine_opts opts = { .kind = SIM_ENGINE_DET, .seed = 1 };
	unsigned long pairs = 2000000;

	if (argc > 1)
		pairs = strtoul(argv[1], NULL, 0);
	if (pairs < BATCH)
		pairs = BATCH;
	if (sim_engine_init(&opts)) {
		fprintf(stderr, "bench_block_bio_alloc: engine init failed\n");
		return 1;
	}
	/* the trace ring would dominate the figures */
	sim_trace_enable(false);

	printf("bio_alloc(nr_vecs=1) + bio_put(), %lu pairs, batches of %d\n",
	       pairs, BATCH);
	run("cache, same CPU", PUT_SAME_CPU, true, pairs);
	run("cache, hard-IRQ put", PUT_HARDIRQ, true, pairs);
	run("cache, cross CPU", PUT_OTHER_CPU, true, pairs);
	run("no cache, same CPU", PUT_SAME_CPU, false, pairs);
	run("no cache, cross CPU", PUT_OTHER_CPU, false, pairs);

	blksim_bio_percpu_cache_default = true;
	blksim_bio_drain_caches();
	sim_engine_exit();
	return 0;
}
