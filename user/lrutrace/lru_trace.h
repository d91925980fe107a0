/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --trace file of `bhscope lru`, read by `bhscope simulate`. Every
 * record is a struct lru_event: a lookup (key, CPU,
 * time, the tracer's outcome and slot, and the raw LRU_EV_FOUND/FRONT
 * bits), or a snapshot or reset of a CPU's LRU. Host byte order.
 *
 *   offset 0   struct lru_trace_header (header_size bytes)
 *   version 1  records * struct lru_event (record_size = 40 bytes each)
 *   version 2  frames, each:
 *                struct lru_trace_frame (16 bytes)
 *                zbytes: one zstd frame (content size and checksum in it)
 *                        that decompresses to raw_bytes: the frame's
 *                        records, encoded as below
 *
 * Version 2 keeps every field of every record (a v1 file rewritten as v2
 * reads back identical) in a few bytes a lookup: per frame, six columns,
 * each preceded by its length (u32), one entry per record in the order
 * of the records:
 *
 *   tags     1 byte: bits 0-2 outcome (enum lru_outcome, <= LRU_RESET),
 *            TAG_CPU: the CPU is in the cpus column, else it is the
 *            previous record's (the frame's first record always has it),
 *            TAG_EXTRA: an extras entry follows, TAG_FOUND/TAG_FRONT:
 *            flags LRU_EV_FOUND/FRONT, TAG_SLOT: the slot is in the slots
 *            column, else it is -1
 *   cpus     varint
 *   blocks   zigzag varint: block minus this CPU's previous block
 *   slots    zigzag varint
 *   times    zigzag varint: ts_ns minus this CPU's previous ts_ns
 *   extras   1 byte of EXTRA_* bits, then what they announce: dev and
 *            size (varints) where they differ from this CPU's previous
 *            record's, lru_size (varint) likewise, the flags other than
 *            FOUND/FRONT (a byte) where there are any
 *
 * "Previous" is within the frame and per CPU, starting at 0: each frame
 * decodes alone. A
 * varint is 7 bits a byte, low first, the high bit set on all but the
 * last; zigzag maps a wrapping difference d to (d << 1) ^ (d >> 63).
 *
 * The writer appends whole frames (at most 64 Ki records, or what one
 * second brought) and rewrites the header with the final counts and
 * LRU_TRACE_COMPLETE when the recording ends cleanly; a recording killed
 * meanwhile leaves a file that reads up to its last complete frame.
 *
 * A reader enforces what the header allows: CPU numbers below nr_cpus
 * (at most LRU_TRACE_MAX_CPUS), NUL-terminated strings, frames within the
 * limits below, and reads only regular files (or standard input).
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
#define LRU_TRACE_VERSION	2	/* written; 1 is read too */
#define LRU_TRACE_COMPLETE	0x1	/* header.flags: counts are final */
#define LRU_TRACE_RAW_BITS	0x2	/* header.flags: lookups carry
					 * LRU_EV_FOUND and LRU_EV_FRONT */
#define LRU_TRACE_FLAGS		(LRU_TRACE_COMPLETE | LRU_TRACE_RAW_BITS)

/* x86_64's largest NR_CPUS (CONFIG_MAXSMP). */
#define LRU_TRACE_MAX_CPUS	8192

struct lru_trace_header {
	char magic[8];
	__u32 version;
	__u32 header_size;
	__u32 record_size;	/* sizeof(struct lru_event), decoded */
	__u32 lru_size;		/* BH_LRU_SIZE (or bhtune's) at the start */
	__u32 nr_cpus;		/* possible CPUs of the traced host */
	__u32 flags;		/* LRU_TRACE_* */
	__u64 records;
	__u64 lost;		/* events the ring buffer dropped */
	__u64 start_realtime_ns;
	char kernel[64];	/* uname -r of the traced host */
	char hook[64];		/* where the lookups came from */
};

#define LRU_TRACE_FRAME_MAGIC	"BHF2"

struct lru_trace_frame {
	char magic[4];
	__u32 records;		/* 1 .. LRU_TRACE_FRAME_RECORDS_MAX */
	__u32 raw_bytes;	/* the columns, decompressed */
	__u32 zbytes;		/* the zstd frame that follows */
};

/* Limits a reader enforces (the writer stays well inside them). */
#define LRU_TRACE_FRAME_RECORDS_MAX	(1U << 17)
#define LRU_TRACE_COLUMNS		6
/* tag + cpu + block + slot + time + extras (byte, dev, size, lru_size, flags) */
#define LRU_TRACE_RECORD_BYTES_MAX	(1 + 5 + 10 + 3 + 10 + 1 + 5 + 5 + 3 + 1)
#define LRU_TRACE_RAW_BYTES_MAX	\
	(4 * LRU_TRACE_COLUMNS + LRU_TRACE_FRAME_RECORDS_MAX * LRU_TRACE_RECORD_BYTES_MAX)

/* The writer's frames: this many records, or what a flush finds. */
#define LRU_TRACE_FRAME_RECORDS		(1U << 16)

/* Version 2 tag bits, and the extras byte's (see above). */
#define LRU_TRACE_TAG_OUTCOME	0x07
#define LRU_TRACE_TAG_CPU	0x08
#define LRU_TRACE_TAG_EXTRA	0x10
#define LRU_TRACE_TAG_FOUND	0x20
#define LRU_TRACE_TAG_FRONT	0x40
#define LRU_TRACE_TAG_SLOT	0x80
#define LRU_TRACE_EXTRA_KEY	0x1	/* dev, size */
#define LRU_TRACE_EXTRA_LRU	0x2	/* lru_size */
#define LRU_TRACE_EXTRA_FLAGS	0x4	/* flags but FOUND/FRONT */

/* Per CPU and frame: what a record's fields are coded against. */
struct lru_trace_cpu_prev {
	__u64 block;
	__u64 ts_ns;
	__u32 dev;
	__u32 size;
	__u32 lru_size;
	__u32 frame;		/* the frame these are for (1-based) */
};

/* The columns of one frame being built or read. */
struct lru_trace_columns {
	__u8 *col[LRU_TRACE_COLUMNS];
	size_t len[LRU_TRACE_COLUMNS];	/* written / readable */
	size_t pos[LRU_TRACE_COLUMNS];	/* read so far */
};

struct lru_trace_params {
	int version;		/* 0: LRU_TRACE_VERSION */
	int lru_size;
	int nr_cpus;
	const char *hook;
	bool raw_bits;		/* the lookups carry FOUND/FRONT */
	int zstd_level;		/* 0: 3 */
};

struct lru_trace_writer {
	int fd;
	struct lru_trace_header h;
	__u64 bytes;		/* written so far, header included */
	__u64 frames;
	__u64 lookups;		/* records that are lookups */
	/* version 2: */
	struct lru_trace_cpu_prev *prev;	/* nr_cpus */
	struct lru_trace_columns c;
	__u32 frame;		/* the frame being built, 1-based */
	__u32 in_frame;		/* its records */
	__u32 last_cpu;
	void *zctx;		/* ZSTD_CCtx */
	void *zbuf;
	size_t zcap;
	/* version 1: records waiting to be written */
	struct lru_event *v1;
	__u32 v1_len;
};

/*
 * Creates path (a new name or a regular file; never a symlink, device or
 * FIFO) and writes a provisional header. 0 or a negative errno.
 */
int lru_trace_create(struct lru_trace_writer *w, const char *path,
		     const struct lru_trace_params *p);

/* What lru_trace_create()'s error means, in words. */
const char *lru_trace_create_strerror(int err);

/* Appends one record (cpu below nr_cpus). 0 or a negative errno. */
int lru_trace_append(struct lru_trace_writer *w, const struct lru_event *e);

/*
 * Appends a ring buffer message: an lru_event, or an lru_snapshot_msg that
 * becomes one record per slot. Returns records written or a negative errno.
 */
int lru_trace_append_msg(struct lru_trace_writer *w, const void *data,
			 size_t size);

/* Writes out the records appended so far (a frame). 0 or -errno. */
int lru_trace_flush(struct lru_trace_writer *w);

/* Flushes, rewrites the header with the final counts, closes. 0 or -errno. */
int lru_trace_finish(struct lru_trace_writer *w, uint64_t lost);

/* Closes without finishing (the file reads as cut short). */
void lru_trace_abandon(struct lru_trace_writer *w);

struct lru_trace_reader {
	FILE *f;
	bool own;		/* close f at the end */
	char name[256];
	struct lru_trace_header h;
	uint64_t read;		/* records returned */
	uint64_t frames;	/* frames read */
	uint64_t bytes;		/* bytes read, header included */
	bool truncated;		/* the file ends inside a record or frame */
	char note[400];		/* says so, for the caller to print */
	/* version 2: */
	struct lru_trace_cpu_prev *prev;	/* nr_cpus */
	struct lru_trace_columns c;
	__u32 left;		/* records of the frame not yet decoded */
	__u32 cpu;		/* the previous record's */
	void *zctx;		/* ZSTD_DCtx */
	void *zbuf, *raw;
	size_t zcap, rawcap;
};

/*
 * Opens and checks a trace: path, or "-" for standard input. Refuses
 * anything but a regular file (a FIFO would block). Returns 0, or -1 with
 * a one-line reason in why.
 */
int lru_trace_open(struct lru_trace_reader *r, const char *path, char *why,
		   size_t len);

/*
 * The same on an open stream (a fuzzer's fmemopen(), a pipe), read from
 * its current position; own: fclose(f) in lru_trace_close(). name is for
 * messages.
 */
int lru_trace_open_file(struct lru_trace_reader *r, FILE *f, bool own,
			const char *name, char *why, size_t len);

/*
 * Next record: 1, 0 at the end (then r->truncated and r->note say
 * whether the file was cut short), or -1 with a reason (a corrupt file).
 */
int lru_trace_next(struct lru_trace_reader *r, struct lru_event *e,
		   char *why, size_t len);

void lru_trace_close(struct lru_trace_reader *r);

#endif /* BHSCOPE_LRU_TRACE_H */
