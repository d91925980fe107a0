/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunables in force, as gauges: per journal the batch times and commit
 * interval (ext4's /proc/fs/ext4/<dev>/options lists them, defaults
 * included; jbd2's defaults otherwise), and the parameters of bhtune.ko
 * when it is loaded.
 */
#ifndef BHSCOPE_SERVE_TUNABLES_H
#define BHSCOPE_SERVE_TUNABLES_H

#include "serve/serve.h"

/* jbd2's defaults (include/linux/jbd2.h), for journals ext4 does not own. */
#define JBD2_DEFAULT_MIN_BATCH_US	0
#define JBD2_DEFAULT_MAX_BATCH_US	15000
#define JBD2_DEFAULT_COMMIT_S		5

#define BHTUNE_PARAMETERS_DIR		"/sys/module/bhtune/parameters"

struct serve_journal_tunables {
	long min_batch_us;
	long max_batch_us;
	long commit_s;
};


/* The batch times and commit interval of the journal on device name. */
void serve_journal_tunables_read(const char *name,
				 struct serve_journal_tunables *t);

#endif /* BHSCOPE_SERVE_TUNABLES_H */
