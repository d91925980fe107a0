// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's slow path: sizes that no longer share one recency order
 * (a miss not installed, or absent, of a key deeper than the kernel's LRU
 * is a hit only in the sizes above its depth) each keep a stack of their
 * own, a group of sizes (lo, hi] per order, until the orders agree again
 * and the model returns to its one stack (lrusim.c). Rare, so plain
 * arrays and linear searches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lru/lrusim_cpu.h"

void lrusim_groups_free(struct lrusim_cpu *c)
{
	for (int g = 0; c->groups && g < c->ngroups; g++)
		free(c->groups[g].keys);
	free(c->groups);
	c->groups = NULL;
	c->ngroups = 1;
}

static int group_find(const struct lrusim_group *g, const struct lru_key *k)
{
	for (int i = 0; i < g->len; i++)
		if (key_eq(&g->keys[i], k))
			return i;
	return -1;
}

static void group_front(struct lrusim_group *g, const struct lru_key *k, int d)
{
	if (d < 0)
		d = g->len < g->hi ? g->len++ : g->hi - 1;
	memmove(&g->keys[1], &g->keys[0], d * sizeof(*g->keys));
	g->keys[0] = *k;
}

/* The one stack becomes one group of every size. */
static int to_groups(const struct lrusim *sim, struct lrusim_cpu *c)
{
	struct lrusim_group *g = calloc(sim->depth, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g[0].hi = sim->depth;
	g[0].len = c->len;
	g[0].keys = malloc(sim->depth * sizeof(*g[0].keys));
	if (!g[0].keys) {
		free(g);
		return -ENOMEM;
	}
	for (int i = 0; i < c->len; i++)
		g[0].keys[i] = c->keys[c->stack[i]];
	c->groups = g;
	c->ngroups = 1;
	return 0;
}

/* One group left: back to the one stack. */
static void from_groups(const struct lrusim *sim, struct lrusim_cpu *c)
{
	struct lrusim_group g = c->groups[0];

	c->groups[0].keys = NULL;
	lrusim_groups_free(c);
	lrusim_stack_clear(sim, c);
	for (int i = 0; i < g.len; i++)
		lrusim_stack_append(sim, c, &g.keys[i]);
	free(g.keys);
}

/*
 * Group i splits at depth d: sizes (lo, d] keep its order (and need only
 * d keys), sizes (d, hi] get the key at d moved to the front.
 */
static int group_split(struct lrusim *sim, struct lrusim_cpu *c, int i, int d)
{
	struct lrusim_group *g = &c->groups[i], low;
	struct lru_key k = g->keys[d];

	low.hi = d;
	low.len = g->len < d ? g->len : d;
	low.keys = malloc(d * sizeof(*low.keys));
	if (!low.keys)
		return -ENOMEM;
	memcpy(low.keys, g->keys, low.len * sizeof(*low.keys));
	group_front(g, &k, d);
	memmove(&c->groups[i + 1], &c->groups[i],
		(c->ngroups - i) * sizeof(*c->groups));
	c->groups[i] = low;
	c->ngroups++;
	sim->splits++;
	return 0;
}

/* Neighbours whose orders agree again become one group. */
static void groups_merge(const struct lrusim *sim, struct lrusim_cpu *c)
{
	for (int i = 0; i + 1 < c->ngroups;) {
		struct lrusim_group *a = &c->groups[i], *b = &c->groups[i + 1];
		int n = b->len < a->hi ? b->len : a->hi;
		bool same = a->len == n;

		for (int j = 0; same && j < n; j++)
			same = key_eq(&a->keys[j], &b->keys[j]);
		if (!same) {
			i++;
			continue;
		}
		free(a->keys);
		memmove(a, b, (c->ngroups - i - 1) * sizeof(*a));
		c->ngroups--;
	}
	if (c->ngroups == 1)
		from_groups(sim, c);
}

static bool groups_full(const struct lrusim_cpu *c)
{
	for (int i = 0; i < c->ngroups; i++)
		if (c->groups[i].len < c->groups[i].hi)
			return false;
	return true;
}

/* The one stack splits at depth d. */
int lrusim_groups_split(struct lrusim *sim, struct lrusim_cpu *c, int d)
{
	return to_groups(sim, c) ?: group_split(sim, c, 0, d);
}

bool lrusim_groups_lru_is(const struct lrusim_cpu *c, int S,
			  const struct lru_key *keys, int n)
{
	for (int i = 0, lo = 0; i < c->ngroups; lo = c->groups[i++].hi) {
		const struct lrusim_group *g = &c->groups[i];
		int m = g->len < S ? g->len : S;

		if (lo < S && S <= g->hi) {
			if (m != n)
				return false;
			for (int j = 0; j < n; j++)
				if (!key_eq(&g->keys[j], &keys[j]))
					return false;
			return true;
		}
	}
	return n == 0;
}

/*
 * Figures of one range of sizes (lo, hi] where the key is at depth d (-1:
 * not held) of a stack holding len keys. While groups and phantoms meet,
 * every size above the traced one is undecided.
 */
static void count_sizes(const struct lrusim_cpu *c, struct lrusim_figures *f,
			const struct lrusim_lookup *l, int lo, int hi, int d, int len)
{
	int u = hi + 1;		/* the first undecided size */
	int h = d >= 0 ? (d > lo ? d : lo) + 1 : hi + 1;	/* first hit */

	add_sizes(f->hit, h, hi);
	if (d < 0 && !c->tail_known)
		u = len + 1;
	if ((c->nphantom || c->above_lost) && l->S + 1 < u)
		u = l->S + 1;
	if (u <= lo)
		u = lo + 1;
	/* undecided: hits from max(u, h), misses from u below h */
	add_sizes(f->und_hit, u > h ? u : h, hi);
	add_sizes(f->und_miss, u, h - 1);
}

int lrusim_groups_lookup(struct lrusim *sim, struct lrusim_cpu *c,
			 struct lrusim_lookup *l)
{
	struct lrusim_figures *f = &c->fig;
	int o = -1, lo, top_d = -1, err;

	/* predictions and figures first, from the groups as they are */
	lo = 0;
	for (int i = 0; i < c->ngroups; i++) {
		struct lrusim_group *g = &c->groups[i];
		int d = group_find(g, l->k);

		if (lo < l->S && l->S <= g->hi) {
			o = predict(d, l->S, l->flags);
			l->conflict = d >= 0 && d < l->S &&
				      !(l->flags & LRU_EV_FRONT);
			if (o == LRU_HIT)
				l->slot = d;
			if (l->counted && o == LRU_HIT)
				f->slots[d]++;
			else if (l->counted && o == LRU_MISS_INSTALLED &&
				 g->len >= l->S)
				f->evictions++;
		}
		if (l->counted)
			count_sizes(c, f, l, lo, g->hi, d, g->len);
		top_d = d;
		lo = g->hi;
	}
	if (o < 0)		/* S 0: no LRU at all */
		o = predict(-1, 0, l->flags);
	if (l->conflict)
		return o;
	/* then the changes, top group first: a split shifts those above */
	for (int i = c->ngroups - 1; i >= 0; i--) {
		struct lrusim_group *g = &c->groups[i];
		int glo = i ? c->groups[i - 1].hi : 0;
		int d = group_find(g, l->k);

		if (l->flags & LRU_EV_FRONT) {
			group_front(g, l->k, d);
		} else if (d >= 0 && d <= glo) {
			group_front(g, l->k, d);
		} else if (d > glo) {
			err = group_split(sim, c, i, d);
			if (err)
				return err;
		}
	}
	if (!(l->flags & LRU_EV_FRONT) && top_d < 0 && !c->tail_known)
		c->above_lost = true;	/* a phantom: the groups cannot say */
	if (groups_full(c))
		c->tail_known = true;
	groups_merge(sim, c);
	return o;
}

