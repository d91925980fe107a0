// SPDX-License-Identifier: GPL-2.0
/*
 * bench-floor's programs, one attached per run, so that make bench
 * measures what a hook alone, or with the least work on it, costs a
 * workload beside bhscope's probe:
 *   floor_hits   empty, on block:block_touch_buffer: the hook an LRU probe
 *                could use for hits alone, emitted on the lookup's LRU-hit
 *                branch, as a BTF-typed raw tracepoint (no perf buffer).
 *   floor_front  an fexit on the lookup (user space sets the function)
 *                that counts, per CPU, whether the bh it returns is at the
 *                front of this CPU's LRU: the least an exit probe that
 *                classifies lookups does. It cannot tell a hit from an
 *                install, nor one lookup's change from another's.
 *   floor_entry, floor_exit
 *                empty fentry and empty fexit on the lookup: the floors of
 *                an entry-only probe and of an exit probe, in one loader.
 *   floor_entry_front
 *                an fentry that reads this CPU's LRU slots 0 and 1, what an
 *                entry probe that classifies the previous lookup reads.
 *   floor_entry_key
 *                the same, and compares slot 0's key with the lookup's
 *                arguments (a slot-0 hit is told from a miss so).
 *   floor_switch empty, on sched:sched_switch (BTF): what a flush of
 *                pending lookups at each context switch starts from.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/block_touch_buffer")
int BPF_PROG(floor_hits)
{
	return 0;
}

extern const struct bh_lru bh_lrus __ksym __weak;

/* [0] lookups whose bh is not at the front, [1] those whose bh is */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} front_counts SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&front_counts, &which);

	if (n)
		(*n)++;
}

SEC("fexit/__find_get_block")
int floor_front(void *ctx)
{
	const struct bh_lru *lru;
	__u64 ret = 0;

	if (!&bh_lrus)
		return 0;
	bpf_get_func_ret(ctx, &ret);
	lru = bpf_this_cpu_ptr(&bh_lrus);
	count(ret && (__u64)lru->bhs[0] == ret);
	return 0;
}

SEC("fentry/__find_get_block")
int floor_entry(void *ctx)
{
	return 0;
}

SEC("fexit/__find_get_block")
int floor_exit(void *ctx)
{
	return 0;
}

/* The LRU's slots 0 and 1, as a deferred classification compares them. */
SEC("fentry/__find_get_block")
int floor_entry_front(void *ctx)
{
	const struct bh_lru *lru;

	if (!&bh_lrus)
		return 0;
	lru = bpf_this_cpu_ptr(&bh_lrus);
	count(lru->bhs[0] != lru->bhs[1]);
	return 0;
}

/* And slot 0's key against the lookup's (bdev, block): 6.1 and 6.12 alike. */
SEC("fentry/__find_get_block")
int BPF_PROG(floor_entry_key, struct block_device *bdev, sector_t block)
{
	const struct bh_lru *lru;
	const struct buffer_head *bh;

	if (!&bh_lrus)
		return 0;
	lru = bpf_this_cpu_ptr(&bh_lrus);
	bh = lru->bhs[0];
	count(bh && bh->b_blocknr == block && bh->b_bdev == bdev &&
	      lru->bhs[1] != bh);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch)
{
	return 0;
}
