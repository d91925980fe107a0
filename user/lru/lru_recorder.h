/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --trace: a thread that drains the lookup ring buffer into a trace file
 * (user/lru_trace.h) while the main thread prints the intervals.
 */
#ifndef BHSCOPE_LRU_RECORDER_H
#define BHSCOPE_LRU_RECORDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lru/lru_trace.h"

struct ring_buffer;

struct lru_recorder {
	struct ring_buffer *rb;
	struct lru_trace_writer w;
	pthread_t thread;
	atomic_bool stop;
	int err;		/* the first error, negative errno */
	bool started;
};

/* Creates path and starts draining the ring buffer map ringbuf_fd into it. */
int lru_recorder_start(struct lru_recorder *r, int ringbuf_fd,
		       const char *path, int lru_size, int nr_cpus,
		       const char *hook);

/*
 * Drains what is left, writes the final header (lost: events the BPF side
 * dropped) and closes. Returns 0 or the first error.
 */
int lru_recorder_stop(struct lru_recorder *r, uint64_t lost);

#endif /* BHSCOPE_LRU_RECORDER_H */
