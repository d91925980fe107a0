#!/bin/bash
# With bhtune loaded, the filesystem is unmounted and mounted 10 times
# around a metadata workload: every umount empties the module's LRU (it
# only ever held this device's buffers), the filesystem stays intact and,
# with the block device kept open, umount + flushbufs frees every buffer.
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps

bht_fs 48
bht_load
for ((i = 1; i <= 10; i++)); do
	fs_mark -d "$BHT_MNT/c$i" -t 2 -n 100 -s 512 -S 0 -L 1 >>fsmark.log
	rm -rf "$BHT_MNT/c$i"
	n=$(bht_p lru_entries)
	((n > 0)) || fail "cycle $i: the module's LRU is empty after a workload"
	umount "$BHT_MNT"
	left=$(bht_p lru_entries)
	((left == 0)) || fail "cycle $i: $left LRU entries survived umount"
	mount -t ext4 "$BHT_DEV" "$BHT_MNT" || fail "cycle $i: mount"
done
echo "10 umount/mount cycles: the LRU held entries before each umount and none after"
bht_verify
bht_no_leak
bht_unload
