#!/bin/bash
# HIT% is over the classified lookups, and misses are unsynced more often
# than hits: a miss goes to the page cache, where 6.12's nonatomic lookup
# may sleep (folio_lock()), and beside a CPU hog it does. So the report
# gives the hit ratio over every lookup as a range, and narrows it where
# the kernel's code proves the outcome: under none or voluntary
# preemption a task switched out inside a lookup slept on the slow path,
# a miss. Workload: a 12-block directory (every lookup hits) and a
# 24-block one (every lookup misses) listed in turn on CPU 1 beside a CPU
# hog. The oracle (tests/vm/bpf-count/oracle.*) counts the calls and the
# kernel's own hits (touch_buffer), sharing no code with the tracer.
# vm-also: full rt
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

lru_need_tools
lru_need_oracle
ROUNDS=60
lru_ext4 "$PWD/mnt"
lru_dir "$PWD/mnt/fits" 12
lru_dir "$PWD/mnt/big" 24

lru_start lru.json -C -d $LRU_DEV 3600 1
lru_oracle_start oracle.json "$(lru_kdev)"
taskset -c "$LRU_CPU" bash -c 'while :; do :; done' &
hog=$!
LRU_PIDS="$LRU_PIDS $hog"
taskset -c "$LRU_CPU" bash -c 'cd "$0"; for ((i = 0; i < $1; i++)); do
	: fits/*; : fits/*; : big/*; done' "$PWD/mnt" $ROUNDS
kill $hog
lru_oracle_stop oracle.json
lru_stop lru.json
last=$(tail -n 1 lru.json)
both=$(jq -c -n --argjson l "$last" --argjson o "$(cat oracle.json)" \
	'{lookups: ($l.total.lookups + $l.counters.unsynced_nodev), lost: $l.lost_lookups,
	  hits: $l.total.hits, unsynced: $l.total.unsynced,
	  proven_misses: $l.total.unsynced_misses,
	  misses: ($l.total.installed + $l.total.not_installed + $l.total.absent),
	  range: $l.total.hit_ratio_range, hit_ratio: $l.total.hit_ratio,
	  calls: ($o.calls | add), touches: ($o.touches | add), oracle_misses: $o.misses}
	| .truth = .touches / .calls')
echo "hits and misses beside a hog: $both"
lru_check "the oracle counted every lookup of the workload and lost none" \
	".calls >= $ROUNDS * 48 and .oracle_misses == 0" "$both"
lru_check "the tracer counted every lookup: none lost" \
	'.lost == 0 and .lookups == .calls' "$both"
lru_check "the kernel's own hit ratio lies in the reported range" \
	'.range[0] <= .truth + 1e-5 and .truth <= .range[1] + 1e-5' "$both"
lru_check "a proven miss is a miss: they and the classified misses fit the kernel's" \
	'.misses + .proven_misses <= .calls - .touches and .hits <= .touches' "$both"
if preempts_kernel; then
	lru_check "where kernel code is preempted anywhere, a switch proves nothing" \
		'.proven_misses == 0' "$both"
else
	# a hit never switches tasks here: every unsynced lookup is proven
	lru_check "where only the slow path switches tasks, every unsynced lookup is a proven miss" \
		'.proven_misses == .unsynced' "$both"
fi
