/* SPDX-License-Identifier: GPL-2.0 */
/* The CPU time this host's CPUs spent busy, from /proc/stat. */
#ifndef BHSCOPE_CPU_BUSY_H
#define BHSCOPE_CPU_BUSY_H

#include <stdint.h>
#include <stdio.h>

/*
 * The busy time (user, nice, system, irq, softirq, steal: not idle, not
 * waiting for I/O) summed over every CPU, in ns, parsed from a
 * /proc/stat's "cpu " line; 0 if f has none.
 */
uint64_t cpu_busy_ns_parse(FILE *f, long ticks_per_s);

/* The same from /proc/stat; 0 if it cannot be read. */
uint64_t cpu_busy_ns(void);

#endif /* BHSCOPE_CPU_BUSY_H */
