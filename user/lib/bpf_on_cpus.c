// SPDX-License-Identifier: GPL-2.0
#include <sched.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/bpf_on_cpus.h"

void bpf_on_cpus_run(int prog_fd, int nr_cpus)
{
	for (int cpu = 0; prog_fd >= 0 && cpu < nr_cpus; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts,
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

		bpf_prog_test_run_opts(prog_fd, &opts);	/* offline: ENXIO */
	}
}

int bpf_on_cpus_run_pinned(int prog_fd, int nr_cpus)
{
	cpu_set_t was, one;
	int ran = 0;

	if (prog_fd < 0 || sched_getaffinity(0, sizeof(was), &was))
		return 0;
	for (int cpu = 0; cpu < nr_cpus && cpu < CPU_SETSIZE; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts,
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		/* offline, or outside this task's cpuset: skipped */
		if (sched_setaffinity(0, sizeof(one), &one) ||
		    sched_getcpu() != cpu)
			continue;
		ran += !bpf_prog_test_run_opts(prog_fd, &opts);
	}
	sched_setaffinity(0, sizeof(was), &was);
	return ran;
}
