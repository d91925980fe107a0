// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "lib/hz.h"

int hz_from_config(FILE *config)
{
	char line[256];
	int hz;

	for (;;) {
		if (!fgets(line, sizeof(line), config)) {
			/* a stop signal's handler interrupted the pipe's read */
			if (!ferror(config) || errno != EINTR)
				return -1;
			clearerr(config);
			continue;
		}
		if (sscanf(line, "CONFIG_HZ=%d", &hz) == 1 && hz > 0)
			return hz;
	}
}

static int hz_from_command(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	int hz;

	if (!f)
		return -1;
	hz = hz_from_config(f);
	pclose(f);
	return hz;
}

static int hz_from_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int hz;

	if (!f)
		return -1;
	hz = hz_from_config(f);
	fclose(f);
	return hz;
}

/* CONFIG_HZ's range over every architecture's choices, with room */
#define HZ_MIN 10
#define HZ_MAX 10000

int hz_from_tick_ns(long tick_ns)
{
	long hz;

	if (tick_ns <= 0)
		return -1;
	hz = (1000000000L + tick_ns / 2) / tick_ns;
	if (hz < HZ_MIN || hz > HZ_MAX || (1000000000L + hz / 2) / hz != tick_ns)
		return -1;
	return hz;
}

int hz_from_coarse_clock(void)
{
	struct timespec res;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) || res.tv_sec)
		return -1;
	return hz_from_tick_ns(res.tv_nsec);
}

int hz_from_kernel_config(void)
{
	char path[512];
	struct utsname u;
	int hz;

	hz = hz_from_command("zcat /proc/config.gz 2>/dev/null");
	if (hz > 0 || uname(&u))
		return hz;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	return hz_from_file(path);
}

int hz_of_running_kernel(void)
{
	/*
	 * The coarse clock's tick is the running kernel's own HZ, which no
	 * load can blur; a config file may belong to another build.
	 */
	int hz = hz_from_coarse_clock();

	return hz > 0 ? hz : hz_from_kernel_config();
}
