#!/usr/bin/env bash
# --bench "ARGS" holds at most 128 of bhbench's arguments, in record and in
# sweep alike: one more is a usage error (exit 64, one line), before
# anything runs. Sweep used to drop the words past 128 without a word.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
[[ -x $BHSCOPE ]] || skip_all "$BHSCOPE is not built (make)"

words="sync $(printf 'x%d ' $(seq 2 129))"
max="sync $(printf 'x%d ' $(seq 2 128))"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# refused CMD ARGS...: exit 64 and one line naming the limit, nothing made.
refused() {
	local rc=0 err
	err=$("$BHSCOPE" "$@" 2>&1 > /dev/null) || rc=$?
	[[ $rc -eq 64 && $err == *"--bench: more than 128 arguments"* ]] &&
		[[ -z $(ls -A "$scratch") ]]
}

check record_refuses_129_words refused record -o "$scratch/r.json" --bench "$words"
check sweep_refuses_129_words refused sweep -o "$scratch/sw" --bench "$words"
# 128 pass the options: sweep then asks for bhbench's -D, as without --bench.
rc=0
err=$("$BHSCOPE" sweep -o "$scratch/sw" --bench "$max" 2>&1 > /dev/null) || rc=$?
check sweep_takes_128_words test "$rc:$err" = "64:bhscope: give bhbench's directory with -D DIR"
finish
