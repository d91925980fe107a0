#!/usr/bin/env bash
# bhbench meta --drop-caches runs cold stat and remove phases with the same
# counts as a warm run, says so in its parameters, and leaves a clean fs.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
need_jq
need_root
fs_setup ""

out=$("$BHBENCH" meta -D "$MNT" -n 200 -t 2 --drop-caches -j) ||
	fail "exit $?"
jq -e '.ok == true and .params.drop_caches == true and
	(.phases | keys == ["create", "remove", "stat"]) and
	all(.phases[]; .ops == 400)' <<< "$out" > /dev/null ||
	fail "unexpected report: $out"
fs_expect_empty "bhbench meta --drop-caches"
pass
