// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "lru/lru_trace.h"

_Static_assert(sizeof(struct lru_event) == 40, "lru_event is 40 bytes");
_Static_assert(sizeof(struct lru_trace_header) % 8 == 0,
	       "the header keeps records 8-byte aligned");

static int write_header(struct lru_trace_writer *w)
{
	if (fseek(w->f, 0, SEEK_SET) ||
	    fwrite(&w->h, sizeof(w->h), 1, w->f) != 1)
		return -errno ?: -EIO;
	return 0;
}

int lru_trace_create(struct lru_trace_writer *w, const char *path,
		     int lru_size, int nr_cpus, const char *hook)
{
	struct timespec now;
	struct utsname u;
	int err;

	memset(w, 0, sizeof(*w));
	memcpy(w->h.magic, LRU_TRACE_MAGIC, sizeof(w->h.magic));
	w->h.version = LRU_TRACE_VERSION;
	w->h.header_size = sizeof(w->h);
	w->h.record_size = sizeof(struct lru_event);
	w->h.lru_size = lru_size;
	w->h.nr_cpus = nr_cpus;
	clock_gettime(CLOCK_REALTIME, &now);
	w->h.start_realtime_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	if (!uname(&u))
		snprintf(w->h.kernel, sizeof(w->h.kernel), "%.63s", u.release);
	snprintf(w->h.hook, sizeof(w->h.hook), "%s", hook);
	w->f = fopen(path, "w");
	if (!w->f)
		return -errno;
	/* Large writes: a busy host makes millions of lookups a second. */
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	err = write_header(w);
	if (err) {
		fclose(w->f);
		w->f = NULL;
	}
	return err;
}

int lru_trace_append(struct lru_trace_writer *w, const struct lru_event *e)
{
	if (fwrite(e, sizeof(*e), 1, w->f) != 1)
		return -errno ?: -EIO;
	w->h.records++;
	return 0;
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
	int err;

	w->h.lost = lost;
	w->h.flags |= LRU_TRACE_COMPLETE;
	err = write_header(w);
	if (fclose(w->f) && !err)
		err = -errno;
	w->f = NULL;
	return err;
}

int lru_trace_open(struct lru_trace_reader *r, const char *path, char *why,
		   size_t len)
{
	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "r");
	if (!r->f) {
		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fread(&r->h, sizeof(r->h), 1, r->f) != 1 ||
	    memcmp(r->h.magic, LRU_TRACE_MAGIC, sizeof(r->h.magic))) {
		snprintf(why, len, "%s is not a bhscope lru --trace file", path);
		goto fail;
	}
	if (r->h.version != LRU_TRACE_VERSION ||
	    r->h.header_size != sizeof(r->h) ||
	    r->h.record_size != sizeof(struct lru_event)) {
		snprintf(why, len,
			 "%s is trace format version %u (header %u, record %u bytes); this bhscope reads version %d",
			 path, r->h.version, r->h.header_size,
			 r->h.record_size, LRU_TRACE_VERSION);
		goto fail;
	}
	if (r->h.lru_size < 1 || r->h.lru_size > BHSCOPE_LRU_DEPTH_MAX) {
		snprintf(why, len, "%s: bad LRU size %u in the header", path,
			 r->h.lru_size);
		goto fail;
	}
	return 0;
fail:
	fclose(r->f);
	r->f = NULL;
	return -1;
}

int lru_trace_next(struct lru_trace_reader *r, struct lru_event *e,
		   char *why, size_t len)
{
	size_t n = fread(e, 1, sizeof(*e), r->f);

	if (n == sizeof(*e)) {
		r->read++;
		return 1;
	}
	if (ferror(r->f)) {
		snprintf(why, len, "reading record %llu: %s",
			 (unsigned long long)r->read, strerror(errno));
		return -1;
	}
	if (n) {
		snprintf(why, len, "the file ends inside record %llu",
			 (unsigned long long)r->read);
		return -1;
	}
	return 0;
}

void lru_trace_close(struct lru_trace_reader *r)
{
	if (r->f)
		fclose(r->f);
	r->f = NULL;
}
