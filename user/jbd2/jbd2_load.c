// SPDX-License-Identifier: GPL-2.0
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "jbd2.skel.h"
#include "jbd2/jbd2_load.h"
#include "lib/probe_status.h"

/* The tracepoints every jbd2 figure needs (checkpoints are optional). */
static const char *const jbd2_tracepoints[] = {
	"jbd2_start_commit", "jbd2_commit_flushing", "jbd2_end_commit",
	"jbd2_run_stats",    "jbd2_handle_stats",
};

const char *jbd2_missing_tracepoint(void)
{
	for (size_t i = 0; i < sizeof(jbd2_tracepoints) / sizeof(*jbd2_tracepoints); i++)
		if (!env_tracepoint_exists("jbd2", jbd2_tracepoints[i]))
			return jbd2_tracepoints[i];
	return NULL;
}

static struct jbd2_bpf *open_jbd2(uint32_t kdev, bool with_batch_sleep,
				  bool with_checkpoints)
{
	struct jbd2_bpf *skel = jbd2_bpf__open();

	if (!skel)
		return NULL;
	skel->rodata->target_dev = kdev;
	bpf_program__set_autoload(skel->progs.journal_stop_entry,
				  with_batch_sleep);
	bpf_program__set_autoload(skel->progs.journal_stop_exit,
				  with_batch_sleep);
	bpf_program__set_autoload(skel->progs.tp_checkpoint_stats,
				  with_checkpoints);
	return skel;
}

/*
 * Loads with the fentry/fexit pair first: whether they can run is only known
 * by really loading them. On failure, loads the tracepoints alone and keeps
 * the reason for the report.
 */
struct jbd2_bpf *jbd2_load(uint32_t kdev, struct probe_status *batch_sleep,
			   struct probe_status *checkpoints, int *errp)
{
	struct jbd2_bpf *skel;
	int err;

	if (env_tracepoint_exists("jbd2", "jbd2_checkpoint_stats"))
		probe_status_from(checkpoints, "tracepoint jbd2:jbd2_checkpoint_stats");
	else
		probe_status_missing(checkpoints,
				     "this kernel has no jbd2:jbd2_checkpoint_stats tracepoint");

	skel = open_jbd2(kdev, true, checkpoints->available);
	if (!skel) {
		err = -errno;
		goto open_fail;
	}
	err = jbd2_bpf__load(skel);
	if (!err)
		err = jbd2_bpf__attach(skel);
	if (!err) {
		probe_status_from(batch_sleep, "fentry/fexit jbd2_journal_stop");
		return skel;
	}
	batch_sleep->available = false;
	probe_reason(batch_sleep->why, sizeof(batch_sleep->why),
		     "fentry/fexit", "jbd2_journal_stop", err);
	jbd2_bpf__destroy(skel);

	skel = open_jbd2(kdev, false, checkpoints->available);
	if (!skel) {
		err = -errno;
		goto open_fail;
	}
	err = jbd2_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bhscope: loading the jbd2 BPF programs failed: %s\n",
			strerror(-err));
		goto fail;
	}
	err = jbd2_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bhscope: attaching to the jbd2 tracepoints failed: %s\n",
			strerror(-err));
		goto fail;
	}
	return skel;
open_fail:
	fprintf(stderr, "bhscope: opening the jbd2 BPF object failed: %s\n",
		strerror(-err));
	if (errp)
		*errp = err;
	return NULL;
fail:
	jbd2_bpf__destroy(skel);
	if (errp)
		*errp = err;
	return NULL;
}

static int read_dropped(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	__u64 *percpu = calloc(snap->nr_cpus, sizeof(*percpu));
	__u32 zero = 0;
	int err;

	if (!percpu)
		return -ENOMEM;
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.dropped_events),
				  &zero, percpu);
	snap->dropped_events = 0;
	for (int c = 0; !err && c < snap->nr_cpus; c++)
		snap->dropped_events += percpu[c];
	free(percpu);
	return err ? -errno : 0;
}

int jbd2_read_snapshot(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	int stats_fd = bpf_map__fd(skel->maps.dev_stats);
	int state_fd = bpf_map__fd(skel->maps.journal_state);
	struct jbd2_dev_stats *percpu;
	__u32 key, next, *prev = NULL;
	int err = read_dropped(skel, snap);

	if (err)
		return err;
	percpu = calloc(snap->nr_cpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	while (!bpf_map_get_next_key(stats_fd, prev, &next)) {
		struct jbd2_journal_state st = {};

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(stats_fd, &key, percpu))
			continue;	/* removed meanwhile */
		err = jbd2_snapshot_add_dev(snap, key, percpu);
		if (err)
			break;
		if (!bpf_map_lookup_elem(state_fd, &key, &st))
			snap->devs[snap->nr_devs - 1].avg_commit_ns =
				st.avg_commit_ns;
	}
	free(percpu);
	return err;
}

static int forget_dev(struct jbd2_bpf *skel, uint32_t kdev)
{
	int err = 0;

	if (bpf_map_delete_elem(bpf_map__fd(skel->maps.dev_stats), &kdev) &&
	    errno != ENOENT)
		err = -errno;
	if (bpf_map_delete_elem(bpf_map__fd(skel->maps.journal_state), &kdev) &&
	    errno != ENOENT && !err)
		err = -errno;
	return err;
}

int jbd2_forget_devices(struct jbd2_bpf *skel, dev_present_fn present,
			void *arg)
{
	int fd = bpf_map__fd(skel->maps.dev_stats), err = 0;
	__u32 key, next, *prev = NULL;
	__u32 gone[BHSCOPE_MAX_DEVS];
	int nr_gone = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!present(key, arg) && nr_gone < BHSCOPE_MAX_DEVS)
			gone[nr_gone++] = key;
	}
	for (int i = 0; i < nr_gone; i++)
		err = forget_dev(skel, gone[i]) ?: err;
	return err;
}
