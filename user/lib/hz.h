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
 * The HZ that advances jiffies by JIFFIES in between MIN_S and MAX_S
 * seconds: the one Linux value (100, 250, 300, 1000) the bounds admit, 0
 * when they admit more than one (wait longer), -1 when none.
 */
int hz_from_bounds(uint64_t jiffies, double min_s, double max_s);

/*
 * CONFIG_HZ of the running kernel from /proc/config.gz, else from
 * /boot/config-$(uname -r). Returns HZ, or -1 when neither says.
 */
int hz_from_kernel_config(void);

/*
 * HZ measured from /proc/timer_list's jiffies against the monotonic clock,
 * over a window that grows (up to 3.2 s) until only one value fits.
 * Returns HZ or -1.
 */
int hz_measured(void);

/*
 * The running kernel's HZ: from its config when one is found, else
 * hz_measured(); found once per process. Returns HZ or -1.
 */
int hz_of_running_kernel(void);

/* What a command that needs HZ says when hz_of_running_kernel() fails. */
#define HZ_UNKNOWN_MSG                                                     \
	"bhscope: cannot tell the kernel's HZ (no CONFIG_HZ in /proc/config.gz " \
	"or /boot/config-*, and /proc/timer_list's jiffies fit no Linux HZ "    \
	"in 3 s); jiffies cannot be converted\n"

/* Milliseconds in j jiffies at hz. */
static inline double jiffies_to_ms(uint64_t j, int hz)
{
	return (double)j * 1000.0 / hz;
}

#endif /* BHSCOPE_HZ_H */
