/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bhscope.record schema: one self-describing JSON file per recording.
 * The version grows when a field changes meaning or a required field is
 * added; readers refuse versions newer than theirs.
 */
#ifndef BHSCOPE_RECORD_SCHEMA_H
#define BHSCOPE_RECORD_SCHEMA_H

#define RECORD_SCHEMA_NAME	"bhscope.record"
#define RECORD_SCHEMA_VERSION	1
#define RECORD_SCHEMA		"bhscope.record/1"

/*
 * What a record may hold, so a reader's time and memory are bounded by the
 * schema, not by the file: Linux's NR_CPUS is at most 8192 (x86 MAXSMP,
 * powerpc), record takes at most 1000 repeats, sweep at most 1024 cells.
 */
#define RECORD_MAX_CPUS		8192
#define RECORD_MAX_RUNS		1000
#define RECORD_MAX_CELLS	1024

/* The kernel's BH_LRU_SIZE (fs/buffer.c), in force when bhtune is absent. */
#define RECORD_KERNEL_LRU_SIZE	16

/* ext4's defaults for min_batch_time and max_batch_time, in microseconds. */
#define RECORD_EXT4_MIN_BATCH_US	0
#define RECORD_EXT4_MAX_BATCH_US	15000

#endif /* BHSCOPE_RECORD_SCHEMA_H */
