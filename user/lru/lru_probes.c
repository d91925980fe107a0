// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>

#include "lib/env.h"
#include "lru/lru_probes.h"
#include "lib/probe_status.h"
#include "lib/json_out.h"

/* "in use", "not needed", or why the mode was not used. */
static const char *mode_status(const struct lru_hooks *h, bool loaded,
			       enum lru_mode m)
{
	if (loaded && h->mode == m)
		return "in use";
	if (h->tried[m][0])
		return h->tried[m];
	return loaded && m > h->mode ? "not needed" : "not tried";
}

void lru_probes_print(FILE *out, const struct lru_hooks *h, bool loaded)
{
	const char *lockdown = probe_lockdown_mode();

	fprintf(out, "bhscope lru on Linux %s (kernel lockdown: %s)\n",
		env_kernel_release(), lockdown ? lockdown : "unknown");
	fprintf(out, "hook kinds, best first:\n");
	for (int m = LRU_MODE_BHTUNE; m < LRU_NR_MODES; m++)
		fprintf(out, "  %-11s %s\n", lru_mode_names[m],
			mode_status(h, loaded, m));
	fprintf(out, "figures:\n");
	for (int f = 0; f < LRU_NR_FIGURES; f++) {
		const struct probe_status *fig = &h->fig[f];

		if (fig->available)
			fprintf(out, "  %-14s %s\n", lru_figure_names[f],
				fig->source);
		else
			fprintf(out, "  %-14s unavailable: %s\n",
				lru_figure_names[f],
				fig->why[0] ? fig->why : "no hook kind works here");
	}
}

struct json_object *lru_probes_json(const struct lru_hooks *h, bool loaded)
{
	struct json_object *o = json_out_new(LRU_PROBES_JSON_SCHEMA), *modes,
			   *figs, *f;
	const char *lockdown = probe_lockdown_mode();

	json_object_object_add(o, "kernel",
			       json_object_new_string(env_kernel_release()));
	json_object_object_add(o, "lockdown", lockdown ?
			       json_object_new_string(lockdown) : NULL);
	json_object_object_add(o, "mode", loaded ?
			       json_object_new_string(lru_mode_names[h->mode]) :
			       NULL);
	json_object_object_add(o, "lru_size", h->lru_size > 0 ?
			       json_object_new_int(h->lru_size) : NULL);
	modes = json_object_new_object();
	for (int m = LRU_MODE_BHTUNE; m < LRU_NR_MODES; m++)
		json_object_object_add(modes, lru_mode_names[m],
				       json_object_new_string(mode_status(h, loaded, m)));
	json_object_object_add(o, "modes", modes);
	figs = json_object_new_object();
	for (int i = 0; i < LRU_NR_FIGURES; i++) {
		f = json_object_new_object();
		json_object_object_add(f, "available",
				       json_object_new_boolean(h->fig[i].available));
		json_object_object_add(f, h->fig[i].available ? "source" : "reason",
				       json_object_new_string(h->fig[i].available ?
							      h->fig[i].source :
							      h->fig[i].why));
		json_object_object_add(figs, lru_figure_keys[i], f);
	}
	json_object_object_add(o, "figures", figs);
	return o;
}
