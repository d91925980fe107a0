// SPDX-License-Identifier: GPL-2.0
/*
 * Runs N tasks, as forked processes or as threads, through the same list of
 * steps. Everything the tasks share (the barrier, the abort and stop flags,
 * the first error, the per-step results) lives in one MAP_SHARED mapping, so
 * the two kinds of task need no separate code paths.
 */
#include "bhbench.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The signal handler writes the stop flag; that is safe only lock-free. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "need lock-free atomic int");

/*
 * Our own barrier rather than pthread_barrier_t: it must let everyone go as
 * soon as one task fails, or a task that never arrives (fork or
 * pthread_create failed) would leave the others waiting forever.
 */
struct barrier {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int count;
	unsigned int waiting;
	unsigned int gen;
};

struct shared {
	struct barrier bar;
	atomic_int abort;	/* a task failed: everyone skips ahead */
	atomic_int stop;	/* a signal arrived */
	atomic_int failed;	/* first failure claims err[] */
	char err[512];
	struct step_res res[];	/* [task][MAX_STEPS] */
};

static struct shared *signal_sh;

uint64_t now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC is system wide, so forked tasks compare. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	if (signal_sh)
		atomic_store(&signal_sh->stop, 1);
}

static int signals_catch(struct shared *sh)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESTART };
	size_t i;

	signal_sh = sh;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -1;
	return 0;
}

static int barrier_init(struct barrier *b, unsigned int count)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int err;

	b->count = count;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	err = pthread_mutex_init(&b->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	if (err)
		return err;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	err = pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	return err;
}

static void barrier_wait(struct shared *sh)
{
	struct barrier *b = &sh->bar;
	unsigned int gen;

	pthread_mutex_lock(&b->lock);
	gen = b->gen;
	if (++b->waiting == b->count) {
		b->waiting = 0;
		b->gen++;
		pthread_cond_broadcast(&b->cond);
	} else {
		while (gen == b->gen && !atomic_load(&sh->abort))
			pthread_cond_wait(&b->cond, &b->lock);
	}
	pthread_mutex_unlock(&b->lock);
}

static void barrier_abort(struct shared *sh)
{
	pthread_mutex_lock(&sh->bar.lock);
	atomic_store(&sh->abort, 1);
	pthread_cond_broadcast(&sh->bar.cond);
	pthread_mutex_unlock(&sh->bar.lock);
}

static size_t shared_size(int ntasks)
{
	return sizeof(struct shared) +
	       sizeof(struct step_res) * MAX_STEPS * (size_t)ntasks;
}

int runner_init(struct runner *r, int ntasks, bool threads, void *arg)
{
	struct shared *sh;

	*r = (struct runner){ .ntasks = ntasks, .threads = threads,
			      .arg = arg };
	sh = mmap(NULL, shared_size(ntasks), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		fprintf(stderr, "bhbench: mmap shared area: %s\n",
			strerror(errno));
		return -1;
	}
	/* Anonymous mappings start zeroed: flags clear, results empty. */
	r->sh = sh;
	if (barrier_init(&sh->bar, ntasks) || signals_catch(sh)) {
		fprintf(stderr, "bhbench: set up barrier or signals failed\n");
		runner_free(r);
		return -1;
	}
	return 0;
}

void runner_free(struct runner *r)
{
	if (!r->sh)
		return;
	/* Signals stay caught: cleanup after a run must not be cut short. */
	pthread_cond_destroy(&r->sh->bar.cond);
	pthread_mutex_destroy(&r->sh->bar.lock);
	munmap(r->sh, shared_size(r->ntasks));
	signal_sh = NULL;
	r->sh = NULL;
}

int runner_fail(struct runner *r, const char *fmt, ...)
{
	struct shared *sh = r->sh;
	int zero = 0;
	va_list ap;

	/* Only the first failure is worth reporting; the rest follow it. */
	if (atomic_compare_exchange_strong(&sh->failed, &zero, 1)) {
		va_start(ap, fmt);
		vsnprintf(sh->err, sizeof(sh->err), fmt, ap);
		va_end(ap);
	}
	barrier_abort(sh);
	return -1;
}

bool task_stopped(const struct task *t)
{
	return atomic_load(&t->run->sh->abort) ||
	       atomic_load(&t->run->sh->stop);
}

bool runner_interrupted(const struct runner *r)
{
	return atomic_load(&r->sh->stop);
}

const char *runner_error(const struct runner *r)
{
	if (atomic_load(&r->sh->failed))
		return r->sh->err;
	if (atomic_load(&r->sh->stop))
		return "interrupted";
	return NULL;
}

struct step_res *runner_res(const struct runner *r, int task, int step)
{
	return &r->sh->res[(size_t)task * MAX_STEPS + step];
}

void runner_step_total(const struct runner *r, int step, uint64_t *ops,
		       uint64_t *wall_ns, uint64_t *lat_sum_ns,
		       uint64_t *lat_max_ns)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int i;

	*ops = *lat_sum_ns = *lat_max_ns = 0;
	for (i = 0; i < r->ntasks; i++) {
		const struct step_res *s = runner_res(r, i, step);

		*ops += s->ops;
		*lat_sum_ns += s->lat_sum_ns;
		if (s->lat_max_ns > *lat_max_ns)
			*lat_max_ns = s->lat_max_ns;
		if (s->t0_ns < t0)
			t0 = s->t0_ns;
		if (s->t1_ns > t1)
			t1 = s->t1_ns;
	}
	*wall_ns = t1 > t0 ? t1 - t0 : 0;
}

static void task_main(struct task *t)
{
	struct runner *r = t->run;
	int s;

	for (s = 0; s < r->nsteps; s++) {
		struct step_res *res = runner_res(r, t->id, s);

		barrier_wait(r->sh);
		if (task_stopped(t))
			continue;
		res->t0_ns = now_ns();
		/* Steps report their own errors; this catches one that forgot. */
		if (r->steps[s].fn(t, res) && !task_stopped(t))
			runner_fail(r, "task %d: %s failed", t->id,
				    r->steps[s].name);
		res->t1_ns = now_ns();
	}
	/* Nobody leaves before the last step is over everywhere. */
	barrier_wait(r->sh);
}

static void *task_thread(void *arg)
{
	task_main(arg);
	return NULL;
}

static int run_threads(struct runner *r, struct task *tasks)
{
	pthread_t *tids = calloc(r->ntasks, sizeof(*tids));
	int i, n, err = 0;

	if (!tids)
		return runner_fail(r, "out of memory");
	for (n = 0; n < r->ntasks; n++) {
		err = pthread_create(&tids[n], NULL, task_thread, &tasks[n]);
		if (err) {
			runner_fail(r, "pthread_create: %s", strerror(err));
			break;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return err ? -1 : 0;
}

static void kill_all(const pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
}

static int reap(struct runner *r, pid_t *pids, int n)
{
	int left = n, status, i;
	pid_t pid;

	while (left > 0) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return runner_fail(r, "waitpid: %s", strerror(errno));
		}
		for (i = 0; i < n && pids[i] != pid; i++)
			;
		if (i == n)
			continue;
		pids[i] = 0;
		left--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		/*
		 * A task died without passing through the barriers: the others
		 * may wait for it while holding the barrier lock, so do not
		 * touch the barrier, just take every task down.
		 */
		if (!atomic_exchange(&r->sh->failed, 1))
			snprintf(r->sh->err, sizeof(r->sh->err),
				 "task %d died (%s %d)", i,
				 WIFSIGNALED(status) ? "signal" : "exit",
				 WIFSIGNALED(status) ? WTERMSIG(status) :
						       WEXITSTATUS(status));
		atomic_store(&r->sh->abort, 1);
		kill_all(pids, n);
	}
	return 0;
}

static int run_processes(struct runner *r, struct task *tasks)
{
	pid_t *pids = calloc(r->ntasks, sizeof(*pids));
	int n;

	if (!pids)
		return runner_fail(r, "out of memory");
	/* Children must not flush a copy of our unwritten stdout. */
	fflush(NULL);
	for (n = 0; n < r->ntasks; n++) {
		pids[n] = fork();
		if (pids[n] == 0) {
			task_main(&tasks[n]);
			_exit(0);
		}
		if (pids[n] < 0) {
			pids[n] = 0;
			runner_fail(r, "fork: %s", strerror(errno));
			break;
		}
	}
	reap(r, pids, n);
	free(pids);
	return 0;
}

int runner_run(struct runner *r, const struct step *steps, int nsteps)
{
	struct task *tasks;
	int i;

	if (nsteps > MAX_STEPS)
		return runner_fail(r, "internal: %d steps > %d", nsteps,
				   MAX_STEPS);
	tasks = calloc(r->ntasks, sizeof(*tasks));
	if (!tasks)
		return runner_fail(r, "out of memory");
	r->steps = steps;
	r->nsteps = nsteps;
	for (i = 0; i < r->ntasks; i++)
		tasks[i] = (struct task){ .id = i, .run = r };
	if (r->threads)
		run_threads(r, tasks);
	else
		run_processes(r, tasks);
	free(tasks);
	return runner_error(r) ? -1 : 0;
}
