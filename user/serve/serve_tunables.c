// SPDX-License-Identifier: GPL-2.0
/*
 * The parameters of bhtune.ko, when it is loaded, as gauges (the journals'
 * batch times are the jbd2 source's); lib/tunables reads both.
 */
#include <stdlib.h>

#include "lib/tunables.h"
#include "serve/serve.h"

void serve_tunables_collect(const struct serve_view *v, struct prom_buf *out)
{
	struct bhtune_param *params;
	int n = tunables_bhtune_list(&params);

	(void)v;
	if (n > 0)
		prom_family(out, "bhscope_bhtune_parameter", PROM_GAUGE,
			    "Numeric parameters of the bhtune module, as /sys/module/bhtune/parameters shows them.");
	for (int i = 0; i < n; i++) {
		struct prom_labels ls = {};

		prom_labels_add(&ls, "parameter", params[i].name);
		prom_sample(out, "bhscope_bhtune_parameter", &ls,
			    params[i].value);
	}
	free(params);
}
