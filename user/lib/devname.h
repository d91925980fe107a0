/* SPDX-License-Identifier: GPL-2.0 */
/* Block device names <-> the kernel's dev_t, as tracepoints report it. */
#ifndef BHSCOPE_DEVNAME_H
#define BHSCOPE_DEVNAME_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* devname_parse(): numbers need not name a block device of this host
 * (data recorded elsewhere: a trace). */
#define DEVNAME_ANY_NUMBERS	0x1

/*
 * "loop0", "/dev/loop0" or "7:0" to a kernel dev_t. A name must be an
 * existing block device, and so must numbers unless flags say
 * DEVNAME_ANY_NUMBERS. Returns 0, or -1 with a one-line reason in err.
 */
int devname_parse(const char *arg, uint32_t *kdev, int flags, char *err,
		  size_t errlen);

/* The kernel's name of a device ("loop0"), or "MAJOR:MINOR" if unknown. */
void devname_of(uint32_t kdev, char *buf, size_t len);

/* "MAJOR:MINOR" of a kernel dev_t. */
void devname_numbers(uint32_t kdev, char *buf, size_t len);

/*
 * Whether a device is still there, for a tracer that forgets the counters
 * of devices gone (arg: the caller's).
 */
typedef bool (*dev_present_fn)(uint32_t kdev, void *arg);

#endif /* BHSCOPE_DEVNAME_H */
