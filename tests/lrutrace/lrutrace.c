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
 *   lrutrace craft KIND OUT LOOKUPS      a synthetic trace (below)
 *
 * Crafted traces, for the tests and make bench (issue 33 item 4): LRU
 * size 1, raw bits, on CPUs 0 and 1; half the lookups a new key,
 * installed, half one of the last 300 keys (a hit if it is the front).
 *   notinst   those misses of the last 300 are not installed (as under
 *             lru_cache_disabled()): a hit in the larger LRUs that hold
 *             the key, so the sizes above 1 stop sharing one order
 *   installed the same keys, the misses installed: the normal case
 *   cpus      as installed, with a header claiming 8192 CPUs and the
 *             records on CPUs 0 and 8191
 *   allcpus   as installed, on each of the 8192 CPUs in turn
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lrutrace/lru_trace.h"

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

/* A small, fixed pseudo-random sequence: the same trace every time. */
static uint64_t craft_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int craft(const char *kind, const char *out, long lookups)
{
	bool notinst = !strcmp(kind, "notinst"), cpus = !strcmp(kind, "cpus");
	bool all = !strcmp(kind, "allcpus");
	struct lru_trace_params p = { .lru_size = 1,
				      .nr_cpus = cpus || all ? LRU_TRACE_MAX_CPUS : 2,
				      .hook = "crafted", .raw_bits = true };
	uint64_t pool[2][300] = {}, next[2] = { 1000, 1000000000 }, x = 88172645463325252ULL;
	uint64_t front[2] = { 0, 0 };
	struct lru_trace_writer w = { .fd = -1 };
	int err;

	if (!notinst && !cpus && !all && strcmp(kind, "installed")) {
		fprintf(stderr, "lrutrace: craft: unknown kind '%s' (notinst, installed, cpus, allcpus)\n", kind);
		return 64;
	}
	err = lru_trace_create(&w, out, &p);
	if (err) {
		fprintf(stderr, "lrutrace: %s: %s\n", out, lru_trace_create_strerror(err));
		return 1;
	}
	memcpy(w.h.kernel, "crafted", 8);
	for (long i = 0; i < lookups && !err; i++) {
		int c = i & 1;
		uint64_t r = craft_rand(&x), block;
		struct lru_event e = { .ts_ns = 1000 + i, .dev = (7 << 20) | 0,
				       .size = 4096, .cpu = cpus && c ? 8191 : c,
				       .slot = -1, .lru_size = 1 };

		if (all) {
			/* CPU i % 8192, keys of its own */
			e.cpu = i % LRU_TRACE_MAX_CPUS;
			e.block = 1000 + i;
			e.outcome = LRU_MISS_INSTALLED;
			e.flags = LRU_EV_FOUND | LRU_EV_FRONT;
			err = lru_trace_append(&w, &e);
			continue;
		}

		bool fresh = r & 1 || next[c] < 1300 + 1000000000ULL * c;

		if (fresh) {
			block = next[c]++;
			pool[c][block % 300] = block;
		} else {
			block = pool[c][(r >> 1) % 300];
		}
		e.block = block;
		if (block == front[c]) {
			e.outcome = LRU_HIT;
			e.slot = 0;
			e.flags = LRU_EV_FOUND | LRU_EV_FRONT;
		} else if (notinst && !fresh) {
			e.outcome = LRU_MISS_NOT_INSTALLED;
			e.flags = LRU_EV_FOUND;
		} else {
			e.outcome = LRU_MISS_INSTALLED;
			e.flags = LRU_EV_FOUND | LRU_EV_FRONT;
			front[c] = block;
		}
		/* at the start, each CPU's empty LRU, as the tracer writes it */
		if (i < 2) {
			struct lru_event s = e;

			s.outcome = LRU_SNAPSHOT;
			s.flags = 0;
			s.block = 0;
			s.slot = -1;
			err = lru_trace_append(&w, &s);
		}
		err = err ?: lru_trace_append(&w, &e);
	}
	err = err ?: lru_trace_finish(&w, 0);
	if (err) {
		fprintf(stderr, "lrutrace: writing %s: %s\n", out, strerror(-err));
		return 1;
	}
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
	if (argc == 5 && !strcmp(argv[1], "craft"))
		return craft(argv[2], argv[3], atol(argv[4]));
	fprintf(stderr, "usage: lrutrace convert IN OUT [VERSION]\n"
		"       lrutrace repeat IN OUT N [VERSION]\n"
		"       lrutrace stat IN\n"
		"       lrutrace craft notinst|installed|cpus|allcpus OUT LOOKUPS\n");
	return 64;
}
