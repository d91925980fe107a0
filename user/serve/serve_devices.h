/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which journal devices exist right now. A device is present while the
 * kernel lists it in /proc/fs/jbd2 (a journal is loaded) or /proc/fs/ext4
 * (an ext4 is mounted: covers external journals, whose jbd2 entry names
 * the journal device) and /sys/class/block knows its numbers. Devices that
 * disappear stop being exported and their counters are forgotten.
 */
#ifndef BHSCOPE_SERVE_DEVICES_H
#define BHSCOPE_SERVE_DEVICES_H

#include <stddef.h>

#include "serve/serve.h"

/*
 * Fills d with the present devices, marking those cfg selects. When a
 * directory cannot be read d->ok is false: nothing may be pruned then.
 */
void serve_devices_scan(struct serve_devices *d, const struct serve_config *cfg);

const struct serve_dev *serve_devices_find(const struct serve_devices *d,
					   uint32_t kdev);

/*
 * The candidate block device names of a /proc/fs/jbd2 entry, most likely
 * first: "loop0-8" (an inode journal) gives "loop0-8" then "loop0";
 * "dm-0" (an external journal device) gives "dm-0" then "dm". Returns how
 * many it wrote (0 for a name too long, 1 or 2).
 */
int serve_devices_jbd2_names(const char *entry,
			     char names[2][SERVE_DEVNAME_LEN]);

#endif /* BHSCOPE_SERVE_DEVICES_H */
