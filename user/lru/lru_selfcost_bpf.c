// SPDX-License-Identifier: GPL-2.0
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lru/lru_session.h"
#include "lru/lru_selfcost.h"

int lru_selfcost_enable(struct lru_selfcost *c)
{
	memset(c, 0, sizeof(*c));
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (c->stats_fd < 0)
		return -errno;
	return 0;
}

void lru_selfcost_disable(struct lru_selfcost *c)
{
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	c->stats_fd = -1;
}

int lru_selfcost_read(struct lru_selfcost *c, const struct lru_session *s)
{
	c->nr = 0;
	for (int i = 0; i < s->nr_att && i < LRU_SELFCOST_MAX_PROGS; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct lru_prog_cost *p = &c->prog[c->nr];

		if (!s->att[i].link)
			continue;	/* an entry probe not attached (yet) */
		if (bpf_obj_get_info_by_fd(bpf_program__fd(s->att[i].prog),
					   &info, &len))
			return -errno;
		snprintf(p->what, sizeof(p->what), "%s", s->att[i].what);
		snprintf(p->name, sizeof(p->name), "%s",
			 bpf_program__name(s->att[i].prog));
		p->run_cnt = info.run_cnt;
		p->run_time_ns = info.run_time_ns;
		p->misses = info.recursion_misses;
		p->per_lookup = s->att[i].per_lookup;
		p->lookup_exit = s->att[i].lookup_exit;
		c->nr++;
	}
	return 0;
}
