// SPDX-License-Identifier: GPL-2.0
/*
 * What both halves of an LRU session use, the choosing of its hooks
 * (lru_session_open()) and the reading of its maps (lru_session_read()),
 * so neither calls the other: running a program on each CPU, the --trace
 * ring buffer, and the LRU's current size.
 */
#include <bpf/libbpf.h>

#include "lib/bpf_on_cpus.h"
#include "lru.skel.h"
#include "lru/lru_kernel.h"
#include "lru/lru_session.h"

void lru_session_run_on_each_cpu(struct lru_session *s,
				 struct bpf_program *prog)
{
	bpf_on_cpus_run(bpf_program__fd(prog), s->nr_cpus);
}

int lru_session_events_fd(const struct lru_session *s)
{
	return bpf_map__fd(s->skel->maps.events);
}

int lru_session_lru_size(const struct lru_session *s)
{
	int n;

	if (s->hooks.mode != LRU_MODE_BHTUNE)
		return s->hooks.lru_size;
	n = lru_kernel_bhtune_lru_size();
	return n > 0 ? n : s->hooks.lru_size;
}
