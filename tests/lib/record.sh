# shellcheck shell=bash
# Sourced by tests/live/record_*.sh and compare_*.sh: PASS/FAIL/SKIP helpers, and scratch
# space and a RAM-backed ext4 (tests/lib/loopfs.sh) that are always
# unmounted, detached and removed when the test exits, however it exits.

BHSCOPE=${BHSCOPE:-build/bhscope}
BHBENCH=${BHBENCH:-build/bhbench}
export BHBENCH
TEST_NAME=live/$(basename "$0" .sh)
SCRATCH=
LOOP=
MNT=
FAILED=0

# check NAME: one behaviour passed; the test goes on.
check_pass() { echo "PASS: $TEST_NAME: $1"; }
# check_fail NAME REASON: one behaviour failed; the test goes on, exits 1.
check_fail() {
	echo "FAIL: $TEST_NAME: $1: $2"
	FAILED=1
}
fail() {
	echo "FAIL: $TEST_NAME: $*"
	exit 1
}
skip() {
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}
finish() { exit "$FAILED"; }

need_tools() {
	local tool
	[[ -x $BHSCOPE ]] || skip "$BHSCOPE is not built (run make)"
	for tool in "$@"; do
		command -v "$tool" > /dev/null || skip "$tool is not installed"
	done
}

# shellcheck source=tests/lib/loopfs.sh
. "$(dirname "${BASH_SOURCE[0]}")/loopfs.sh"

cleanup() {
	loopfs_cleanup
	if [[ -n $MNT ]]; then rmdir "$MNT" 2> /dev/null || true; fi
	if [[ -n $SCRATCH ]]; then
		if mountpoint -q "$SCRATCH/tiny" 2> /dev/null; then
			umount "$SCRATCH/tiny" || umount -l "$SCRATCH/tiny" || true
		fi
		rm -rf "$SCRATCH" || true
	fi
}

# scratch_setup: a private scratch directory in $SCRATCH, removed at exit.
scratch_setup() {
	trap cleanup EXIT
	# The EXIT trap runs on signals only if they end the script by exit.
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	SCRATCH=$(mktemp -d /tmp/bhscope-test.XXXXXX)
}

# fs_setup MOUNT_OPTIONS: a fresh 256 MiB ext4 (4 KiB blocks) on $MNT.
fs_setup() {
	[[ $EUID -eq 0 ]] || skip "needs root to mount a loop device"
	need_tools losetup mkfs.ext4 mountpoint
	[[ -n $SCRATCH ]] || scratch_setup
	MNT=$(mktemp -d /tmp/bhscope-mnt.XXXXXX)
	loopfs_mount ${1:+-o "$1"} 256 "$MNT" -b 4096
	# shellcheck disable=SC2034 # the tests' device
	LOOP=$LOOPFS_DEV
}
