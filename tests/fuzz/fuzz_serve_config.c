// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: serve's configuration file and listen address parser.
 * An input is a config file, read through serve_config_load() (so through
 * lib/input_file, from a memfd); its first line is also tried as a
 * --listen address. Oracles: a refused file leaves the config untouched
 * and says why in one line; an accepted one holds sane values.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "serve/serve_config.h"

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_serve_config: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct serve_config cfg, cli, before;
	char path[64], err[512], host[256], port[8], line[512];
	int fd = memfd_create("serve.conf", MFD_CLOEXEC);
	const uint8_t *nl;
	size_t n;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	serve_config_defaults(&cli);
	serve_config_defaults(&cfg);
	cfg.interval_s = 7;
	before = cfg;
	err[0] = '\0';
	if (serve_config_load(&cfg, path, &cli, 0, err, sizeof(err))) {
		require(err[0] && !strchr(err, '\n'), "an error is one line");
		require(!memcmp(&cfg, &before, sizeof(cfg)), "a refused file changes nothing");
	} else {
		require(isfinite(cfg.interval_s) && cfg.interval_s > 0, "a sane interval");
		require(cfg.nr_devices >= 0 && cfg.nr_devices <= SERVE_MAX_FILTER, "devices bounded");
		require(memchr(cfg.textfile_dir, '\0', sizeof(cfg.textfile_dir)) != NULL, "a terminated path");
	}
	close(fd);
	nl = memchr(data, '\n', size);
	n = nl ? (size_t)(nl - data) : size;
	if (n < sizeof(line)) {
		memcpy(line, data, n);
		line[n] = '\0';
		if (!serve_config_listen_parse(line, host, sizeof(host), port, sizeof(port),
					       err, sizeof(err)))
			require(atoi(port) >= 0 && atoi(port) <= 65535, "a port in range");
	}
	return 0;
}
