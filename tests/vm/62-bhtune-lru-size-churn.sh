#!/bin/bash
# lru_size changes every 100 ms for 20 s (and at least 20 times) across
# 0..64 while lookups run on every CPU; each change is logged once. drop_caches and memory compaction
# (page migration, which must get the buffer pages bhtune's LRU holds out
# of the way through invalidate_bh_lrus) run in the middle of it, and
# compaction must really scan pages. Then, with bhtune unloaded, the files
# written meanwhile read back after a remount, e2fsck -fn is clean and
# umount leaves no buffer_head reference behind. (Under TCG a write plus
# the 100 ms pause takes 0.1-0.3 s, so 20 s hold 60-170 changes; on a host
# busy with other guests, as few as 8: then it goes on past 20 s.)
# (vm-timeout: a TCG guest can crawl for minutes after a compaction, most
# under a busy host: such a stretch delays the test instead of failing it)
# vm-timeout: 900
# vm-also: full
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps "echo 0 >$BHT_EV/bhtune_invalidate/enable 2>/dev/null"

vmstat() { awk -v k="$1" '$1 == k {print $2}' /proc/vmstat; }
bht_fs 48
bht_load
bht_log_mark
echo >"$BHT_TR/trace"
echo 1 >"$BHT_EV/bhtune_invalidate/enable"
bht_load_start "$BHT_MNT/load"
progress "load started"
scanned0=$(vmstat compact_migrate_scanned) migrated0=$(vmstat pgmigrate_success)
n=0 compactions=0 prev=$(bht_p lru_size) seen=""
# the pause without an exec: after drop_caches every exec reads its binary
# again over the VM's shared root
mkfifo tick
exec {tick}<>tick
start=$SECONDS end=$((SECONDS + 20)) min=20
stop_at=$((${VM_TEST_TIMEOUT:-300} - 90)) # the checks after need up to a minute
while ((SECONDS < end || (n < min && SECONDS < stop_at))); do
	v=$(((n * 37 + 5) % 65)) # visits every value of 0..64, never twice in a row
	[[ $v == "$prev" ]] && v=$(((v + 1) % 65))
	bht_set lru_size "$v"
	prev=$v
	seen+=" $v"
	n=$((n + 1))
	if ((n % 40 == 5)); then
		echo 3 >/proc/sys/vm/drop_caches
		echo 1 >/proc/sys/vm/compact_memory || fail "writing compact_memory failed"
		compactions=$((compactions + 1))
	fi
	read -rt 0.1 -u "$tick" || true
done
exec {tick}<&-
took=$((SECONDS - start))
progress "$n changes made"
bht_load_stop
progress "load stopped"
echo 0 >"$BHT_EV/bhtune_invalidate/enable"
scanned=$(($(vmstat compact_migrate_scanned) - scanned0))
migrated=$(($(vmstat pgmigrate_success) - migrated0))
drains=$(grep -c 'reason invalidate' "$BHT_TR/trace" || true)
logged=$(bht_log_since | grep -c 'bhtune: lru_size ' || true)
distinct=$(tr ' ' '\n' <<<"$seen" | grep . | sort -u | wc -l)
echo "$n lru_size changes in $took s ($distinct distinct values), $logged logged"
echo "$compactions compactions: $scanned pages scanned for migration, $migrated migrated; bhtune's LRU emptied by invalidate_bh_lrus $drains times"
((n >= min)) || fail "only $n changes in $took s"
((logged == n)) || fail "$n changes but $logged log lines"
((distinct == (n < 65 ? n : 65))) || fail "$distinct distinct values in $n changes"
((compactions > 0 && scanned > 0)) || fail "compaction did not scan a page ($compactions runs)"
bht_unload
progress "unloaded"
bht_verify
progress "files verified"
bht_no_leak
bht_log_clean
