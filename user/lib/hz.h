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
 * The HZ whose tick is TICK_NS long, as the kernel rounds it
 * (TICK_NSEC = (10^9 + HZ/2) / HZ). Returns HZ, or -1 when no HZ a kernel
 * can be built with has that tick.
 */
int hz_from_tick_ns(long tick_ns);

/*
 * HZ from the resolution of CLOCK_MONOTONIC_COARSE, which the kernel
 * reports as one tick. Returns HZ, or -1 when it is not a tick.
 */
int hz_from_coarse_clock(void);

/*
 * CONFIG_HZ of the running kernel from /proc/config.gz, else from
 * /boot/config-$(uname -r). Returns HZ, or -1 when neither says.
 */
int hz_from_kernel_config(void);

/*
 * The running kernel's HZ: from its coarse clock's tick, else from its
 * config. Returns HZ or -1.
 */
int hz_of_running_kernel(void);

/* What a command that needs HZ says (errmsg()) when hz_of_running_kernel() fails. */
#define HZ_UNKNOWN_MSG                                                     \
	"cannot tell the kernel's HZ (CLOCK_MONOTONIC_COARSE's resolution is "  \
	"no tick, and no CONFIG_HZ in /proc/config.gz or /boot/config-*); "    \
	"jiffies cannot be converted"

/* Milliseconds in j jiffies at hz. */
static inline double hz_jiffies_to_ms(uint64_t j, int hz)
{
	return (double)j * 1000.0 / hz;
}

#endif /* BHSCOPE_HZ_H */
