/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A background thread that takes no signal (they are the main thread's)
 * and sleeps in steps it can be woken from to stop: --timing's windows,
 * serve --lru-duty's.
 */
#ifndef BHSCOPE_WORKER_H
#define BHSCOPE_WORKER_H

#include <pthread.h>
#include <stdbool.h>

struct worker {
	pthread_t thread;
	int stop_fd;		/* eventfd: written to stop */
};

/* Starts fn(arg) in a thread. 0, or a negative errno. */
int worker_start(struct worker *w, void *(*fn)(void *), void *arg);

/* From the thread: waits ms (none if <= 0); true if told to stop. */
bool worker_sleep(const struct worker *w, double ms);

/* Tells the thread to stop and joins it. */
void worker_stop(struct worker *w);

#endif /* BHSCOPE_WORKER_H */
