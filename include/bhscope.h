/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Constants shared by the BPF programs and user space. Kernel types are kept
 * out so that both compilers accept this header.
 */
#ifndef BHSCOPE_H
#define BHSCOPE_H

/* log2 histogram slots: slot i counts values in [2^(i-1), 2^i), slot 0 is 0. */
#define BHSCOPE_LOG2_SLOTS	32

/* The kernel's dev_t encoding (MINORBITS = 20), as tracepoints report it. */
#define BHSCOPE_MINORBITS	20
#define BHSCOPE_KDEV(major, minor) \
	((unsigned int)(((major) << BHSCOPE_MINORBITS) | (minor)))
#define BHSCOPE_KDEV_MAJOR(dev)	((unsigned int)((dev) >> BHSCOPE_MINORBITS))
#define BHSCOPE_KDEV_MINOR(dev) \
	((unsigned int)((dev) & ((1U << BHSCOPE_MINORBITS) - 1)))

/* Bucket of a kernel dev_t among 2^bits (Fibonacci hashing). */
#define BHSCOPE_DEV_BUCKET(dev, bits) \
	((unsigned int)(((unsigned int)(dev) * 0x9e3779b1U) >> (32 - (bits))))

/* Devices traced at once; a map full of devices drops new ones, counted. */
#define BHSCOPE_MAX_DEVS	256

#endif /* BHSCOPE_H */
