#!/bin/bash
# bhtune loads and unloads 20 times while a metadata workload runs: each
# time it takes the LRU over (the kernel's own LRU then stays empty, so no
# lookup bypasses the patch) and hands it back; afterwards the filesystem
# is intact and no buffer_head reference is left behind.
set -euo pipefail
. "$REPO/tests/vm/bhtune.lib"
bht_need
bht_traps

bht_fs 128
bht_load_start "$BHT_MNT/load"
held=0
for ((i = 1; i <= 20; i++)); do
	bht_load
	sleep 0.3
	n=$(bht_p lru_entries)
	k=$(bht_p kernel_lru_entries)
	((k == 0)) || fail "cycle $i: the kernel's own LRU holds $k entries while bhtune owns it"
	held=$((held + n))
	bht_unload
done
bht_load_stop
echo "20 load/unload cycles under load; the module's LRUs held $held entries in all at the checks"
((held > 0)) || fail "the module's LRU never held anything under load"
bht_verify
bht_no_leak
