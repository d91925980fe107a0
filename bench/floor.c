// SPDX-License-Identifier: GPL-2.0
/*
 * bench-floor: attaches one program of floor.bpf.c, named by its mode, on
 * LOOKUP_FUNCTION where it probes the lookup, and waits for a stop signal
 * (make bench starts and stops it like a tracer).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/stop_signals.h"
#include "bench-floor.skel.h"

/* mode: its program, and whether it takes the lookup function */
static const struct {
	const char *mode;
	const char *prog;
	bool on_lookup;
} modes[] = {
	{ "hits", "floor_hits", false },
	{ "front", "floor_front", true },
	{ "entry", "floor_entry", true },
	{ "exit", "floor_exit", true },
	{ "entry-front", "floor_entry_front", true },
	{ "entry-key", "floor_entry_key", true },
	{ "switch", "floor_switch", false },
};

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s hits | switch | front | entry | exit | entry-front | entry-key LOOKUP_FUNCTION\n",
		argv0);
	return 64;
}

int main(int argc, char **argv)
{
	struct bench_floor_bpf *skel;
	struct bpf_program *prog = NULL, *p;
	sigset_t old, waiting;
	size_t m;
	int err;

	for (m = 0; argc >= 2 && m < sizeof(modes) / sizeof(*modes); m++)
		if (!strcmp(argv[1], modes[m].mode))
			break;
	if (argc < 2 || m == sizeof(modes) / sizeof(*modes) ||
	    argc != (modes[m].on_lookup ? 3 : 2))
		return usage(argv[0]);
	stop_signals_install();
	stop_signals_block(&old, &waiting);
	skel = bench_floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "bench-floor: cannot open the BPF programs: %s\n",
			strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, skel->obj) {
		bool on = !strcmp(bpf_program__name(p), modes[m].prog);

		bpf_program__set_autoload(p, on);
		if (on)
			prog = p;
	}
	err = modes[m].on_lookup ? bpf_program__set_attach_target(prog, 0, argv[2]) : 0;
	if (!err)
		err = bench_floor_bpf__load(skel);
	if (!err)
		err = bench_floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bench-floor: cannot load or attach %s: %s\n",
			modes[m].prog, strerror(-err));
		bench_floor_bpf__destroy(skel);
		return 1;
	}
	while (!stop_signals_requested())
		sigsuspend(&waiting);
	bench_floor_bpf__destroy(skel);
	return 0;
}
