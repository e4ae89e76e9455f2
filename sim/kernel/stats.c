// SPDX-License-Identifier: GPL-2.0-only
/* The registry of named counters (see <sim/stats.h>). */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <linux/kernel.h>
#include <sim/stats.h>

static struct sim_stat *stats_head;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

void sim_stat_register(struct sim_stat *s)
{
	pthread_mutex_lock(&stats_lock);
	s->next = stats_head;
	stats_head = s;
	pthread_mutex_unlock(&stats_lock);
}

struct sim_stat *sim_stat_find(const char *name)
{
	struct sim_stat *s;

	for (s = stats_head; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

long sim_stat_get(const char *name)
{
	struct sim_stat *s = sim_stat_find(name);

	return s ? sim_stat_read(s) : -1;
}

void sim_stats_for_each(void (*fn)(struct sim_stat *s, void *arg), void *arg)
{
	for (struct sim_stat *s = stats_head; s; s = s->next)
		fn(s, arg);
}

void sim_stats_reset(void)
{
	for (struct sim_stat *s = stats_head; s; s = s->next)
		if (!s->gauge)
			__atomic_store_n(&s->v, 0, __ATOMIC_RELAXED);
}

static int cmp_stat(const void *a, const void *b)
{
	const struct sim_stat *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Sorted snapshot of the registry; the caller frees it. */
static struct sim_stat **sorted(size_t *n)
{
	struct sim_stat **v, *s;
	size_t i = 0;

	*n = 0;
	for (s = stats_head; s; s = s->next)
		(*n)++;
	v = calloc(*n ? *n : 1, sizeof(*v));
	if (!v)
		abort();
	for (s = stats_head; s; s = s->next)
		v[i++] = s;
	qsort(v, *n, sizeof(*v), cmp_stat);
	return v;
}

void sim_stats_print_json(FILE *out)
{
	size_t n;
	struct sim_stat **v = sorted(&n);

	fputc('{', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\"%s\": %ld", i ? ", " : "", v[i]->name,
			sim_stat_read(v[i]));
	fputs("}\n", out);
	free(v);
}

void sim_stats_print(FILE *out, bool all)
{
	size_t n;
	struct sim_stat **v = sorted(&n);

	for (size_t i = 0; i < n; i++)
		if (all || sim_stat_read(v[i]))
			fprintf(out, "%-32s %ld\n", v[i]->name,
				sim_stat_read(v[i]));
	free(v);
}
