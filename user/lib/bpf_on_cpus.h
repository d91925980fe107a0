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

/*
 * The same from a thread pinned to each CPU in turn, so that the program
 * runs in this task with preemption off, not in an interrupt: it cannot
 * land between two steps of a kernel function that another task runs
 * there and that does not switch tasks. The thread's affinity is
 * restored. Returns the CPUs it ran on.
 */
int bpf_on_cpus_run_pinned(int prog_fd, int nr_cpus);

#endif /* BHSCOPE_BPF_ON_CPUS_H */
