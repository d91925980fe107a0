#!/bin/bash
# bhscope sweep over bhtune's lru_size (8, 16, 32) x tasks (1, 2) with the
# metadata workload on a brd ext4: one record per cell with the LRU size it
# ran under, the seeds-shaped table, and lru_size put back afterwards.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

bhscope=$REPO/build/bhscope
ko=$VM_OUT/bhtune/bhtune.ko
[[ -x $bhscope ]] || skip "$bhscope is not built on the host (make)"
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"
[[ -f $ko ]] || skip "no bhtune.ko built for $KVER (tests/vm/bhtune.prep)"
command -v jq > /dev/null || skip "jq is not installed"

events_ko=$VM_OUT/bhtune/bhtune_events.ko
loaded_here=0
events_here=0
unload() {
	if [[ $loaded_here == 0 ]]; then
		[[ $events_here == 0 ]] || rmmod bhtune_events 2>/dev/null || true
		return 0
	fi
	if [[ -e /sys/kernel/livepatch/bhtune/enabled ]]; then
		echo 0 > /sys/kernel/livepatch/bhtune/enabled || true
		for _ in $(seq 50); do
			[[ $(cat /sys/kernel/livepatch/bhtune/transition 2>/dev/null) != 1 ]] && break
			sleep 0.2
		done
	fi
	rmmod bhtune 2>/dev/null || true
	[[ $events_here == 0 ]] || rmmod bhtune_events 2>/dev/null || true
}
# bhtune.ko's tracepoints live in bhtune_events.ko, loaded first.
if [[ -f $events_ko && ! -d /sys/module/bhtune_events ]]; then
	out=$(insmod "$events_ko" 2>&1) ||
		skip "insmod bhtune_events.ko failed on $KVER: $out"
	events_here=1
fi
if [[ ! -d /sys/module/bhtune ]]; then
	out=$(insmod "$ko" 2>&1) || { unload; skip "insmod bhtune.ko failed on $KVER: $out"; }
	loaded_here=1
fi
# A livepatch switches tasks over asynchronously: wait for it.
for _ in $(seq 50); do
	[[ $(cat /sys/kernel/livepatch/bhtune/transition 2>/dev/null || echo 0) == 0 ]] && break
	sleep 0.2
done
[[ -w /sys/module/bhtune/parameters/lru_size ]] ||
	fail "bhtune loaded but /sys/module/bhtune/parameters/lru_size is not writable"
before=$(cat /sys/module/bhtune/parameters/lru_size)

ramdisk_ext4 /mnt/ram0 256
trap 'ramdisk_cleanup /mnt/ram0; unload' EXIT

out=$PWD/sweep
"$bhscope" sweep --lru-size 8,16,32 --tasks 1,2 -r 3 --lru --warmup -o "$out" \
	-- bench meta -D /mnt/ram0 -n 1000 --dir-size 0 > table.txt 2> sweep.err ||
	fail "sweep failed: $(tail -n 5 sweep.err)"
cat table.txt

n=$(find "$out" -name '*.json' | wc -l)
[[ $n -eq 6 ]] || fail "want 6 records, found $n: $(ls "$out")"
for lru in 8 16 32; do
	for t in 1 2; do
		f=$out/lru_size-${lru}_tasks-$t.json
		jq -e --argjson l "$lru" --argjson t "$t" '
			.ok == true and (.runs | length) == 3 and
			.tunables.lru_size == $l and
			.tunables.lru_size_from == "bhtune" and
			.workload.params.tasks == $t and
			.sweep.tunables.lru_size == $l' "$f" > /dev/null ||
			fail "$f does not describe lru_size=$lru tasks=$t"
	done
done
for phase in creation stat removal; do
	grep -q "^$phase, ops/s (% change vs lru_size=8)" table.txt ||
		fail "no $phase table"
done
tables=3
# Where the LRU tracer classifies lookups, each cell has its hit ratio.
if jq -e '.runs[0].lru.total.hit_ratio != null' "$out/lru_size-8_tasks-1.json" > /dev/null; then
	grep -q '^buffer-head LRU hit ratio, %' table.txt || fail "no hit ratio table"
	tables=4
fi
[[ $(grep -cE '^ +[12] +[0-9]' table.txt) -eq $((2 * tables)) ]] ||
	fail "want 2 rows (tasks 1, 2) in each of $tables tables"
after=$(cat /sys/module/bhtune/parameters/lru_size)
[[ $after == "$before" ]] || fail "lru_size is $after after the sweep, was $before"
"$bhscope" compare -q "$out/lru_size-8_tasks-2.json" "$out/lru_size-32_tasks-2.json" ||
	fail "compare of two cells failed"
echo "sweep of 6 cells recorded; lru_size restored to $after"
