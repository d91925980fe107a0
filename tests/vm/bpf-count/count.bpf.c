// SPDX-License-Identifier: GPL-2.0
/*
 * Counts calls of one kernel function per CPU, from an fentry or a kprobe
 * program. The attach target is set by the loader, so the same object
 * probes __find_get_block on 6.1 and find_get_block_common on 6.12+.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

static __always_inline void count(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&calls, &zero);

	if (n)
		(*n)++; /* per-CPU slot: no atomics needed */
}

SEC("fentry")
int on_fentry(void *ctx)
{
	count();
	return 0;
}

SEC("kprobe")
int on_kprobe(void *ctx)
{
	count();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
