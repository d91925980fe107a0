#!/usr/bin/env bash
# When the filesystem fills up (inodes for meta, blocks for sync), bhbench
# fails with one "No space left on device" line, reports ok:false in JSON,
# and removes the partial tree.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
need_jq
fs_setup "" -N 256

err=$(mktemp)
trap 'rm -f "$err"; fs_teardown' EXIT

expect_enospc() {
	local out rc=0

	out=$("$BHBENCH" "$@" -D "$MNT" -j 2> "$err") || rc=$?
	[[ $rc -eq 1 ]] || fail "$*: exit $rc, want 1"
	if [[ $(wc -l < "$err") -ne 1 ]] ||
		! grep -q '^bhbench: .*No space left on device$' "$err"; then
		fail "$*: want one ENOSPC line, got: $(cat "$err")"
	fi
	jq -e '.ok == false and (.error | test("No space left"))' \
		<<< "$out" > /dev/null || fail "$*: JSON: $out"
	fs_expect_empty "$* after ENOSPC"
}

expect_enospc meta -n 400 -t 2
expect_enospc meta -n 100 -t 2 --threads --shared --dir-size 300
expect_enospc sync -n 8 -t 2 -s 32m
fs_fsck
pass
