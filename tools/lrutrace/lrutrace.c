// SPDX-License-Identifier: GPL-2.0
/*
 * lrutrace: a tool for the bench and the tests, not installed: rewrites a
 * `bhscope lru --trace` file in another format version, or repeated n
 * times (the copies follow one another in time), to make a long trace of
 * a real workload for measuring `bhscope simulate`.
 *
 *   lrutrace convert IN OUT [VERSION]    (default 2)
 *   lrutrace repeat IN OUT N [VERSION]
 *   lrutrace stat IN                     records, lookups, bytes a lookup
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lru/lru_trace.h"

static int copy(const char *in, const char *out, long times, int version)
{
	struct lru_trace_reader r;
	struct lru_trace_writer w = { .fd = -1 };
	struct lru_trace_params p;
	struct lru_event e;
	uint64_t first = 0, last = 0, shift = 0;
	char why[512];
	int n, err = 0;

	for (long t = 0; t < times && !err; t++) {
		if (lru_trace_open(&r, in, why, sizeof(why))) {
			fprintf(stderr, "lrutrace: %s\n", why);
			return 1;
		}
		if (!t) {
			p = (struct lru_trace_params){
				.version = version, .lru_size = r.h.lru_size,
				.nr_cpus = r.h.nr_cpus, .hook = r.h.hook,
				.raw_bits = r.h.flags & LRU_TRACE_RAW_BITS,
			};
			err = lru_trace_create(&w, out, &p);
			if (err) {
				fprintf(stderr, "lrutrace: %s: %s\n", out,
					lru_trace_create_strerror(err));
				lru_trace_close(&r);
				return 1;
			}
			memcpy(w.h.kernel, r.h.kernel, sizeof(w.h.kernel));
		}
		while ((n = lru_trace_next(&r, &e, why, sizeof(why))) > 0) {
			if (!first)
				first = e.ts_ns;
			if (e.ts_ns > last)
				last = e.ts_ns;
			e.ts_ns += shift;
			err = lru_trace_append(&w, &e);
			if (err)
				break;
		}
		if (n < 0) {
			fprintf(stderr, "lrutrace: %s\n", why);
			err = -EIO;
		}
		shift += last - first + 1000;
		if (!t)
			w.h.lost = r.h.lost;
		lru_trace_close(&r);
	}
	err = lru_trace_finish(&w, w.h.lost) ?: err;
	if (err) {
		fprintf(stderr, "lrutrace: writing %s: %s\n", out, strerror(-err));
		return 1;
	}
	return 0;
}

static int stat_trace(const char *in)
{
	struct lru_trace_reader r;
	struct lru_event e;
	uint64_t lookups = 0;
	struct stat st;
	char why[512];
	int n;

	if (lru_trace_open(&r, in, why, sizeof(why))) {
		fprintf(stderr, "lrutrace: %s\n", why);
		return 1;
	}
	while ((n = lru_trace_next(&r, &e, why, sizeof(why))) > 0)
		lookups += e.outcome < LRU_NR_LOOKUP_OUTCOMES;
	if (n < 0 || stat(in, &st)) {
		fprintf(stderr, "lrutrace: %s\n", n < 0 ? why : strerror(errno));
		lru_trace_close(&r);
		return 1;
	}
	printf("{\"format\": %u, \"kernel\": \"%s\", \"records\": %llu, \"lookups\": %llu, \"bytes\": %lld, \"bytes_per_lookup\": %.3f, \"frames\": %llu}\n",
	       r.h.version, r.h.kernel, (unsigned long long)r.read,
	       (unsigned long long)lookups, (long long)st.st_size,
	       lookups ? (double)st.st_size / lookups : 0.0,
	       (unsigned long long)r.frames);
	lru_trace_close(&r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "convert"))
		return copy(argv[2], argv[3], 1, argc > 4 ? atoi(argv[4]) : 2);
	if (argc >= 5 && !strcmp(argv[1], "repeat"))
		return copy(argv[2], argv[3], atol(argv[4]),
			    argc > 5 ? atoi(argv[5]) : 2);
	if (argc == 3 && !strcmp(argv[1], "stat"))
		return stat_trace(argv[2]);
	fprintf(stderr, "usage: lrutrace convert IN OUT [VERSION]\n"
		"       lrutrace repeat IN OUT N [VERSION]\n"
		"       lrutrace stat IN\n");
	return 64;
}
