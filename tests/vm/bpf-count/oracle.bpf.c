// SPDX-License-Identifier: GPL-2.0
/*
 * The LRU tests' oracle, sharing no code with bhscope's tracer: per CPU,
 * the calls of the buffer-head lookup function(s) for one device (counted
 * at entry, on the CPU the lookup starts on), the block:block_touch_buffer
 * events for it (touch_buffer() runs on the LRU-hit branch of the lookup
 * only: the kernel's own count of hits), and with fentry the lookups that
 * returned a bh or none (fexit, on the CPU they end on). Trampolines and
 * the BTF tracepoint: a map copy holding bpf_prog_active (busy readers)
 * does not make the kernel skip them, unlike bhscope's kprobes; a run
 * skipped otherwise is counted (misses).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 kdev = 0;	/* kernel dev_t; 0: every device */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);	/* calls, touches, found, absent */
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 what, __u32 dev)
{
	__u64 *n;

	if (kdev && dev != kdev)
		return;
	n = bpf_map_lookup_elem(&counts, &what);
	if (n)
		__sync_fetch_and_add(n, 1);	/* a preempted run must not lose another's */
}

SEC("fentry/__find_get_block")
int BPF_PROG(calls_a, struct block_device *bdev)
{
	count(0, bdev->bd_dev);
	return 0;
}

SEC("fentry/__find_get_block")
int BPF_PROG(calls_b, struct block_device *bdev)
{
	count(0, bdev->bd_dev);
	return 0;
}

SEC("kprobe/__find_get_block")
int BPF_KPROBE(calls_kprobe, struct block_device *bdev)
{
	count(0, BPF_CORE_READ(bdev, bd_dev));
	return 0;
}

SEC("tp_btf/block_touch_buffer")
int BPF_PROG(touches, struct buffer_head *bh)
{
	count(1, bh->b_bdev->bd_dev);
	return 0;
}

/* Its return value, wherever the lookup function puts it among the args. */
static __always_inline int returned(void *ctx, struct block_device *bdev)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	count(ret ? 2 : 3, bdev->bd_dev);
	return 0;
}

SEC("fexit/__find_get_block")
int BPF_PROG(returns_a, struct block_device *bdev)
{
	return returned(ctx, bdev);
}

SEC("fexit/__find_get_block")
int BPF_PROG(returns_b, struct block_device *bdev)
{
	return returned(ctx, bdev);
}
