/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The what-if in time per workload operation: a recorded run knows both
 * the LRU's predicted lookup time at each size (lru.lookup_time, from
 * the lookups it timed) and how many operations its bhbench workload did
 * (result.phases.*.ops), so it can say what each size would cost every
 * operation, not only every second.
 */
#ifndef BHSCOPE_RECORD_PER_OP_H
#define BHSCOPE_RECORD_PER_OP_H

struct json_object;

/*
 * Adds to run's lru.lookup_time, when it has a curve (sizes,
 * ns_per_lookup) and run's result counts operations: "ops" (every phase's),
 * "ns_per_op" (each size's predicted lookup time, times the run's
 * lookups, over its operations) and "change_ns_per_op" (against the
 * LRU's size; null where either is unknown). Otherwise leaves run alone.
 */
void record_per_op_add(struct json_object *run);

#endif /* BHSCOPE_RECORD_PER_OP_H */
