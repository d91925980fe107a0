// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "lib/ticker.h"

static volatile sig_atomic_t stop_requested;
static struct timespec next_tick, last_elapsed;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void ticker_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	/* No SA_RESTART: the sleep must return so we print the last interval. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &next_tick);
	last_elapsed = next_tick;
}

bool ticker_stopped(void)
{
	return stop_requested;
}

bool ticker_wait(double interval_s)
{
	long long ns = (long long)(interval_s * 1e9);

	next_tick.tv_sec += ns / 1000000000LL;
	next_tick.tv_nsec += ns % 1000000000LL;
	if (next_tick.tv_nsec >= 1000000000L) {
		next_tick.tv_sec++;
		next_tick.tv_nsec -= 1000000000L;
	}
	while (!stop_requested) {
		int err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					  &next_tick, NULL);
		if (err != EINTR)
			break;
	}
	return !stop_requested;
}

double ticker_elapsed(void)
{
	struct timespec now;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &now);
	s = (double)(now.tv_sec - last_elapsed.tv_sec) +
	    (double)(now.tv_nsec - last_elapsed.tv_nsec) / 1e9;
	last_elapsed = now;
	return s;
}

void ticker_timestamp(char *buf, int len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}
