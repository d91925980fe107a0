#!/bin/bash
# An LRU emptied from another CPU races with the lookups of its own. The
# flush (BLKFLSBUF) calls invalidate_bh_lrus() on CPU 0, whose IPI empties
# CPU 1's LRU some time later, while CPU 1 lists a one-block directory
# over and over: its LRU holds that one block (a lone slot-0 hit) or, just
# emptied, nothing (a refill). Two outcomes the LRU cannot tell apart by
# itself must never be guessed:
#   - a refill of an LRU emptied after the last lookup's exit looks like a
#     slot-0 hit: proven only if no emptying could have run in between;
#   - an install into an empty LRU emptied again before the exit probe
#     looks like a miss the kernel did not install.
# The oracle (tests/vm/bpf-count/oracle.*: fentry, fexit, the BTF
# tracepoint on touch_buffer) shares no code with the tracer: touches are
# the kernel's own hits, and nothing here disables the LRU's installs.
# Every lookup is timed (--timing 1): a race must not pair one lookup's
# timing with another's outcome either.
# vm-also: full rt
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

lru_need_tools
lru_need_oracle
command -v blockdev >/dev/null || skip "blockdev is not installed on the host"
in_kallsyms invalidate_bh_lrus || skip "invalidate_bh_lrus is not a symbol here"
FLUSHES=20
lru_ext4 "$PWD/mnt"
lru_dir "$PWD/mnt/one" 1
lru_list "$PWD/mnt/one" 1
other=$(((LRU_CPU + 1) % $(nproc)))

lru_start races.json -C -d $LRU_DEV --timing 1 3600 1
lru_oracle_start oracle.json "$(lru_kdev)"
# not real-time: each flush waits for a drain work on every CPU
# (lru_add_drain_all()), which a real-time lister would keep off CPU 1
taskset -c "$LRU_CPU" bash -c 'while :; do : "$0"/*; done' "$PWD/mnt/one" &
lister=$!
LRU_PIDS="$LRU_PIDS $lister"
sleep 0.5
for ((f = 0; f < FLUSHES; f++)); do
	taskset -c $other blockdev --flushbufs /dev/$LRU_DEV || fail "blockdev --flushbufs"
done
kill $lister
wait $lister 2>/dev/null || true
lru_oracle_stop oracle.json
lru_stop races.json
last=$(tail -n 1 races.json)
both=$(jq -c -n --argjson l "$last" --argjson c "$(lru_cpu races.json)" \
	--argjson o "$(cat oracle.json)" \
	'{lookups: $c.lookups, hits: $c.hits, installed: $c.installed,
	  not_installed: $l.total.not_installed, absent: $c.absent,
	  unsynced: $c.unsynced, lost: $l.lost_lookups,
	  resets: $l.counters.resets, emptied_misses: $l.counters.emptied_misses,
	  calls: $o.calls['$LRU_CPU'], touches: $o.touches['$LRU_CPU'],
	  found: ($o.found | add), misses: $o.misses}')
echo "one-block lookups beside flushes from CPU $other: $both"
lru_check "the oracle lost no run" ".misses == 0" "$both"
# every emptying under the lister is refilled by its next lookup: a miss
lru_check "the flushes emptied the LRU under the lookups, often" \
	".calls - .touches >= $FLUSHES / 2" "$both"
lru_check "no hit the kernel did not make (a refill is not a slot-0 hit)" \
	'.hits <= .touches' "$both"
lru_check "no miss called not installed: the kernel installed every one" \
	'.not_installed == 0' "$both"
lru_check "every hit the kernel made is a hit or unsynced" \
	'.hits + .unsynced + .lost >= .touches' "$both"
lru_timing_check races.json oracle.json
