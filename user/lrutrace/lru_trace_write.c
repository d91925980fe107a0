// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a --trace file (struct lru_trace_header): version 2, records coded
 * into columns and written as one zstd frame per LRU_TRACE_FRAME_RECORDS
 * records or per flush; version 1 (40-byte records) for tests and
 * benchmarks of the old reader path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "lib/atomic_file.h"
#include "lib/stop_signals.h"
#include "lrutrace/lru_trace.h"
#include "lrutrace/lru_trace_codec.h"
#include "lib/write_all.h"

_Static_assert(sizeof(struct lru_event) == 40, "lru_event is 40 bytes");
_Static_assert(sizeof(struct lru_trace_header) == 184,
	       "the header is the same in versions 1 and 2");
_Static_assert(sizeof(struct lru_trace_frame) == 16, "frame header");
_Static_assert(LRU_RESET <= LRU_TRACE_TAG_OUTCOME, "outcomes fit the tag");

#define V1_BATCH 4096

/*
 * path must be a new name or a regular file: a symlink is never followed,
 * a FIFO or device refused (-ELOOP, -ENOTSUP).
 */
static int output_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	return S_ISREG(st.st_mode) ? 0 : -ENOTSUP;
}

/*
 * Opens the trace with its header written: into a new file beside path,
 * renamed over it once the header is there (lib/atomic_file), so that a
 * full disk leaves no empty trace, and the previous one whole.
 */
static int open_output(const char *path, const struct lru_trace_header *h)
{
	char tmp[PATH_MAX + 64], why[PATH_MAX + 256];
	sigset_t mask;
	int fd, err;

	err = output_kind(path);
	if (err)
		return err;
	stop_signals_block(&mask, NULL);
	fd = atomic_file_begin(AT_FDCWD, path, tmp, sizeof(tmp), why, sizeof(why));
	if (fd < 0) {
		err = -errno;
	} else if ((err = write_all(fd, h, sizeof(*h), -1))) {
		close(fd);
		atomic_file_discard(AT_FDCWD, tmp);
	} else if (atomic_file_commit(AT_FDCWD, tmp, path, why, sizeof(why))) {
		err = errno == EEXIST ? -ENOTSUP : -errno;
		close(fd);
	}
	stop_signals_restore(&mask);
	return err ? err : fd;
}

/* Frees what the writer holds; the header and the counts stay. */
static void free_writer(struct lru_trace_writer *w)
{
	for (int i = 0; i < LRU_TRACE_COLUMNS; i++) {
		free(w->c.col[i]);
		w->c.col[i] = NULL;
	}
	free(w->prev);
	free(w->zbuf);
	free(w->v1);
	ZSTD_freeCCtx(w->zctx);
	w->prev = NULL;
	w->zbuf = NULL;
	w->v1 = NULL;
	w->zctx = NULL;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

static int setup_v2(struct lru_trace_writer *w, int level)
{
	size_t raw = 4 * LRU_TRACE_COLUMNS;

	w->prev = calloc(w->h.nr_cpus, sizeof(*w->prev));
	for (int i = 0; i < LRU_TRACE_COLUMNS; i++) {
		w->c.col[i] = malloc(LRU_TRACE_FRAME_RECORDS *
				     lru_trace_column_max[i]);
		if (!w->c.col[i])
			return -ENOMEM;
		raw += LRU_TRACE_FRAME_RECORDS * lru_trace_column_max[i];
	}
	w->zcap = ZSTD_compressBound(raw);
	/* the frame header goes in front of the compressed bytes */
	w->zbuf = malloc(sizeof(struct lru_trace_frame) + w->zcap);
	w->zctx = ZSTD_createCCtx();
	if (!w->prev || !w->zbuf || !w->zctx)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_compressionLevel,
						level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_checksumFlag, 1)))
		return -EINVAL;
	w->frame = 1;
	return 0;
}

int lru_trace_create(struct lru_trace_writer *w, const char *path,
		     const struct lru_trace_params *p)
{
	int version = p->version ? p->version : LRU_TRACE_VERSION;
	struct timespec now;
	struct utsname u;
	int err;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if ((version != 1 && version != 2) || p->nr_cpus < 1 ||
	    p->nr_cpus > LRU_TRACE_MAX_CPUS || p->lru_size < 0 ||
	    p->lru_size > BHSCOPE_LRU_DEPTH_MAX)
		return -EINVAL;
	memcpy(w->h.magic, LRU_TRACE_MAGIC, sizeof(w->h.magic));
	w->h.version = version;
	w->h.header_size = sizeof(w->h);
	w->h.record_size = sizeof(struct lru_event);
	w->h.lru_size = p->lru_size;
	w->h.nr_cpus = p->nr_cpus;
	w->h.flags = p->raw_bits ? LRU_TRACE_RAW_BITS : 0;
	clock_gettime(CLOCK_REALTIME, &now);
	w->h.start_realtime_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	if (!uname(&u))
		snprintf(w->h.kernel, sizeof(w->h.kernel), "%.63s", u.release);
	snprintf(w->h.hook, sizeof(w->h.hook), "%.63s", p->hook ? p->hook : "");
	if (version == 1) {
		w->v1 = malloc(V1_BATCH * sizeof(*w->v1));
		err = w->v1 ? 0 : -ENOMEM;
	} else {
		err = setup_v2(w, p->zstd_level ? p->zstd_level : 3);
	}
	if (err)
		goto fail;
	w->fd = open_output(path, &w->h);
	if (w->fd < 0) {
		err = w->fd;
		w->fd = -1;
		goto fail;
	}
	w->bytes = sizeof(w->h);
	return 0;
fail:
	free_writer(w);
	return err;
}

const char *lru_trace_create_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "it is a symlink (refused: name the file itself)";
	case -ENOTSUP:
	case -ENXIO:
		return "not a regular file (refused)";
	case -EINVAL:
		return "invalid trace parameters";
	default:
		return strerror(-err);
	}
}

/* One record into the frame's columns. */
static void encode(struct lru_trace_writer *w, const struct lru_event *e)
{
	struct lru_trace_cpu_prev *p = &w->prev[e->cpu];
	uint8_t *x, **col = w->c.col, tag = e->outcome;
	size_t *len = w->c.len;
	uint8_t other = e->flags & ~(LRU_EV_FOUND | LRU_EV_FRONT);
	uint8_t extra = 0;

	if (p->frame != w->frame)
		*p = (struct lru_trace_cpu_prev){ .frame = w->frame };
	if (!w->in_frame || e->cpu != w->last_cpu) {
		tag |= LRU_TRACE_TAG_CPU;
		len[COL_CPUS] = put_varint(col[COL_CPUS] + len[COL_CPUS], e->cpu) -
				col[COL_CPUS];
		w->last_cpu = e->cpu;
	}
	if (e->dev != p->dev || e->size != p->size)
		extra |= LRU_TRACE_EXTRA_KEY;
	if (e->lru_size != p->lru_size)
		extra |= LRU_TRACE_EXTRA_LRU;
	if (other)
		extra |= LRU_TRACE_EXTRA_FLAGS;
	if (extra) {
		tag |= LRU_TRACE_TAG_EXTRA;
		x = col[COL_EXTRAS] + len[COL_EXTRAS];
		*x++ = extra;
		if (extra & LRU_TRACE_EXTRA_KEY) {
			x = put_varint(x, e->dev);
			x = put_varint(x, e->size);
			p->dev = e->dev;
			p->size = e->size;
		}
		if (extra & LRU_TRACE_EXTRA_LRU) {
			x = put_varint(x, e->lru_size);
			p->lru_size = e->lru_size;
		}
		if (extra & LRU_TRACE_EXTRA_FLAGS)
			*x++ = other;
		len[COL_EXTRAS] = x - col[COL_EXTRAS];
	}
	if (e->flags & LRU_EV_FOUND)
		tag |= LRU_TRACE_TAG_FOUND;
	if (e->flags & LRU_EV_FRONT)
		tag |= LRU_TRACE_TAG_FRONT;
	if (e->slot != -1) {
		tag |= LRU_TRACE_TAG_SLOT;
		len[COL_SLOTS] = put_varint(col[COL_SLOTS] + len[COL_SLOTS],
					    zigzag((int64_t)e->slot)) -
				 col[COL_SLOTS];
	}
	col[COL_TAGS][len[COL_TAGS]++] = tag;
	len[COL_BLOCKS] = put_varint(col[COL_BLOCKS] + len[COL_BLOCKS],
				     zigzag(e->block - p->block)) - col[COL_BLOCKS];
	len[COL_TIMES] = put_varint(col[COL_TIMES] + len[COL_TIMES],
				    zigzag(e->ts_ns - p->ts_ns)) - col[COL_TIMES];
	p->block = e->block;
	p->ts_ns = e->ts_ns;
	w->in_frame++;
}

static int flush_v2(struct lru_trace_writer *w)
{
	struct lru_trace_frame fh = { .records = w->in_frame };
	ZSTD_inBuffer in;
	ZSTD_outBuffer out = {
		.dst = (char *)w->zbuf + sizeof(fh), .size = w->zcap,
	};
	__u32 lens[LRU_TRACE_COLUMNS];
	size_t left;
	int err;

	if (!w->in_frame)
		return 0;
	memcpy(fh.magic, LRU_TRACE_FRAME_MAGIC, sizeof(fh.magic));
	fh.raw_bytes = sizeof(lens);
	for (int i = 0; i < LRU_TRACE_COLUMNS; i++) {
		lens[i] = w->c.len[i];
		fh.raw_bytes += lens[i];
	}
	/* The columns are compressed in place, one after another. */
	if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(w->zctx, fh.raw_bytes)))
		return -EIO;
	in = (ZSTD_inBuffer){ lens, sizeof(lens), 0 };
	if (ZSTD_isError(ZSTD_compressStream2(w->zctx, &out, &in, ZSTD_e_continue)))
		return -EIO;
	for (int i = 0; i < LRU_TRACE_COLUMNS; i++) {
		in = (ZSTD_inBuffer){ w->c.col[i], w->c.len[i], 0 };
		if (ZSTD_isError(ZSTD_compressStream2(w->zctx, &out, &in,
						      ZSTD_e_continue)))
			return -EIO;
	}
	in = (ZSTD_inBuffer){ NULL, 0, 0 };
	do {
		left = ZSTD_compressStream2(w->zctx, &out, &in, ZSTD_e_end);
		if (ZSTD_isError(left))
			return -EIO;
	} while (left);
	fh.zbytes = out.pos;
	/* One write: a frame is either whole in the file or cut at its end. */
	memcpy(w->zbuf, &fh, sizeof(fh));
	err = write_all(w->fd, w->zbuf, sizeof(fh) + out.pos, -1);
	if (err)
		return err;
	w->bytes += sizeof(fh) + out.pos;
	w->frames++;
	w->frame++;
	w->in_frame = 0;
	memset(w->c.len, 0, sizeof(w->c.len));
	return 0;
}

static int flush_v1(struct lru_trace_writer *w)
{
	int err = write_all(w->fd, w->v1, w->v1_len * sizeof(*w->v1), -1);

	if (err)
		return err;
	w->bytes += w->v1_len * sizeof(*w->v1);
	w->v1_len = 0;
	return 0;
}

int lru_trace_flush(struct lru_trace_writer *w)
{
	return w->h.version == 1 ? flush_v1(w) : flush_v2(w);
}

int lru_trace_append(struct lru_trace_writer *w, const struct lru_event *e)
{
	int err;

	if (e->cpu >= w->h.nr_cpus || e->outcome > LRU_RESET ||
	    memcmp(e->pad, "\0\0\0\0\0\0", sizeof(e->pad)))
		return -EINVAL;
	if (w->h.version == 1) {
		w->v1[w->v1_len++] = *e;
		err = w->v1_len == V1_BATCH ? flush_v1(w) : 0;
	} else {
		encode(w, e);
		err = w->in_frame == LRU_TRACE_FRAME_RECORDS ? flush_v2(w) : 0;
	}
	if (!err) {
		w->h.records++;
		w->lookups += e->outcome < LRU_NR_LOOKUP_OUTCOMES;
	}
	return err;
}

int lru_trace_append_msg(struct lru_trace_writer *w, const void *data,
			 size_t size)
{
	const struct lru_snapshot_msg *m = data;
	struct lru_event e;
	int n, err;

	if (size == sizeof(struct lru_event))
		return lru_trace_append(w, data) ?: 1;
	if (size < sizeof(*m) || m->head.outcome != LRU_SNAPSHOT)
		return -EINVAL;
	n = m->head.slot;
	if (n < 0 || n > BHSCOPE_LRU_SLOTS_MAX)
		return -EINVAL;
	e = m->head;
	if (!n) {
		/* An empty LRU is one record with slot -1. */
		e.slot = -1;
		return lru_trace_append(w, &e) ?: 1;
	}
	for (int i = 0; i < n; i++) {
		e.slot = i;
		e.block = m->keys[i].block;
		e.dev = m->keys[i].dev;
		e.size = m->keys[i].size;
		/* A gap flag belongs to the first record of the run. */
		if (i)
			e.flags &= ~LRU_EV_GAP;
		err = lru_trace_append(w, &e);
		if (err)
			return err;
	}
	return n;
}

int lru_trace_finish(struct lru_trace_writer *w, uint64_t lost)
{
	int err = lru_trace_flush(w);

	w->h.lost = lost;
	w->h.flags |= LRU_TRACE_COMPLETE;
	if (!err)
		err = write_all(w->fd, &w->h, sizeof(w->h), 0);
	if (close(w->fd) && !err)
		err = -errno;
	w->fd = -1;
	free_writer(w);
	return err;
}

void lru_trace_abandon(struct lru_trace_writer *w)
{
	free_writer(w);
}
