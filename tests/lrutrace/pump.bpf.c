// SPDX-License-Identifier: GPL-2.0
/*
 * lrutrace-pump's producer: a syscall program that writes n lookup
 * records into a ring buffer the way bpf/lru.bpf.c does, as fast as it is
 * run (BPF_PROG_TEST_RUN), so that the --trace writer can be measured at
 * a given lookup rate without a kernel making that many lookups.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "lru_stats.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);	/* set by user space */
} events SEC(".maps");

const volatile __u32 nr_cpus = 1;

__u64 produced, lost, seq;

struct pump_args {
	__u32 n;
};

/*
 * A metadata workload's lookups, roughly: most hit a few hot blocks near
 * the front, some miss into a larger set, one in a hundred is new.
 */
static long one_event(__u64 i, void *ctx)
{
	struct lru_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u64 x = seq++ * 6364136223846793005ULL + 1442695040888963407ULL;
	__u32 r = (x >> 33) % 100;

	if (!e) {
		lost++;
		return 0;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->cpu = (__u32)(x >> 40) % nr_cpus;
	e->dev = 0x100000;
	e->size = 4096;
	e->lru_size = 16;
	e->flags = LRU_EV_FOUND | LRU_EV_FRONT;
	e->slot = -1;
	if (r < 85) {
		e->block = 5000 + (x >> 20) % 12;
		e->outcome = LRU_HIT;
		e->slot = (x >> 24) % 8;
	} else if (r < 99) {
		e->block = 20000 + (x >> 20) % 4000;
		e->outcome = LRU_MISS_INSTALLED;
	} else {
		e->block = 100000 + seq;
		e->outcome = LRU_MISS_ABSENT;
		e->flags = 0;
	}
	*(__u32 *)&e->pad[0] = 0;
	*(__u16 *)&e->pad[4] = 0;
	bpf_ringbuf_submit(e, 0);
	produced++;
	return 0;
}

SEC("syscall")
int pump(struct pump_args *a)
{
	bpf_loop(a->n, one_event, NULL, 0);
	return 0;
}
