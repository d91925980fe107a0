/* SPDX-License-Identifier: GPL-2.0 */
/* log2 histograms: the familiar "low -> high : count |***|" and JSON. */
#ifndef BHSCOPE_HIST_H
#define BHSCOPE_HIST_H

#include <json-c/json.h>
#include <linux/types.h>
#include <stdint.h>
#include <stdio.h>

/* Lower and upper bound of log2 slot i (slot 0 holds 0, slot i [2^(i-1), 2^i)). */
uint64_t hist_slot_low(int slot);
uint64_t hist_slot_high(int slot);

/* Sum of all slots. */
uint64_t hist_total(const __u64 *slots, int nr);

/* Prints a log2 histogram; nothing when it is empty. */
void hist_print_log2(FILE *out, const __u64 *slots, int nr,
		     const char *unit);

/*
 * Prints a linear histogram whose slot i is the value i (e.g. an LRU slot
 * number); nothing when it is empty.
 */
void hist_print_linear(FILE *out, const __u64 *slots, int nr,
		       const char *unit);

/* JSON array of {"low":, "high":, "count":} for the non-empty log2 slots. */
struct json_object *hist_log2_json(const __u64 *slots, int nr);

#endif /* BHSCOPE_HIST_H */
