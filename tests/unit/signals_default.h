/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the unit tests that assume the stop signals' dispositions: nohup
 * leaves SIGHUP ignored, a script's background job SIGINT and SIGTERM,
 * and a parent may leave them blocked. signals_default() (called first in
 * main) puts SIGINT, SIGTERM and SIGHUP back to their default action,
 * unblocked, so a test asserts what it sets, not what it inherited.
 * Header-only: each test is one binary linking the core library alone.
 */
#ifndef BHSCOPE_TESTS_SIGNALS_DEFAULT_H
#define BHSCOPE_TESTS_SIGNALS_DEFAULT_H

#include <signal.h>

static void signals_default(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t set;

	sigemptyset(&set);
	for (unsigned int i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		signal(sigs[i], SIG_DFL);
		sigaddset(&set, sigs[i]);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

#endif
