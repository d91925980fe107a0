# shellcheck shell=bash
# Sourced by tests/live/record_*.sh and compare_*.sh: tests/lib/live.sh (a
# name, FAIL and SKIP lines, scratch space and a RAM-backed ext4 undone at
# exit), and PASS/FAIL lines of one behaviour each that let the test go on.

# shellcheck source=tests/lib/live.sh
. "$(dirname "${BASH_SOURCE[0]}")/live.sh"

BHSCOPE=${BHSCOPE:-build/bhscope}
BHBENCH=${BHBENCH:-build/bhbench}
export BHBENCH
FAILED=0

# check_pass NAME: one behaviour passed; the test goes on.
check_pass() { echo "PASS: $TEST_NAME: $1"; }
# check_fail NAME REASON: one behaviour failed; the test goes on, exits 1.
check_fail() {
	echo "FAIL: $TEST_NAME: $1: $2"
	FAILED=1
}
finish() { exit "$FAILED"; }

# need_tools COMMAND...: SKIP unless bhscope is built and each is installed.
need_tools() {
	[[ -x $BHSCOPE ]] || skip "$BHSCOPE is not built (run make)"
	need_commands "$@"
}
