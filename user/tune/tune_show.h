/* SPDX-License-Identifier: GPL-2.0 */
/* bhscope tune show: the tunables in force, as text or one JSON object. */
#ifndef BHSCOPE_TUNE_SHOW_H
#define BHSCOPE_TUNE_SHOW_H

#include <stdbool.h>

/*
 * Prints bhtune's parameters (or why it is not loaded), the LRU size
 * (bhtune's, else the kernel's slots, or slots_why when slots <= 0) and
 * each journal's batch times with where they come from; dev ("loop0"),
 * if not NULL, only that journal. Returns the exit status.
 */
int tune_show(const char *dev, int slots, const char *slots_why, bool json,
	      bool pretty);

#endif /* BHSCOPE_TUNE_SHOW_H */
