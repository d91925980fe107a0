#!/bin/bash
# lru_size changes every 100 ms for 30 s across 0..64 while a metadata
# workload runs; each change is logged once; then the filesystem is intact
# and umount leaves no buffer_head reference behind. drop_caches and memory
# compaction (page migration) run in the middle of it. (Under TCG a write
# plus the 100 ms pause takes 0.2-0.5 s, so 30 s hold 60-150 changes; on a
# host busy with other guests, as few as 20.)
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps

bht_fs 48
bht_load
bht_log_mark
bht_load_start "$BHT_MNT/load"
n=0 prev=$(bht_p lru_size) seen=""
end=$((SECONDS + 30))
while ((SECONDS < end)); do
	v=$(((n * 37 + 5) % 65)) # visits every value of 0..64, never twice in a row
	[[ $v == "$prev" ]] && v=$(((v + 1) % 65))
	bht_set lru_size "$v"
	prev=$v
	seen+=" $v"
	n=$((n + 1))
	if ((n % 40 == 20)); then
		echo 3 >/proc/sys/vm/drop_caches
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null || true
	fi
	sleep 0.1
done
bht_load_stop
logged=$(bht_log_since | grep -c 'bhtune: lru_size ' || true)
distinct=$(tr ' ' '\n' <<<"$seen" | grep . | sort -u | wc -l)
echo "$n lru_size changes in 30 s ($distinct distinct values), $logged logged"
((n >= 10)) || fail "only $n changes in 30 s"
((logged == n)) || fail "$n changes but $logged log lines"
((distinct == (n < 65 ? n : 65))) || fail "$distinct distinct values in $n changes"
bht_set lru_size 16
bht_verify
bht_no_leak
bht_unload
