// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
 * Child: runs argv in a process group of its own (bhscope kills the group
 * when the run ends, and its guard when bhscope dies), or writes errno
 * into the close-on-exec pipe and exits. It dies with bhscope: SIGKILL
 * when its parent goes (PR_SET_PDEATHSIG; a parent gone before the prctl
 * is seen by getppid()). Forked with the stop signals blocked
 * (record_exec_run()): a stop passed on before the exec ends it here, with the
 * default action.
 */
static void child(char *const argv[], int out_fd, int err_pipe,
		  const sigset_t *mask, pid_t parent)
{
	int e;

	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
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

/*
 * The workload's guard: a process in the workload's group that outlives
 * bhscope by a moment, however bhscope ends (kill -9 included). It waits
 * on a pipe whose write end only bhscope holds; at EOF it kills the group,
 * itself with it: the workload's grandchildren, which PR_SET_PDEATHSIG
 * does not reach. As a member it also keeps the group's number from being
 * reused until then. It ignores the signals a workload may send its group,
 * and closes every descriptor bhscope had (a tuner's lock, the output
 * a shell waits to see closed).
 * Returns its pid and the write end in *alive, or -1.
 */
static pid_t guard_start(pid_t pgid, int *alive)
{
	static const int deaf[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
				    SIGUSR2, SIGPIPE, SIGALRM, SIGTSTP,
				    SIGTTIN, SIGTTOU };
	int p[2];
	ssize_t n;
	pid_t g;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	g = fork();
	if (g == 0) {
		for (size_t i = 0; i < sizeof(deaf) / sizeof(*deaf); i++)
			signal(deaf[i], SIG_IGN);
		setpgid(0, pgid);
		if (p[0] > 0)
			close_range(0, p[0] - 1, 0);
		close_range(p[0] + 1, ~0U, 0);
		do
			n = read(p[0], &c, 1);
		while (n > 0 || (n < 0 && errno == EINTR));
		kill(-pgid, SIGKILL);
		_exit(0);
	}
	close(p[0]);
	if (g < 0) {
		close(p[1]);
		return -1;
	}
	setpgid(g, pgid);	/* as it does: in the group before any kill */
	*alive = p[1];
	return g;
}

/*
 * The run is over: what the workload left in its group (and the guard)
 * killed while the workload, a zombie, still holds the group's number;
 * then the guard reaped.
 */
static void group_end(pid_t pgid, pid_t guard, int alive)
{
	siginfo_t info;

	while (waitid(P_PID, pgid, &info, WEXITED | WNOWAIT) < 0 &&
	       errno == EINTR)
		;
	kill(-pgid, SIGKILL);
	if (guard < 0)
		return;
	close(alive);
	while (waitpid(guard, NULL, 0) < 0 && errno == EINTR)
		;
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
 * The workload has a process group of its own, which a terminal's Ctrl-C
 * does not reach: a stop signal bhscope takes is passed on to the group as
 * SIGINT, so that it ends its run early as well.
 */
static void pass_stop_on(pid_t pid, bool *passed)
{
	if (*passed || !stop_signals_requested())
		return;
	kill(-pid, SIGINT);
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

static void reap(pid_t pid, pid_t guard, int alive, bool *passed,
		 struct exec_result *r)
{
	int status;

	wait_end(pid, passed);
	group_end(pid, guard, alive);
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

int record_exec_run(char *const argv[], bool echo, struct exec_result *r)
{
	int out[2], errp[2], child_errno = 0, alive = -1;
	pid_t pid, guard = -1, parent = getpid();
	bool passed = false;
	sigset_t mask;
	double t0;
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
		child(argv, out[1], errp[1], &mask, parent);
	}
	if (pid > 0) {
		/* as the child does: its group exists before any kill */
		setpgid(pid, pid);
		guard = guard_start(pid, &alive);
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
	reap(pid, guard, alive, &passed, r);
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

void record_exec_result_free(struct exec_result *r)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
}

const char *record_exec_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}
