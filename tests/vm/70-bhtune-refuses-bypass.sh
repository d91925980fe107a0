#!/bin/bash
# A lookup that bypasses the patch (a caller with its own inlined copy of a
# replaced function) fills the kernel's own LRU while bhtune owns it.
# bhtune must then refuse to stay: say why, disable its own patch (every
# lookup back on the kernel's code), come out with rmmod, and leave no
# buffer_head reference and an intact filesystem behind. The bypass is
# made through debugfs bhtune/inject_bypass: the front entry of a CPU's
# bhtune LRU put in the kernel's LRU too, with its own reference.
# vm-also: cloud
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps
debugfs=/sys/kernel/debug
mountpoint -q $debugfs || mount -t debugfs none $debugfs || skip "no debugfs"
inject=$debugfs/bhtune/inject_bypass
bht_fs 16
bht_load
[[ -w $inject ]] || fail "bhtune made no $inject"
k=$(bht_p kernel_lru_entries)
((k == 0)) || fail "the kernel's LRU holds $k entries before the injection"

# CPU 0's bhtune LRU gets entries (inode table blocks, read again once
# the inodes left the cache), then one goes to the kernel's LRU; a drain
# in between (memory compaction, say) empties it: try again.
injected=0
for ((i = 0; i < 20 && !injected; i++)); do
	echo 2 >/proc/sys/vm/drop_caches
	taskset -c 0 bash -c 'ls -l "$1" >/dev/null && echo 1 >"$2"' _ "$BHT_MNT/data" "$inject" 2>inject.err &&
		injected=1
done
((injected)) || fail "nothing to inject on CPU 0 in 20 tries: $(cat inject.err)"
k=$(bht_p kernel_lru_entries)
((k >= 1)) || fail "the injected entry is not in the kernel's LRU ($k entries)"
echo "injected: the kernel's LRU holds $k entries while bhtune owns it"

# Any drain finds it: here the one that a resize makes.
bht_set lru_size 8
bht_wait_gone
line=$(bht_log_after "$BHT_LOG_START" | grep -m1 'bhtune: .*bypass the patch') ||
	fail "bhtune disabled itself without saying why"
echo "kernel log: ${line#*] }"
grep -q 'disables itself' <<<"$line" || fail "the log line does not say bhtune disables itself"
rmmod bhtune || fail "rmmod bhtune after it disabled itself"
echo "bhtune disabled its patch by itself; rmmod removed it"

bht_verify
bht_no_leak
bht_log_clean 'bhtune: .*bypass the patch'
