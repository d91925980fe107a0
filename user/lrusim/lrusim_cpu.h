/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the replay's model (lrusim_feed()): a CPU's state, shared
 * with the mode for sizes that no longer share one order (lrusim_cpu_split_*()).
 */
#ifndef BHSCOPE_LRUSIM_CPU_H
#define BHSCOPE_LRUSIM_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "lrusim/lrusim.h"

/*
 * A key looked up, not installed or absent, that the model did not hold
 * while a larger LRU might have (its tail was unknown): there it was a hit
 * and moved to the front, ahead of the keys the model holds, until it is
 * installed again (then the model has it at the front too) or enough keys
 * went ahead of it that it left every size.
 */
struct lrusim_phantom {
	struct lru_key key;
	uint64_t t;		/* the CPU's clock when it moved */
	int ahead;		/* keys moved to the front since: at least
				 * this deep now */
};

struct lrusim_cpu {
	bool learning;		/* since its start or a restart the model knows
				 * what it saw, not yet from a snapshot */
	bool tail_known;	/* a larger LRU holds nothing beyond the model */
	bool above_lost;	/* above the traced size every lookup is
				 * undecided until the LRU is known again: too
				 * many phantoms, or sizes that split with one */
	bool after_reset;	/* the CPU's previous record was a reset */
	bool snap_open, snap_bad;
	int snap_len, snap_lru;
	int nphantom;
	uint64_t now;		/* moves to the front so far */
	/* the one stack: len keys, newest first */
	int len;
	bool split;		/* the sizes do not share one order: mpos */
	unsigned char *stack;	/* depth slot numbers */
	unsigned char *mpos;	/* split: by position, the smallest size
				 * that holds the key, minus 1 (depth
				 * rounded up to 16 bytes) */
	struct lru_key *keys;	/* depth, by slot */
	uint16_t *hash;		/* slot + 1, 0: free */
	uint64_t *stamp;	/* depth, by slot: its last move (now) */
	struct lru_key *snap;	/* BHSCOPE_LRU_SLOTS_MAX */
	struct lrusim_phantom phantom[LRUSIM_PHANTOMS];
	struct lrusim_figures fig;
};

/* One lookup, as the model sees it. */
struct lrusim_lookup {
	const struct lru_key *k;
	int S;			/* the traced LRU's size */
	int slot;		/* the model's hit slot at S */
	unsigned int flags;	/* FOUND, FRONT */
	bool counted;		/* the device is counted */
	bool conflict;
};

static inline bool lrusim_cpu_key_eq(const struct lru_key *a, const struct lru_key *b)
{
	return a->block == b->block && a->dev == b->dev && a->size == b->size;
}

/* Sizes a..b (1-based, inclusive) each count one more. */
static inline void lrusim_cpu_add_sizes(int64_t *arr, int a, int b)
{
	if (a > b)
		return;
	arr[a]++;
	arr[b + 1]--;
}

/* What the kernel's LRU of size S did, by the model's depth d of the key. */
static inline int lrusim_cpu_predict(int d, int S, unsigned int flags)
{
	if (d >= 0 && d < S)
		return LRU_HIT;
	if (flags & LRU_EV_FRONT)
		return LRU_MISS_INSTALLED;
	if (flags & LRU_EV_FOUND)
		return LRU_MISS_NOT_INSTALLED;
	return LRU_MISS_ABSENT;
}

/* The one stack, which the split mode shares. */
void lrusim_cpu_stack_clear(const struct lrusim *sim, struct lrusim_cpu *c);
int lrusim_cpu_stack_append(const struct lrusim *sim, struct lrusim_cpu *c,
			    const struct lru_key *k);
/*
 * k takes slot s (-1: slot len, a new one), hashed; the caller puts the
 * slot in the stack. Returns the slot.
 */
int lrusim_cpu_stack_replace(const struct lrusim *sim, struct lrusim_cpu *c,
			     int s, const struct lru_key *k);

/* Split mode. */
/* The one stack splits: its key at depth d moves in the sizes above d. */
void lrusim_cpu_split_begin(struct lrusim *sim, struct lrusim_cpu *c, int d);
/* A lookup whose key is at position p (-1: not held). */
int lrusim_cpu_split_lookup(struct lrusim *sim, struct lrusim_cpu *c,
			    struct lrusim_lookup *l, int p);
/* Does the LRU of size S hold exactly keys[0..n-1], in order? */
bool lrusim_cpu_split_lru_is(const struct lrusim_cpu *c, int S,
			     const struct lru_key *keys, int n);

#endif /* BHSCOPE_LRUSIM_CPU_H */
