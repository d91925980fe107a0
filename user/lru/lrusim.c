// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lru/lru_snapshot.h"
#include "lru/lrusim.h"

/* CPU numbers beyond this are taken as a corrupt record. */
#define LRUSIM_MAX_CPUS 65536

int lrusim_init(struct lrusim *sim, int depth, int lru_size, uint32_t kdev)
{
	memset(sim, 0, sizeof(*sim));
	if (depth < 1 || depth > BHSCOPE_LRU_DEPTH_MAX || lru_size < 1 ||
	    lru_size > BHSCOPE_LRU_SLOTS_MAX)
		return -EINVAL;
	sim->depth = depth > lru_size ? depth : lru_size;
	sim->lru_size = lru_size;
	sim->kdev = kdev;
	return 0;
}

void lrusim_free(struct lrusim *sim)
{
	free(sim->cpus);
	sim->cpus = NULL;
	sim->nr_cpus = 0;
}

static struct lrusim_cpu *cpu_of(struct lrusim *sim, uint32_t cpu)
{
	struct lrusim_cpu *cpus;

	if (cpu >= LRUSIM_MAX_CPUS)
		return NULL;
	if ((int)cpu >= sim->nr_cpus) {
		cpus = realloc(sim->cpus, (cpu + 1) * sizeof(*cpus));
		if (!cpus)
			return NULL;
		memset(&cpus[sim->nr_cpus], 0,
		       (cpu + 1 - sim->nr_cpus) * sizeof(*cpus));
		sim->cpus = cpus;
		sim->nr_cpus = cpu + 1;
	}
	return &sim->cpus[cpu];
}

static bool key_eq(const struct lru_key *a, const struct lru_key *b)
{
	return a->block == b->block && a->dev == b->dev && a->size == b->size;
}

static int stack_find(const struct lrusim_cpu *c, const struct lru_key *k)
{
	for (int i = 0; i < c->len; i++)
		if (key_eq(&c->stack[i], k))
			return i;
	return -1;
}

/* Moves the key at pos (or a new one, pos -1) to the front. */
static void stack_front(struct lrusim *sim, struct lrusim_cpu *c,
			const struct lru_key *k, int pos)
{
	if (pos < 0) {
		pos = c->len < sim->depth ? c->len++ : sim->depth - 1;
	}
	memmove(&c->stack[1], &c->stack[0], pos * sizeof(c->stack[0]));
	c->stack[0] = *k;
}

static void stack_clear(struct lrusim *sim, struct lrusim_cpu *c)
{
	if (c->len)
		sim->resets++;
	c->len = 0;
}

static void snapshot(struct lrusim *sim, struct lrusim_cpu *c,
		     const struct lru_event *e, const struct lru_key *k)
{
	if (!c->in_snapshot) {
		c->len = 0;
		c->in_snapshot = true;
		sim->snapshots++;
	}
	/* Slot -1: the LRU is empty. Slots come in order 0, 1, ... */
	if (e->slot < 0 || e->slot >= sim->depth || e->slot != c->len)
		return;
	c->stack[c->len++] = *k;
}

static void lookup(struct lrusim *sim, struct lrusim_cpu *c,
		   const struct lru_event *e, const struct lru_key *k)
{
	int lru = e->lru_size ? e->lru_size : sim->lru_size;
	bool counted = !sim->kdev || e->dev == sim->kdev;
	int pos, dist = -1;

	if (counted)
		lru_stats_count(&c->stats, e->outcome);
	if (e->outcome == LRU_UNSYNCED) {
		/* The probe's model restarted: so does the replay's. */
		if (e->flags & LRU_EV_RESTART)
			stack_clear(sim, c);
		return;
	}
	if (e->flags & LRU_EV_EMPTY)
		stack_clear(sim, c);
	pos = stack_find(c, k);
	switch (e->outcome) {
	case LRU_HIT:
		dist = pos;
		if (pos != e->slot) {
			sim->desync++;
			dist = e->slot;	/* the kernel is right below lru */
		}
		break;
	case LRU_MISS_INSTALLED:
		dist = pos;
		if (pos >= 0 && pos < lru) {
			sim->desync++;
			dist = -1;
		}
		if (counted && c->len >= lru)
			c->stats.evictions++;
		break;
	default:
		return;		/* misses that install nothing */
	}
	if (counted && dist >= 0 && dist < BHSCOPE_LRU_DEPTH_MAX)
		c->stats.dist[dist]++;
	stack_front(sim, c, k, pos);
}

int lrusim_feed(struct lrusim *sim, const struct lru_event *e)
{
	struct lru_key k = { e->block, e->dev, e->size };
	struct lrusim_cpu *c;

	if (e->outcome > LRU_RESET)
		return -EINVAL;
	c = cpu_of(sim, e->cpu);
	if (!c)
		return e->cpu >= LRUSIM_MAX_CPUS ? -EINVAL : -ENOMEM;
	sim->records++;
	if (e->flags & LRU_EV_GAP) {
		sim->gaps++;
		stack_clear(sim, c);
	}
	if (e->outcome == LRU_SNAPSHOT) {
		snapshot(sim, c, e, &k);
		return 0;
	}
	c->in_snapshot = false;
	if (e->outcome == LRU_RESET) {
		stack_clear(sim, c);
		return 0;
	}
	lookup(sim, c, e, &k);
	return 0;
}

void lrusim_total(const struct lrusim *sim, struct lru_dev_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < sim->nr_cpus; c++)
		lru_stats_add(out, &sim->cpus[c].stats);
}
