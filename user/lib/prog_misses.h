/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runs of a BPF program the kernel skipped (bpf_prog_info's
 * recursion_misses), and whether this kernel counts them for its kind of
 * program at all: a figure built on a program whose skipped runs are not
 * counted has a lost count that is unknown, not 0.
 */
#ifndef BHSCOPE_PROG_MISSES_H
#define BHSCOPE_PROG_MISSES_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_program;

/*
 * Trampolines (fentry, fexit, tp_btf) and raw tracepoints count every run
 * they skip; kprobes and classic tracepoints, skipped while another BPF
 * program or a map copy holds the CPU's bpf_prog_active, only from 6.7 on.
 */
bool prog_misses_counted(const struct bpf_program *prog);

/* prog's skipped runs so far; 0 when it is not loaded or unreadable. */
uint64_t prog_misses(const struct bpf_program *prog);

#endif /* BHSCOPE_PROG_MISSES_H */
