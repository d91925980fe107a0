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
#include "lib/bpf_on_cpus.h"
#include "lib/errmsg.h"
#include "lib/probe_status.h"
#include "lib/prog_misses.h"

/* The tracepoints every jbd2 figure needs (checkpoints are optional). */
static const char *const jbd2_tracepoints[] = {
	"jbd2_start_commit", "jbd2_commit_flushing", "jbd2_end_commit",
	"jbd2_run_stats",    "jbd2_handle_stats",
};

const char *jbd2_load_missing_tracepoint(void)
{
	for (size_t i = 0; i < sizeof(jbd2_tracepoints) / sizeof(*jbd2_tracepoints); i++)
		if (!env_tracepoint_exists("jbd2", jbd2_tracepoints[i]))
			return jbd2_tracepoints[i];
	return NULL;
}

/* The event programs of one flavour: BTF tracepoints or classic ones. */
static void autoload_events(struct jbd2_bpf *skel, bool btf, bool checkpoints)
{
	struct bpf_program *const btf_progs[] = {
		skel->progs.btf_start_commit, skel->progs.btf_commit_flushing,
		skel->progs.btf_end_commit, skel->progs.btf_run_stats,
		skel->progs.btf_handle_stats,
	};
	struct bpf_program *const tp_progs[] = {
		skel->progs.tp_start_commit, skel->progs.tp_commit_flushing,
		skel->progs.tp_end_commit, skel->progs.tp_run_stats,
		skel->progs.tp_handle_stats,
	};

	for (size_t i = 0; i < sizeof(btf_progs) / sizeof(*btf_progs); i++) {
		bpf_program__set_autoload(btf_progs[i], btf);
		bpf_program__set_autoload(tp_progs[i], !btf);
	}
	bpf_program__set_autoload(skel->progs.btf_checkpoint_stats,
				  btf && checkpoints);
	bpf_program__set_autoload(skel->progs.tp_checkpoint_stats,
				  !btf && checkpoints);
}

/* *attaching: whether err came from the attach (not from the verifier). */
static int load_attach(uint32_t kdev, bool btf, bool with_batch_sleep,
		       bool with_checkpoints, struct jbd2_bpf **out,
		       bool *attaching)
{
	struct jbd2_bpf *skel = jbd2_bpf__open();
	int err;

	*out = NULL;
	*attaching = false;
	if (!skel)
		return -errno;
	skel->rodata->target_dev = kdev;
	autoload_events(skel, btf, with_checkpoints);
	bpf_program__set_autoload(skel->progs.journal_stop_entry,
				  with_batch_sleep);
	bpf_program__set_autoload(skel->progs.journal_stop_exit,
				  with_batch_sleep);
	err = jbd2_bpf__load(skel);
	if (!err) {
		err = jbd2_bpf__attach(skel);
		*attaching = err;
	}
	if (err) {
		jbd2_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

bool jbd2_load_events_are_btf(const struct jbd2_bpf *skel)
{
	return bpf_program__autoload(skel->progs.btf_run_stats);
}

int jbd2_load_hook_parse(const char *s, enum jbd2_hook *hook)
{
	static const char *const names[] = {
		[JBD2_HOOK_AUTO] = "auto",
		[JBD2_HOOK_BTF] = "btf",
		[JBD2_HOOK_TRACEPOINT] = "tracepoint",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(s, names[i])) {
			*hook = i;
			return 0;
		}
	return -1;
}

/*
 * Whether a kind of program can run is only known by really loading it:
 * each flavour hook allows, BTF first, with the fentry/fexit pair, then
 * without. Keeps the reason of what failed for the report.
 */
struct jbd2_bpf *jbd2_load(uint32_t kdev, enum jbd2_hook hook,
			   struct probe_status *events,
			   struct probe_status *batch_sleep,
			   struct probe_status *checkpoints, int *errp)
{
	static const char *const flavour_name[] = { "tracepoint", "tp_btf" };
	bool allowed[2], batch_tried = false, attaching;
	struct jbd2_bpf *skel;
	int err = -ENOENT;
	const char *name;

	if (env_tracepoint_exists("jbd2", "jbd2_checkpoint_stats"))
		probe_status_from(checkpoints, "tracepoint jbd2:jbd2_checkpoint_stats");
	else
		probe_status_missing(checkpoints,
				     "this kernel has no jbd2:jbd2_checkpoint_stats tracepoint");
	allowed[true] = hook != JBD2_HOOK_TRACEPOINT;
	allowed[false] = hook != JBD2_HOOK_BTF;
	for (int btf = 1; btf >= 0; btf--) {
		if (!allowed[btf])
			continue;
		err = load_attach(kdev, btf, true, checkpoints->available, &skel,
				  &attaching);
		if (!err) {
			probe_status_from(batch_sleep, "fentry/fexit jbd2_journal_stop");
			goto loaded;
		}
		if (!batch_tried) {
			batch_sleep->available = false;
			probe_reason(batch_sleep->why, sizeof(batch_sleep->why),
				     "fentry/fexit", "jbd2_journal_stop", err);
			batch_tried = true;
		}
		err = load_attach(kdev, btf, false, checkpoints->available, &skel,
				  &attaching);
		if (!err)
			goto loaded;
		if (err == -EACCES && !attaching) /* BPF_PROG_LOAD: the verifier */
			snprintf(events->why, sizeof(events->why),
				 "the verifier rejected the %s programs for the jbd2 tracepoints (BHSCOPE_DEBUG=1 prints its log)",
				 flavour_name[btf]);
		else
			probe_reason(events->why, sizeof(events->why),
				     flavour_name[btf], "the jbd2 tracepoints",
				     err);
	}
	events->available = false;
	errmsg("loading the jbd2 BPF programs failed: %s",
	       events->why);
	if (errp)
		*errp = err;
	return NULL;
loaded:
	name = flavour_name[jbd2_load_events_are_btf(skel)];
	probe_status_from(events, "%s jbd2:*", name);
	if (checkpoints->available)
		probe_status_from(checkpoints, "%s jbd2:jbd2_checkpoint_stats",
				  name);
	return skel;
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

/* Adds every CPU's buckets. */
static int read_buckets(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	size_t stride = (sizeof(struct jbd2_cpu_buckets) + 7) & ~(size_t)7;
	char *all = calloc(snap->nr_cpus, stride);
	const struct jbd2_dev_bucket *b;
	__u32 zero = 0;
	int err = 0;

	if (!all)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.cpu_buckets), &zero, all))
		err = -errno;
	for (int c = 0; !err && c < snap->nr_cpus; c++) {
		b = ((const struct jbd2_cpu_buckets *)(all + c * stride))->b;
		for (unsigned int i = 0; !err && i < BHSCOPE_JBD2_BUCKETS; i++)
			if (b[i].owner)
				err = jbd2_snapshot_add_cpu(snap, b[i].owner - 1,
							    c, &b[i].s);
	}
	free(all);
	return err;
}

/* Adds the journals whose bucket another one holds. */
static int read_hash(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	int fd = bpf_map__fd(skel->maps.dev_stats);
	struct jbd2_dev_stats *percpu = calloc(snap->nr_cpus, sizeof(*percpu));
	__u32 key, next, *prev = NULL;
	int err = 0;

	if (!percpu)
		return -ENOMEM;
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, percpu))
			continue;	/* removed meanwhile */
		err = jbd2_snapshot_add_dev(snap, key, percpu);
	}
	free(percpu);
	return err;
}

/* Each journal's commit-time average, from its bucket or the hash map. */
static void read_commit_averages(struct jbd2_bpf *skel,
				 struct jbd2_snapshot *snap)
{
	int bucket_fd = bpf_map__fd(skel->maps.state_buckets);
	int hash_fd = bpf_map__fd(skel->maps.journal_state);
	struct jbd2_state_bucket b;
	struct jbd2_journal_state st;

	for (int i = 0; i < snap->nr_devs; i++) {
		struct jbd2_dev_snapshot *d = &snap->devs[i];
		__u32 k = BHSCOPE_DEV_BUCKET(d->kdev, BHSCOPE_JBD2_BUCKET_BITS);

		if (!bpf_map_lookup_elem(bucket_fd, &k, &b) &&
		    b.owner == d->kdev + 1ULL)
			d->avg_commit_ns = b.st.avg_commit_ns;
		else if (!bpf_map_lookup_elem(hash_fd, &d->kdev, &st))
			d->avg_commit_ns = st.avg_commit_ns;
	}
}

/*
 * Events whose program the kernel skipped (recursion_misses), if it counts
 * them for the programs that run: classic tracepoints before 6.7 do not.
 */
static void read_lost(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	struct bpf_program *prog;

	snap->lost_known = true;
	snap->lost_events = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog) || prog == skel->progs.forget_device)
			continue;
		if (!prog_misses_counted(prog))
			snap->lost_known = false;
		snap->lost_events += prog_misses(prog);
	}
}

int jbd2_load_read_snapshot(struct jbd2_bpf *skel, struct jbd2_snapshot *snap)
{
	int err;

	/* misses first: one skipped while the maps are read is the next's */
	read_lost(skel, snap);
	err = read_dropped(skel, snap) ?: read_buckets(skel, snap) ?:
	      read_hash(skel, snap);
	if (!err)
		read_commit_averages(skel, snap);
	return err;
}

/* Frees kdev's buckets (on every CPU) and drops it from the hash maps. */
static int forget_dev(struct jbd2_bpf *skel, int nr_cpus, uint32_t kdev)
{
	__u32 k = BHSCOPE_DEV_BUCKET(kdev, BHSCOPE_JBD2_BUCKET_BITS);
	struct jbd2_state_bucket b, empty = {};
	int err = 0;

	skel->bss->forget_owner = kdev + 1ULL;
	bpf_run_on_each_cpu(bpf_program__fd(skel->progs.forget_device), nr_cpus);
	skel->bss->forget_owner = 0;
	/* The journal is gone: no commit of it writes its state any more. */
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.state_buckets), &k, &b) &&
	    b.owner == kdev + 1ULL &&
	    bpf_map_update_elem(bpf_map__fd(skel->maps.state_buckets), &k,
				&empty, BPF_ANY))
		err = -errno;

	if (bpf_map_delete_elem(bpf_map__fd(skel->maps.dev_stats), &kdev) &&
	    errno != ENOENT)
		err = -errno;
	if (bpf_map_delete_elem(bpf_map__fd(skel->maps.journal_state), &kdev) &&
	    errno != ENOENT && !err)
		err = -errno;
	return err;
}

int jbd2_load_forget_devices(struct jbd2_bpf *skel, dev_present_fn present,
			     void *arg)
{
	struct jbd2_snapshot snap = { .nr_cpus = libbpf_num_possible_cpus() };
	int err;

	if (snap.nr_cpus <= 0)
		return snap.nr_cpus ?: -EINVAL;
	/* every journal counted, in a bucket or in the hash maps */
	err = jbd2_load_read_snapshot(skel, &snap);
	for (int i = 0; !err && i < snap.nr_devs; i++)
		if (!present(snap.devs[i].kdev, arg))
			err = forget_dev(skel, snap.nr_cpus, snap.devs[i].kdev);
	jbd2_snapshot_free(&snap);
	return err;
}
