#!/bin/bash
# CPUs go offline and online under a metadata workload with bhtune loaded:
# a dead CPU's module LRU is emptied (bhtune_invalidate reason cpu_dead),
# and afterwards, with bhtune unloaded, the files written meanwhile read
# back, the filesystem is intact and nothing is leaked.
# (vm-timeout: it follows 62, whose compactions can leave the TCG guest
# crawling for minutes)
# vm-timeout: 600
# vm-also: full
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
cpus_online() {
	local c
	echo 0 >"$BHT_EV/bhtune_invalidate/enable" 2>/dev/null
	for c in $cpus; do echo 1 >"/sys/devices/system/cpu/cpu$c/online" 2>/dev/null; done
	return 0
}
bht_traps cpus_online

cpus=""
for c in /sys/devices/system/cpu/cpu[1-9]*; do
	[[ -w $c/online ]] && cpus+=" ${c##*cpu}"
done
[[ -n $cpus ]] || skip "no CPU that can go offline ($(nproc) CPUs)"

bht_fs 48
bht_load
echo >"$BHT_TR/trace"
echo 1 >"$BHT_EV/bhtune_invalidate/enable"
bht_load_start "$BHT_MNT/load"
for ((round = 1; round <= 4; round++)); do
	sleep 1
	for c in $cpus; do echo 0 >"/sys/devices/system/cpu/cpu$c/online"; done
	sleep 0.5
	for c in $cpus; do echo 1 >"/sys/devices/system/cpu/cpu$c/online"; done
done
sleep 1
bht_load_stop
echo 0 >"$BHT_EV/bhtune_invalidate/enable"
dead=$(grep -c 'reason cpu_dead' "$BHT_TR/trace" || true)
echo "4 rounds of CPUs$cpus offline and online; $dead dead-CPU LRU drains traced"
((dead > 0)) || fail "no dead CPU had its LRU emptied"
bht_unload
bht_verify
bht_no_leak
bht_log_clean
