// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allocation and pinning fault injection.  Decisions depend only on the
 * configuration and the sequence of calls while armed, so a seed replays.
 */
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <linux/kernel.h>
#include <sim/alloc.h>
#include <sim/fault.h>
#include <sim/rand.h>
#include <sim/trace.h>

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_fault_alloc cfg;
static char cfg_site[128];
static struct sim_rand rng;
static bool armed;
static u64 seen, injected;
static u64 pin_nth, pin_seen;
static size_t pin_bytes;
static unsigned long unmapped_from;

/*
 * mempool_alloc() with a sleeping mask cannot fail, so the allocation it
 * makes underneath is not one "the kernel allows to fail": it does not
 * count towards the Nth-allocation rule (it can still fail by site or
 * probability, which sends the pool to its reserve).
 */
__thread int sim_fault_nocount;

void sim_fault_alloc_set(const struct sim_fault_alloc *c)
{
	pthread_mutex_lock(&fault_lock);
	cfg = *c;
	cfg_site[0] = '\0';
	if (c->site)
		snprintf(cfg_site, sizeof(cfg_site), "%s", c->site);
	cfg.site = cfg_site[0] ? cfg_site : NULL;
	sim_rand_seed(&rng, c->seed);
	seen = injected = 0;
	pthread_mutex_unlock(&fault_lock);
}

void sim_fault_reset(void)
{
	pthread_mutex_lock(&fault_lock);
	memset(&cfg, 0, sizeof(cfg));
	armed = false;
	seen = injected = 0;
	__atomic_store_n(&pin_nth, 0, __ATOMIC_RELAXED);
	pin_seen = 0;
	pin_bytes = 0;
	__atomic_store_n(&unmapped_from, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fault_lock);
}

void sim_fault_arm(bool on)
{
	__atomic_store_n(&armed, on, __ATOMIC_RELAXED);
}

bool sim_fault_armed(void)
{
	return __atomic_load_n(&armed, __ATOMIC_RELAXED);
}

static bool site_matches(const struct sim_alloc_site *site)
{
	char where[256];

	if (!cfg.site)
		return true;
	if (strstr(site->func, cfg.site))
		return true;
	snprintf(where, sizeof(where), "%s:%d", site->file, site->line);
	return strstr(where, cfg.site) != NULL;
}

bool sim_fault_alloc_fail(const struct sim_alloc_site *site, gfp_t gfp)
{
	bool fail = false;

	if (!__atomic_load_n(&armed, __ATOMIC_RELAXED) || (gfp & __GFP_NOFAIL))
		return false;
	pthread_mutex_lock(&fault_lock);
	if (site_matches(site)) {
		if (cfg.nth) {
			if (!sim_fault_nocount && ++seen == cfg.nth)
				fail = true;
		} else if (cfg.prob_ppm) {
			seen++;
			fail = sim_rand_below(&rng, 1000000) < cfg.prob_ppm;
		} else if (cfg.site) {
			seen++;
			fail = true;
		} else if (!sim_fault_nocount) {
			seen++;
		}
	}
	if (fail)
		injected++;
	pthread_mutex_unlock(&fault_lock);
	if (fail)
		sim_trace("fault_alloc_fail", "site %s", site->func);
	return fail;
}

/* A counter the allocation hook bumps under fault_lock, read whole. */
static u64 fault_counter_read(const u64 *counter)
{
	u64 n;

	pthread_mutex_lock(&fault_lock);
	n = *counter;
	pthread_mutex_unlock(&fault_lock);
	return n;
}

u64 sim_fault_alloc_seen(void)
{
	return fault_counter_read(&seen);
}

u64 sim_fault_alloc_injected(void)
{
	return fault_counter_read(&injected);
}

void sim_fault_short_pin_set(u64 nth, size_t bytes)
{
	pthread_mutex_lock(&fault_lock);
	__atomic_store_n(&pin_nth, nth, __ATOMIC_RELAXED);
	pin_bytes = bytes;
	pin_seen = 0;
	pthread_mutex_unlock(&fault_lock);
}

void sim_fault_unmapped_set(unsigned long addr)
{
	__atomic_store_n(&unmapped_from, addr, __ATOMIC_RELAXED);
}

ssize_t sim_fault_pin_limit(unsigned long addr, size_t want)
{
	unsigned long hole = __atomic_load_n(&unmapped_from, __ATOMIC_RELAXED);
	ssize_t limit = (ssize_t)want, mapped;

	if (hole && addr + want > hole) {
		limit = addr < hole ? (ssize_t)(hole - addr) : -EFAULT;
		sim_trace("fault_unmapped", "want %zu got %zd", want, limit);
	}
	/* every extraction asks: no rule, no lock */
	if (!__atomic_load_n(&pin_nth, __ATOMIC_RELAXED))
		return limit;
	mapped = limit;
	pthread_mutex_lock(&fault_lock);
	if (pin_nth && ++pin_seen == pin_nth && limit > 0) {
		if (!pin_bytes)
			limit = -EFAULT;
		else if (pin_bytes < (size_t)limit)
			limit = (ssize_t)pin_bytes;
	}
	pthread_mutex_unlock(&fault_lock);
	if (limit != mapped)
		sim_trace("fault_short_pin", "want %zu got %zd", (size_t)mapped,
			  limit);
	return limit;
}
