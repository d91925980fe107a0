// SPDX-License-Identifier: GPL-2.0
/*
 * The reporting loop's clock: absolute ticks, the caller's signal mask
 * kept, and a stop signal that is pending when the wait would sleep
 * ending it at once (the case of one landing between the test of the
 * stop flag and the sleep). The stop case runs last: the flag stays set.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "lib/clock.h"
#include "lib/stop_signals.h"
#include "lib/ticker.h"
#include "signals_default.h"

static bool blocked(int sig)
{
	sigset_t cur;

	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	return sigismember(&cur, sig);
}

/*
 * Ticks at 100 ms from the start whatever the loop does in between (50 ms
 * of work after each): the 3rd at 300 + 50 ms, not at 3 x 150 (relative
 * sleeps). The unit tests run before the VM bench starts, on a quiet host.
 */
static void ticks_are_absolute(void **state)
{
	struct timespec work = { 0, 50 * 1000 * 1000 };
	double t0;

	(void)state;
	ticker_start();
	t0 = clock_s(CLOCK_MONOTONIC);
	for (int i = 0; i < 3; i++) {
		assert_true(ticker_wait(0.1));
		assert_true(clock_s(CLOCK_MONOTONIC) - t0 >= 0.1 * (i + 1));
		nanosleep(&work, NULL);
	}
	assert_true(clock_s(CLOCK_MONOTONIC) - t0 < 0.42);
}

static void wait_keeps_the_callers_mask(void **state)
{
	sigset_t old, usr1;

	(void)state;
	assert_false(blocked(SIGINT));
	assert_true(ticker_wait(0.01));
	assert_false(blocked(SIGINT));
	assert_false(blocked(SIGTERM));

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigaddset(&usr1, SIGINT);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	assert_true(ticker_wait(0.01));
	assert_true(blocked(SIGUSR1));
	assert_true(blocked(SIGINT));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * SIGTERM pending, blocked by the caller (as between the flag's test and
 * the sleep): the wait takes it and ends now, not after 10 s.
 */
static void pending_stop_ends_the_wait_at_once(void **state)
{
	sigset_t old;
	double t0;

	(void)state;
	stop_signals_block(&old, NULL);
	raise(SIGTERM);
	assert_false(stop_signals_requested());
	t0 = clock_s(CLOCK_MONOTONIC);
	assert_false(ticker_wait(10.0));
	assert_true(clock_s(CLOCK_MONOTONIC) - t0 < 1.0);
	assert_true(stop_signals_requested());
	stop_signals_restore(&old);
	/* stopped: every later wait returns at once */
	t0 = clock_s(CLOCK_MONOTONIC);
	assert_false(ticker_wait(10.0));
	assert_true(clock_s(CLOCK_MONOTONIC) - t0 < 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ticks_are_absolute),
		cmocka_unit_test(wait_keeps_the_callers_mask),
		cmocka_unit_test(pending_stop_ends_the_wait_at_once),
	};

	signals_default();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
