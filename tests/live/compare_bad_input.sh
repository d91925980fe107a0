#!/usr/bin/env bash
# Every malformed record given to compare gets exactly one line,
# "bhscope: FILE: problem", and exit status 1: bad JSON, wrong types, NaN
# and Infinity, absurd values, a null device name (a crash once), inputs
# that are not regular files (a FIFO must not block), and escape sequences
# that must not reach the terminal. sweep --report reads records the same.
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

f=$SCRATCH/null.json
printf null > "$f"
expect null_document "$f" "not a bhscope record: the top level is null, not an object"

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

# The crash of issue 15: a jbd2 device entry with "dev": null.
f=$SCRATCH/devnull.json
jq '.runs[0].jbd2.devices = [{"dev": null, "transactions": 3}]' "$good" > "$f"
expect null_device_name "$f" "field runs.0.jbd2.devices.0.dev: want a string, found null"

for v in NaN Infinity -Infinity 1e999; do
	f=$SCRATCH/nonfinite-$v.json
	# jq cannot write these: edit the text.
	sed "s/\"wall_s\":[^,}]*/\"wall_s\":$v/" "$good" > "$f"
	expect "non_finite_${v#-}_refused" "$f" "field runs.0.wall_s: $v is not a finite number"
done

f=$SCRATCH/absurd.json
jq '.host.nr_cpus = 1000000' "$good" > "$f"
expect absurd_cpu_count "$f" "field host.nr_cpus: 1000000 is out of range"

f=$SCRATCH/ratio.json
jq '.runs[0].lru = {"total": {"hit_ratio": 7}}' "$good" > "$f"
expect absurd_hit_ratio "$f" "field runs.0.lru.total.hit_ratio: 7 is out of range (0 to 1)"

# Not regular files: refused at once (a FIFO with no writer blocked forever).
mkfifo "$SCRATCH/fifo.json"
start=$SECONDS
expect fifo_refused "$SCRATCH/fifo.json" "a FIFO, not a regular file"
if ((SECONDS - start < 5)); then check_pass fifo_does_not_block
else check_fail fifo_does_not_block "took $((SECONDS - start)) s"; fi
expect directory_refused "$SCRATCH" "a directory, not a regular file"
expect endless_device_refused /dev/zero "a character device, not a regular file"

# stdin when asked with '-'.
cp "$good" "$SCRATCH/stdin.json"
if "$BHSCOPE" compare -q "$good" - < "$SCRATCH/stdin.json" > /dev/null; then check_pass stdin_dash
else check_fail stdin_dash "compare good - < good failed"; fi

# Escape sequences in a label and in a bad record's field never reach the
# terminal: the output holds no ESC (0x1b) or C1 CSI byte.
f=$SCRATCH/escape.json
jq '.label = "x\u001b[2J\u001b]0;owned\u0007" | .target = {"fstype": "\u009b31m"}' "$good" > "$f"
out=$("$BHSCOPE" compare "$good" "$f" 2>&1; "$BHSCOPE" compare --markdown "$good" "$f" 2>&1
      "$BHSCOPE" compare --csv "$good" "$f" 2>&1)
if LC_ALL=C grep -q $'[\x1b\x07]\|\xc2\x9b' <<< "$out"; then
	check_fail escapes_filtered "an escape sequence reached the output"
elif grep -qF 'x\x1b[2J' <<< "$out"; then check_pass escapes_filtered
else check_fail escapes_filtered "label missing: $out"; fi
# What others read: a label with "|" and HTML stays inside its Markdown
# cell, as text; one a spreadsheet would take for a formula is text in the
# CSV (a leading ', quoted per RFC 4180); a bidirectional override (it
# shows "gnp.json" reversed) reaches no output raw.
f=$SCRATCH/md.json
jq '.label = "a|b <img src=x onerror=alert(1)>"' "$good" > "$f"
md=$("$BHSCOPE" compare -q --markdown "$good" "$f")
head=$(grep -m1 '^| metric' <<< "$md")
if [[ $head == *'| B a\|b \<img src=x onerror=alert(1)\> |'* ]] && ! grep -q '[^\]<img' <<< "$md"
then check_pass markdown_label_escaped
else check_fail markdown_label_escaped "$head"; fi
f=$SCRATCH/formula.json
jq '.label = "=HYPERLINK(\"http://x\",\"y\")"' "$good" > "$f"
csv=$("$BHSCOPE" compare -q --csv "$good" "$f")
if python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
labels = {r["label"] for r in rows if r["record"] == "B"}
sys.exit(0 if labels == {"\x27=HYPERLINK(\"http://x\",\"y\")"} else 1)' <<< "$csv" &&
	grep -qF ',"'"'"'=HYPERLINK(""http://x"",""y"")",' <<< "$csv"
then check_pass csv_formula_neutralised
else check_fail csv_formula_neutralised "$(sed -n 2p <<< "$csv")"; fi
f=$SCRATCH/bidi.json
jq '.label = "x\u202egnp.json" | .target = {"fstype": "e\u2066xt4\u2069"}' "$good" > "$f"
out=$("$BHSCOPE" compare "$good" "$f" 2>&1; "$BHSCOPE" compare --markdown "$good" "$f" 2>&1
      "$BHSCOPE" compare --csv "$good" "$f" 2>&1)
if LC_ALL=C grep -q $'\xe2\x80\xae\|\xe2\x81\xa6\|\xe2\x81\xa9' <<< "$out"; then
	check_fail bidi_filtered "a bidirectional control reached the output"
elif grep -qF 'x\u202egnp.json' <<< "$out"; then check_pass bidi_filtered
else check_fail bidi_filtered "label missing: $out"; fi

f=$SCRATCH/escape-bad.json
jq '.runs[0].result = {"phases": {"\u001b[2J": {}}}' "$good" > "$f"
expect escape_in_error_is_visible "$f" 'field runs.0.result.phases: member "\x1b[2J" is not a name'
out=$("$BHSCOPE" compare "$good" "$SCRATCH/$(printf 'e\033[2J.json')" 2>&1 || true)
if [[ $out == *'\x1b[2J'* && $out != *$'\e'* ]]; then check_pass escape_in_file_name_is_visible
else check_fail escape_in_file_name_is_visible "$out"; fi

# Figures that overflow a ratio (1e15 against 1e-300) give no Infinity:
# compare -j stays JSON, the chart has no inf or nan.
a=$SCRATCH/tiny.json b=$SCRATCH/huge.json
jq '.runs[0].fs_mark = {"files_per_sec": 1e-300}' "$good" > "$a"
jq '.runs[0].fs_mark = {"files_per_sec": 1e15}' "$good" > "$b"
if "$BHSCOPE" compare -q -j "$a" "$b" | jq -e '.metrics | length > 0' > /dev/null
then check_pass json_without_infinity
else check_fail json_without_infinity "compare -j is not JSON"; fi
# -j is one line; -p (pretty) the same JSON, indented
one=$("$BHSCOPE" compare -q -j "$a" "$b")
pretty=$("$BHSCOPE" compare -q -p "$a" "$b")
if [[ $(wc -l <<< "$one") -eq 1 && $(wc -l <<< "$pretty") -gt 10 ]] &&
	[[ $(jq -c . <<< "$one") == "$(jq -c . <<< "$pretty")" ]]
then check_pass json_one_line_pretty_indented
else check_fail json_one_line_pretty_indented "$(wc -l <<< "$one") and $(wc -l <<< "$pretty") lines"; fi
"$BHSCOPE" compare -q --chart "$SCRATCH/c.svg" "$a" "$b" > /dev/null
if grep -qiE 'nan|inf' "$SCRATCH/c.svg"; then check_fail chart_without_nan "$(grep -ioE '.{20}(nan|inf).{5}' "$SCRATCH/c.svg" | head -2)"
else check_pass chart_without_nan; fi

mkdir "$SCRATCH/swx"
jq '.sweep = {"config": "base", "config_index": 0, "cell": 0, "params": {}} |
    .workload.name = "sync" | .runs[0].result = {"results": {"files_per_sec": 1e-300}}' "$good" > "$SCRATCH/swx/a.json"
jq '.sweep = {"config": "b", "config_index": 1, "cell": 1, "params": {}} |
    .workload.name = "sync" | .runs[0].result = {"results": {"files_per_sec": 1e15}}' "$good" > "$SCRATCH/swx/b.json"
out=$("$BHSCOPE" sweep --report "$SCRATCH/swx" 2>&1)
if grep -qiE 'inf|nan' <<< "$out"; then check_fail sweep_report_without_inf "$out"
else check_pass sweep_report_without_inf; fi

# sweep --report reads records the same way: a null device name is one line.
mkdir "$SCRATCH/sw"
jq '.sweep = {"config": "base", "config_index": 0, "cell": 0, "params": {}}' "$good" > "$SCRATCH/sw/a.json"
jq '.sweep = {"config": "b", "config_index": 1, "cell": 1, "params": {}} |
    .runs[0].jbd2.devices = [{"dev": null}]' "$good" > "$SCRATCH/sw/b.json"
rc=0
out=$("$BHSCOPE" sweep --report "$SCRATCH/sw" 2>&1 > /dev/null) || rc=$?
if [[ $rc -eq 1 && $(wc -l <<< "$out") -eq 1 && $out == *"b.json: field runs.0.jbd2.devices.0.dev: want a string, found null" ]]
then check_pass sweep_report_null_device
else check_fail sweep_report_null_device "exit $rc: $out"; fi
finish
