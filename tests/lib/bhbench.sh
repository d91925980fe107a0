# shellcheck shell=bash
# Sourced by tests/live/bhbench_*.sh.
#
# Gives a test its name, PASS/FAIL/SKIP helpers and a RAM-backed ext4
# (tests/lib/loopfs.sh) that is always unmounted and detached when the
# test exits, however it exits.

BHBENCH=${BHBENCH:-build/bhbench}
TEST_NAME=live/$(basename "$0" .sh)
LOOP=
MNT=

pass() {
	echo "PASS: $TEST_NAME"
	exit 0
}

fail() {
	echo "FAIL: $TEST_NAME: $*"
	exit 1
}

skip() {
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}

need_bhbench() {
	[[ -x $BHBENCH ]] || skip "$BHBENCH is not built (run make)"
}

need_jq() {
	command -v jq > /dev/null || skip "jq is not installed"
}

need_root() {
	[[ $EUID -eq 0 ]] || skip "needs root to mount a loop device"
	local tool
	for tool in losetup mkfs.ext4 e2fsck mountpoint; do
		command -v "$tool" > /dev/null || skip "$tool is not installed"
	done
}

# shellcheck source=tests/lib/loopfs.sh
. "$(dirname "${BASH_SOURCE[0]}")/loopfs.sh"

# Never fails: it runs from the EXIT trap under set -e.
fs_teardown() {
	loopfs_cleanup
	if [[ -n $MNT ]]; then rmdir "$MNT" 2> /dev/null || true; fi
}

# fs_setup MOUNT_OPTIONS [MKFS_OPTION...]: mounts a fresh ext4 on $MNT.
fs_setup() {
	local opts=$1

	shift
	need_root
	trap fs_teardown EXIT
	# The EXIT trap runs on signals only if they end the script by exit.
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	MNT=$(mktemp -d /tmp/bhbench-mnt.XXXXXX)
	loopfs_mount ${opts:+-o "$opts"} 256 "$MNT" "$@"
	LOOP=$LOOPFS_DEV
}

# Fails unless the filesystem holds nothing but what mkfs made.
fs_expect_empty() {
	local left

	left=$(cd "$MNT" && find . -mindepth 1 -maxdepth 1 ! -name lost+found)
	[[ -z $left ]] || fail "${1:-bhbench} left entries behind: $left"
}

# Unmounts and fails unless e2fsck -fn finds the filesystem clean.
fs_fsck() {
	local out

	umount "$MNT"
	out=$(e2fsck -fn "$LOOP" 2>&1) || fail "e2fsck -fn: $(tail -n 3 <<< "$out")"
}
