// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's model when the sizes no longer share one recency order (a
 * miss not installed, or absent, of a key deeper than the kernel's LRU is
 * a hit only in the sizes that hold it), until they do again.
 *
 * It rests on facts that every change of the LRUs of sizes 1..depth keeps
 * (a key put at the front of every size, installed where it was not, the
 * last of each full one out; or a key moved to the front of the sizes
 * that hold it):
 *  - inclusion: a size holds every key a smaller one holds, so each key
 *    has a smallest size m that holds it, and is in the sizes m..depth;
 *  - one clock: a key held by two sizes moved to their fronts at the same
 *    times, so every size orders its keys alike, by their last move;
 *  - the LRU of size k holds min(k, n) of the n keys: one key each has
 *    m = 1, 2, ... n.
 * So the model is the one stack (lrusim_cpu_stack_*()), every key in order of its
 * last move, newest first, with beside each its m - 1 (mpos): the LRU of
 * size k is the keys with mpos < k, in that order. The one stack is the
 * case mpos[i] == i.
 *
 * A key moved to the front of the sizes that hold it moves to the front
 * of the stack, its mpos with it. A key put at the front of every size
 * (FRONT) evicts, from each full size k below its m, the oldest key with
 * mpos < k: the keys with an mpos below that of every key behind them
 * (the suffix minima) and below the new key's (K) each take the mpos of
 * the next such key behind, the last K; that is, every mpos becomes
 * max(mpos, min(the least mpos behind it, K)), one pass over the stack
 * (16 bytes a step where SSE2 is there) and no size visited on its own.
 */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lrusim/lrusim_cpu.h"

/* 0, 1, ... 255: mpos of the one stack. */
static const unsigned char one_order[256] = {
#define R16(b) b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, \
	b + 9, b + 10, b + 11, b + 12, b + 13, b + 14, b + 15
	R16(0), R16(16), R16(32), R16(48), R16(64), R16(80), R16(96),
	R16(112), R16(128), R16(144), R16(160), R16(176), R16(192), R16(208),
	R16(224), R16(240)
#undef R16
};

/* Moves the entry at position p to the front, with mpos mp. */
static void to_front(struct lrusim_cpu *c, int p, unsigned char mp)
{
	unsigned char s = c->stack[p];

	memmove(c->stack + 1, c->stack, p);
	memmove(c->mpos + 1, c->mpos, p);
	c->stack[0] = s;
	c->mpos[0] = mp;
}

void lrusim_cpu_split_begin(struct lrusim *sim, struct lrusim_cpu *c, int d)
{
	memcpy(c->mpos, one_order, c->len);
	c->split = true;
	sim->splits++;
	/* the key at d moves to the front of the sizes above d only */
	to_front(c, d, d);
}

/*
 * mpos[i] = max(mpos[i], min(mpos[i + 1..n - 1], K)) for i < n, K <= 255
 * (the least of nothing is 255). The buffer holds n rounded up to 16.
 */
static void evict_pass(unsigned char *mpos, int n, int K)
{
#ifdef __SSE2__
	const __m128i ff = _mm_set1_epi8((char)0xff), k = _mm_set1_epi8((char)K);
	const __m128i top1 = _mm_slli_si128(ff, 15), top2 = _mm_slli_si128(ff, 14);
	const __m128i top4 = _mm_slli_si128(ff, 12), top8 = _mm_slli_si128(ff, 8);
	__m128i carry = ff;

	for (int b = (n - 1) & ~15; b >= 0; b -= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(mpos + b)), s, x;

		if (n - b < 16) {
			/* bytes past the end: 255, the least of nothing */
			__m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
						    10, 11, 12, 13, 14, 15);
			__m128i past = _mm_cmpgt_epi8(idx, _mm_set1_epi8((char)(n - b - 1)));

			v = _mm_or_si128(v, past);
		}
		/* the least of bytes i..15, then of those behind the chunk */
		s = _mm_min_epu8(v, _mm_or_si128(_mm_srli_si128(v, 1), top1));
		s = _mm_min_epu8(s, _mm_or_si128(_mm_srli_si128(s, 2), top2));
		s = _mm_min_epu8(s, _mm_or_si128(_mm_srli_si128(s, 4), top4));
		s = _mm_min_epu8(s, _mm_or_si128(_mm_srli_si128(s, 8), top8));
		s = _mm_min_epu8(s, carry);
		/* the least behind each byte: its right neighbour's */
		x = _mm_min_epu8(_mm_or_si128(_mm_srli_si128(s, 1), top1), carry);
		x = _mm_max_epu8(v, _mm_min_epu8(x, k));
		_mm_storeu_si128((__m128i *)(mpos + b), x);
		carry = _mm_set1_epi8((char)_mm_cvtsi128_si32(s));
	}
#else
	int behind = 255;

	for (int i = n - 1; i >= 0; i--) {
		int v = mpos[i], m = behind < K ? behind : K;

		mpos[i] = v > m ? v : m;
		if (v < behind)
			behind = v;
	}
#endif
}

/* Does a key behind position p have mpos below k (k >= 1)? */
static bool older_below(const struct lrusim_cpu *c, int p, int k)
{
	int i = p + 1;
#ifdef __SSE2__
	const __m128i below = _mm_set1_epi8((char)(k - 1));

	for (; i + 16 <= c->len; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(c->mpos + i));

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, below), v)))
			return true;
	}
#endif
	for (; i < c->len; i++)
		if (c->mpos[i] < k)
			return true;
	return false;
}

int lrusim_cpu_split_lookup(struct lrusim *sim, struct lrusim_cpu *c,
			    struct lrusim_lookup *l, int p)
{
	struct lrusim_figures *f = &c->fig;
	int D = sim->depth, S = l->S, mx = p >= 0 ? c->mpos[p] + 1 : D + 1;
	int o, u = D + 1;

	if (mx <= S) {
		int d = 0;

		/* its slot in the LRU of size S: the younger keys it holds */
		for (int i = 0; i < p; i++)
			d += c->mpos[i] < S;
		o = LRU_HIT;
		l->slot = d;
	} else {
		o = lrusim_cpu_predict(-1, S, l->flags);
	}
	l->conflict = mx <= S && !(l->flags & LRU_EV_FRONT);
	if (l->counted) {
		if (o == LRU_HIT)
			f->slots[l->slot]++;
		else if (o == LRU_MISS_INSTALLED && S && c->len >= S)
			f->evictions++;
		lrusim_cpu_add_sizes(f->hit, mx, D);
		/*
		 * Undecided: every size above S while phantoms may be ahead;
		 * the sizes not full, a key not held, while the tail is not
		 * known (a larger LRU may hold it there).
		 */
		if (c->nphantom || c->above_lost)
			u = S + 1;
		if (p < 0 && !c->tail_known && c->len + 1 < u)
			u = c->len + 1;
		lrusim_cpu_add_sizes(f->und_hit, u > mx ? u : mx, D);
		lrusim_cpu_add_sizes(f->und_miss, u, mx - 1);
	}
	if (l->conflict)
		return o;
	if (l->flags & LRU_EV_FRONT) {
		/* sizes 1..K were full without it: each evicts its oldest */
		int K = mx - 1 < c->len ? mx - 1 : c->len;

		if (K)
			evict_pass(c->mpos, c->len, K < 255 ? K : 255);
		if (p < 0 && c->len == D) {
			/* out of every size: the oldest key; the new one its slot */
			p = c->len - 1;
			lrusim_cpu_stack_replace(sim, c, c->stack[p], l->k);
		} else if (p < 0) {
			p = c->len;
			c->stack[p] = lrusim_cpu_stack_replace(sim, c, -1,
							       l->k);
			c->len++;
		}
		to_front(c, p, 0);
	} else if (p >= 0) {
		/* sizes mx - 1 and mx shared an order, as mx's oldest: no more */
		if (mx >= 2 && !older_below(c, p, mx - 1))
			sim->splits++;
		to_front(c, p, c->mpos[p]);
	} else if (!c->tail_known) {
		c->above_lost = true;	/* a phantom: the sizes cannot say */
	}
	if (c->len == D)
		c->tail_known = true;
	if (c->len && !c->mpos[0] && c->mpos[c->len - 1] == c->len - 1 &&
	    !memcmp(c->mpos, one_order, c->len)) {
		/* one order again: the one stack, its stamps as a snapshot's */
		c->split = false;
		for (int i = 0; i < c->len; i++)
			c->stamp[c->stack[i]] = 0;
	}
	return o;
}

bool lrusim_cpu_split_lru_is(const struct lrusim_cpu *c, int S,
			     const struct lru_key *keys, int n)
{
	int j = 0;

	if ((c->len < S ? c->len : S) != n)
		return false;
	for (int i = 0; i < c->len && j < n; i++) {
		if (c->mpos[i] >= S)
			continue;
		if (!lrusim_cpu_key_eq(&c->keys[c->stack[i]], &keys[j++]))
			return false;
	}
	return true;
}
