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

SEC("fexit/__find_get_block")
int floor_front(void *ctx)
{
	const struct bh_lru *lru;
	__u64 ret = 0, *count;
	__u32 at_front;

	if (!&bh_lrus)
		return 0;
	bpf_get_func_ret(ctx, &ret);
	lru = bpf_this_cpu_ptr(&bh_lrus);
	at_front = ret && (__u64)lru->bhs[0] == ret;
	count = bpf_map_lookup_elem(&front_counts, &at_front);
	if (count)
		(*count)++;
	return 0;
}
