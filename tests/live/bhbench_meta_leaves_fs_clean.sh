#!/usr/bin/env bash
# After bhbench meta, whatever the options, the directory holds what it held
# before, and e2fsck finds the filesystem clean.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
fs_setup ""

runs=(
	"-n 500 -t 2"
	"-n 500 -t 2 --dir-size 1000 --shared"
	"-n 200 -t 4 --dir-size 2000 --threads -s 4k"
	"-n 300 -t 2 --phases create"
	"-n 300 -t 2 --phases stat"
)
for args in "${runs[@]}"; do
	# shellcheck disable=SC2086 # args are word lists on purpose
	"$BHBENCH" meta -D "$MNT" -q $args || fail "meta $args: exit $?"
	fs_expect_empty "meta $args"
done
fs_fsck
pass
