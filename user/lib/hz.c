// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "lib/clock.h"
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

static const int linux_hz[] = { 100, 250, 300, 1000 };

int hz_from_bounds(uint64_t jiffies, double min_s, double max_s)
{
	/* a tick's own jitter, and a jiffies update lagging a tick on NO_HZ */
	const double slack = 2;
	double lo, hi;
	int found = -1;

	if (min_s <= 0 || max_s < min_s)
		return 0;
	lo = ((double)jiffies - slack) / max_s;
	hi = ((double)jiffies + slack) / min_s;
	for (size_t i = 0; i < sizeof(linux_hz) / sizeof(linux_hz[0]); i++) {
		if (linux_hz[i] < lo || linux_hz[i] > hi)
			continue;
		if (found > 0)
			return 0;
		found = linux_hz[i];
	}
	return found;
}

/*
 * jiffies from /proc/timer_list, read somewhere between *before and
 * *after: the file is long, and a loaded or preempted reader may take
 * many milliseconds to reach the line.
 */
static int jiffies_sample(uint64_t *jiffies, double *before, double *after)
{
	unsigned long long j = 0;
	char line[256];
	int found = -1;
	FILE *f;

	*before = clock_s(CLOCK_MONOTONIC);
	f = fopen("/proc/timer_list", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "jiffies: %llu", &j) == 1) {
			found = 0;
			break;
		}
	}
	*after = clock_s(CLOCK_MONOTONIC);
	fclose(f);
	*jiffies = j;
	return found;
}

static void sleep_s(double s)
{
	struct timespec pause = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	if (s <= 0)
		return;
	while (nanosleep(&pause, &pause) && errno == EINTR)
		;	/* a stop signal: sleep the rest, the rate needs it */
}

/*
 * The tick rate from two jiffies samples, with the window doubled until the
 * time between them admits only one of the HZ values Linux offers.
 */
int hz_measured(void)
{
	uint64_t j0, j1;
	double t0a, t0b, t1a, t1b, window = 0.2;
	int hz = 0;

	if (jiffies_sample(&j0, &t0a, &t0b))
		return -1;
	while (hz == 0 && window <= 3.2) {
		sleep_s(window - (clock_s(CLOCK_MONOTONIC) - t0b));
		if (jiffies_sample(&j1, &t1a, &t1b) || j1 < j0)
			return -1;
		hz = hz_from_bounds(j1 - j0, t1a - t0b, t1b - t0a);
		window *= 2;
	}
	return hz > 0 ? hz : -1;
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
	/* a measurement takes 0.2 s or more: once per process */
	static int hz;

	if (hz <= 0)
		hz = hz_from_kernel_config();
	if (hz <= 0)
		hz = hz_measured();
	return hz;
}
