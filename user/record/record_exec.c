// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/record_exec.h"
#include "lib/clock.h"
#include "lib/stop_signals.h"

/* Output kept for parsing; the rest is still echoed, then dropped. */
#define EXEC_MAX_OUT	(4UL << 20)

/*
 * Child: runs argv, or writes errno into the close-on-exec pipe and exits.
 * Forked with the stop signals blocked (exec_run()): a stop passed on
 * before the exec ends it here, with the default action.
 */
static void child(char *const argv[], int out_fd, int err_pipe,
		  const sigset_t *mask)
{
	int e;

	stop_signals_child_reset(mask);
	if (dup2(out_fd, STDOUT_FILENO) < 0)
		goto fail;
	close(out_fd);
	execvp(argv[0], argv);
fail:
	e = errno;
	if (write(err_pipe, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int append(struct exec_result *r, const char *buf, size_t n)
{
	char *p;

	if (r->out_len + n > EXEC_MAX_OUT)
		n = EXEC_MAX_OUT - r->out_len;
	if (!n)
		return 0;
	p = realloc(r->out, r->out_len + n + 1);
	if (!p)
		return -1;
	memcpy(p + r->out_len, buf, n);
	r->out = p;
	r->out_len += n;
	p[r->out_len] = '\0';
	return 0;
}

/*
 * A terminal's Ctrl-C reaches the workload too; a stop signal sent to
 * bhscope alone is passed on as SIGINT, so that it ends its run early as
 * well.
 */
static void pass_stop_on(pid_t pid, bool *passed)
{
	if (*passed || !stop_requested())
		return;
	kill(pid, SIGINT);
	*passed = true;
}

/*
 * The workload's output, until it closes it. Waits in ppoll() with the
 * stop signals blocked elsewhere: a stop that lands while the output is
 * copied is seen before the next wait, and one in between ends it (a
 * plain read() would miss it, and go on reading a chatty workload to its
 * end).
 */
static void drain(int fd, pid_t pid, bool *passed, bool echo,
		  struct exec_result *r)
{
	struct pollfd out = { .fd = fd, .events = POLLIN };
	sigset_t old, waiting;
	char buf[16384];
	ssize_t n;

	stop_signals_block(&old, &waiting);
	for (;;) {
		pass_stop_on(pid, passed);
		if (ppoll(&out, 1, NULL, &waiting) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (echo && fwrite(buf, 1, n, stdout) != (size_t)n)
			echo = false;
		append(r, buf, n);
	}
	stop_signals_restore(&old);
	if (echo)
		fflush(stdout);
}

/*
 * The workload's end, once its output is closed: it may go on without
 * it, so a stop is still passed on, waited for the same way as in drain()
 * (the process's pidfd turns readable when it exits).
 */
static void wait_end(pid_t pid, bool *passed)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct pollfd end = { .fd = pidfd, .events = POLLIN };
	sigset_t old, waiting;

	if (pidfd < 0)
		return;		/* before Linux 5.3: waitpid() alone */
	stop_signals_block(&old, &waiting);
	for (;;) {
		pass_stop_on(pid, passed);
		if (ppoll(&end, 1, NULL, &waiting) >= 0 || errno != EINTR)
			break;
	}
	stop_signals_restore(&old);
	close(pidfd);
}

static void reap(pid_t pid, bool *passed, struct exec_result *r)
{
	int status;

	wait_end(pid, passed);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return;
	if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->exit_status = 128 + r->signal;
	} else {
		r->exit_status = WEXITSTATUS(status);
	}
}

int exec_run(char *const argv[], bool echo, struct exec_result *r)
{
	int out[2], errp[2], child_errno = 0;
	bool passed = false;
	sigset_t mask;
	double t0;
	pid_t pid;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	if (pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		snprintf(r->error, sizeof(r->error), "pipe: %s", strerror(errno));
		r->exit_status = 127;
		return -1;
	}
	fflush(stdout);
	t0 = clock_s(CLOCK_MONOTONIC);
	stop_signals_block(&mask, NULL);
	pid = fork();
	if (pid == 0) {
		close(out[0]);
		close(errp[0]);
		child(argv, out[1], errp[1], &mask);
	}
	stop_signals_restore(&mask);
	close(out[1]);
	close(errp[1]);
	if (pid < 0) {
		snprintf(r->error, sizeof(r->error), "fork: %s", strerror(errno));
		close(out[0]);
		close(errp[0]);
		r->exit_status = 127;
		return -1;
	}
	drain(out[0], pid, &passed, echo, r);
	close(out[0]);
	reap(pid, &passed, r);
	r->wall_s = clock_s(CLOCK_MONOTONIC) - t0;
	do
		n = read(errp[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(errp[0]);
	if (n == sizeof(child_errno)) {
		snprintf(r->error, sizeof(r->error), "cannot run '%s': %s",
			 argv[0], strerror(child_errno));
		r->exit_status = 127;
		return -1;
	}
	return 0;
}

void exec_result_free(struct exec_result *r)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
}

const char *exec_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}
