// SPDX-License-Identifier: GPL-2.0
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
