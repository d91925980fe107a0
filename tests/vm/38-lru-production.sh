#!/bin/bash
# bhscope lru on a busy host: more metadata tasks than CPUs, unpinned and
# moved between CPUs every few ms, blockdev --flushbufs and compact_memory
# (lru_cache_disable() drains every LRU) during the run, a CPU taken
# offline and back, with `bhscope lru --whatif 64 --trace` and `bhscope
# serve` attached throughout. Under the voluntary and the full preemption
# model (switched at run time: Debian's kernels are PREEMPT_DYNAMIC), with
# the fentry and the kprobe hooks, and where __find_get_block_nonatomic
# exists, with the two 6.15 wrappers hooked by fentry instead of the common
# function under the voluntary model.
#
# Oracles that share no code with the tracer (tests/vm/bpf-count/oracle.*):
# fentry on the lookup function(s) counts calls per CPU, and the kernel's
# block:block_touch_buffer (the hit branch only) counts hits per CPU. Pass:
# every difference from them is at most what bhscope reports as unsynced or
# lost (plus the oracle's own skipped runs, which it reports), and no CPU
# has a hit the kernel did not emit there. Prints the unsynced and lost
# shares of each phase.
# vm-timeout: 900
# vm-also: cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

PHASE_SECS=${LRU_PHASE_SECS:-4}	# guest seconds of load per phase (60000 lookups and more)
MIN_LOOKUPS=${LRU_MIN_LOOKUPS:-3000}	# per phase, or the load did too little
bin=$VM_OUT/bpf-count
lru_need_tools
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"
[[ -x $bin/bhvm-oracle ]] || fail "$bin/bhvm-oracle missing: bpf-count.prep did not run"
command -v blockdev >/dev/null || skip "blockdev is not installed on the host"
ncpu=$(nproc)
tasks=$((2 * ncpu + 3))
LRU_RAM_MB=256
lru_ext4 "$PWD/mnt" -O dir_index
kdev=$((($(stat -c %t /dev/$LRU_DEV | sed 's/^/0x/') << 20) |
	$(stat -c %T /dev/$LRU_DEV | sed 's/^/0x/')))

preempt=/sys/kernel/debug/sched/preempt
models=(current)
if [[ -w $preempt ]]; then
	models=(voluntary full)
	initial_model=$(grep -o '([a-z]*)' $preempt | tr -d '()')
fi
hotplug=/sys/devices/system/cpu/cpu$((ncpu - 1))/online
[[ -w $hotplug ]] || hotplug=

restore() {
	[[ -n ${initial_model:-} ]] && echo "$initial_model" >$preempt 2>/dev/null
	[[ -n $hotplug ]] && echo 1 >"$hotplug" 2>/dev/null
	lru_cleanup
}
trap restore EXIT

# lookup functions: the one every lookup goes through, or both wrappers;
# these with fentry under the voluntary model only, where their hooks
# differ from the common one's (fexit alone proves __find_get_block's
# lookups), not with kprobes, whose kretprobes prove every lookup alike
common=$(bh_lookup_func)
hook_sets=("fentry:$common:0" "kprobe:$common:0")
if in_kallsyms __find_get_block_nonatomic; then
	hook_sets+=("fentry:__find_get_block,__find_get_block_nonatomic:1")
fi

# Background disturbances until the file stop exists: the LRUs emptied
# (BLKFLSBUF -> invalidate_bh_lrus; compaction -> lru_cache_disable), and
# once, a CPU offline for a second (then the file hotplugged exists).
disturb() {
	local i=0
	while [[ ! -e stop ]]; do
		blockdev --flushbufs /dev/$LRU_DEV || true
		echo 1 >/proc/sys/vm/compact_memory || true
		if ((i == 1)) && [[ -n $hotplug ]] &&
			echo 0 >"$hotplug" && sleep 1 && echo 1 >"$hotplug"; then
			touch hotplugged
		fi
		i=$((i + 1))
		sleep 0.7
	done
}


phase() {
	local model=$1 hook=$2 funcs=$3 wrappers=$4 name pids=() w
	name=$model-$hook
	((wrappers == 0)) || name+=-wrappers
	[[ $model == current ]] || echo "$model" >$preempt
	rm -f stop hotplugged
	sync
	BHSCOPE_LRU_HOOK_WRAPPERS=$wrappers lru_start "$name.json" -C -d $LRU_DEV \
		--whatif 64 --trace "$name.trace" --hook "$hook" 3600 1
	"$bin/bhvm-oracle" "$bin/oracle.bpf.o" fentry $kdev "$funcs" \
		>"$name.oracle" 2>"$name.oracle.err" &
	local oracle=$!
	LRU_PIDS="$LRU_PIDS $oracle"
	wait_until 30 $oracle grep -q ready "$name.oracle.err" ||
		fail "oracle: $(cat "$name.oracle.err")"
	for ((w = 0; w < tasks; w++)); do
		lru_meta_worker "$w" &
		pids+=($!)
	done
	"$bin/bhvm-mover" bhbench 3 >"$name.mover" &
	local mover=$!
	disturb &
	pids+=($!)
	sleep "$PHASE_SECS"
	# a slow guest may not have come to the hotplug yet: the load goes on
	# until it has (it came in none of 8 phases of one run before)
	if [[ -n $hotplug ]]; then
		wait_until 60 - test -e hotplugged ||
			fail "$name: $hotplug: the CPU did not go offline and back within 60 s"
	fi
	touch stop
	wait "${pids[@]}"
	kill -TERM $mover
	wait $mover
	sync
	kill -INT $oracle
	wait $oracle || fail "oracle exited with $? ($(cat "$name.oracle.err"))"
	lru_stop "$name.json"
	progress "phase $name done"
	check "$name" "$wrappers"
}

# check NAME WRAPPERS: the last report of bhscope lru against the oracle.
# With WRAPPERS, the hooks see only the lookups made through the two
# wrappers: on Debian's 6.12, ext4's go to find_get_block_common from
# elsewhere in fs/buffer.c (44 of 25000 came through the wrappers), so
# block_touch_buffer counts far more hits there; only the lookups, and hits
# never above the kernel's, are compared.
check() {
	local name=$1 wrappers=$2 live oracle sum
	live=$(tail -n 1 "$1.json")
	oracle=$(cat "$1.oracle")
	sum=$(jq -c -n --argjson l "$live" --argjson o "$oracle" '
		($o.calls | add) as $calls | ($o.touches | add) as $touches |
		($l.lost_lookups) as $lost | ($l.unsynced_lookups) as $uns |
		{lookups: ($l.total.lookups + $l.counters.unsynced_nodev),
		 calls: $calls, hits: $l.total.hits, touches: $touches,
		 unsynced: $uns, lost: $lost, oracle_misses: $o.misses,
		 unsynced_share: $l.unsynced_share, lost_share: $l.lost_share,
		 resets: $l.counters.resets, resyncs: $l.counters.resyncs,
		 not_installed: $l.total.not_installed,
		 whatif_above: $l.whatif_above,
		 lookup_diff: (($l.total.lookups + $l.counters.unsynced_nodev) - $calls),
		 hit_diff: ($l.total.hits - $touches),
		 cpu_excess_hits: [range(0; $o.touches | length) as $c |
			(($l.cpus[] | select(.cpu == $c) | .hits) // 0) - $o.touches[$c]] | max}')
	echo "$SERIES $name: $sum"
	cp "$1.json" "$1.oracle" "$VM_EXPORT/" 2>/dev/null || true
	echo "$SERIES $name $sum" >>"$VM_EXPORT/summary.txt"
	lru_check "$name: lookups differ from the oracle's calls by at most lost + the oracle's misses" \
		"(.lookup_diff | fabs) <= .lost + .oracle_misses" "$sum"
	if ((wrappers)); then
		echo "$name: the wrappers saw $(jq .calls <<<"$sum") lookups; block_touch_buffer counted $(jq .touches <<<"$sum") hits in all"
		lru_check "$name: the wrappers were hooked and seen" ".calls > 0" "$sum"
	else
		lru_check "$name: the load made at least $MIN_LOOKUPS lookups" \
			".calls >= $MIN_LOOKUPS" "$sum"
		lru_check "$name: hits differ from block_touch_buffer by at most unsynced + lost" \
			"(.hit_diff | fabs) <= .unsynced + .lost + .oracle_misses" "$sum"
	fi
	lru_check "$name: no CPU has a hit the kernel did not emit there" \
		".cpu_excess_hits <= .oracle_misses" "$sum"
	lru_check "$name: a figure with lost lookups says so, and how exact the curve is" \
		".whatif_above != null and (.lost == 0 or .lost_share > 0)" "$sum"
}

# --lru-timing 32: timed continuously (from 60 on, where the exit proves a
# lookup alone, in windows of 1 s every 60 s, which a phase's setup can
# fill without a lookup)
"$LRU_BHSCOPE" serve --lru --lru-timing 32 -l none --textfile "$PWD" -i 1 2>serve.err &
serve=$!
LRU_PIDS="${LRU_PIDS:-} $serve"
wait_until 30 $serve test -s bhscope.prom || fail "bhscope serve wrote no textfile: $(cat serve.err)"

for model in "${models[@]}"; do
	if [[ $model == full ]]; then
		# fentry programs run preemptible there and lose lookups: auto
		# takes kprobes (which run with preemption off) first
		echo full >$preempt
		probes=$("$LRU_BHSCOPE" lru --probes -j)
		lru_check "full preemption: auto picks kprobes and says why not fentry" \
			'.mode == "kprobe" and (.modes.fentry | test("full preemption"))' "$probes"
	fi
	for set in "${hook_sets[@]}"; do
		IFS=: read -r hook funcs wrappers <<<"$set"
		# the wrappers under the voluntary model only: full preemption
		# hooks them as it does the common function (entry and exit)
		((wrappers == 0)) || [[ $model != full ]] || continue
		phase "$model" "$hook" "$funcs" "$wrappers"
	done
done

kill -0 $serve || fail "bhscope serve died: $(cat serve.err)"
sleep 1.5
grep -q '^bhscope_lru_lost_lookups_total ' bhscope.prom ||
	fail "bhscope serve does not export bhscope_lru_lost_lookups_total"
echo "PASS: bhscope serve stayed attached and exports lost lookups: $(grep '^bhscope_lru_lost_lookups_total ' bhscope.prom)"
if [[ ${BHSCOPE_LRU_DEFERRED:-} == 1 ]]; then
	# the deferred hook, and the exit design it falls back to, time nothing
	! grep -q '^bhscope_lru_lookup_' bhscope.prom ||
		fail "bhscope serve --lru-timing: lookup times exported from the deferred hook"
	echo "PASS: bhscope serve --lru-timing with the deferred hook exports no lookup times"
else
	# --lru-timing: the lookup-time histograms have the hits on ram0
	count=$(awk '$1 == "bhscope_lru_lookup_seconds_count{device=\"ram0\",outcome=\"hit\"}" {print $2}' bhscope.prom)
	[[ -n $count && $count -gt 0 ]] ||
		fail "bhscope serve --lru-timing: no timed hits on ram0 ($(grep -c bhscope_lru_lookup_seconds bhscope.prom) lookup-time lines)"
	grep -q '^bhscope_lru_lookup_timing_info{every="' bhscope.prom ||
		fail "bhscope serve --lru-timing: no bhscope_lru_lookup_timing_info"
	echo "PASS: bhscope serve --lru-timing exports the hits' lookup times ($count timed)"
fi
