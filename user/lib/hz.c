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

/* One sample of (jiffies, ns) from /proc/timer_list, which prints both. */
static int timer_list_sample(unsigned long long *jiffies,
			     unsigned long long *ns)
{
	FILE *f = fopen("/proc/timer_list", "r");
	char line[256];
	int got = 0;

	if (!f)
		return -1;
	while (got != 3 && fgets(line, sizeof(line), f)) {
		if (!(got & 1) && sscanf(line, "now at %llu nsecs", ns) == 1)
			got |= 1;
		else if (!(got & 2) && sscanf(line, "jiffies: %llu", jiffies) == 1)
			got |= 2;
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/* Rounds a measured rate to the HZ values Linux offers. */
static int hz_nearest(double measured)
{
	static const int known[] = { 100, 250, 300, 1000 };
	int best = -1;
	double dist = 1e9;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		double d = measured > known[i] ? measured - known[i] :
						 known[i] - measured;
		if (d < dist) {
			dist = d;
			best = known[i];
		}
	}
	return dist < best * 0.1 ? best : -1;
}

static int hz_measured(void)
{
	unsigned long long j0, n0, j1, n1;
	struct timespec pause = { 0, 200 * 1000 * 1000 };

	if (timer_list_sample(&j0, &n0))
		return -1;
	while (nanosleep(&pause, &pause) && errno == EINTR)
		;	/* a stop signal: sleep the rest, the rate needs it */
	if (timer_list_sample(&j1, &n1) || n1 <= n0)
		return -1;
	return hz_nearest((double)(j1 - j0) * 1e9 / (double)(n1 - n0));
}

int hz_of_running_kernel(void)
{
	char path[512];
	struct utsname u;
	int hz;

	hz = hz_from_command("zcat /proc/config.gz 2>/dev/null");
	if (hz > 0)
		return hz;
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		hz = hz_from_file(path);
		if (hz > 0)
			return hz;
	}
	return hz_measured();
}
