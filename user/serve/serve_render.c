// SPDX-License-Identifier: GPL-2.0
/* One whole exposition: every running source, the tunables, the health. */
#include <time.h>

#include "lib/clock.h"
#include "serve/serve.h"
#include "serve/serve_devices.h"

void serve_render(struct serve_state *st, struct prom_buf *out)
{
	struct serve_view v;
	double start;

	pthread_mutex_lock(&st->lock);
	start = clock_s(CLOCK_MONOTONIC);
	prom_buf_reset(out);
	/* Scanned on every scrape: a new mount shows at once, a gone one not. */
	serve_devices_scan(&st->devs, &st->cfg);
	v = (struct serve_view){
		.hz = st->hz,
		.nr_cpus = st->nr_cpus,
		.per_cpu = st->cfg.per_cpu,
		.devs = &st->devs,
		.cfg = &st->cfg,
		.cpu_names = (const char *const *)st->cpu_names,
	};
	for (int i = 0; i < serve_nr_sources; i++)
		if (serve_sources[i]->running)
			serve_sources[i]->ops->collect(serve_sources[i], &v, out);
	serve_tunables_collect(&v, out);
	serve_health_collect(st, out, start);
	pthread_mutex_unlock(&st->lock);
}
