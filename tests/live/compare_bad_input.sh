#!/usr/bin/env bash
# Every malformed record given to compare gets exactly one line,
# "bhscope: FILE: problem", and exit status 1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools jq
scratch_setup

good=$SCRATCH/good.json
"$BHSCOPE" record -q -o "$good" -- true 2> /dev/null || fail "record -- true failed"

# expect NAME FILE PROBLEM: compare good FILE prints one line with PROBLEM.
expect() {
	local name=$1 file=$2 problem=$3 out rc=0

	out=$("$BHSCOPE" compare "$good" "$file" 2>&1 > /dev/null) || rc=$?
	if [[ $rc -eq 1 && $(wc -l <<< "$out") -eq 1 &&
		$out == "bhscope: $file: "*"$problem"* ]]
	then check_pass "$name"
	else check_fail "$name" "exit $rc: $out"; fi
}

f=$SCRATCH/truncated.json
head -c 200 "$good" > "$f"
expect truncated_record "$f" "truncated JSON"

f=$SCRATCH/text.json
printf 'FSUse%%   Count    Size   Files/sec\n' > "$f"
expect not_json "$f" "not JSON"

f=$SCRATCH/empty.json
: > "$f"
expect empty_file "$f" "empty file"

f=$SCRATCH/jbd2.json
echo '{"schema":"bhscope.jbd2/1","devices":[]}' > "$f"
expect foreign_schema "$f" 'foreign schema "bhscope.jbd2/1"'

f=$SCRATCH/bhbench.json
echo '{"bhbench_schema":1,"workload":"sync"}' > "$f"
expect no_schema "$f" 'no "schema" field'

f=$SCRATCH/newer.json
jq '.schema = "bhscope.record/9"' "$good" > "$f"
expect newer_schema "$f" "newer than this bhscope reads"

f=$SCRATCH/missing.json
jq 'del(.host.kernel)' "$good" > "$f"
expect missing_field "$f" "missing field host.kernel"

f=$SCRATCH/wrongtype.json
jq '.runs[0].wall_s = "fast"' "$good" > "$f"
expect wrong_type "$f" "field runs.0.wall_s: want a number, found a string"

f=$SCRATCH/wrongmetric.json
jq '.runs[0].fs_mark = {"files_per_sec": "many"}' "$good" > "$f"
expect wrong_metric_type "$f" "field runs.0.fs_mark.files_per_sec: want a number"

expect missing_file "$SCRATCH/nope.json" "No such file or directory"
finish
