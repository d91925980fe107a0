#!/bin/bash
# The kernel empties every CPU's LRU in invalidate_bh_lrus() (here from
# BLKFLSBUF). The tracer must count the calls, notice the emptied LRU at
# the next lookup (its model restarts, as a bigger LRU would have been
# emptied too), and stay in step with the offline replay through it.
# Then the one change the next lookup cannot see: an LRU holding one bh,
# emptied, and refilled with that bh by the lookup's own install, looks
# exactly like a hit in slot 0; the kernel's own hit count
# (block:block_touch_buffer, tests/vm/bpf-count/oracle.*) says it is not.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

K=24
FLUSHES=3
bin=$VM_OUT/bpf-count
lru_need_tools
[[ -x $bin/bhvm-oracle ]] || fail "$bin/bhvm-oracle missing: bpf-count.prep did not run"
command -v blockdev >/dev/null || skip "blockdev is not installed on the host"
in_kallsyms invalidate_bh_lrus || skip "invalidate_bh_lrus is not a symbol here"
lru_ext4 "$PWD/mnt"
lru_dir "$PWD/mnt/d" $K
lru_list "$PWD/mnt/d" 2

lru_start live.json -C -d $LRU_DEV --whatif 64 --trace lru.trace 3600 1
lru_list "$PWD/mnt/d" 12
for ((f = 0; f < FLUSHES; f++)); do
	taskset -c 0 blockdev --flushbufs /dev/$LRU_DEV
	lru_list "$PWD/mnt/d" 12
done
lru_stop live.json
cat live.json.err
last=$(tail -n 1 live.json)
cpu=$(lru_cpu live.json)
echo "counters: $(jq -c .counters <<<"$last")"

lru_check "every invalidate_bh_lrus call is counted" \
	".counters.invalidate_bh_lrus >= $FLUSHES" "$last"
lru_check "the emptied LRU restarted the model" \
	".counters.resets >= $FLUSHES" "$last"
lru_check "the kernel skipped no run of a probe that sees LRUs emptied" \
	".counters.emptied_misses == 0" "$last"
# The classified lookups: 6.12's nonatomic lookup may sleep on a folio
# lock right after a flush, and such a lookup is unsynced, not guessed.
n=$(jq '.lookups - .unsynced' <<<"$cpu")
lru_check "every lookup still misses; the refills after a flush do not evict" \
	".hits == 0 and .unsynced <= 3 and .installed + .absent + .unsynced == .lookups and
	 .evictions <= .lookups - 16 * $FLUSHES" "$cpu"
# Each flush makes the next pass cold at every size (the first pass may be
# cold too): the curve at size $K drops by $K lookups per flush.
lru_check "what-if at size $K: every pass hits but the first and those after a flush" \
	".whatif.hit_ratio[$((K - 1))] <= 1 - $K * $FLUSHES / $n + 1e-6 and
	 .whatif.hit_ratio[$((K - 1))] >= 1 - $K * ($FLUSHES + 1) / $n - 1e-6 and
	 .whatif.hit_ratio[$((K - 2))] == 0" "$cpu"

"$LRU_BHSCOPE" simulate lru.trace --sizes 1-64 -C -d $LRU_DEV -j >sim.json
lru_check "the replay emptied its LRU at every flush too" \
	".resets >= $FLUSHES" "$(cat sim.json)"
lru_replay_check sim.json "$cpu"

# A one-block directory, listed once after each flush on LRU_CPU: every
# listing is one lookup of that block into an LRU the flush emptied.
lru_dir "$PWD/mnt/one" 1
lru_list "$PWD/mnt/one" 1
kdev=$(((0x$(stat -c %t /dev/$LRU_DEV) << 20) | 0x$(stat -c %T /dev/$LRU_DEV)))
lru_start lone.json -C -d $LRU_DEV 3600 1
"$bin/bhvm-oracle" "$bin/oracle.bpf.o" fentry $kdev "$(bh_lookup_func)" \
	>lone.oracle 2>lone.oracle.err &
oracle=$!
LRU_PIDS="$LRU_PIDS $oracle"
wait_until 30 $oracle grep -q ready lone.oracle.err ||
	fail "oracle: $(cat lone.oracle.err)"
for ((f = 0; f < 8; f++)); do
	taskset -c "$LRU_CPU" blockdev --flushbufs /dev/$LRU_DEV
	lru_list "$PWD/mnt/one" 1
done
kill -INT $oracle
wait $oracle || fail "oracle: $(cat lone.oracle.err)"
lru_stop lone.json
both=$(jq -c -n --argjson l "$(lru_cpu lone.json)" --argjson o "$(cat lone.oracle)" \
	'{lookups: $l.lookups, hits: $l.hits, installed: $l.installed,
	  unsynced: $l.unsynced, calls: $o.calls['$LRU_CPU'],
	  touches: $o.touches['$LRU_CPU'], misses: $o.misses}')
echo "one-block refills, CPU $LRU_CPU: $both"
lru_check "a lone bh emptied and installed again is never a hit the kernel did not make" \
	'.misses == 0 and .lookups >= 8 and .hits <= .touches' "$both"
