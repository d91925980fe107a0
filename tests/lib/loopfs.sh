#!/bin/bash
# shellcheck shell=bash
# ext4 on a loop device over a file in /dev/shm (RAM-backed, like the seed
# threads' ramdisk): the one way the tests, the demo and the benchmarks
# make one. Run it:
#
#   loopfs.sh mkfs SIZE_MB [MKFS_OPTION...]      a fresh ext4, unmounted
#   loopfs.sh mount [-o OPTIONS] SIZE_MB MNT [MKFS_OPTION...]
#                                                the same, mounted on MNT
#   loopfs.sh umount MNT    unmounts MNT, detaches the loop device it held
#   loopfs.sh detach DEV    unmounts DEV wherever it is mounted, detaches it
#
# mkfs and mount print the device (/dev/loopN), and undo their own work
# when they fail or are interrupted. Or source it: the same as functions
# loopfs_mkfs, loopfs_mount, loopfs_umount, loopfs_detach, where mkfs and
# mount set LOOPFS_DEV instead of printing it, and loopfs_cleanup (for an
# EXIT trap) undoes every device this shell made and has not undone.
#
# The backing file is deleted as soon as the loop device holds it, so
# detaching frees its memory and nothing is ever left in /dev/shm. umount
# and detach touch only loop devices made here, give a busy filesystem a
# few tries and then unmount it lazily (the device then detaches itself on
# its last close), and do nothing for what is already gone.

LOOPFS_PREFIX=${LOOPFS_PREFIX:-/dev/shm/bhscope-loopfs.}
LOOPFS_DEV=
LOOPFS_IMG=
LOOPFS_MADE=()	# "DEV BACKING-FILE" of each device this shell made

# loopfs_mkfs SIZE_MB [MKFS_OPTION...]: sets LOOPFS_DEV. LOOPFS_IMG names
# the backing file until it is deleted, so that loopfs_cleanup finds a
# device interrupted while made.
loopfs_mkfs() {
	local size=$1
	shift
	LOOPFS_DEV=
	if [[ ! $size =~ ^[1-9][0-9]*$ ]]; then
		echo "loopfs: size '$size' is not a number of MiB" >&2
		return 1
	fi
	LOOPFS_IMG=$(mktemp "${LOOPFS_PREFIX}XXXXXX") || return 1
	if ! truncate -s "${size}M" "$LOOPFS_IMG" ||
		! LOOPFS_DEV=$(losetup -f --show "$LOOPFS_IMG"); then
		echo "loopfs: no loop device for $LOOPFS_IMG" >&2
		loopfs_cleanup
		return 1
	fi
	LOOPFS_MADE+=("$LOOPFS_DEV $LOOPFS_IMG")
	rm -f "$LOOPFS_IMG"
	LOOPFS_IMG=
	if ! mkfs.ext4 -q -F "$@" "$LOOPFS_DEV" >&2; then
		loopfs_detach "$LOOPFS_DEV"
		LOOPFS_DEV=
		return 1
	fi
}

# loopfs_mount [-o OPTIONS] SIZE_MB MNT [MKFS_OPTION...]: sets LOOPFS_DEV.
loopfs_mount() {
	local opts='' size mnt
	if [[ ${1:-} == -o ]]; then
		opts=$2
		shift 2
	fi
	size=$1 mnt=$2
	shift 2
	loopfs_mkfs "$size" "$@" || return 1
	if ! mount ${opts:+-o "$opts"} "$LOOPFS_DEV" "$mnt"; then
		loopfs_detach "$LOOPFS_DEV"
		LOOPFS_DEV=
		return 1
	fi
}

# loopfs_ours DEV [BACKING-FILE]: DEV is attached to a backing file made
# here (that one, when named).
loopfs_ours() {
	local back
	back=$(losetup -n -O BACK-FILE "$1" 2>/dev/null) || return 1
	back=${back% (deleted)}
	if (($# > 1)); then [[ $back == "$2" ]]; else [[ $back == "$LOOPFS_PREFIX"* ]]; fi
}

# Unmounts MNT; a busy filesystem (a process still leaving it) gets a few
# tries, then a lazy umount: nothing stays mounted.
loopfs_unmount_dir() {
	local mnt=$1 _
	for _ in 1 2 3 4 5; do
		mountpoint -q "$mnt" || return 0
		umount "$mnt" 2>/dev/null || sleep 0.5
	done
	if mountpoint -q "$mnt"; then umount -l "$mnt"; fi
}

# loopfs_detach DEV [BACKING-FILE]: every mount of DEV undone, then DEV
# detached (a device still busy detaches itself on its last close).
loopfs_detach() {
	local mnt
	loopfs_ours "$@" || return 0
	while mnt=$(findmnt -n -o TARGET --source "$1" | tail -n 1) && [[ -n $mnt ]]; do
		loopfs_unmount_dir "$mnt" || return 1
	done
	losetup -d "$1"
}

# loopfs_umount MNT: MNT unmounted (every mount stacked there), the loop
# devices they held detached.
loopfs_umount() {
	local devs dev
	mapfile -t devs < <(findmnt -n -o SOURCE --mountpoint "$1" 2>/dev/null)
	loopfs_unmount_dir "$1" || return 1
	for dev in "${devs[@]}"; do
		loopfs_detach "$dev" || return 1
	done
}

# loopfs_cleanup: undoes every device this shell made, newest first, and
# one it was making; never fails (it runs from EXIT traps under set -e).
loopfs_cleanup() {
	local i
	if [[ -n $LOOPFS_IMG ]]; then
		[[ -z $LOOPFS_DEV ]] || loopfs_detach "$LOOPFS_DEV" "$LOOPFS_IMG" || true
		rm -f "$LOOPFS_IMG"
		LOOPFS_IMG=
	fi
	for ((i = ${#LOOPFS_MADE[@]} - 1; i >= 0; i--)); do
		# shellcheck disable=SC2086 # "DEV FILE": two words
		loopfs_detach ${LOOPFS_MADE[i]} || true
	done
	LOOPFS_MADE=()
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	cmd=${1:-}
	case $cmd in
	mkfs | mount)
		shift
		trap 'loopfs_cleanup' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM HUP
		"loopfs_$cmd" "$@"
		LOOPFS_MADE=()	# the caller's now
		echo "$LOOPFS_DEV"
		;;
	umount | detach)
		(($# == 2)) || exec "$0"
		"loopfs_$cmd" "$2"
		;;
	*)
		sed -n '/^#   loopfs.sh/,/^#$/p' "$0" | sed '$d; s/^#   //' >&2
		exit 64
		;;
	esac
fi
