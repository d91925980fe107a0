#!/usr/bin/env bash
# bhbench sync --dirsync on a mount without dirsync still runs, but warns
# on one stderr line and reports dir_sync "none".
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
need_jq
fs_setup ""

err=$(mktemp)
trap 'rm -f "$err"; fs_teardown' EXIT
out=$("$BHBENCH" sync -D "$MNT" --dirsync -n 20 -j 2> "$err") ||
	fail "exit $?: $(cat "$err")"
if [[ $(wc -l < "$err") -ne 1 ]] ||
	! grep -q '^bhbench: sync: warning: ' "$err"; then
	fail "want one warning line, got: $(cat "$err")"
fi
jq -e '.ok == true and .results.dir_sync == "none"' <<< "$out" > /dev/null ||
	fail "unexpected report: $out"
pass
