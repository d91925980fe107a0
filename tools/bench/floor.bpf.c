// SPDX-License-Identifier: GPL-2.0
/*
 * bench-floor's program: empty, so that make bench measures what an
 * attach point alone costs a workload. The fexit floor is bpftrace's
 * kretfunc (tools/bench/bench_lru.py); this one is the hook an LRU probe
 * could use for hits alone: block:block_touch_buffer, emitted on the
 * lookup's LRU-hit branch, as a BTF-typed raw tracepoint (no perf buffer,
 * the bh as an argument).
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
