#!/bin/bash
# The hit ratio counted from bhtune's own tracepoint with bpftrace is 0 at
# lru_size=0 and does not fall as lru_size grows (4, 8, 16, 32, 64) on the
# same metadata workload; prints the table with the workload's files/s.
set -euo pipefail
. "$REPO/tests/vm/bhtune.lib"
bht_need
command -v bpftrace >/dev/null || skip "bpftrace is not installed"
# shellcheck disable=SC2016 # expanded when the trap runs
bht_traps '[[ -n ${bt:-} ]] && kill -INT "$bt" 2>/dev/null'

bht_fs 128
bht_load
dev=$((0x$(stat -c %t "$BHT_DEV") << 20 | 0x$(stat -c %T "$BHT_DEV"))) # kernel dev_t

# One bpftrace for all sizes: each lookup carries the lru_size it ran with.
bpftrace -e "tracepoint:bhtune:bhtune_lookup /args->dev == $dev/ {
	@lookups[args->lru_size] = count();
	if (args->slot >= 0) { @hits[args->lru_size] = count(); }
}" >bt.out 2>bt.err &
bt=$!
for ((i = 0; i < 1200; i++)); do
	grep -q '^Attaching' bt.out && break
	kill -0 "$bt" 2>/dev/null || { cat bt.err; fail "bpftrace died"; }
	sleep 0.1
done
grep -q '^Attaching' bt.out || fail "bpftrace did not attach in 120 s"

sizes="0 4 8 16 32 64"
declare -A files
for s in $sizes; do
	bht_set lru_size "$s"
	# Same work each time, on one CPU: the LRU is per CPU.
	files[$s]=$(taskset -c 0 fs_mark -d "$BHT_MNT/h$s" -t 1 -n 300 -s 0 -S 0 -L 1 |
		awk '/^ *[0-9]/ {print int($4)}')
	taskset -c 0 rm -rf "$BHT_MNT/h$s"
	sync
done
kill -INT "$bt"
wait "$bt" || true
bt=

printf '%8s %10s %10s %9s %9s\n' lru_size lookups hits "hit %" files/s
prev=-1
for s in $sizes; do
	l=$(awk -v s="$s" '$1 == "@lookups[" s "]:" {print $2}' bt.out)
	h=$(awk -v s="$s" '$1 == "@hits[" s "]:" {print $2}' bt.out)
	l=${l:-0} h=${h:-0}
	((l > 1000)) || fail "only $l lookups traced at lru_size=$s"
	r=$((h * 10000 / l)) # basis points
	printf '%8s %10s %10s %6d.%02d %9s\n' "$s" "$l" "$h" $((r / 100)) $((r % 100)) "${files[$s]}"
	if ((s == 0)); then
		((h == 0)) || fail "$h hits at lru_size=0"
	else
		# 1 point of slack: the runs are the same work, not the same stream
		((r + 100 >= prev)) || fail "hit ratio fell from lru_size $ps to $s"
	fi
	prev=$r ps=$s
done
bht_set lru_size 16
bht_verify
bht_unload
bht_no_leak
