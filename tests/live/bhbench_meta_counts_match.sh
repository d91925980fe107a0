#!/usr/bin/env bash
# bhbench meta -j reports exactly -n x -t ops per phase and -n per task, for
# processes and threads, per-task and shared directories, with a dir size.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
need_jq
fs_setup ""

files=300
tasks=3
for workers in --processes --threads; do
	for layout in "" --shared; do
		run="$workers ${layout:-per-task}"
		out=$("$BHBENCH" meta -D "$MNT" -n $files -t $tasks \
			--dir-size 50 -s 100 -j $workers $layout) ||
			fail "$run: exit $?"
		jq -e --argjson n $files --argjson t $tasks '
			.bhbench_schema == 1 and .workload == "meta" and
			.ok == true and .params.tasks == $t and
			.params.files_per_task == $n and
			(.phases | keys == ["create", "remove", "stat"]) and
			all(.phases[]; .ops == $n * $t and .seconds > 0 and
			    .ops_per_sec > 0 and (.tasks | length) == $t and
			    all(.tasks[]; .ops == $n))' <<< "$out" > /dev/null ||
			fail "$run: counts differ from $files x $tasks: $out"
	done
done
pass
