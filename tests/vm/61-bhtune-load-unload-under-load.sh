#!/bin/bash
# bhtune loads and unloads 20 times while a metadata workload runs: each
# time it takes the LRU over (the kernel's own LRU then stays empty, so no
# lookup bypasses the patch) and hands it back; afterwards the filesystem
# is intact and no buffer_head reference is left behind.
#
# Time: a cycle is two livepatch transitions. Under single-threaded TCG
# that is about 5 s on 6.1, but 25 s on 6.12, whose livepatch core
# rewrites every cond_resched() call site at the start and end of each
# transition (sched_dynamic_klp_enable/disable): hence the long timeout,
# and a note to the host after every cycle. When 20 cycles cannot finish
# within VM_TEST_TIMEOUT the test stops early, says how many cycles it ran,
# and fails; BHT_CYCLES overrides the count.
# vm-timeout: 1200
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps

want=${BHT_CYCLES:-20}
bht_fs 48
bht_load_start "$BHT_MNT/load"
start=$SECONDS
budget=$((${VM_TEST_TIMEOUT:-300} - 60)) # from the test's start; the checks after take ~20 s, more on a loaded host
per=15                                   # a guess until the first cycle is timed
held=0
for ((i = 1; i <= want; i++)); do
	((i > 1)) && per=$(((SECONDS - start + i - 2) / (i - 1)))
	if ((SECONDS + per > budget)); then
		echo "stopping after $((i - 1)) of $want cycles: $per s per cycle, VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-300}"
		break
	fi
	bht_load
	sleep 0.2
	n=$(bht_p lru_entries)
	k=$(bht_p kernel_lru_entries)
	((k == 0)) || fail "cycle $i: the kernel's own LRU holds $k entries while bhtune owns it"
	held=$((held + n))
	bht_unload
	echo "NOTE: 61: cycle $i of $want at $((SECONDS - start)) s" >"${VM_NOTE:-/dev/null}"
done
bht_load_stop
echo "$((i - 1)) load/unload cycles under load in $((SECONDS - start)) s; the module's LRUs held $held entries in all at the checks"
((i > want)) || fail "only $((i - 1)) of $want load/unload cycles fit in VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-300}"
((held > 0)) || fail "the module's LRU never held anything under load"
bht_verify
bht_no_leak
