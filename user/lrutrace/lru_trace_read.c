// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a --trace file (struct lru_trace_header), version 1 or 2, as
 * hostile input: every size and number is checked against what the header
 * and the format allow before anything is allocated or indexed, and a file
 * cut short (a recording killed) reads up to its last whole record or
 * frame, with a note saying so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "lrutrace/lru_trace.h"
#include "lrutrace/lru_trace_codec.h"
#include "lib/why.h"

/* A header string: NUL-terminated, printable ASCII before the NUL. */
static bool clean_string(const char *s, size_t size)
{
	const char *end = memchr(s, '\0', size);

	if (!end)
		return false;
	for (; s < end; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static int check_header(const struct lru_trace_reader *r, char *why,
			size_t len)
{
	const struct lru_trace_header *h = &r->h;

	if (memcmp(h->magic, LRU_TRACE_MAGIC, sizeof(h->magic)))
		return why_fail(why, len, "%s is not a bhscope lru --trace file",
			    r->name);
	if ((h->version != 1 && h->version != 2) ||
	    h->header_size != sizeof(*h) ||
	    h->record_size != sizeof(struct lru_event))
		return why_fail(why, len,
			    "%s is trace format version %u (header %u, record %u bytes); this bhscope reads versions 1 and 2",
			    r->name, h->version, h->header_size,
			    h->record_size);
	if (h->flags & ~LRU_TRACE_FLAGS)
		return why_fail(why, len, "%s: unknown header flags 0x%x",
			    r->name, h->flags & ~LRU_TRACE_FLAGS);
	if (h->lru_size > BHSCOPE_LRU_SLOTS_MAX)
		return why_fail(why, len, "%s: bad LRU size %u in the header (at most %d)",
			    r->name, h->lru_size, BHSCOPE_LRU_SLOTS_MAX);
	if (h->nr_cpus < 1 || h->nr_cpus > LRU_TRACE_MAX_CPUS)
		return why_fail(why, len, "%s: bad CPU count %u in the header (1 to %d)",
			    r->name, h->nr_cpus, LRU_TRACE_MAX_CPUS);
	if (!clean_string(h->kernel, sizeof(h->kernel)) ||
	    !clean_string(h->hook, sizeof(h->hook)))
		return why_fail(why, len, "%s: the header's kernel or hook name is not a terminated printable string",
			    r->name);
	return 0;
}

int lru_trace_open_file(struct lru_trace_reader *r, FILE *f, bool own,
			const char *name, char *why, size_t len)
{
	size_t n;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->own = own;
	snprintf(r->name, sizeof(r->name), "%s", name);
	n = fread(&r->h, 1, sizeof(r->h), f);
	r->bytes = n;
	if (n != sizeof(r->h)) {
		if (ferror(f))
			why_fail(why, len, "reading %s: %s", r->name, strerror(errno));
		else
			why_fail(why, len, "%s is not a bhscope lru --trace file (%zu bytes, shorter than a header)",
			     r->name, n);
		goto out;
	}
	if (check_header(r, why, len))
		goto out;
	if (r->h.version == 2) {
		r->prev = calloc(r->h.nr_cpus, sizeof(*r->prev));
		r->zctx = ZSTD_createDCtx();
		if (!r->prev || !r->zctx) {
			why_fail(why, len, "%s: out of memory", r->name);
			goto out;
		}
	}
	return 0;
out:
	lru_trace_close(r);
	return -1;
}

int lru_trace_open(struct lru_trace_reader *r, const char *path, char *why,
		   size_t len)
{
	struct stat st;
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return lru_trace_open_file(r, stdin, false, "standard input",
					   why, len);
	memset(r, 0, sizeof(*r));
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return why_fail(why, len, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fcntl(fd, F_SETFL, 0)) {
		close(fd);
		return why_fail(why, len, "%s is not a regular file (give a trace file, or - for standard input)",
			    path);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return why_fail(why, len, "cannot open %s: %s", path, strerror(errno));
	}
	return lru_trace_open_file(r, f, true, path, why, len);
}

void lru_trace_close(struct lru_trace_reader *r)
{
	if (r->f && r->own)
		fclose(r->f);
	r->f = NULL;
	free(r->prev);
	free(r->zbuf);
	free(r->raw);
	ZSTD_freeDCtx(r->zctx);
	r->prev = NULL;
	r->zbuf = r->raw = NULL;
	r->zctx = NULL;
}

static void cut_short(struct lru_trace_reader *r, const char *inside)
{
	r->truncated = true;
	snprintf(r->note, sizeof(r->note),
		 "%.200s ends inside %s (the recording was cut short): read the %llu records before it",
		 r->name, inside, (unsigned long long)r->read);
}

/* At the end of the file: a finished header must agree with it. */
static int at_end(struct lru_trace_reader *r, char *why, size_t len)
{
	if ((r->h.flags & LRU_TRACE_COMPLETE) && !r->truncated &&
	    r->read != r->h.records)
		return why_fail(why, len, "%s holds %llu records but its header says %llu (a corrupt file)",
			    r->name, (unsigned long long)r->read,
			    (unsigned long long)r->h.records);
	return 0;
}

static int check_record(struct lru_trace_reader *r, const struct lru_event *e,
			char *why, size_t len)
{
	if (e->cpu >= r->h.nr_cpus)
		return why_fail(why, len, "%s: record %llu is for CPU %u, beyond the %u CPUs of the header",
			    r->name, (unsigned long long)r->read, e->cpu,
			    r->h.nr_cpus);
	if (e->outcome > LRU_RESET)
		return why_fail(why, len, "%s: record %llu has an unknown outcome %u",
			    r->name, (unsigned long long)r->read, e->outcome);
	return 0;
}

static int next_v1(struct lru_trace_reader *r, struct lru_event *e,
		   char *why, size_t len)
{
	size_t n = fread(e, 1, sizeof(*e), r->f);

	r->bytes += n;
	if (n == sizeof(*e)) {
		if (check_record(r, e, why, len))
			return -1;
		r->read++;
		return 1;
	}
	if (ferror(r->f))
		return why_fail(why, len, "reading %s: %s", r->name, strerror(errno));
	if (n) {
		char inside[64];

		snprintf(inside, sizeof(inside), "record %llu",
			 (unsigned long long)r->read);
		cut_short(r, inside);
	}
	return at_end(r, why, len) ?: 0;
}

/* Grows *buf to at least n bytes (n is bounded by the format's limits). */
static int reserve(void **buf, size_t *cap, size_t n)
{
	void *p;

	if (*cap >= n)
		return 0;
	p = realloc(*buf, n);
	if (!p)
		return -1;
	*buf = p;
	*cap = n;
	return 0;
}

/* Reads and unpacks the next frame: 1, 0 at the end, -1 if corrupt. */
static int read_frame(struct lru_trace_reader *r, char *why, size_t len)
{
	unsigned long long nr = r->frames + 1, at = r->bytes;
	struct lru_trace_frame fh;
	char inside[64];
	size_t n, sum;
	__u32 lens[LRU_TRACE_COLUMNS];
	size_t got;

	snprintf(inside, sizeof(inside), "frame %llu", nr);
	n = fread(&fh, 1, sizeof(fh), r->f);
	r->bytes += n;
	if (n != sizeof(fh)) {
		if (ferror(r->f))
			return why_fail(why, len, "reading %s: %s", r->name,
				    strerror(errno));
		if (n)
			cut_short(r, inside);
		return 0;
	}
	if (memcmp(fh.magic, LRU_TRACE_FRAME_MAGIC, sizeof(fh.magic)))
		return why_fail(why, len, "%s: frame %llu at byte %llu does not start like one (a corrupt file)",
			    r->name, nr, at);
	if (fh.records < 1 || fh.records > LRU_TRACE_FRAME_RECORDS_MAX ||
	    fh.raw_bytes < sizeof(lens) || fh.raw_bytes > LRU_TRACE_RAW_BYTES_MAX ||
	    fh.raw_bytes > sizeof(lens) + (size_t)fh.records * LRU_TRACE_RECORD_BYTES_MAX ||
	    fh.zbytes < 1 || fh.zbytes > ZSTD_compressBound(fh.raw_bytes))
		return why_fail(why, len, "%s: frame %llu at byte %llu has impossible sizes (%u records, %u bytes, %u compressed)",
			    r->name, nr, at, fh.records, fh.raw_bytes,
			    fh.zbytes);
	if (reserve(&r->zbuf, &r->zcap, fh.zbytes) ||
	    reserve(&r->raw, &r->rawcap, fh.raw_bytes))
		return why_fail(why, len, "%s: out of memory", r->name);
	n = fread(r->zbuf, 1, fh.zbytes, r->f);
	r->bytes += n;
	if (n != fh.zbytes) {
		if (ferror(r->f))
			return why_fail(why, len, "reading %s: %s", r->name,
				    strerror(errno));
		cut_short(r, inside);
		return 0;
	}
	got = ZSTD_decompressDCtx(r->zctx, r->raw, fh.raw_bytes, r->zbuf,
				  fh.zbytes);
	if (ZSTD_isError(got) || got != fh.raw_bytes)
		return why_fail(why, len, "%s: frame %llu at byte %llu is corrupt (%s)",
			    r->name, nr, at,
			    ZSTD_isError(got) ? ZSTD_getErrorName(got) :
			    "wrong decompressed size");
	memcpy(lens, r->raw, sizeof(lens));
	sum = sizeof(lens);
	for (int i = 0; i < LRU_TRACE_COLUMNS; i++) {
		if (lens[i] > fh.raw_bytes - sum)
			break;
		r->c.col[i] = (__u8 *)r->raw + sum;
		r->c.len[i] = lens[i];
		r->c.pos[i] = 0;
		sum += lens[i];
	}
	if (sum != fh.raw_bytes || r->c.len[COL_TAGS] != fh.records)
		return why_fail(why, len, "%s: frame %llu at byte %llu is corrupt (its columns do not add up)",
			    r->name, nr, at);
	r->frames++;
	r->left = fh.records;
	return 1;
}

static int varint_in(struct lru_trace_reader *r, int col, uint64_t *v)
{
	return lru_trace_codec_get_varint(r->c.col[col], r->c.len[col], &r->c.pos[col], v);
}

/* One record from the current frame's columns: 0, or -1 if corrupt. */
static int decode(struct lru_trace_reader *r, struct lru_event *e)
{
	struct lru_trace_columns *c = &r->c;
	struct lru_trace_cpu_prev *p;
	uint64_t v, block, ts;
	uint8_t tag, extra;
	__u32 frame = r->frames;

	tag = c->col[COL_TAGS][c->pos[COL_TAGS]++];
	if ((tag & LRU_TRACE_TAG_OUTCOME) > LRU_RESET)
		return -1;
	if (tag & LRU_TRACE_TAG_CPU) {
		if (varint_in(r, COL_CPUS, &v) || v >= r->h.nr_cpus)
			return -1;
		r->cpu = v;
	} else if (c->pos[COL_TAGS] == 1) {
		return -1;	/* a frame's first record names its CPU */
	}
	p = &r->prev[r->cpu];
	if (p->frame != frame)
		*p = (struct lru_trace_cpu_prev){ .frame = frame };
	e->flags = 0;
	if (tag & LRU_TRACE_TAG_EXTRA) {
		if (c->pos[COL_EXTRAS] >= c->len[COL_EXTRAS])
			return -1;
		extra = c->col[COL_EXTRAS][c->pos[COL_EXTRAS]++];
		if (extra & ~(LRU_TRACE_EXTRA_KEY | LRU_TRACE_EXTRA_LRU |
			      LRU_TRACE_EXTRA_FLAGS))
			return -1;
		if (extra & LRU_TRACE_EXTRA_KEY) {
			if (varint_in(r, COL_EXTRAS, &v) || v > UINT32_MAX)
				return -1;
			p->dev = v;
			if (varint_in(r, COL_EXTRAS, &v) || v > UINT32_MAX)
				return -1;
			p->size = v;
		}
		if (extra & LRU_TRACE_EXTRA_LRU) {
			if (varint_in(r, COL_EXTRAS, &v) || v > UINT16_MAX)
				return -1;
			p->lru_size = v;
		}
		if (extra & LRU_TRACE_EXTRA_FLAGS) {
			if (c->pos[COL_EXTRAS] >= c->len[COL_EXTRAS])
				return -1;
			e->flags = c->col[COL_EXTRAS][c->pos[COL_EXTRAS]++];
			if (!e->flags || (e->flags & (LRU_EV_FOUND | LRU_EV_FRONT)))
				return -1;
		}
	}
	if (tag & LRU_TRACE_TAG_FOUND)
		e->flags |= LRU_EV_FOUND;
	if (tag & LRU_TRACE_TAG_FRONT)
		e->flags |= LRU_EV_FRONT;
	e->slot = -1;
	if (tag & LRU_TRACE_TAG_SLOT) {
		if (varint_in(r, COL_SLOTS, &v))
			return -1;
		v = unzigzag(v);
		if ((int64_t)v < INT16_MIN || (int64_t)v > INT16_MAX ||
		    (int64_t)v == -1)
			return -1;
		e->slot = (int64_t)v;
	}
	if (varint_in(r, COL_BLOCKS, &block) || varint_in(r, COL_TIMES, &ts))
		return -1;
	p->block += unzigzag(block);
	p->ts_ns += unzigzag(ts);
	e->ts_ns = p->ts_ns;
	e->block = p->block;
	e->dev = p->dev;
	e->size = p->size;
	e->cpu = r->cpu;
	e->lru_size = p->lru_size;
	e->outcome = tag & LRU_TRACE_TAG_OUTCOME;
	memset(e->pad, 0, sizeof(e->pad));
	return 0;
}

static int next_v2(struct lru_trace_reader *r, struct lru_event *e,
		   char *why, size_t len)
{
	int n;

	if (!r->left) {
		n = read_frame(r, why, len);
		if (n <= 0)
			return n < 0 ? -1 : (at_end(r, why, len) ?: 0);
	}
	if (decode(r, e))
		return why_fail(why, len, "%s: frame %llu is corrupt (record %llu does not decode)",
			    r->name, (unsigned long long)r->frames,
			    (unsigned long long)r->read);
	r->read++;
	if (--r->left)
		return 1;
	for (int i = 0; i < LRU_TRACE_COLUMNS; i++)
		if (r->c.pos[i] != r->c.len[i])
			return why_fail(why, len, "%s: frame %llu is corrupt (bytes left after its last record)",
				    r->name, (unsigned long long)r->frames);
	return 1;
}

int lru_trace_next(struct lru_trace_reader *r, struct lru_event *e,
		   char *why, size_t len)
{
	return r->h.version == 1 ? next_v1(r, e, why, len) :
				   next_v2(r, e, why, len);
}
