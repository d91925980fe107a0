// SPDX-License-Identifier: GPL-2.0
/*
 * The reporting loop's clock: absolute ticks, the caller's signal mask
 * kept, threads made between ticker_block_signals() and
 * ticker_restore_signals() deaf to the stop signals, and a stop signal
 * that is pending when the wait would sleep ending it at once (the case
 * of one landing between the test of the stop flag and the sleep). The
 * stop cases run last: the stop flag stays set.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "lib/ticker.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

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
	ticker_install_signals();
	t0 = now_s();
	for (int i = 0; i < 3; i++) {
		assert_true(ticker_wait(0.1));
		assert_true(now_s() - t0 >= 0.1 * (i + 1));
		nanosleep(&work, NULL);
	}
	assert_true(now_s() - t0 < 0.42);
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

static void *report_mask(void *arg)
{
	bool *deaf = arg;

	deaf[0] = blocked(SIGINT);
	deaf[1] = blocked(SIGTERM);
	return NULL;
}

static void threads_made_in_between_are_deaf_to_stops(void **state)
{
	bool deaf[2] = { false, false };
	pthread_t t;
	sigset_t old;

	(void)state;
	ticker_block_signals(&old, NULL);
	assert_int_equal(pthread_create(&t, NULL, report_mask, deaf), 0);
	ticker_restore_signals(&old);
	pthread_join(t, NULL);
	assert_true(deaf[0]);
	assert_true(deaf[1]);
	assert_false(blocked(SIGINT));
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
	ticker_block_signals(&old, NULL);
	raise(SIGTERM);
	assert_false(ticker_stopped());
	t0 = now_s();
	assert_false(ticker_wait(10.0));
	assert_true(now_s() - t0 < 1.0);
	assert_true(ticker_stopped());
	ticker_restore_signals(&old);
	/* stopped: every later wait returns at once */
	t0 = now_s();
	assert_false(ticker_wait(10.0));
	assert_true(now_s() - t0 < 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ticks_are_absolute),
		cmocka_unit_test(wait_keeps_the_callers_mask),
		cmocka_unit_test(threads_made_in_between_are_deaf_to_stops),
		cmocka_unit_test(pending_stop_ends_the_wait_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
