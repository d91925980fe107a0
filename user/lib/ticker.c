// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "lib/stop_signals.h"
#include "lib/clock.h"
#include "lib/ticker.h"

static struct timespec next_tick, last_elapsed;

void ticker_start(void)
{
	stop_signals_install();
	clock_gettime(CLOCK_MONOTONIC, &next_tick);
	last_elapsed = next_tick;
}

/* Time from now to the next tick into left; false if it has come. */
static bool time_to_tick(struct timespec *left)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left->tv_sec = next_tick.tv_sec - now.tv_sec;
	left->tv_nsec = next_tick.tv_nsec - now.tv_nsec;
	if (left->tv_nsec < 0) {
		left->tv_sec--;
		left->tv_nsec += 1000000000L;
	}
	return left->tv_sec >= 0 && (left->tv_sec || left->tv_nsec);
}

bool ticker_wait(double interval_s)
{
	long long ns = (long long)(interval_s * 1e9);
	struct timespec left;
	sigset_t old, waiting;

	next_tick.tv_sec += ns / 1000000000LL;
	next_tick.tv_nsec += ns % 1000000000LL;
	if (next_tick.tv_nsec >= 1000000000L) {
		next_tick.tv_sec++;
		next_tick.tv_nsec -= 1000000000L;
	}
	/* a stop between the test and the sleep is pending, and ends it */
	stop_signals_block(&old, &waiting);
	while (!stop_signals_requested() && time_to_tick(&left)) {
		if (ppoll(NULL, 0, &left, &waiting) < 0 && errno != EINTR)
			break;
	}
	stop_signals_restore(&old);
	return !stop_signals_requested();
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
	clock_now_text(buf, len, "%H:%M:%S", false);
}
