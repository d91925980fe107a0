// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

#include "lru/lru_recorder.h"

/* How long a poll may wait before the thread looks at the stop flag. */
#define POLL_MS 100

static int on_event(void *ctx, void *data, size_t size)
{
	struct lru_recorder *r = ctx;
	int n = lru_trace_append_msg(&r->w, data, size);

	if (n < 0 && !r->err)
		r->err = n;
	return n < 0 ? n : 0;
}

static void *drain(void *arg)
{
	struct lru_recorder *r = arg;
	int err;

	while (!atomic_load(&r->stop) && !r->err) {
		err = ring_buffer__poll(r->rb, POLL_MS);
		if (err < 0 && err != -EINTR && !r->err)
			r->err = err;
	}
	return NULL;
}

int lru_recorder_start(struct lru_recorder *r, int ringbuf_fd,
		       const char *path, int lru_size, int nr_cpus,
		       const char *hook)
{
	int err;

	memset(r, 0, sizeof(*r));
	err = lru_trace_create(&r->w, path, lru_size, nr_cpus, hook);
	if (err)
		return err;
	r->rb = ring_buffer__new(ringbuf_fd, on_event, r, NULL);
	if (!r->rb) {
		err = -errno;
		goto fail;
	}
	atomic_init(&r->stop, false);
	err = -pthread_create(&r->thread, NULL, drain, r);
	if (err)
		goto fail;
	r->started = true;
	return 0;
fail:
	ring_buffer__free(r->rb);
	r->rb = NULL;
	lru_trace_finish(&r->w, 0);
	return err;
}

int lru_recorder_stop(struct lru_recorder *r, uint64_t lost)
{
	int err;

	if (!r->started)
		return 0;
	atomic_store(&r->stop, true);
	pthread_join(r->thread, NULL);
	/* What the kernel wrote after the last poll. */
	if (!r->err) {
		err = ring_buffer__consume(r->rb);
		if (err < 0)
			r->err = err;
	}
	ring_buffer__free(r->rb);
	r->rb = NULL;
	err = lru_trace_finish(&r->w, lost);
	r->started = false;
	return r->err ?: err;
}
