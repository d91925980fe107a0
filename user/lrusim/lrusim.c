// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's model (struct lrusim). While every size shares one
 * recency order (nearly always) a CPU's model is one stack of up to depth
 * keys: a byte array of slot numbers, newest first, over a key table and
 * a hash of it, so that a lookup costs a hash probe, a memchr and a
 * memmove of at most depth bytes. When a miss not installed (or absent)
 * finds its key deeper than the traced LRU, the sizes stop sharing one
 * order: the same stack then says, per key, the smallest size that holds
 * it, until the orders agree again or the LRU is emptied (lrusim_cpu_split_*(),
 * at the same cost).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lrusim/lrusim_cpu.h"

/* Stack entries compared before the hash is asked. */
#define TOP 8

/* A hash at most half full: slots for twice the depth. */
static int hash_bits(const struct lrusim *sim)
{
	return sim->hash_bits;
}

static inline unsigned int key_hash(const struct lru_key *k, int bits)
{
	uint64_t h = k->block ^ (((uint64_t)k->dev << 32 | k->size) *
				 0xc2b2ae3d27d4eb4fULL);

	return (h * 0x9e3779b97f4a7c15ULL) >> (64 - bits);
}

int lrusim_init(struct lrusim *sim, int depth, int nr_cpus, uint32_t kdev,
		bool raw_bits)
{
	memset(sim, 0, sizeof(*sim));
	if (depth < BHSCOPE_LRU_SLOTS_MAX || depth > BHSCOPE_LRU_DEPTH_MAX ||
	    nr_cpus < 1)
		return -EINVAL;
	sim->depth = depth;
	sim->hash_bits = 1;
	while ((1 << sim->hash_bits) < 2 * depth)
		sim->hash_bits++;
	sim->nr_cpus = nr_cpus;
	sim->kdev = kdev;
	sim->raw_bits = raw_bits;
	sim->cpus = calloc(nr_cpus, sizeof(*sim->cpus));
	return sim->cpus ? 0 : -ENOMEM;
}

void lrusim_free(struct lrusim *sim)
{
	for (int i = 0; sim->cpus && i < sim->nr_cpus; i++)
		free(sim->cpus[i]);
	free(sim->cpus);
	sim->cpus = NULL;
}

size_t lrusim_cpu_bytes(const struct lrusim *sim)
{
	size_t d = sim->depth, h = (size_t)1 << hash_bits(sim);
	struct lrusim_cpu *c;

	return sizeof(*c) + d * sizeof(*c->keys) + d * sizeof(*c->stamp) +
	       BHSCOPE_LRU_SLOTS_MAX * sizeof(*c->snap) +
	       h * sizeof(*c->hash) + d + ((d + 15) & ~(size_t)15);
}

/* One block per CPU: the struct, then its arrays. */
static struct lrusim_cpu *cpu_get(struct lrusim *sim, uint32_t cpu)
{
	size_t d = sim->depth, h = (size_t)1 << hash_bits(sim);
	struct lrusim_cpu *c = sim->cpus[cpu];
	char *p;

	if (c)
		return c;
	p = calloc(1, lrusim_cpu_bytes(sim));
	if (!p)
		return NULL;
	c = (struct lrusim_cpu *)p;
	p += sizeof(*c);
	c->keys = (struct lru_key *)p;
	p += d * sizeof(*c->keys);
	c->stamp = (uint64_t *)p;
	p += d * sizeof(*c->stamp);
	c->snap = (struct lru_key *)p;
	p += BHSCOPE_LRU_SLOTS_MAX * sizeof(*c->snap);
	c->hash = (uint16_t *)p;
	p += h * sizeof(*c->hash);
	c->stack = (unsigned char *)p;
	c->mpos = c->stack + d;
	c->learning = true;
	sim->cpus[cpu] = c;
	return c;
}

/* ---- one stack: hash, key table, slot numbers ---- */

static int hash_find(const struct lrusim *sim, const struct lrusim_cpu *c,
		     const struct lru_key *k)
{
	int bits = hash_bits(sim);
	unsigned int mask = (1U << bits) - 1, i = key_hash(k, bits);

	for (; c->hash[i]; i = (i + 1) & mask)
		if (lrusim_cpu_key_eq(&c->keys[c->hash[i] - 1], k))
			return c->hash[i] - 1;
	return -1;
}

static void hash_add(const struct lrusim *sim, struct lrusim_cpu *c, int slot)
{
	int bits = hash_bits(sim);
	unsigned int mask = (1U << bits) - 1;
	unsigned int i = key_hash(&c->keys[slot], bits);

	while (c->hash[i])
		i = (i + 1) & mask;
	c->hash[i] = slot + 1;
}

/* Linear probing's deletion: later entries of the run move back. */
static void hash_del(const struct lrusim *sim, struct lrusim_cpu *c, int slot)
{
	int bits = hash_bits(sim);
	unsigned int mask = (1U << bits) - 1;
	unsigned int i = key_hash(&c->keys[slot], bits), j, home;

	while (c->hash[i] != slot + 1)
		i = (i + 1) & mask;
	c->hash[i] = 0;
	for (j = (i + 1) & mask; c->hash[j]; j = (j + 1) & mask) {
		home = key_hash(&c->keys[c->hash[j] - 1], bits);
		/* it may move to i if i lies between its home and j */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			c->hash[i] = c->hash[j];
			c->hash[j] = 0;
			i = j;
		}
	}
}

void lrusim_cpu_stack_clear(const struct lrusim *sim, struct lrusim_cpu *c)
{
	c->split = false;
	c->len = 0;
	memset(c->hash, 0, sizeof(*c->hash) << hash_bits(sim));
}

static inline int stack_depth(const struct lrusim_cpu *c, int slot)
{
	const unsigned char *p = memchr(c->stack, slot, c->len);

	return p - c->stack;
}

static inline void stack_to_front(struct lrusim_cpu *c, int d)
{
	unsigned char s = c->stack[d];

	memmove(c->stack + 1, c->stack, d);
	c->stack[0] = s;
}

/* A key the stack does not hold goes to its front; the last falls off. */
static void stack_push(const struct lrusim *sim, struct lrusim_cpu *c,
		       const struct lru_key *k)
{
	int s;

	if (c->len < sim->depth) {
		/* slots 0..len-1 are taken: only evictions free one */
		s = c->len;
		memmove(c->stack + 1, c->stack, c->len++);
	} else {
		s = c->stack[c->len - 1];
		hash_del(sim, c, s);
		memmove(c->stack + 1, c->stack, c->len - 1);
	}
	c->keys[s] = *k;
	c->stamp[s] = 0;
	hash_add(sim, c, s);
	c->stack[0] = s;
}

/* Appends a key at the bottom; 0, or -1 if the stack holds it already. */
int lrusim_cpu_stack_append(const struct lrusim *sim, struct lrusim_cpu *c,
			    const struct lru_key *k)
{
	if (c->len >= sim->depth || hash_find(sim, c, k) >= 0)
		return -1;
	c->keys[c->len] = *k;
	c->stamp[c->len] = 0;
	hash_add(sim, c, c->len);
	c->stack[c->len] = c->len;
	c->len++;
	return 0;
}

int lrusim_cpu_stack_replace(const struct lrusim *sim, struct lrusim_cpu *c,
			     int s, const struct lru_key *k)
{
	if (s >= 0)
		hash_del(sim, c, s);
	else
		s = c->len;
	c->keys[s] = *k;
	c->stamp[s] = 0;
	hash_add(sim, c, s);
	return s;
}

/* ---- figures ---- */

static struct lrusim_phantom *phantom_find(struct lrusim_cpu *c,
					    const struct lru_key *k)
{
	for (int i = 0; i < c->nphantom; i++)
		if (lrusim_cpu_key_eq(&c->phantom[i].key, k))
			return &c->phantom[i];
	return NULL;
}

/* k may have moved to a larger LRU's front (again): it is at depth 0+. */
static void phantom_add(struct lrusim_cpu *c, const struct lru_key *k)
{
	struct lrusim_phantom *x = phantom_find(c, k);

	if (!x && c->nphantom == LRUSIM_PHANTOMS) {
		c->above_lost = true;
		return;
	}
	if (!x)
		x = &c->phantom[c->nphantom++];
	*x = (struct lrusim_phantom){ .key = *k, .t = c->now };
}

static void phantom_drop(struct lrusim_cpu *c, struct lrusim_phantom *x)
{
	*x = c->phantom[--c->nphantom];
}

/*
 * k (last moved at stamp, 0 if new to the model) moves to the front: it
 * goes ahead of every phantom that moved after it; a phantom installed
 * again is the model's key once more; one depth keys went ahead of has
 * left every size.
 */
static void phantoms_front(const struct lrusim *sim, struct lrusim_cpu *c,
			   const struct lru_key *k, uint64_t stamp)
{
	for (int i = 0; i < c->nphantom;) {
		struct lrusim_phantom *x = &c->phantom[i];

		if (lrusim_cpu_key_eq(&x->key, k) ||
		    (stamp <= x->t && ++x->ahead >= sim->depth)) {
			phantom_drop(c, x);
			continue;
		}
		i++;
	}
}

/* Phantoms at or above depth d of the model: each may push d down one. */
static int phantoms_above(const struct lrusim_cpu *c, int d)
{
	int n = 0;

	for (int i = 0; i < c->nphantom; i++)
		n += c->phantom[i].ahead <= d;
	return n;
}

/* ---- a lookup ---- */

/*
 * The same for the one stack: a held key is at depth d in every size, or
 * deeper by the phantoms that may be ahead of it; a key not held may be
 * in a larger LRU's unknown tail, or a phantom.
 */
static void count_one(struct lrusim_cpu *c, struct lrusim_figures *f,
		      const struct lrusim_lookup *l, int d, int depth)
{
	const struct lrusim_phantom *x;
	int h = d >= 0 ? d + 1 : depth + 1, u = depth + 1, n;

	lrusim_cpu_add_sizes(f->hit, h, depth);
	if (c->above_lost) {
		u = l->S + 1;
		lrusim_cpu_add_sizes(f->und_hit, u > h ? u : h, depth);
		lrusim_cpu_add_sizes(f->und_miss, u, h - 1);
		return;
	}
	if (d >= 0) {
		n = c->nphantom ? phantoms_above(c, d) : 0;
		if (n)
			lrusim_cpu_add_sizes(f->und_hit, h > l->S ? h : l->S + 1,
					     d + n < depth ? d + n : depth);
		return;
	}
	if (!c->tail_known)
		u = c->len + 1;
	/* not put at the front: in no LRU up to the kernel's */
	if (!(l->flags & LRU_EV_FRONT) && u <= l->S)
		u = l->S + 1;
	if (c->nphantom && (x = phantom_find(c, l->k))) {
		n = x->ahead > l->S ? x->ahead : l->S;
		if (n + 1 < u)
			u = n + 1;
	}
	lrusim_cpu_add_sizes(f->und_miss, u, depth);
}

static int lookup_one(struct lrusim *sim, struct lrusim_cpu *c,
		      struct lrusim_lookup *l)
{
	struct lrusim_figures *f = &c->fig;
	int s = -1, d = -1, o, top = c->len < TOP ? c->len : TOP;

	/* most lookups hit near the front: look there before hashing */
	for (int i = 0; i < top; i++) {
		if (lrusim_cpu_key_eq(&c->keys[c->stack[i]], l->k)) {
			d = i;
			s = c->stack[i];
			break;
		}
	}
	if (d < 0 && c->len > TOP) {
		s = hash_find(sim, c, l->k);
		d = s >= 0 ? stack_depth(c, s) : -1;
	}
	if (c->split)
		return lrusim_cpu_split_lookup(sim, c, l, d);
	o = lrusim_cpu_predict(d, l->S, l->flags);
	/* learning, the model cannot tell a hit from an install at S */
	if (d < 0 && !c->tail_known && c->len < l->S &&
	    (l->flags & LRU_EV_FRONT)) {
		sim->waiting++;
		stack_push(sim, c, l->k);
		c->stamp[c->stack[0]] = ++c->now;
		if (c->nphantom)
			phantoms_front(sim, c, l->k, 0);
		return LRU_UNSYNCED;
	}

	l->conflict = d >= 0 && d < l->S && !(l->flags & LRU_EV_FRONT);
	if (o == LRU_HIT)
		l->slot = d;
	if (l->counted) {
		count_one(c, f, l, d, sim->depth);
		if (o == LRU_HIT)
			f->slots[d]++;
		else if (o == LRU_MISS_INSTALLED && l->S && c->len >= l->S)
			f->evictions++;
	}
	if (l->conflict)
		return o;
	if (l->flags & LRU_EV_FRONT) {
		uint64_t last = 0;

		if (d >= 0) {
			last = c->stamp[s];
			stack_to_front(c, d);
		} else {
			stack_push(sim, c, l->k);
			s = c->stack[0];
		}
		if (c->nphantom)
			phantoms_front(sim, c, l->k, last);
		c->stamp[s] = ++c->now;
	} else if (d > 0) {
		/* sizes above d hit it and move it, the others do not */
		if (c->nphantom)
			c->above_lost = true;	/* where d is unsure */
		lrusim_cpu_split_begin(sim, c, d);
	} else if (d < 0 && !c->tail_known) {
		phantom_add(c, l->k);
	}
	if (c->len == sim->depth)
		c->tail_known = true;
	return o;
}

/*
 * The LRU changed in a way the model did not see: it starts over, from
 * nothing, and learns what the lookups put at the front (or takes the
 * next snapshot).
 */
static void restart(struct lrusim *sim, struct lrusim_cpu *c)
{
	if (!c->learning || c->len)
		sim->restarts++;
	lrusim_cpu_stack_clear(sim, c);
	c->learning = true;
	c->tail_known = false;
	c->nphantom = 0;
	c->above_lost = false;
	c->snap_open = false;
}

/* The tracer's outcome said in FOUND/FRONT bits, for traces without them. */
static unsigned int bits_of(int outcome)
{
	switch (outcome) {
	case LRU_HIT:
	case LRU_MISS_INSTALLED:
		return LRU_EV_FOUND | LRU_EV_FRONT;
	case LRU_MISS_NOT_INSTALLED:
		return LRU_EV_FOUND;
	default:
		return 0;
	}
}

static int lookup(struct lrusim *sim, struct lrusim_cpu *c,
		  const struct lru_event *e)
{
	struct lru_key k = { e->block, e->dev, e->size };
	struct lrusim_lookup l = {
		.k = &k, .S = e->lru_size, .slot = -1,
		.flags = sim->raw_bits ? e->flags : bits_of(e->outcome),
		.counted = !sim->kdev || e->dev == sim->kdev,
	};
	struct lrusim_figures *f = &c->fig;
	int o = LRU_UNSYNCED;

	if (e->outcome == LRU_UNSYNCED) {
		/* left out; a restart starts the model over */
		if (e->flags & LRU_EV_RESTART)
			restart(sim, c);
		goto count;
	}
	if ((e->flags & LRU_EV_RESTART) ||
	    ((e->flags & LRU_EV_EMPTY) && !c->after_reset))
		restart(sim, c);	/* an LRU changed unseen */
	if ((l.flags & LRU_EV_FRONT) && !(l.flags & LRU_EV_FOUND)) {
		/* no bh, yet one at the front: not a lookup the model knows */
		if (l.counted)
			f->conflicts++;
	} else {
		o = lookup_one(sim, c, &l);
		if (o < 0)
			return o;
		if (l.counted && l.conflict)
			f->conflicts++;
	}
count:
	if (l.counted) {
		f->lookups++;
		f->live[e->outcome]++;
		f->model[o]++;
		f->cmp[e->outcome][o]++;
		if (o == LRU_HIT && e->outcome == LRU_HIT && e->slot != l.slot)
			f->slot_differs++;
	}
	return 0;
}

/* ---- snapshots, resets ---- */

/* Does the model's LRU of size S hold exactly keys[0..n-1], in order? */
static bool model_lru_is(const struct lrusim_cpu *c, int S,
			 const struct lru_key *keys, int n)
{
	if (c->split)
		return lrusim_cpu_split_lru_is(c, S, keys, n);
	if ((c->len < S ? c->len : S) != n)
		return false;
	for (int j = 0; j < n; j++)
		if (!lrusim_cpu_key_eq(&c->keys[c->stack[j]], &keys[j]))
			return false;
	return true;
}

/* Does the model hold keys[0..n-1] in its first n slots? */
static bool model_starts_with(const struct lrusim_cpu *c,
			      const struct lru_key *keys, int n)
{
	if (c->split || c->len > n)
		return false;
	for (int j = 0; j < c->len; j++)
		if (!lrusim_cpu_key_eq(&c->keys[c->stack[j]], &keys[j]))
			return false;
	return true;
}

static void snapshot_close(struct lrusim *sim, struct lrusim_cpu *c)
{
	int n = c->snap_len, S = c->snap_lru;

	c->snap_open = false;
	sim->snapshots++;
	if (c->snap_bad) {
		sim->bad_snapshots++;
		restart(sim, c);
		return;
	}
	if (model_lru_is(c, S, c->snap, n)) {
		/* the model knew this LRU: it keeps what it knows beyond */
		sim->snapshots_agreed++;
		c->learning = false;
		if (n < S)
			c->tail_known = true;
		return;
	}
	/* a model learning since a restart may just know less */
	if (c->learning && model_starts_with(c, c->snap, n))
		sim->snapshots_agreed += c->len > 0;
	else
		sim->resyncs++;
	lrusim_cpu_stack_clear(sim, c);
	for (int i = 0; i < n; i++) {
		if (lrusim_cpu_stack_append(sim, c, &c->snap[i])) {
			sim->bad_snapshots++;
			restart(sim, c);
			return;
		}
	}
	/* A full LRU may have evicted what a larger one still holds. */
	c->tail_known = n < S;
	c->nphantom = 0;
	c->above_lost = false;
	c->learning = false;
}

/* Slot -1 (an empty LRU) or 0 starts a run; each next slot continues it. */
static void snapshot_record(struct lrusim_cpu *c, const struct lru_event *e)
{
	if (e->slot <= 0) {
		c->snap_open = true;
		c->snap_bad = false;
		c->snap_len = 0;
		c->snap_lru = e->lru_size;
		if (e->slot < 0)
			return;
	} else if (!c->snap_open) {
		return;		/* the start was lost: wait for the next */
	}
	if (e->slot != c->snap_len || e->slot >= BHSCOPE_LRU_SLOTS_MAX ||
	    e->slot >= c->snap_lru || e->lru_size != c->snap_lru) {
		c->snap_bad = true;
		return;
	}
	c->snap[c->snap_len++] = (struct lru_key){ e->block, e->dev, e->size };
}

int lrusim_feed(struct lrusim *sim, const struct lru_event *e)
{
	struct lrusim_cpu *c;
	bool reset = false;
	int err = 0;

	if (e->outcome > LRU_RESET || e->cpu >= (unsigned int)sim->nr_cpus ||
	    e->lru_size > BHSCOPE_LRU_SLOTS_MAX)
		return -EINVAL;
	c = cpu_get(sim, e->cpu);
	if (!c)
		return -ENOMEM;
	sim->records++;
	if (c->snap_open && (e->outcome != LRU_SNAPSHOT || e->slot <= 0))
		snapshot_close(sim, c);
	if (e->flags & LRU_EV_GAP) {
		sim->gaps++;
		restart(sim, c);
	}
	switch (e->outcome) {
	case LRU_SNAPSHOT:
		snapshot_record(c, e);
		break;
	case LRU_RESET:
		/* emptied: every size is, and the model knows all of it */
		sim->resets++;
		lrusim_cpu_stack_clear(sim, c);
		c->tail_known = true;
		c->nphantom = 0;
		c->above_lost = false;
		c->learning = false;
		reset = true;
		break;
	default:
		err = lookup(sim, c, e);
	}
	c->after_reset = reset;
	return err;
}

const struct lrusim_figures *lrusim_cpu(const struct lrusim *sim, int cpu)
{
	if (cpu < 0 || cpu >= sim->nr_cpus || !sim->cpus[cpu])
		return NULL;
	return &sim->cpus[cpu]->fig;
}

void lrusim_total(const struct lrusim *sim, struct lrusim_figures *out)
{
	uint64_t *o = (uint64_t *)out;

	_Static_assert(sizeof(*out) % sizeof(uint64_t) == 0, "u64 words");
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < sim->nr_cpus; i++) {
		const uint64_t *f;

		if (!sim->cpus[i])
			continue;
		f = (const uint64_t *)&sim->cpus[i]->fig;
		/* two's complement: the signed arrays add up alike */
		for (size_t w = 0; w < sizeof(*out) / sizeof(*o); w++)
			o[w] += f[w];
	}
}

uint64_t lrusim_classified(const struct lrusim_figures *f)
{
	return f->model[LRU_HIT] + f->model[LRU_MISS_INSTALLED] +
	       f->model[LRU_MISS_NOT_INSTALLED] + f->model[LRU_MISS_ABSENT];
}

uint64_t lrusim_disagreements(const struct lrusim_figures *f)
{
	uint64_t n = f->slot_differs;

	for (int l = 0; l < LRU_UNSYNCED; l++)
		for (int m = 0; m < LRU_UNSYNCED; m++)
			if (l != m)
				n += f->cmp[l][m];
	return n;
}

void lrusim_curve(const struct lrusim_figures *f, int n, uint64_t *hits,
		  uint64_t *min, uint64_t *max)
{
	int64_t h = 0, uh = 0, um = 0;

	for (int k = 1; k <= n && k < LRUSIM_SIZES - 1; k++) {
		h += f->hit[k];
		uh += f->und_hit[k];
		um += f->und_miss[k];
		hits[k - 1] = h;
		min[k - 1] = h - uh;
		max[k - 1] = h + um;
	}
}
