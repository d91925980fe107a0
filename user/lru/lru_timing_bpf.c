// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lru/lru_timing.h"

struct lru_timing_cycle {
	pthread_t thread;
	int stop_fd;		/* eventfd: written to stop */
	struct bpf_program *prog;
	unsigned int window_ms, period_ms;
};

/* Waits ms; true if told to stop meanwhile. */
static bool stopped_within(const struct lru_timing_cycle *c, unsigned int ms)
{
	struct pollfd p = { .fd = c->stop_fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, (int)ms);
	while (n < 0 && errno == EINTR);
	return n != 0;
}

static void *cycle(void *arg)
{
	struct lru_timing_cycle *c = arg;
	struct bpf_link *link;
	bool stop;

	do {
		/* a failed attach is a window without timings, retried */
		link = bpf_program__attach_trace(c->prog);
		stop = stopped_within(c, c->window_ms);
		bpf_link__destroy(link);
	} while (!stop && !stopped_within(c, c->period_ms - c->window_ms));
	return NULL;
}

struct lru_timing_cycle *lru_timing_cycle_start(struct bpf_program *prog,
						unsigned int window_ms,
						unsigned int period_ms)
{
	struct lru_timing_cycle *c = calloc(1, sizeof(*c));
	sigset_t all, old;
	int err;

	if (!c)
		return NULL;
	*c = (struct lru_timing_cycle){
		.prog = prog, .window_ms = window_ms, .period_ms = period_ms,
	};
	c->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (c->stop_fd < 0) {
		free(c);
		return NULL;
	}
	/* the thread takes no signal: they are the main thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&c->thread, NULL, cycle, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(c->stop_fd);
		free(c);
		errno = err;
		return NULL;
	}
	return c;
}

void lru_timing_cycle_stop(struct lru_timing_cycle *c)
{
	uint64_t one = 1;

	if (!c)
		return;
	if (write(c->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(c->thread, NULL);
	close(c->stop_fd);
	free(c);
}
