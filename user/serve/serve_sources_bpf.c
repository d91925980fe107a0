// SPDX-License-Identifier: GPL-2.0
/*
 * The sources bhscope serve can export, and helpers that describe a
 * source's BPF programs and maps from its skeleton for the health families.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#include "serve/serve.h"
#include "serve/serve_sources.h"

struct serve_source *const serve_sources[] = {
	&serve_jbd2_source,
	&serve_lru_source,
};

const int serve_nr_sources = sizeof(serve_sources) / sizeof(serve_sources[0]);

struct serve_source *serve_source_find(const char *name)
{
	for (int i = 0; i < serve_nr_sources; i++)
		if (!strcmp(serve_sources[i]->name, name))
			return serve_sources[i];
	return NULL;
}

void serve_sources_probes(struct serve_source *src,
			  const struct bpf_object_skeleton *s,
			  serve_probe_why_fn why, void *arg)
{
	src->nr_probes = 0;
	for (int i = 0; i < s->prog_cnt && src->nr_probes < SERVE_MAX_PROBES; i++) {
		const struct bpf_prog_skeleton *ps = &s->progs[i];
		struct bpf_program *prog = *ps->prog;
		bool up = ps->link && *ps->link;
		const char *reason = up ? "" : why(ps->name, arg);
		struct serve_probe *p;

		/* a bare raw_tp is run by user space on demand, not a probe */
		if (!strcmp(bpf_program__section_name(prog), "raw_tp") ||
		    !reason)
			continue;
		p = &src->probes[src->nr_probes++];

		snprintf(p->name, sizeof(p->name), "%s",
			 bpf_program__section_name(prog));
		p->up = up;
		p->prog_fd = up ? bpf_program__fd(prog) : -1;
		snprintf(p->why, sizeof(p->why), "%s", reason);
	}
}

void serve_sources_maps(struct serve_source *src,
			const struct bpf_object_skeleton *s,
			const char *const *names)
{
	src->nr_maps = 0;
	for (int i = 0; i < s->map_cnt; i++) {
		const struct bpf_map_skeleton *ms = &s->maps[i];

		for (const char *const *n = names; *n; n++) {
			if (strcmp(ms->name, *n) || src->nr_maps == SERVE_MAX_MAPS)
				continue;
			src->maps[src->nr_maps++] = (struct serve_map){
				.name = *n,
				.fd = bpf_map__fd(*ms->map),
				.max_entries = bpf_map__max_entries(*ms->map),
			};
		}
	}
}

void serve_sources_all_down(struct serve_source *src,
			    const struct bpf_object_skeleton *s,
			    const char *why)
{
	src->nr_probes = 0;
	src->nr_maps = 0;
	for (int i = 0; s && i < s->prog_cnt && i < SERVE_MAX_PROBES; i++) {
		struct serve_probe *p = &src->probes[src->nr_probes++];

		snprintf(p->name, sizeof(p->name), "%s",
			 bpf_program__section_name(*s->progs[i].prog));
		p->up = false;
		p->prog_fd = -1;
		snprintf(p->why, sizeof(p->why), "%s", why);
	}
}
