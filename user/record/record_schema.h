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

/* The kernel's BH_LRU_SIZE (fs/buffer.c), in force when bhtune is absent. */
#define RECORD_KERNEL_LRU_SIZE	16

#endif /* BHSCOPE_RECORD_SCHEMA_H */
