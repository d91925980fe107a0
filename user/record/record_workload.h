/* SPDX-License-Identifier: GPL-2.0 */
/* A recorded workload's command line: which binary, which directory. */
#ifndef BHSCOPE_RECORD_WORKLOAD_H
#define BHSCOPE_RECORD_WORKLOAD_H

#include <stdbool.h>

/* The bhbench binary: $BHBENCH, beside bhscope, or "bhbench" from PATH. */
const char *record_workload_bhbench(void);

/*
 * The directory a workload works in, from its arguments: bhbench's -D DIR
 * (--dir DIR, --dir=DIR, -DDIR) or fs_mark's -d DIR. NULL if none.
 */
const char *record_workload_dir(char **argv, int argc, bool bench);

#endif /* BHSCOPE_RECORD_WORKLOAD_H */
