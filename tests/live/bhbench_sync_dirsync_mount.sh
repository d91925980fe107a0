#!/usr/bin/env bash
# bhbench sync --dirsync on a -o dirsync mount: runs, sees the mount as
# dirsync (no warning), verifies every file, and the fs checks clean.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
need_jq
fs_setup dirsync

err=$(mktemp)
trap 'rm -f "$err"; fs_teardown' EXIT
out=$("$BHBENCH" sync -D "$MNT" --dirsync -t 4 -n 100 -j 2> "$err") ||
	fail "exit $?: $(cat "$err")"
[[ ! -s $err ]] || fail "unexpected stderr: $(cat "$err")"
jq -e '.ok == true and .params.mode == "dirsync" and
	.results.dir_sync == "dirsync" and .results.files == 400 and
	.results.verified == true' <<< "$out" > /dev/null ||
	fail "unexpected report: $out"
fs_expect_empty "sync --dirsync"
fs_fsck
pass
