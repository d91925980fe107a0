// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "lib/cpu_busy.h"

uint64_t cpu_busy_ns_parse(FILE *f, long ticks_per_s)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	char line[512];

	if (ticks_per_s <= 0)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		steal = 0;
		if (strncmp(line, "cpu ", 4) ||
		    sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu",
			   &user, &nice, &sys, &idle, &iowait, &irq, &softirq,
			   &steal) < 7)
			continue;
		/* guest time is inside user already */
		return (uint64_t)(user + nice + sys + irq + softirq + steal) *
		       (1000000000ULL / (unsigned long long)ticks_per_s);
	}
	return 0;
}

uint64_t cpu_busy_ns(void)
{
	FILE *f = fopen("/proc/stat", "re");
	uint64_t ns;

	if (!f)
		return 0;
	ns = cpu_busy_ns_parse(f, sysconf(_SC_CLK_TCK));
	fclose(f);
	return ns;
}
