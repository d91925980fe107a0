// SPDX-License-Identifier: GPL-2.0
/*
 * Stop signals: SIGHUP is one unless nohup ignores it, a thread made while
 * they are blocked never takes one, and a child forked with them blocked
 * dies of a stop passed on before its exec instead of setting a flag in
 * the parent's copy. Each case that installs handlers runs in a child
 * process, so the flag starts clear.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/stop_signals.h"
#include "signals_default.h"

static bool blocked(int sig)
{
	sigset_t cur;

	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	return sigismember(&cur, sig);
}

/* Runs fn in a child; returns its wait status. */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(fn());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static int hup_stops(void)
{
	stop_signals_install();
	raise(SIGHUP);
	return stop_signals_requested() ? 0 : 1;
}

static void sighup_is_a_stop(void **state)
{
	int status = in_child(hup_stops);

	(void)state;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int hup_ignored_stays_ignored(void)
{
	struct sigaction cur;

	signal(SIGHUP, SIG_IGN);
	stop_signals_install();
	sigaction(SIGHUP, NULL, &cur);
	if (cur.sa_handler != SIG_IGN)
		return 1;
	raise(SIGHUP);
	raise(SIGINT);
	return stop_signals_requested() ? 0 : 2;
}

static void nohup_keeps_sighup_ignored(void **state)
{
	int status = in_child(hup_ignored_stays_ignored);

	(void)state;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void *report_mask(void *arg)
{
	bool *deaf = arg;

	deaf[0] = blocked(SIGINT) && blocked(SIGTERM) && blocked(SIGHUP);
	return NULL;
}

static void threads_made_in_between_are_deaf_to_stops(void **state)
{
	bool deaf = false;
	pthread_t t;
	sigset_t old;

	(void)state;
	stop_signals_block(&old, NULL);
	assert_int_equal(pthread_create(&t, NULL, report_mask, &deaf), 0);
	stop_signals_restore(&old);
	pthread_join(t, NULL);
	assert_true(deaf);
	assert_false(blocked(SIGINT));
}

/*
 * bhscope's parent side: handlers in, a child forked with the signals
 * blocked, SIGINT sent to it before it execs (it waits for a byte that
 * follows the kill). With stop_signals_child_reset() it dies of it; had
 * it kept the parent's handler, it would exit 0 (and an exec would then
 * drop the stop).
 */
static int stop_before_exec(void)
{
	int go[2], status;
	sigset_t old;
	pid_t pid;
	char c;

	stop_signals_install();
	if (pipe(go))
		return 10;
	stop_signals_block(&old, NULL);
	pid = fork();
	if (!pid) {
		if (read(go[0], &c, 1) != 1)
			_exit(11);
		stop_signals_child_reset(&old);
		_exit(0);
	}
	stop_signals_restore(&old);
	kill(pid, SIGINT);
	if (write(go[1], "x", 1) != 1)
		return 12;
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGINT ? 0 : 13;
}

static void child_dies_of_a_stop_sent_before_its_exec(void **state)
{
	int status = in_child(stop_before_exec);

	(void)state;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sighup_is_a_stop),
		cmocka_unit_test(nohup_keeps_sighup_ignored),
		cmocka_unit_test(threads_made_in_between_are_deaf_to_stops),
		cmocka_unit_test(child_dies_of_a_stop_sent_before_its_exec),
	};

	signals_default();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
