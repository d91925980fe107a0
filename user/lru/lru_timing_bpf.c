// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>

#include "lib/worker.h"
#include "lru/lru_timing.h"

struct lru_timing_cycle {
	struct worker worker;
	struct bpf_program *prog;
	unsigned int window_ms, period_ms;
};

static void *cycle(void *arg)
{
	struct lru_timing_cycle *c = arg;
	struct bpf_link *link;
	bool stop;

	do {
		/* a failed attach is a window without timings, retried */
		link = bpf_program__attach_trace(c->prog);
		stop = worker_sleep(&c->worker, c->window_ms);
		bpf_link__destroy(link);
	} while (!stop && !worker_sleep(&c->worker, c->period_ms - c->window_ms));
	return NULL;
}

struct lru_timing_cycle *lru_timing_cycle_start(struct bpf_program *prog,
						unsigned int window_ms,
						unsigned int period_ms)
{
	struct lru_timing_cycle *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	*c = (struct lru_timing_cycle){
		.prog = prog, .window_ms = window_ms, .period_ms = period_ms,
	};
	err = worker_start(&c->worker, cycle, c);
	if (err) {
		free(c);
		errno = -err;
		return NULL;
	}
	return c;
}

void lru_timing_cycle_stop(struct lru_timing_cycle *c)
{
	if (!c)
		return;
	worker_stop(&c->worker);
	free(c);
}
