/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An independent replay of a --trace stream: a per-CPU model of the
 * kernel's buffer-head LRU that predicts every lookup's outcome in an LRU
 * of every size 1..depth from the key stream alone: the key, whether the
 * page cache had it (LRU_EV_FOUND) and whether the kernel put it at the
 * front of its LRU (LRU_EV_FRONT). It starts from the recorded LRU
 * contents (snapshot records) and never reads the tracer's outcome or
 * slot, except to compare: at the traced LRU size each prediction is set
 * against the live classification, and every disagreement is counted.
 *
 * Per CPU, per size k, a lookup whose key is at depth d of the model's LRU
 * of size k (d < k) is a hit and moves to the front. A key not in it is a
 * miss: pushed at the front if the kernel did (FRONT), else the LRU is
 * unchanged: the kernel skipped the install (lru_cache_disabled(), an
 * isolated CPU), which a larger LRU would skip too, or the page cache did
 * not have it. So a lookup not installed, or absent, of a key deeper than
 * the kernel's LRU is a hit in the larger LRUs that hold it and moves to
 * their front, while the smaller ones stay as they were: from there the
 * sizes no longer share one recency order. The LRUs of every size still
 * hold a key in the same order, and a larger one every key a smaller one
 * holds: the model keeps its one stack and, beside each key, the smallest
 * size that holds it (lrusim_cpu_split_*()), at the same cost a lookup, until
 * the orders agree again.
 *
 * Exact and bounded: sizes up to the traced one are exact. Above it the
 * model knows no more than the snapshots and the lookups since: after a
 * snapshot of a full LRU (the start, lost events, an LRU changed unseen)
 * a larger LRU held keys the model does not, until it has seen as many
 * installs as the larger LRU has slots, or an emptied LRU (a reset record:
 * an invalidation empties every size). Such a lookup's outcome at those
 * sizes is counted as undecided, and so is every lookup above the traced
 * size while a key the model did not hold may have moved to a larger
 * LRU's front (a miss not installed or absent, until that key is
 * installed). The figures give the hits the model predicts and, per size,
 * how many of its hits and misses are undecided: the true count lies in
 * between.
 *
 * Records the model cannot follow: an unsynced lookup is left out (not
 * classified); one flagged LRU_EV_RESTART, a lost-events gap (LRU_EV_GAP)
 * or an LRU changed unseen (LRU_EV_EMPTY without a reset before it) make
 * the CPU's model start over from nothing, as at the trace's start: it
 * learns the LRU from what the lookups put at its front (the LRU's top,
 * in order) until a snapshot gives all of it. Meanwhile a lookup put at
 * the front of a key it has not learned, while it knows fewer keys than
 * the traced size, may have been a hit or an install: not classified. A
 * snapshot that contradicts the model's LRU (the model was wrong, or
 * missed a change) restarts it from the snapshot (resyncs).
 *
 * Memory: per CPU that appears, the depth's keys and the figures of its
 * sizes (lrusim_cpu_bytes()), never the trace's.
 */
#ifndef BHSCOPE_LRUSIM_H
#define BHSCOPE_LRUSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_stats.h"

/* Keys that may have moved to a larger LRU's front unseen, tracked. */
#define LRUSIM_PHANTOMS 16

/* Per size arrays run 0..depth + 1; size k is index k. */
#define LRUSIM_SIZES (BHSCOPE_LRU_DEPTH_MAX + 2)

struct lrusim_figures {
	uint64_t lookups;
	uint64_t live[LRU_NR_LOOKUP_OUTCOMES];	/* the tracer's outcomes */
	uint64_t model[LRU_NR_LOOKUP_OUTCOMES];	/* the model's, at the
						 * traced size */
	/* [live][model]: where the two agree and where not */
	uint64_t cmp[LRU_NR_LOOKUP_OUTCOMES][LRU_NR_LOOKUP_OUTCOMES];
	uint64_t slot_differs;	/* both a hit, in different slots */
	uint64_t conflicts;	/* the kernel did not move to the front a
				 * key the model holds in its LRU */
	uint64_t evictions;	/* the model's, at the traced size */
	uint64_t slots[BHSCOPE_LRU_SLOTS_MAX];	/* the model's hit slots */
	/*
	 * Differences per size: the sum of [1..k] is, at size k, the model's
	 * hits, its hits that are undecided, and its misses that are.
	 */
	int64_t hit[LRUSIM_SIZES];
	int64_t und_hit[LRUSIM_SIZES];
	int64_t und_miss[LRUSIM_SIZES];
};

struct lrusim_cpu;

struct lrusim {
	int depth;		/* sizes 1..depth are predicted */
	int hash_bits;		/* of each CPU's key hash */
	uint32_t kdev;		/* count only this device; 0: all */
	int nr_cpus;		/* CPU numbers below this */
	bool raw_bits;		/* records carry FOUND/FRONT; else they are
				 * taken from the tracer's outcome */
	struct lrusim_cpu **cpus;	/* nr_cpus, each made when it appears */
	uint64_t records;
	uint64_t snapshots;	/* snapshot runs */
	uint64_t snapshots_agreed;	/* ... that found the model's LRU */
	uint64_t resyncs;	/* ... that did not: the model restarted */
	uint64_t bad_snapshots;	/* out of order or repeating a key */
	uint64_t resets;	/* emptied LRUs */
	uint64_t gaps;		/* records lost before a record */
	uint64_t restarts;	/* RESTART, gaps, unseen changes: start over */
	uint64_t waiting;	/* lookups it could not classify, learning */
	uint64_t splits;	/* sizes that stopped sharing one order */
};

/*
 * depth: the largest size predicted (at least BHSCOPE_LRU_SLOTS_MAX, so
 * that every traced size is compared; at most BHSCOPE_LRU_DEPTH_MAX).
 * nr_cpus: from the trace's header. Returns 0 or -EINVAL / -ENOMEM.
 */
int lrusim_init(struct lrusim *sim, int depth, int nr_cpus, uint32_t kdev,
		bool raw_bits);

/* Replays one record. Returns 0, -EINVAL (an impossible record) or -ENOMEM. */
int lrusim_feed(struct lrusim *sim, const struct lru_event *e);

/* A CPU's figures, NULL if the trace had nothing for it. */
const struct lrusim_figures *lrusim_cpu(const struct lrusim *sim, int cpu);

/* Every CPU's figures summed. */
void lrusim_total(const struct lrusim *sim, struct lrusim_figures *out);

/* Lookups the model classified (a hit or a miss at the traced size). */
uint64_t lrusim_classified(const struct lrusim_figures *f);

/* Lookups both classified, differently (slots included). */
uint64_t lrusim_disagreements(const struct lrusim_figures *f);

/*
 * At each size k = 1..n (n <= depth): hits[k - 1] the model's hits,
 * min/max the least and most the hits can be given what is undecided.
 */
void lrusim_curve(const struct lrusim_figures *f, int n, uint64_t *hits,
		  uint64_t *min, uint64_t *max);

void lrusim_free(struct lrusim *sim);

/* The memory each CPU that appears in the trace takes, bytes. */
size_t lrusim_cpu_bytes(const struct lrusim *sim);

#endif /* BHSCOPE_LRUSIM_H */
