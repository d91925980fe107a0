#!/usr/bin/env bash
# Bad input makes bhbench exit non-zero (64 for usage, 1 for a missing
# directory) with exactly one "bhbench: " line on stderr, nothing on stdout,
# and nothing written to the directory.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench

dir=$(mktemp -d)
out=$(mktemp)
err=$(mktemp)
trap 'rm -rf "$dir" "$out" "$err"' EXIT
touch "$dir/plainfile"

# want-exit|arguments; DIR stands for the scratch directory.
cases=(
	"64|meta -D DIR -n 0"
	"64|meta -D DIR -n -3"
	"64|meta -D DIR -n 12abc"
	"64|meta -D DIR -t 0"
	"64|meta -D DIR -t 100000"
	"64|meta -D DIR --dir-size -1"
	"64|meta -D DIR --phases create,bogus"
	"64|meta -D DIR --phases ,"
	"64|meta -n 10"
	"64|meta -D DIR stray"
	"1|meta -D DIR/does-not-exist"
	"1|meta -D DIR/plainfile"
	"64|sync -D DIR -n 0"
	"64|sync -D DIR -s 2g"
	"64|sync -D DIR -s 4q"
	"64|sync -D DIR --fsync --osync"
	"1|sync -D DIR/does-not-exist"
	"64|"
	"64|bogus"
)
for c in "${cases[@]}"; do
	want=${c%%|*}
	args=${c#*|}
	args=${args//DIR/$dir}
	rc=0
	# shellcheck disable=SC2086 # args are word lists on purpose
	"$BHBENCH" $args > "$out" 2> "$err" || rc=$?
	[[ $rc -eq $want ]] || fail "'$args': exit $rc, want $want"
	[[ ! -s $out ]] || fail "'$args': wrote to stdout: $(cat "$out")"
	[[ $(wc -l < "$err") -eq 1 ]] ||
		fail "'$args': want one stderr line, got: $(cat "$err")"
	grep -q '^bhbench: ' "$err" ||
		fail "'$args': stderr does not start with 'bhbench: ': $(cat "$err")"
done
[[ $(ls -A "$dir") == plainfile ]] || fail "bad input left files in $dir"
pass
