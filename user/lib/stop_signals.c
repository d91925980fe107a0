// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "lib/stop_signals.h"

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGS (int)(sizeof(stop_sigs) / sizeof(*stop_sigs))

static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
	(void)sig;
	stopped = 1;
}

void stop_signals_install(void)
{
	struct sigaction sa, cur;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	for (int i = 0; i < NR_STOP_SIGS; i++) {
		if (stop_sigs[i] == SIGHUP &&
		    !sigaction(SIGHUP, NULL, &cur) && cur.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_sigs[i], &sa, NULL);
	}
}

bool stop_signals_requested(void)
{
	return stopped;
}

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	for (int i = 0; i < NR_STOP_SIGS; i++)
		sigaddset(set, stop_sigs[i]);
}

void stop_signals_block(sigset_t *old, sigset_t *waiting)
{
	sigset_t set;

	stop_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
	if (!waiting)
		return;
	*waiting = *old;
	for (int i = 0; i < NR_STOP_SIGS; i++)
		sigdelset(waiting, stop_sigs[i]);
}

void stop_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void stop_signals_child_reset(const sigset_t *old)
{
	struct sigaction cur;

	for (int i = 0; i < NR_STOP_SIGS; i++)
		if (!sigaction(stop_sigs[i], NULL, &cur) &&
		    cur.sa_handler == on_stop)
			signal(stop_sigs[i], SIG_DFL);
	sigprocmask(SIG_SETMASK, old, NULL);
}
