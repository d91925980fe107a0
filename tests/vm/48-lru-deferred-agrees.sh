#!/bin/bash
# The deferred hook (BHSCOPE_LRU_DEFERRED=1: one fentry program per
# lookup, which classifies the lookup before it on its CPU from the change
# that one left in the LRU) against the exit design (fexit, and the entry
# where a lookup may sleep), attached at once to the same lookups. They
# share the shadow's helpers, not the step that decides an outcome: the
# exit reads the lookup's return value, the deferred hook never does.
#
# 1. A workload whose answer is known in advance (31's): per pass 8 hits
#    in slot 7 and 20 installed misses. Both hooks must give it, with the
#    same what-if curve; the deferred hook may leave at most one lookup a
#    CPU unsynced where a task switch came between a lookup and the read.
# 2. A busy host (38's load: more metadata tasks than CPUs, moved between
#    CPUs every few ms, blockdev --flushbufs, move_pages(2) in a loop,
#    which opens lru_cache_disable() windows, and a CPU taken offline and
#    back). Oracles that share no code with either hook: fentry counts of
#    the lookup's calls, and block:block_touch_buffer's hits, per CPU.
#    Each outcome of the deferred hook must be the exit design's within
#    what either reports unsynced or lost; it never calls a lookup absent
#    that the exit saw found (not installed), and counts no hit the kernel
#    did not emit on that CPU.
# 3. The preemption model switched to full while it runs: the exit design
#    takes over, and the lookups in between are counted lost or unsynced.
# vm-timeout: 900
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

PASSES=20
PHASE_SECS=${LRU_PHASE_SECS:-4}
lru_need_tools
lru_need_oracle
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"
command -v blockdev >/dev/null || skip "blockdev is not installed on the host"
command -v python3 >/dev/null || skip "python3 is not installed on the host"
preempts_kernel &&
	skip "the deferred hook is for the models that preempt no kernel code"
ncpu=$(nproc)
export BHSCOPE_LRU_DEFERRED=1


LRU_RAM_MB=256
lru_ext4 "$PWD/mnt"
kdev=$(lru_kdev)
preempt=/sys/kernel/debug/sched/preempt
hotplug=/sys/devices/system/cpu/cpu$((ncpu - 1))/online
[[ -w $hotplug ]] || hotplug=
restore() {
	[[ -n ${initial_model:-} ]] && echo "$initial_model" >$preempt 2>/dev/null
	[[ -n $hotplug ]] && echo 1 >"$hotplug" 2>/dev/null
	lru_cleanup
}
trap restore EXIT

# both: the exit design (e.json) and the deferred hook (d.json) at once
both_start() {
	BHSCOPE_LRU_DEFERRED=0 lru_start "$1-e.json" -C -d $LRU_DEV "${@:2}"
	E_PID=$LRU_PID
	lru_start "$1-d.json" -C -d $LRU_DEV "${@:2}"
	D_PID=$LRU_PID
	grep -q ', deferred)' "$1-d.json.err" ||
		fail "BHSCOPE_LRU_DEFERRED=1 did not pick the deferred hook: $(cat "$1-d.json.err")"
	grep -q ', deferred)' "$1-e.json.err" &&
		fail "BHSCOPE_LRU_DEFERRED=0 picked the deferred hook"
	true
}
both_stop() {
	LRU_PID=$D_PID lru_stop "$1-d.json"
	LRU_PID=$E_PID lru_stop "$1-e.json"
}

# --- 1. the known answer ---
lru_known_dirs
lru_known_passes 2
both_start known --whatif 32 --hook fentry 3600 1
lru_known_passes $PASSES
both_stop known
e=$(lru_cpu known-e.json)
d=$(lru_cpu known-d.json)
want=$((28 * PASSES))
lru_check "exit design: the known answer" \
	".lookups == $want and .hits >= 8 * ($PASSES - 1) and .slots[7] == .hits and .unsynced == 0" "$e"
lru_check "deferred: every lookup counted, at most one unsynced at the read" \
	".lookups == $want and .unsynced <= 1" "$d"
pair=$(jq -c -n --argjson e "$e" --argjson d "$d" '{e: $e, d: $d}')
lru_check "deferred: the exit's hits in the same slots, and its installs but the one at the read" \
	'.d.hits == .e.hits and .d.slots == .e.slots and
	 .d.installed + .d.unsynced == .e.installed and .d.absent == .e.absent' "$pair"
lru_check "deferred: the same what-if curve (one unsynced lookup at most moves it)" \
	'[range(0; .e.whatif.hit_ratio | length) as $i |
	  (.d.whatif.hit_ratio[$i] * (.d.lookups - .d.unsynced) - .e.whatif.hit_ratio[$i] * .e.lookups) | fabs] |
	 max <= 1.001' "$pair"
echo "known: exit $(jq -c '{lookups, hits, installed, unsynced}' <<<"$e"), deferred $(jq -c '{lookups, hits, installed, unsynced}' <<<"$d")"

# --- 1b. the known answer, this CPU's LRU emptied after every batch ---
# By the drain work (compact_memory begins with lru_add_drain_all(), whose
# work empties each LRU on its CPU: invalidate_bh_lrus_cpu()), then by the
# IPI (blockdev --flushbufs: invalidate_bh_lrus()). Either way the lookup
# pending there is settled first, against the LRU it left (the batch's
# last lookup installs, so its front moved, as the IPI's settle needs):
# none is unsynced, where an emptying seen only at the next entry would
# leave one a batch. (--flushbufs also drops the blocks from the page
# cache: a batch's first listings then look each block up twice, absent
# and found, so only its hits keep the known answer.)
BATCHES=6
# emptied NAME COUNTER LOOKUPS COMMAND...: the known answer beside COMMAND
# after every batch, which COUNTER (the report's) must count; LOOKUPS: a
# jq test of the exit design's lookups
emptied() {
	local name=$1 counter=$2 lookups=$3 n e d pair
	shift 3
	both_start "$name" --whatif 32 --hook fentry 3600 1
	for ((i = 0; i < BATCHES; i++)); do
		lru_known_passes 2
		"$@"
	done
	both_stop "$name"
	e=$(lru_cpu "$name-e.json")
	d=$(lru_cpu "$name-d.json")
	n=$(tail -n 1 "$name-d.json" | jq ".counters.$counter")
	echo "$name, $counter $n: exit $(jq -c '{lookups, hits, installed, unsynced}' <<<"$e"), deferred $(jq -c '{lookups, hits, installed, unsynced}' <<<"$d")"
	((n >= BATCHES)) || fail "$name: $counter $n, not one after each of $BATCHES batches"
	lru_check "$name: the exit design's known answer" \
		"$lookups and .hits == 8 * 2 * $BATCHES and .slots[7] == .hits and .unsynced == 0" "$e"
	pair=$(jq -c -n --argjson e "$e" --argjson d "$d" '{e: $e, d: $d}')
	lru_check "$name: the deferred hook settles before each emptying, none unsynced" \
		'.d.lookups == .e.lookups and .d.unsynced == 0 and .d.hits == .e.hits and
		 .d.slots == .e.slots and .d.installed == .e.installed and .d.absent == .e.absent' "$pair"
}
compact() { echo 1 >/proc/sys/vm/compact_memory; }
emptied drained invalidate_bh_lrus_cpu ".lookups == $((28 * 2 * BATCHES))" compact
emptied flushed invalidate_bh_lrus ".lookups >= $((28 * 2 * BATCHES))" \
	blockdev --flushbufs /dev/$LRU_DEV

# --- 2. a busy host ---
tasks=$((2 * ncpu + 3))
bin=$VM_OUT/bpf-count
disturb() {
	local i=0
	while [[ ! -e stop ]]; do
		blockdev --flushbufs /dev/$LRU_DEV || true
		if ((i == 1)) && [[ -n $hotplug ]] &&
			echo 0 >"$hotplug" && sleep 1 && echo 1 >"$hotplug"; then
			touch hotplugged
		fi
		i=$((i + 1))
		sleep 0.7
	done
}
# move_pages(2) of 1024 pages to node 0, where they are, in a loop, at a
# higher priority than the load (else few windows open under TCG):
# do_pages_move() holds lru_cache_disable() around each call (and empties
# every LRU as it begins), so found bhs are not installed meanwhile
mover_of_pages() {
	nice -n -10 python3 - <<'EOF'
import ctypes, mmap, os, time
libc = ctypes.CDLL(None, use_errno=True)
N = 1024
buf = mmap.mmap(-1, 4096 * N)
for i in range(N):
    buf[i * 4096] = 1
base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
pages = (ctypes.c_void_p * N)(*[base + 4096 * i for i in range(N)])
nodes = (ctypes.c_int * N)(*([0] * N))
status = (ctypes.c_int * N)()
while not os.path.exists("stop"):
    libc.syscall(279, 0, N, pages, nodes, status, 0)
    time.sleep(0.01)
EOF
}
rm -f stop hotplugged
sync
both_start busy --whatif 64 --hook fentry 3600 1
: >busy.oracle.err
"$bin/bhvm-oracle" "$bin/oracle.bpf.o" fentry "$kdev" "$(bh_lookup_func)" \
	>busy.oracle 2>busy.oracle.err &
oracle=$!
LRU_PIDS="$LRU_PIDS $oracle"
wait_until 30 $oracle grep -q ready busy.oracle.err || fail "oracle: $(cat busy.oracle.err)"
pids=()
for ((w = 0; w < tasks; w++)); do
	lru_meta_worker "$w" &
	pids+=($!)
done
"$bin/bhvm-mover" bhbench 3 >busy.mover &
mover=$!
disturb &
pids+=($!)
mover_of_pages &
pids+=($!)
sleep "$PHASE_SECS"
if [[ -n $hotplug ]]; then
	wait_until 60 - test -e hotplugged ||
		fail "$hotplug: the CPU did not go offline and back within 60 s"
fi
touch stop
wait "${pids[@]}"
kill -TERM $mover
wait $mover
sync
kill -INT $oracle
wait $oracle || fail "oracle exited with $? ($(cat busy.oracle.err))"
both_stop busy
sum=$(jq -c -n --argjson e "$(tail -n 1 busy-e.json)" --argjson d "$(tail -n 1 busy-d.json)" \
	--argjson o "$(cat busy.oracle)" --argjson ncpu "$ncpu" '
	($o.calls | add) as $calls | ($o.touches | add) as $touches |
	def slack: .lost_lookups + .unsynced_lookups + .counters.unsynced_nodev;
	{calls: $calls, touches: $touches, oracle_misses: $o.misses,
	 e: ($e.total | {lookups, hits, installed, not_installed, absent, unsynced}),
	 d: ($d.total | {lookups, hits, installed, not_installed, absent, unsynced}),
	 e_lost: $e.lost_lookups, d_lost: $d.lost_lookups,
	 slack: (($e | slack) + ($d | slack) + $ncpu + $o.misses),
	 d_unsynced_share: $d.unsynced_share, e_unsynced_share: $e.unsynced_share,
	 d_lookup_diff: ($d.total.lookups + $d.counters.unsynced_nodev + $d.lost_lookups - $calls),
	 d_cpu_excess_hits: [range(0; $o.touches | length) as $c |
		(($d.cpus[] | select(.cpu == $c) | .hits) // 0) - $o.touches[$c]] | max}')
echo "busy: $sum"
cp busy-e.json busy-d.json busy.oracle "$VM_EXPORT/" 2>/dev/null || true
lru_check "busy: the load made lookups, and found bhs not installed (lru_cache_disable windows)" \
	'.calls >= 3000 and .e.not_installed > 0' "$sum"
lru_check "busy: deferred lookups + lost are the oracle's calls, but one a CPU at the read" \
	"(.d_lookup_diff | fabs) <= $ncpu + .oracle_misses" "$sum"
lru_check "busy: deferred hits, installs and misses are the exit's within either's unsynced and lost" \
	'((.d.hits - .e.hits) | fabs) <= .slack and
	 ((.d.installed - .e.installed) | fabs) <= .slack and
	 ((.d.absent - .e.absent) | fabs) <= .slack' "$sum"
lru_check "busy: deferred never says not installed, nor absent beyond the exit's absent" \
	'.d.not_installed == 0 and .d.absent <= .e.absent + .slack' "$sum"
lru_check "busy: deferred hits are block_touch_buffer's within its unsynced and lost" \
	'.d.hits <= .touches + .oracle_misses and .touches - .d.hits <= .slack and .d_cpu_excess_hits <= .oracle_misses' "$sum"

# --- 3. the preemption model switched while it runs ---
if [[ -w $preempt ]]; then
	initial_model=$(grep -o '([a-z]*)' $preempt | tr -d '()')
	lru_start switch.json -C -d $LRU_DEV --hook fentry 1
	: >switch.oracle.err
	"$bin/bhvm-oracle" "$bin/oracle.bpf.o" fentry "$kdev" "$(bh_lookup_func)" \
		>switch.oracle 2>switch.oracle.err &
	oracle=$!
	LRU_PIDS="$LRU_PIDS $oracle"
	wait_until 30 $oracle grep -q ready switch.oracle.err ||
		fail "oracle: $(cat switch.oracle.err)"
	lru_list_cfs "$PWD/mnt/a" 100
	echo full >$preempt
	# found at the next read (each second): the exit design then counts
	sleep 1.5
	lru_list_cfs "$PWD/mnt/a" 50
	kill -INT $oracle
	wait $oracle || fail "oracle: $(cat switch.oracle.err)"
	lru_stop switch.json
	echo "$initial_model" >$preempt
	grep -q 'replace the deferred hook' switch.json.err ||
		fail "no word of the switch: $(cat switch.json.err)"
	# one report a second: their sum is the run
	sum=$(jq -s -c --argjson o "$(cat switch.oracle)" '
		{calls: ($o.calls | add), touches: ($o.touches | add), oracle_misses: $o.misses,
		 lookups: (map(.total.lookups + .counters.unsynced_nodev) | add),
		 hits: (map(.total.hits) | add), lost: (map(.lost_lookups) | add),
		 unsynced: (map(.unsynced_lookups) | add)}' switch.json)
	echo "switch: $sum"
	lru_check "switch: lookups + lost are the oracle's calls" \
		"((.lookups + .lost - .calls) | fabs) <= $ncpu + .oracle_misses" "$sum"
	lru_check "switch: hits no more than the kernel's, the rest within unsynced and lost" \
		'.hits <= .touches + .oracle_misses and .touches - .hits <= .unsynced + .lost + .oracle_misses' "$sum"
fi
