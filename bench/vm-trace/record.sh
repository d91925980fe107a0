#!/bin/bash
# vm-timeout: 3600
# make bench, part "trace", in the guest: `bhscope lru --trace` on the LRU
# bench's two workloads (bhbench meta create-heavy and stat-heavy with
# cold caches, 2 tasks x 20000 files, ext4 on brd), then the trace writer
# alone at 1,000,000 lookups/s (lrutrace-pump). The traces, the live
# report's last line and the pump's figures go back through $VM_EXPORT.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

for bin in bhscope bhbench lrutrace lrutrace-pump; do
	[[ -x $REPO/build/$bin ]] || skip "$REPO/build/$bin is not built on the host (make)"
done
BENCH_SMOKE=0
# shellcheck source=/dev/null
[[ -f $VM_OUT/bench.env ]] && . "$VM_OUT/bench.env"
files=20000 pump_s=10
[[ $BENCH_SMOKE == 1 ]] && files=2000 pump_s=3

note() {
	echo "$*"
	echo "NOTE: $*" >"$VM_NOTE"
}

mnt=/mnt/bench
ramdisk_ext4 "$mnt" 512 -N 100000 -E lazy_itable_init=0,lazy_journal_init=0
trap 'exit 143' TERM INT

for w in create stat; do
	opts=("--phases=$w")
	[[ $w == stat ]] && opts+=(--drop-caches)
	"$REPO/build/bhscope" lru --trace "$w.trace" -j 3600 1 >"$w.json" 2>"$w.err" &
	pid=$!
	for _ in $(seq 600); do
		grep -q '^Tracing' "$w.err" && break
		sleep 0.1
	done
	grep -q '^Tracing' "$w.err" || fail "bhscope lru did not start: $(cat "$w.err")"
	note "trace $w: bhbench meta -t 2 -n $files ${opts[*]}"
	"$REPO/build/bhbench" meta -D "$mnt" -t 2 -n "$files" -q -j "${opts[@]}" \
		>"$w.bench.json" || fail "bhbench meta $w"
	kill -INT "$pid"
	wait "$pid" || fail "bhscope lru exited with $?: $(cat "$w.err")"
	cat "$w.err"
	"$REPO/build/lrutrace" stat "$w.trace" >"$w.stat.json"
	cp "$w.trace" "$w.err" "$w.stat.json" "$w.bench.json" "$VM_EXPORT/"
	tail -n 1 "$w.json" >"$VM_EXPORT/$w.json"
done

note "trace writer alone at 1000000 lookups/s for $pump_s s"
"$REPO/build/lrutrace-pump" 1000000 "$pump_s" pump.trace >pump.json ||
	echo "lrutrace-pump: lost lookups or failed (see pump.json)"
cat pump.json
cp pump.json "$VM_EXPORT/"
