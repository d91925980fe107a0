// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <pthread.h>
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

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

void ticker_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	/* No SA_RESTART: a blocking read (record) must return to see the stop. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &next_tick);
	last_elapsed = next_tick;
}

bool ticker_stopped(void)
{
	return stop_requested;
}

void ticker_block_signals(sigset_t *old, sigset_t *waiting)
{
	sigset_t set;

	stop_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
	if (!waiting)
		return;
	*waiting = *old;
	sigdelset(waiting, SIGINT);
	sigdelset(waiting, SIGTERM);
}

void ticker_restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
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
	/*
	 * The stop signals stay blocked from the test of the flag until the
	 * sleep unblocks them atomically (ppoll): one that lands in between
	 * is pending, and ends the sleep at once instead of the interval.
	 */
	ticker_block_signals(&old, &waiting);
	while (!stop_requested && time_to_tick(&left)) {
		if (ppoll(NULL, 0, &left, &waiting) < 0 && errno != EINTR)
			break;
	}
	ticker_restore_signals(&old);
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
