/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An exact per-CPU model of the kernel's buffer-head LRU, replaying a
 * --trace stream: each CPU has an LRU stack (newest first) of up to
 * `depth` keys; a lookup's stack distance is its position in it. Hits and
 * installs move their key to the front; misses that install nothing leave
 * the stack alone; an emptied LRU (reset, EMPTY flag, lost events) empties
 * it. Snapshot records give a CPU's real LRU content at the start and after
 * anything the model could not follow.
 *
 * The model is independent of the BPF ghost list: it predicts each kernel
 * outcome itself and counts disagreements (desync), which a correct trace
 * of a correct tracer never has.
 */
#ifndef BHSCOPE_LRUSIM_H
#define BHSCOPE_LRUSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "lru_stats.h"

struct lrusim_cpu {
	struct lru_key stack[BHSCOPE_LRU_DEPTH_MAX];
	int len;
	bool in_snapshot;		/* the last record was a snapshot */
	struct lru_dev_stats stats;	/* dist[] holds the model's distances */
};

struct lrusim {
	int depth;		/* keys kept per CPU: >= every size asked */
	int lru_size;		/* the traced LRU's size (header) */
	uint32_t kdev;		/* count only this device; 0: all */
	int nr_cpus;		/* highest CPU seen + 1 */
	struct lrusim_cpu *cpus;
	uint64_t records;
	uint64_t snapshots;	/* runs of snapshot records */
	uint64_t resets;	/* the model emptied a CPU's stack */
	uint64_t gaps;		/* records lost before a record */
	uint64_t desync;	/* kernel outcomes the model did not predict */
};

/*
 * depth: the largest LRU size to predict (1..BHSCOPE_LRU_DEPTH_MAX); the
 * model keeps at least lru_size keys. Returns 0 or -EINVAL.
 */
int lrusim_init(struct lrusim *sim, int depth, int lru_size, uint32_t kdev);

/* Replays one record. Returns 0, -EINVAL (bad record) or -ENOMEM. */
int lrusim_feed(struct lrusim *sim, const struct lru_event *e);

/* Every CPU's figures summed. */
void lrusim_total(const struct lrusim *sim, struct lru_dev_stats *out);

void lrusim_free(struct lrusim *sim);

#endif /* BHSCOPE_LRUSIM_H */
