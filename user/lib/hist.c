// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lib/hist.h"

#define HIST_BAR_WIDTH 40

uint64_t hist_slot_low(int slot)
{
	return slot == 0 ? 0 : 1ULL << (slot - 1);
}

uint64_t hist_slot_high(int slot)
{
	return slot == 0 ? 0 : (1ULL << slot) - 1;
}

uint64_t hist_total(const __u64 *slots, int nr)
{
	uint64_t sum = 0;

	for (int i = 0; i < nr; i++)
		sum += slots[i];
	return sum;
}

static uint64_t hist_max(const __u64 *slots, int nr)
{
	uint64_t max = 0;

	for (int i = 0; i < nr; i++)
		if (slots[i] > max)
			max = slots[i];
	return max;
}

static void print_bar(FILE *out, uint64_t count, uint64_t max)
{
	char bar[HIST_BAR_WIDTH + 1];
	int n = max ? (int)(count * HIST_BAR_WIDTH / max) : 0;

	memset(bar, '*', n);
	memset(bar + n, ' ', HIST_BAR_WIDTH - n);
	bar[HIST_BAR_WIDTH] = '\0';
	fprintf(out, "|%s|\n", bar);
}

/* Index of the last non-empty slot, -1 if all are empty. */
static int hist_last(const __u64 *slots, int nr)
{
	int last = -1;

	for (int i = 0; i < nr; i++)
		if (slots[i])
			last = i;
	return last;
}

void hist_print_log2(FILE *out, const __u64 *slots, int nr,
		     const char *unit)
{
	int first = 0, last = hist_last(slots, nr);
	uint64_t max = hist_max(slots, nr);

	if (last < 0)
		return;
	while (!slots[first])
		first++;
	fprintf(out, "%24s : count     distribution\n", unit);
	for (int i = first; i <= last; i++) {
		fprintf(out, "%10llu -> %-10llu : %-9llu ",
			(unsigned long long)hist_slot_low(i),
			(unsigned long long)hist_slot_high(i),
			(unsigned long long)slots[i]);
		print_bar(out, slots[i], max);
	}
}

void hist_print_linear(FILE *out, const __u64 *slots, int nr,
		       const char *unit)
{
	int last = hist_last(slots, nr);
	uint64_t max = hist_max(slots, nr);

	if (last < 0)
		return;
	fprintf(out, "%10s : count     distribution\n", unit);
	for (int i = 0; i <= last; i++) {
		fprintf(out, "%10d : %-9llu ", i, (unsigned long long)slots[i]);
		print_bar(out, slots[i], max);
	}
}

struct json_object *hist_log2_json(const __u64 *slots, int nr)
{
	struct json_object *arr = json_object_new_array();

	for (int i = 0; i < nr; i++) {
		struct json_object *o;

		if (!slots[i])
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "low",
				       json_object_new_uint64(hist_slot_low(i)));
		json_object_object_add(o, "high",
				       json_object_new_uint64(hist_slot_high(i)));
		json_object_object_add(o, "count",
				       json_object_new_uint64(slots[i]));
		json_object_array_add(arr, o);
	}
	return arr;
}
