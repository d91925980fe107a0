# shellcheck shell=bash
# The base of tests/lib/bhbench.sh and record.sh, for tests whose result
# lines read "PASS: live/NAME[: behaviour]": the test's name, FAIL and SKIP
# lines that end it, command checks, and scratch space and a RAM-backed
# ext4 (tests/lib/loopfs.sh) that are always undone when the test exits,
# however it exits.

TEST_NAME=live/$(basename "$0" .sh)
SCRATCH=
LOOP=
MNT=

fail() {
	echo "FAIL: $TEST_NAME: $*"
	exit 1
}

skip() {
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}

# need_commands COMMAND...: SKIP unless each is installed.
need_commands() {
	local c
	for c in "$@"; do
		command -v "$c" > /dev/null || skip "$c is not installed"
	done
}

# need_root: SKIP unless root, with what a loop-device ext4 needs.
need_root() {
	[[ $EUID -eq 0 ]] || skip "needs root to mount a loop device"
	need_commands losetup mkfs.ext4 e2fsck mountpoint findmnt
}

# shellcheck source=tests/lib/loopfs.sh
. "$(dirname "${BASH_SOURCE[0]}")/loopfs.sh"

# The EXIT trap; never fails (it runs under set -e). A test that sets its
# own EXIT trap calls it from there.
fs_teardown() {
	local m
	loopfs_cleanup
	if [[ -n $MNT ]]; then rmdir "$MNT" 2> /dev/null || true; fi
	if [[ -n $SCRATCH ]]; then
		# What a test mounted in its scratch space (a full tmpfs...).
		for m in $(awk -v d="$SCRATCH/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
			umount "$m" 2> /dev/null || umount -l "$m" || true
		done
		rm -rf "$SCRATCH" || true
	fi
}

# scratch_setup: a private scratch directory in $SCRATCH, removed at exit.
scratch_setup() {
	trap fs_teardown EXIT
	# The EXIT trap runs on signals only if they end the script by exit.
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	SCRATCH=$(mktemp -d /tmp/bhscope-test.XXXXXX)
}

# fs_setup MOUNT_OPTIONS [MKFS_OPTION...]: a fresh 256 MiB ext4 mounted on
# $MNT, its device in $LOOP, and scratch space.
fs_setup() {
	local opts=$1
	shift
	need_root
	[[ -n $SCRATCH ]] || scratch_setup
	MNT=$(mktemp -d /tmp/bhscope-mnt.XXXXXX)
	loopfs_mount ${opts:+-o "$opts"} 256 "$MNT" "$@"
	# shellcheck disable=SC2034 # the tests' device
	LOOP=$LOOPFS_DEV
}
