# shellcheck shell=bash
# Sourced by tests/live/bhbench_*.sh: tests/lib/live.sh (a name, FAIL and
# SKIP lines, a RAM-backed ext4 undone at exit), a PASS that ends the test,
# and checks of what bhbench leaves on the filesystem.

# shellcheck source=tests/lib/live.sh
. "$(dirname "${BASH_SOURCE[0]}")/live.sh"

BHBENCH=${BHBENCH:-build/bhbench}

pass() {
	echo "PASS: $TEST_NAME"
	exit 0
}

need_bhbench() {
	[[ -x $BHBENCH ]] || skip "$BHBENCH is not built (run make)"
}

need_jq() { need_commands jq; }

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
