// SPDX-License-Identifier: GPL-2.0
/*
 * bench-floor: attaches one program of floor.bpf.c (hits: the empty one on
 * LRU hits; front: the fexit counter on LOOKUP_FUNCTION) and waits for a
 * stop signal (make bench starts and stops it like a tracer).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/stop_signals.h"
#include "bench-floor.skel.h"

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s hits | front LOOKUP_FUNCTION\n", argv0);
	return 64;
}

int main(int argc, char **argv)
{
	bool front = argc == 3 && !strcmp(argv[1], "front");
	struct bench_floor_bpf *skel;
	struct bpf_program *prog;
	sigset_t old, waiting;
	int err;

	if (!front && (argc != 2 || strcmp(argv[1], "hits")))
		return usage(argv[0]);
	stop_signals_install();
	stop_signals_block(&old, &waiting);
	skel = bench_floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "bench-floor: cannot open the BPF programs: %s\n",
			strerror(errno));
		return 1;
	}
	prog = front ? skel->progs.floor_front : skel->progs.floor_hits;
	bpf_program__set_autoload(skel->progs.floor_hits, !front);
	bpf_program__set_autoload(skel->progs.floor_front, front);
	err = front ? bpf_program__set_attach_target(prog, 0, argv[2]) : 0;
	if (!err)
		err = bench_floor_bpf__load(skel);
	if (!err)
		err = bench_floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bench-floor: cannot load or attach %s: %s\n",
			bpf_program__name(prog), strerror(-err));
		bench_floor_bpf__destroy(skel);
		return 1;
	}
	while (!stop_requested())
		sigsuspend(&waiting);
	bench_floor_bpf__destroy(skel);
	return 0;
}
