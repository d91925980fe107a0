// SPDX-License-Identifier: GPL-2.0
/*
 * bhvm-mapread: a busy map reader, as bhscope serve, a second tracer or
 * bpftool map dump are. Pinned to CPU, it reads a per-CPU array of 32 KiB
 * values by system call until killed: the kernel holds that CPU's
 * bpf_prog_active across each copy (bpf_disable_instrumentation()), which
 * is preemptible under full preemption and PREEMPT_RT.
 *
 *   bhvm-mapread CPU
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define VALUE_SIZE 32768	/* PCPU_MIN_UNIT_SIZE: the largest per-CPU value */

int main(int argc, char **argv)
{
	int cpu, fd, nr_cpus = libbpf_num_possible_cpus();
	unsigned long long reads = 0;
	cpu_set_t set;
	__u32 key = 0;
	void *buf;

	if (argc != 2 || nr_cpus <= 0) {
		fprintf(stderr, "usage: bhvm-mapread CPU\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "bhvm-mapread: CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "bhvm_mapread",
			    sizeof(key), VALUE_SIZE, 1, NULL);
	buf = calloc(nr_cpus, VALUE_SIZE);
	if (fd < 0 || !buf) {
		fprintf(stderr, "bhvm-mapread: creating the map: %s\n",
			strerror(fd < 0 ? -fd : ENOMEM));
		return 1;
	}
	for (;;) {
		if (bpf_map_lookup_elem(fd, &key, buf)) {
			fprintf(stderr, "bhvm-mapread: read %llu: %s\n", reads,
				strerror(errno));
			return 1;
		}
		reads++;
	}
}
