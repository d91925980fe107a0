// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/worker.h"

int worker_start(struct worker *w, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	w->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (w->stop_fd < 0)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w->thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(w->stop_fd);
		return -err;
	}
	return 0;
}

bool worker_sleep(const struct worker *w, double ms)
{
	struct pollfd p = { .fd = w->stop_fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms > 0 ? (int)ms : 0);
	while (n < 0 && errno == EINTR);
	return n != 0;
}

void worker_stop(struct worker *w)
{
	uint64_t one = 1;

	/* an eventfd write of 1 fails only on overflow: never here */
	while (write(w->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(w->thread, NULL);
	close(w->stop_fd);
}
