#!/bin/bash
# Busy map readers must not make kprobe-mode LRU figures silently short. A
# reader pinned on each CPU copies a per-CPU array by system call, holding
# the CPU's bpf_prog_active (preemptibly under preempt=full): the kernel
# then skips kprobe and kretprobe programs there. A directory is listed
# over and over on CPU 1, which it shares with a reader, while an fentry
# counter (tests/vm/bpf-count/oracle.*, whose trampoline that guard does
# not stop) counts the lookups: one per directory block and listing, known
# in advance.
# bhscope lru --hook kprobe may count fewer, never more; what it misses
# must be in its lost lookups where the kernel counts skipped runs (6.7
# on), and the lost count must be marked a lower bound where it does not.
# It times every lookup (--timing 1): a skipped return probe must leave
# its entry's timing dropped, never paired with another lookup's return.
# vm-also: full rt
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

lru_need_tools
lru_need_oracle
[[ -e /sys/kernel/tracing/kprobe_events ]] || skip "this kernel has no kprobes"
lru_ext4 "$PWD/mnt"
K=8 N=2000
lru_dir "$PWD/mnt/d" $K
sync

lru_start lru.json -d $LRU_DEV --hook kprobe --timing 1 3600 1
lru_oracle_start oracle.json "$(lru_kdev)"
map_readers "$LRU_ORACLE/bhvm-mapread"
# not real-time: the lister and the reader share CPU 1, so the reader is
# preempted (preempt=full) with its guard held as often as the tick falls
lru_list_cfs "$PWD/mnt/d" $N
# the counts' windows end after the readers: no lookup runs meanwhile
map_readers_stop
lru_oracle_stop oracle.json
lru_stop lru.json
both=$(jq -c -n --argjson l "$(tail -n 1 lru.json)" --argjson o "$(cat oracle.json)" \
	'{lookups: ($l.total.lookups + $l.counters.unsynced_nodev), lost: $l.lost_lookups,
	  complete: $l.lost_lookups_complete,
	  entry_misses: $l.counters.entry_misses, exit_misses: $l.counters.exit_misses,
	  calls: ($o.calls | add)}')
echo "kprobe beside busy map readers: $both"
# its touches program is a classic tracepoint: its misses are no concern
lru_check "the oracle counts the workload's lookups: one per directory block a listing" \
	".calls == $N * $K" "$both"
lru_check "bhscope counts no lookup that did not run" '.lookups <= .calls' "$both"
if [[ $(jq -r .complete <<<"$both") == true ]]; then
	lru_check "every lookup it did not count is a lost one" \
		'.lookups + .lost == .calls' "$both"
else
	lru_check "lost is marked a lower bound, and is one" \
		'.complete == false and .lookups + .lost <= .calls' "$both"
fi
lru_timing_check lru.json oracle.json
