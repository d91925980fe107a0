/* SPDX-License-Identifier: GPL-2.0 */
/* The running kernel's HZ, to turn the jiffies that tracepoints carry into time. */
#ifndef BHSCOPE_HZ_H
#define BHSCOPE_HZ_H

#include <stdint.h>
#include <stdio.h>

/*
 * CONFIG_HZ from a kernel config stream (/proc/config.gz decompressed, or
 * /boot/config-*). Returns HZ, or -1 when the stream does not say.
 */
int hz_from_config(FILE *config);

/*
 * The running kernel's HZ: from its config when one is found, else measured
 * from /proc/timer_list (jiffies against nanoseconds). Returns HZ or -1.
 */
int hz_of_running_kernel(void);

/* Milliseconds in j jiffies at hz. */
static inline double jiffies_to_ms(uint64_t j, int hz)
{
	return (double)j * 1000.0 / hz;
}

#endif /* BHSCOPE_HZ_H */
