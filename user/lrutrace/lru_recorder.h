/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --trace: a thread that drains the lookup ring buffer into a trace file
 * (lru_trace_append()) while the main thread prints the intervals. It
 * writes a frame at least every second, so a recording killed loses at
 * most the last second.
 */
#ifndef BHSCOPE_LRU_RECORDER_H
#define BHSCOPE_LRU_RECORDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lrutrace/lru_trace.h"

struct ring_buffer;

struct lru_recorder {
	struct ring_buffer *rb;
	struct lru_trace_writer w;
	pthread_t thread;
	atomic_bool stop;
	int err;		/* the first error, negative errno */
	bool started;
	uint64_t flushed_ns;	/* CLOCK_MONOTONIC of the last frame */
};

/*
 * Creates path and starts draining the ring buffer map ringbuf_fd into
 * it. Returns 0 or a negative errno (lru_trace_create_strerror() words
 * the file's).
 */
int lru_recorder_start(struct lru_recorder *r, int ringbuf_fd,
		       const char *path, const struct lru_trace_params *p);

/*
 * Drains what is left, writes the final header (lost: events the BPF side
 * dropped) and closes. Returns 0 or the first error.
 */
int lru_recorder_stop(struct lru_recorder *r, uint64_t lost);

#endif /* BHSCOPE_LRU_RECORDER_H */
