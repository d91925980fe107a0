#!/bin/bash
# Where no task can be switched inside __find_get_block (it never sleeps,
# and the preemption model preempts no kernel code: none, voluntary), the
# lookup's exit probe proves it alone, without the entry probe. When the
# model is switched under it (PREEMPT_DYNAMIC: debugfs's sched/preempt;
# every switch opens kernel preemption for a while, even on its way to
# voluntary), nothing may be silently wrong:
#
#  gap:      from the switch until bhscope attaches the entry probe, every
#            lookup is unsynced, none is a hit. A listing on one CPU after
#            a switch, with a report interval longer than the run, is all
#            unsynced while the kernel emitted its hits
#            (block:block_touch_buffer, tests/vm/bpf-count/oracle.*).
#  reattach: at the next interval the entry probe is attached and lookups
#            are classified again. Metadata tasks over CPUs, moved every
#            few ms, voluntary then full preemption: every difference from
#            the oracle is at most what bhscope reports unsynced or lost.
# Only where __find_get_block is the lookup (6.1): 6.12's
# find_get_block_common can sleep and always has its entry probe. The exit
# design's switch, whatever VM_LRU_DEFERRED says: 48 switches the deferred
# hook's.
# vm-timeout: 600
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"
export BHSCOPE_LRU_DEFERRED=0

K=8
bin=$VM_OUT/bpf-count
preempt=/sys/kernel/debug/sched/preempt
lru_need_tools
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"
[[ -x $bin/bhvm-oracle ]] || fail "$bin/bhvm-oracle missing: bpf-count.prep did not run"
[[ -w $preempt ]] || skip "no $preempt: not a PREEMPT_DYNAMIC kernel"
[[ $(bh_lookup_func) == __find_get_block ]] ||
	skip "the lookup here is $(bh_lookup_func), which can sleep: it always has its entry probe"
initial_model=$(grep -o '([a-z]*)' $preempt | tr -d '()')
lru_ext4 "$PWD/mnt" -O ^dir_index
trap 'echo "$initial_model" >$preempt 2>/dev/null; lru_cleanup' EXIT
lru_dir "$PWD/mnt/d" $K
kdev=$(((0x$(stat -c %t /dev/$LRU_DEV) << 20) | 0x$(stat -c %T /dev/$LRU_DEV)))

# oracle_start NAME: the independent count of lookups and hits per CPU
oracle_start() {
	"$bin/bhvm-oracle" "$bin/oracle.bpf.o" fentry $kdev __find_get_block \
		>"$1.oracle" 2>"$1.oracle.err" &
	ORACLE=$!
	LRU_PIDS="$LRU_PIDS $ORACLE"
	for _ in $(seq 300); do
		grep -q ready "$1.oracle.err" && return 0
		kill -0 $ORACLE 2>/dev/null || break
		sleep 0.1
	done
	fail "oracle: $(cat "$1.oracle.err")"
}

oracle_stop() {
	kill -INT $ORACLE
	wait $ORACLE || fail "oracle exited with $? ($(cat "$1.oracle.err"))"
}

echo voluntary >$preempt
probes=$("$LRU_BHSCOPE" lru --probes -j --hook fentry)
lru_check "voluntary: the exit proves __find_get_block alone" \
	'.figures.lookups.source | test("^fexit __find_get_block alone")' "$probes"
echo full >$preempt
probes=$("$LRU_BHSCOPE" lru --probes -j --hook fentry)
lru_check "full: the entry probe is attached from the start" \
	'.figures.lookups.source | test("^fentry\\+fexit __find_get_block \\(full")' "$probes"

# gap: one report at the end, so the entry probe attaches only then
echo voluntary >$preempt
lru_list "$PWD/mnt/d" 2
sync
lru_start gap.json -C -d $LRU_DEV --hook fentry 3600 1
echo voluntary >$preempt	# a switch, though to the same model
oracle_start gap
lru_list "$PWD/mnt/d" 3
sync
oracle_stop gap
lru_stop gap.json
gap=$(jq -c -n --argjson l "$(lru_cpu gap.json)" --argjson o "$(cat gap.oracle)" \
	'{lookups: $l.lookups, hits: $l.hits, unsynced: $l.unsynced,
	  calls: $o.calls['$LRU_CPU'], touches: $o.touches['$LRU_CPU'],
	  misses: $o.misses}')
echo "gap, CPU $LRU_CPU: $gap"
lru_check "gap: the kernel hit in the LRU (the oracle saw it)" \
	".misses == 0 and .calls >= $((3 * K)) and .touches >= $((2 * K))" "$gap"
lru_check "gap: every lookup after the switch is unsynced, none a hit" \
	'.hits == 0 and .unsynced == .lookups and .lookups >= .calls' "$gap"
grep -q 'preemption model was switched' gap.json.err ||
	fail "bhscope said nothing of the switch: $(cat gap.json.err)"
echo "PASS: gap: $(grep 'preemption model' gap.json.err)"

# reattach: reports every 0.5 s, load throughout, the model switched
ncpu=$(nproc)
tasks=$((2 * ncpu + 3))
worker() {
	mkdir -p "mnt/w$1"
	while [[ ! -e stop ]]; do
		"$REPO/build/bhbench" meta -D "mnt/w$1" -t 1 -n 150 -q || true
	done
}
echo voluntary >$preempt
rm -f stop
sync
lru_start switch.json -C -d $LRU_DEV --hook fentry 0.5
oracle_start switch
pids=()
for ((w = 0; w < tasks; w++)); do
	worker "$w" &
	pids+=($!)
done
"$bin/bhvm-mover" bhbench 3 >switch.mover &
mover=$!
sleep 3
echo full >$preempt
# the host's idle timeout is shorter than this test's own
progress "switched to full preemption"
for _ in $(seq 100); do
	grep -q 'entry probe is attached' switch.json.err && break
	sleep 0.1
done
grep -q 'entry probe is attached' switch.json.err ||
	fail "no entry probe 10 s after the switch: $(cat switch.json.err)"
attached=$(wc -l <switch.json)
sleep 5
touch stop
wait "${pids[@]}"
kill -TERM $mover
wait $mover
sync
oracle_stop switch
lru_stop switch.json
progress "load stopped"
sum=$(jq -c -s --argjson o "$(cat switch.oracle)" --argjson after "$attached" '
	def total(f): map(f) | add;
	($o.calls | add) as $calls | ($o.touches | add) as $touches |
	(.[$after + 1:]) as $later |
	{lookups: total(.total.lookups + .counters.unsynced_nodev),
	 hits: total(.total.hits), unsynced: total(.unsynced_lookups),
	 lost: total(.lost_lookups), calls: $calls, touches: $touches,
	 oracle_misses: $o.misses,
	 later_lookups: ($later | total(.total.lookups)),
	 later_hits: ($later | total(.total.hits)),
	 later_unsynced: ($later | total(.unsynced_lookups)),
	 cpu_excess_hits: [range(0; $o.touches | length) as $c |
		(map(.cpus[] | select(.cpu == $c) | .hits) | add // 0) -
		$o.touches[$c]] | max}' switch.json)
echo "switch: $sum"
lru_check "switch: lookups differ from the oracle's calls by at most lost + the oracle's misses" \
	'((.lookups - .calls) | fabs) <= .lost + .oracle_misses' "$sum"
lru_check "switch: hits differ from block_touch_buffer by at most unsynced + lost" \
	'((.hits - .touches) | fabs) <= .unsynced + .lost + .oracle_misses' "$sum"
lru_check "switch: no CPU has a hit the kernel did not emit there" \
	'.cpu_excess_hits <= .oracle_misses' "$sum"
lru_check "switch: after the entry probe attached, lookups are classified again" \
	'.later_lookups > 1000 and .later_hits > .later_unsynced' "$sum"
