// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the lru --trace reader and the replay that simulate
 * runs on it (lru_trace_open/next, lrusim_feed), from a memfd.
 *
 * TODO(lrutrace): written against the reader API on main at the time
 * (lru_trace.h: lru_trace_open by path); the 'lrutrace' branch rewrites
 * the format and bounds the header's CPU count; update this target and
 * tests/fuzz/trace/ when it merges.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lru/lru_trace.h"
#include "lru/lrusim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lru_trace_reader r;
	struct lru_event e;
	struct lrusim sim;
	struct lru_dev_stats total;
	char path[64], why[512];
	int fd = memfd_create("trace", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (lru_trace_open(&r, path, why, sizeof(why))) {
		close(fd);
		return 0;
	}
	if (!lrusim_init(&sim, 64, r.h.lru_size, 0)) {
		while (lru_trace_next(&r, &e, why, sizeof(why)) > 0)
			if (lrusim_feed(&sim, &e))
				break;
		lrusim_total(&sim, &total);
		lrusim_free(&sim);
	}
	lru_trace_close(&r);
	close(fd);
	return 0;
}
