#!/usr/bin/env bash
# tests/lib/loopfs.sh, the one helper that makes ext4 on a loop device:
# what it makes works (mounted with the options asked, the mkfs options
# applied), and whichever way it ends (umount, detach, a failing mkfs or
# mount, SIGTERM while it works, a busy filesystem) no mount, loop device
# or backing file of it is left. Its devices are told apart from other
# users' by their own backing-file prefix.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root

loopfs=tests/lib/loopfs.sh
export LOOPFS_PREFIX=/dev/shm/bhscope-loopfs-test$$.
mnt=$(mktemp -d /tmp/bhscope-loopfs-test.XXXXXX)
on_exit "rmdir '$mnt'"
# Whatever a failing check leaves, with the prefix, is undone at exit.
ours() { losetup -n -l -O NAME,BACK-FILE | awk -v p="$LOOPFS_PREFIX" 'index($2, p) == 1 { print $1 }'; }
on_exit 'for d in $(ours); do umount -l "$(findmnt -n -o TARGET --source "$d" | head -n 1)" 2>/dev/null; losetup -d "$d"; done'

nothing_left() {
	[[ -z $(ours) ]] && ! mountpoint -q "$mnt" &&
		! compgen -G "$LOOPFS_PREFIX*" > /dev/null
}

dev=$("$loopfs" mount -o dirsync,noatime 32 "$mnt" -b 4096 -N 1000)
check mount_prints_its_device test -b "$dev"
check mounted_with_the_options bash -c "findmnt -n -o SOURCE,OPTIONS '$mnt' |
	grep -qE '^$dev .*noatime.*dirsync'"
check mkfs_options_applied bash -c "dumpe2fs -h '$dev' 2> /dev/null |
	grep -qE '^Block size: +4096\$' && dumpe2fs -h '$dev' 2> /dev/null |
	grep -qE '^Inode count: +10[0-9][0-9]\$'"
check no_backing_file_in_dev_shm bash -c "! compgen -G '$LOOPFS_PREFIX*'"
"$loopfs" umount "$mnt"
check umount_leaves_nothing nothing_left

dev=$("$loopfs" mkfs 32)
check mkfs_leaves_it_unmounted bash -c "! findmnt -n --source '$dev'"
mount "$dev" "$mnt"
"$loopfs" detach "$dev"
check detach_unmounts_and_detaches nothing_left

rc=0
"$loopfs" mkfs 32 -O no_such_feature 2> /dev/null || rc=$?
check failing_mkfs_fails test "$rc" -ne 0
check failing_mkfs_leaves_nothing nothing_left
rc=0
"$loopfs" mount 32 /nonexistent/dir 2> /dev/null || rc=$?
check failing_mount_fails test "$rc" -ne 0
check failing_mount_leaves_nothing nothing_left

# SIGTERM at several points of the work: mkfs of a bigger filesystem
# takes long enough to be hit.
for delay in 0.01 0.05 0.2; do
	"$loopfs" mount 512 "$mnt" -E lazy_itable_init=0 > /dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -TERM "$pid" 2> /dev/null || true
	wait "$pid" || true
	# One that finished before the signal is the caller's to undo.
	"$loopfs" umount "$mnt"
done
check sigterm_leaves_nothing nothing_left

# A process still inside: retried, then unmounted lazily; the device
# goes when the process leaves.
"$loopfs" mount 32 "$mnt" > /dev/null
(cd "$mnt" && sleep 4) &
sleep 0.2
"$loopfs" umount "$mnt"
check busy_umount_leaves_no_mount bash -c "! mountpoint -q '$mnt'"
wait
sleep 0.5
check busy_device_goes_with_its_last_user nothing_left

rc=0
"$loopfs" detach /dev/null || rc=$?
check detach_ignores_what_it_did_not_make test "$rc" -eq 0
rc=0
"$loopfs" frobnicate 2> /dev/null || rc=$?
check unknown_command_is_a_usage_error test "$rc" -eq 64
finish
