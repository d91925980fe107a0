#!/bin/bash
# Busy map readers must not make jbd2 figures silently short. A reader
# pinned on each CPU copies a per-CPU array by system call, holding the
# CPU's bpf_prog_active (preemptibly under preempt=full); beside them, 4
# dirsync fs_mark writers commit hundreds of transactions, traced by the
# three hooks at once. The kernel's own count (/proc/fs/jbd2/<dev>/info,
# which shares no code with the probes) is the oracle. With the default
# hook (BTF tracepoints, which that guard does not stop) and with raw
# tracepoints bhscope must count every transaction or report it among its
# lost events; with classic tracepoints it must count no more than the
# kernel, and what it misses must be within its lost events, or lost must
# be unknown (null) on a kernel that does not count them (before 6.7).
# vm-also: full rt cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

bin=$VM_OUT/bpf-count
[[ -x $bin/bhvm-mapread ]] || fail "$bin/bhvm-mapread missing: bpf-count.prep did not run"
command -v fs_mark >/dev/null || skip "fs_mark is not installed (make deps)"
declare -A pid_of=()	# the tracers, by hook
stop_all() {
	map_readers_stop
	kill "${pid_of[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
}
# initialised at mkfs: no ext4lazyinit commits beside the workload's
ramdisk_ext4 "$PWD/mnt" 64 -E lazy_itable_init=0,lazy_journal_init=0
trap 'stop_all; ramdisk_cleanup "$PWD/mnt"' EXIT # after ramdisk_ext4's
umount mnt # a remount cannot set dirsync
mount -t ext4 -o dirsync /dev/ram0 mnt || fail "mount -o dirsync"
info=/proc/fs/jbd2/ram0-8/info
[[ -r $info ]] || fail "no $info"
sync

transactions() { awk 'NR == 1 {print $1}' "$info"; }

# The three hooks trace one 300-file run side by side (each tracer's own
# programs: the BTF and raw ones have their own recursion guards, the
# classic ones are stopped by the readers' bpf_prog_active alone, not by
# each other's, which run one after another). start HOOK; workload sets
# KTX (the kernel's count over the run); result HOOK sets TX and LOST
# (bhscope: a number or null).
start() {
	local hook=$1
	"$REPO/build/bhscope" jbd2 --hook="$hook" -j -d ram0 3600 >"jbd2-$hook.json" 2>"jbd2-$hook.err" &
	pid_of[$hook]=$!
	wait_until 60 "${pid_of[$hook]}" grep -q Tracing "jbd2-$hook.err" ||
		fail "bhscope jbd2 --hook=$hook did not start: $(cat "jbd2-$hook.err")"
}
workload() {
	local before
	# nothing left to commit: no commit but the workload's from here on
	sync
	before=$(transactions)
	fs_mark -d mnt/a -d mnt/b -d mnt/c -d mnt/d \
		-t 1 -n 75 -s 0 -S 0 -L 1 >/dev/null || fail "fs_mark failed"
	sync # its last transaction committed, and counted
	KTX=$(($(transactions) - before))
}
result() {
	local hook=$1
	kill -INT "${pid_of[$hook]}"
	wait "${pid_of[$hook]}" || fail "bhscope jbd2 --hook=$hook failed: $(cat "jbd2-$hook.err")"
	TX=$(jq -r '[.devices[] | select(.dev == "1:0") | .transactions] | add // 0' "jbd2-$hook.json" | tail -n 1)
	LOST=$(jq -r '.lost_events' "jbd2-$hook.json" | tail -n 1)
	echo "$hook: $(jq -r .probes.events.source "jbd2-$hook.json" | tail -n 1): $TX transactions, lost $LOST; the kernel: $KTX"
}

for hook in auto raw tracepoint; do
	start $hook
done
# the readers run through the workload: started once the tracers are
# attached (their loads crawl beside them under TCG), stopped after it
map_readers "$bin/bhvm-mapread"
workload
map_readers_stop
((KTX >= 75)) || fail "only $KTX transactions: the workload did not commit as expected"

result auto
jq -e '.probes.events.source | startswith("tp_btf")' "jbd2-auto.json" >/dev/null ||
	fail "the default hook is not BTF tracepoints here: $(BHSCOPE_DEBUG=1 "$REPO/build/bhscope" jbd2 --hook=btf -d ram0 1 1 2>&1 | grep -v '^libbpf: \(loading\|elf\|sec\|map\|prog\|CO-RE\|struct_ops\)' | tail -n 25)"
# the map readers' guard does not stop them; a rare recursion (seen under
# preempt=full) may, and is counted: every transaction counted or lost
[[ $LOST != null ]] || fail "BTF tracepoints: lost is unknown, the kernel counts their misses"
((TX <= KTX && TX + LOST >= KTX)) ||
	fail "bhscope counted $TX transactions and $LOST lost events, the kernel $KTX"
((LOST > 0 || TX == KTX)) || fail "bhscope counted $TX transactions, the kernel $KTX, with 0 lost"
# Each sync handle's stop is timed from its own entry: the kernel sleeps at
# most max_batch_time (15 ms) there, so no stop takes a second (an exit
# paired with an older entry of its thread would).
batch=$(jq -c '[.devices[] | select(.dev == "1:0")] | first
	| {stops: .batch_sleep.sync_stops,
	   longest: ([.batch_sleep.us_hist[]?.high] | max // 0)}' "jbd2-auto.json" | tail -n 1)
echo "batching sleeps: $batch"
if [[ $(jq -r '.stops' <<<"$batch") != null ]]; then
	jq -e '.stops > 0 and .longest < 1000000' <<<"$batch" >/dev/null ||
		fail "the batching sleep is timed wrong: $batch"
fi

# Raw tracepoints: no perf event and no bpf_prog_active guard either, and
# their skipped runs are counted: every transaction counted or lost.
result raw
jq -e '.probes.events.source | startswith("raw_tp")' "jbd2-raw.json" >/dev/null ||
	fail "--hook=raw did not attach raw tracepoints: $(jq -c .probes "jbd2-raw.json" | tail -n 1)"
[[ $LOST != null ]] || fail "raw tracepoints: lost is unknown, the kernel counts their misses"
((TX <= KTX && TX + LOST >= KTX)) ||
	fail "raw tracepoints: bhscope counted $TX transactions and $LOST lost events, the kernel $KTX"

result tracepoint
((TX <= KTX)) || fail "classic tracepoints: $TX transactions, more than the kernel's $KTX"
if [[ $LOST == null ]]; then
	timeout 120 "$REPO/build/bhscope" jbd2 --hook=tracepoint -d ram0 1 1 >jbd2-text.out 2>&1 || true
	grep -q 'lost: unknown' jbd2-text.out ||
		fail "lost is null in JSON but the text report does not say lost: unknown: $(cat jbd2-text.out)"
else
	((TX + LOST >= KTX)) ||
		fail "classic tracepoints: $TX transactions + $LOST lost events < the kernel's $KTX: runs skipped without a count"
fi
echo "PASS: beside busy map readers, every transaction counted or its loss reported"
