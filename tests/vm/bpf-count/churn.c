// SPDX-License-Identifier: GPL-2.0
/*
 * bhvm-churn: attach count.bpf.o's fentry program to FUNC and detach it,
 * over and over until SIGTERM or SIGINT, as a tracer that opens and closes
 * windows does (bhscope serve --lru-duty). Each attach and detach rebuilds
 * FUNC's BPF trampoline under the trampoline's mutex, which a livepatch on
 * FUNC meets while it registers (tests/vm/73).
 *
 *   bhvm-churn OBJ FUNC
 *
 * Prints "N attach/detach cycles" at the end; exit 1 with a one-line
 * reason when the program cannot load or an attach fails.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct bpf_object *obj;
	struct bpf_program *prog, *kprobe;
	unsigned long long cycles = 0;
	int err = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: %s OBJ FUNC\n", argv[0]);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bhvm-churn: open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, "on_fentry");
	kprobe = bpf_object__find_program_by_name(obj, "on_kprobe");
	if (!prog || !kprobe) {
		fprintf(stderr, "bhvm-churn: programs missing from %s\n",
			argv[1]);
		goto out;
	}
	bpf_program__set_autoload(kprobe, false);
	if (bpf_program__set_attach_target(prog, 0, argv[2])) {
		fprintf(stderr, "bhvm-churn: no BTF target %s\n", argv[2]);
		goto out;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bhvm-churn: load: %s\n", strerror(errno));
		goto out;
	}
	while (!stop) {
		struct bpf_link *link = bpf_program__attach(prog);

		if (!link) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "bhvm-churn: attach to %s: %s\n",
				argv[2], strerror(errno));
			goto out;
		}
		bpf_link__destroy(link);
		cycles++;
	}
	printf("%llu attach/detach cycles\n", cycles);
	err = 0;
out:
	bpf_object__close(obj);
	return err;
}
