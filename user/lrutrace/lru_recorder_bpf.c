// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "lib/stop_signals.h"
#include "lrutrace/lru_recorder.h"

/* How long a poll may wait before the thread looks at the stop flag. */
#define POLL_MS 100
/* A frame at least this often, so that a killed recording loses little. */
#define FLUSH_NS 1000000000ULL

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

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
	uint64_t now;
	int err;

	while (!atomic_load(&r->stop) && !r->err) {
		err = ring_buffer__poll(r->rb, POLL_MS);
		if (err < 0 && err != -EINTR && !r->err)
			r->err = err;
		now = now_ns();
		if (now - r->flushed_ns >= FLUSH_NS) {
			err = lru_trace_flush(&r->w);
			if (err && !r->err)
				r->err = err;
			r->flushed_ns = now;
		}
	}
	return NULL;
}

int lru_recorder_start(struct lru_recorder *r, int ringbuf_fd,
		       const char *path, const struct lru_trace_params *p)
{
	sigset_t mask;
	int err;

	memset(r, 0, sizeof(*r));
	err = lru_trace_create(&r->w, path, p);
	if (err)
		return err;
	r->rb = ring_buffer__new(ringbuf_fd, on_event, r, NULL);
	if (!r->rb) {
		err = -errno;
		goto fail;
	}
	atomic_init(&r->stop, false);
	r->flushed_ns = now_ns();
	/* the writer never takes a stop signal: the reporting loop waits for them */
	stop_signals_block(&mask, NULL);
	err = -pthread_create(&r->thread, NULL, drain, r);
	stop_signals_restore(&mask);
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
