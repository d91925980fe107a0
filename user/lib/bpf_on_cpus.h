/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a BPF program on each CPU (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU, so in an IPI there): how user space changes a
 * per-CPU map value with no probe of that CPU in flight, e.g. to free a
 * device's bucket without losing another device's counts.
 */
#ifndef BHSCOPE_BPF_ON_CPUS_H
#define BHSCOPE_BPF_ON_CPUS_H

/*
 * Runs the raw_tp program prog_fd once on each of nr_cpus CPUs; an offline
 * CPU is skipped (its value stays, and has no probe to race either).
 */
void bpf_on_cpus_run(int prog_fd, int nr_cpus);

#endif /* BHSCOPE_BPF_ON_CPUS_H */
