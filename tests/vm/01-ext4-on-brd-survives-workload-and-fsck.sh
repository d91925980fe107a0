#!/bin/bash
# ext4 on a brd ramdisk mounts, takes a create/fsync/remove workload that
# leaves the expected files behind, and then passes e2fsck -fn.
# vm-also: cloud
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"

mnt=/mnt/ram0 # short: fs_mark wants directory names under 40 bytes
ramdisk_ext4 "$mnt" 64

# fs_mark: 2 threads x 200 files of 4 KiB, fsync each, keep them (-k).
# It writes its log to the current directory, which is RAM here.
fs_mark -d "$mnt/fsm" -t 2 -n 200 -s 4096 -k -S 1 -L 1
mkdir "$mnt/tree"
for i in $(seq 1 50); do
	echo "$i" >"$mnt/tree/f$i"
done
rm "$mnt"/tree/f1?
sync

files=$(find "$mnt/fsm" -type f | wc -l)
left=$(find "$mnt/tree" -type f | wc -l)
echo "fs_mark files: $files, tree files: $left"
((files == 400)) || fail "fs_mark left $files files, expected 400"
((left == 40)) || fail "tree has $left files, expected 40"

umount "$mnt"
e2fsck -fn /dev/ram0 || fail "e2fsck -fn found problems"
