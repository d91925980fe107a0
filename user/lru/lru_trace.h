/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --trace file: a header, then fixed-size struct lru_event records in
 * the order the ring buffer delivered them (per CPU, the order the kernel
 * changed that CPU's LRU). Host byte order; a reader checks the magic,
 * version and sizes and refuses anything else.
 *
 *   offset 0  struct lru_trace_header (header_size bytes)
 *   then      records * struct lru_event (record_size bytes each)
 *
 * The header is written first with records = lost = 0 and rewritten with
 * the final counts and LRU_TRACE_COMPLETE when the recording ends cleanly.
 */
#ifndef BHSCOPE_LRU_TRACE_H
#define BHSCOPE_LRU_TRACE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lru_stats.h"

#define LRU_TRACE_MAGIC		"BHSCLRU\n"
#define LRU_TRACE_VERSION	1
#define LRU_TRACE_COMPLETE	0x1	/* header.flags: counts are final */

struct lru_trace_header {
	char magic[8];
	__u32 version;
	__u32 header_size;
	__u32 record_size;
	__u32 lru_size;		/* BH_LRU_SIZE (or bhtune's) at the start */
	__u32 nr_cpus;		/* possible CPUs of the traced host */
	__u32 flags;
	__u64 records;
	__u64 lost;		/* events the ring buffer dropped */
	__u64 start_realtime_ns;
	char kernel[64];	/* uname -r of the traced host */
	char hook[64];		/* where the lookups came from */
};

struct lru_trace_writer {
	FILE *f;
	struct lru_trace_header h;
};

/* Creates path and writes a provisional header. 0 or a negative errno. */
int lru_trace_create(struct lru_trace_writer *w, const char *path,
		     int lru_size, int nr_cpus, const char *hook);

int lru_trace_append(struct lru_trace_writer *w, const struct lru_event *e);

/*
 * Appends a ring buffer message: an lru_event, or an lru_snapshot_msg that
 * becomes one record per slot. Returns records written or a negative errno.
 */
int lru_trace_append_msg(struct lru_trace_writer *w, const void *data,
			 size_t size);

/* Rewrites the header with the final counts and closes. 0 or -errno. */
int lru_trace_finish(struct lru_trace_writer *w, uint64_t lost);

struct lru_trace_reader {
	FILE *f;
	struct lru_trace_header h;
	uint64_t read;
};

/* Opens and checks a trace. Returns 0, or -1 with a one-line reason. */
int lru_trace_open(struct lru_trace_reader *r, const char *path, char *why,
		   size_t len);

/* Next record: 1, 0 at the end, or -1 with a reason (truncated file). */
int lru_trace_next(struct lru_trace_reader *r, struct lru_event *e,
		   char *why, size_t len);

void lru_trace_close(struct lru_trace_reader *r);

#endif /* BHSCOPE_LRU_TRACE_H */
