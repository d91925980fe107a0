#!/bin/bash
# Several lookups the probes never saw may leave an LRU's first two slots
# as they were and reorder the rest. Known answer: one-block directories A,
# B and X0..X13, listed as X(i mod 14), B, A over and over on CPU 1 fill
# the 16 slots exactly: A and B hit in slot 2, every X in slot 15, after
# every round the LRU starts A, B (but where something else empties it). Beside busy map readers under full
# preemption, the kernel skips kprobe-mode lookups (a reader preempted
# with its CPU's bpf_prog_active held), whole rounds at a time: a model
# checking slots 0 and 1 only would take the reordered LRU for the one it
# knew and put X hits in slot 14. Every classified hit must be in slot 2
# or 15; the kernel's own hits (the oracle's BTF tracepoint on
# touch_buffer, which that guard does not stop) bound them.
# vm-also: full rt
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

bin=$VM_OUT/bpf-count
lru_need_tools
[[ -x $bin/bhvm-oracle && -x $bin/bhvm-mapread ]] ||
	fail "$bin/bhvm-oracle or bhvm-mapread missing: bpf-count.prep did not run"
[[ -e /sys/kernel/tracing/kprobe_events ]] || skip "this kernel has no kprobes"
preempts_kernel || skip "the kernel does not preempt kernel code: map readers cannot hide lookups"
X=14 ROUNDS=1500
lru_ext4 "$PWD/mnt"
for d in A B $(seq -f 'X%g' 0 $((X - 1))); do
	lru_dir "$PWD/mnt/$d" 1
done
kdev=$(((0x$(stat -c %t /dev/$LRU_DEV) << 20) | 0x$(stat -c %T /dev/$LRU_DEV)))
# rounds: X(i mod 14), B, A; one lookup each
rounds() {
	taskset -c "$LRU_CPU" bash -c 'cd "$0"; for ((i = 0; i < $1; i++)); do
		: X$((i % '$X'))/*; : B/*; : A/*; done' "$PWD/mnt" "$1"
}
rounds $((2 * X))

lru_start lru.json -C -d $LRU_DEV --hook kprobe 3600 1
: >oracle.err
"$bin/bhvm-oracle" "$bin/oracle.bpf.o" fentry $kdev "$(bh_lookup_func)" \
	>oracle.json 2>oracle.err &
oracle=$!
LRU_PIDS="$LRU_PIDS $oracle"
wait_until 60 $oracle grep -q ready oracle.err || fail "oracle: $(cat oracle.err)"
for ((cpu = 0; cpu < $(nproc); cpu++)); do
	"$bin/bhvm-mapread" "$cpu" &
	LRU_PIDS="$LRU_PIDS $!"
done
# not real-time: the rounds and a reader share CPU 1, so the reader is
# preempted with its guard held as often as the tick falls
rounds $ROUNDS
kill -INT $oracle
wait $oracle || fail "oracle: $(cat oracle.err)"
lru_stop lru.json
last=$(tail -n 1 lru.json)
both=$(jq -c -n --argjson l "$last" --argjson c "$(lru_cpu lru.json)" \
	--argjson o "$(cat oracle.json)" \
	'{lookups: $c.lookups, hits: $c.hits, slot2: $c.slots[2], slot15: $c.slots[15],
	  elsewhere: ([$c.slots | to_entries[] | select(.key != 2 and .key != 15) | .value] | add),
	  misses: ($c.installed + $c.not_installed + $c.absent), unsynced: $c.unsynced,
	  lost: $l.lost_lookups, lost_complete: $l.lost_lookups_complete,
	  full_checks: $l.counters.full_checks,
	  calls: ($o.calls | add), touches: ($o.touches | add), oracle_misses: $o.misses}')
echo "rounds of X, B, A beside busy readers: $both"
lru_check "every classified hit is where the workload puts it: slot 2 (A, B) or 15 (X)" \
	'.elsewhere == 0' "$both"
# the rounds hit every time, but for what else empties the LRU
lru_check "no more misses than the kernel made" \
	'.misses <= .calls - .touches + .oracle_misses' "$both"
lru_check "no more hits than the kernel made" \
	'.hits <= .touches + .oracle_misses' "$both"
lru_check "at most one X hit and two A or B hits a round" \
	".slot15 <= $ROUNDS and .slot2 <= 2 * $ROUNDS" "$both"
if [[ $(jq -r .lost_complete <<<"$both") == true ]]; then
	lru_check "the readers hid lookups from the probes: the case arose" \
		'.lost > 0' "$both"
fi
