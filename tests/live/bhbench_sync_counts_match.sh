#!/usr/bin/env bash
# bhbench sync -j reports -n x -t files, all verified, in every mode, and
# leaves the directory as it found it.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
need_jq
fs_setup ""

files=40
tasks=3
bytes=5000
for mode in "--fsync" "--osync" "--fsync --fsync-dir" "--fsync --processes" \
	"--osync --shared"; do
	# shellcheck disable=SC2086 # mode is a word list on purpose
	out=$("$BHBENCH" sync -D "$MNT" -n $files -t $tasks -s $bytes -j $mode) ||
		fail "$mode: exit $?"
	jq -e --argjson n $files --argjson t $tasks --argjson s $bytes '
		.bhbench_schema == 1 and .workload == "sync" and .ok == true and
		.results.files == $n * $t and .results.bytes == $n * $t * $s and
		.results.verified == true and .results.files_per_sec > 0 and
		.results.max_latency_us >= .results.avg_latency_us and
		(.results.tasks | length) == $t and
		all(.results.tasks[]; .files == $n)' <<< "$out" > /dev/null ||
		fail "$mode: counts differ from $files x $tasks: $out"
	fs_expect_empty "sync $mode"
done
pass
