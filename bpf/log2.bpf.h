/* SPDX-License-Identifier: GPL-2.0 */
/* The slot of a value in a log2 histogram, as user space prints them. */
#ifndef BHSCOPE_LOG2_BPF_H
#define BHSCOPE_LOG2_BPF_H

#include "bhscope.h"

/*
 * Slot of v in a log2 histogram: 0 for 0, else 1 + floor(log2(v)), capped.
 * A binary search (BPF has no count-leading-zeros): 6 steps, not one per
 * bit as a shifting loop takes.
 */
static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 bits = 0;

	if (!v)
		return 0;
	if (v >> 32) {
		v >>= 32;
		bits += 32;
	}
	if (v >> 16) {
		v >>= 16;
		bits += 16;
	}
	if (v >> 8) {
		v >>= 8;
		bits += 8;
	}
	if (v >> 4) {
		v >>= 4;
		bits += 4;
	}
	if (v >> 2) {
		v >>= 2;
		bits += 2;
	}
	if (v >> 1)
		bits += 1;
	/* bits = floor(log2(v)) */
	return bits + 1 < BHSCOPE_LOG2_SLOTS ? bits + 1 : BHSCOPE_LOG2_SLOTS - 1;
}

#endif /* BHSCOPE_LOG2_BPF_H */
