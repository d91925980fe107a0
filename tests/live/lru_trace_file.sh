#!/usr/bin/env bash
# The --trace writer and reader, end to end on this machine (no kernel
# probe needed: lrutrace-pump's BPF program writes the lookup records):
# the writer drains 1,000,000 lookups/s with none lost; a recording killed
# with SIGKILL reads up to its last frame, with a note, and replays; the
# reader refuses what is not a trace file without blocking, and reads
# standard input.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root
PUMP=$PWD/build/lrutrace-pump
LRUTRACE=$PWD/build/lrutrace
for b in "$PUMP" "$LRUTRACE" "$BHSCOPE"; do
	[[ -x $b ]] || skip_all "$b is not built (make)"
done
dir=$(mktemp -d /tmp/bhscope-trace.XXXXXX)
on_exit "rm -rf '$dir'"

# 1. The writer at 1,000,000 lookups/s for 3 s.
if "$PUMP" 1000000 3 "$dir/a.trace" >"$dir/pump.json" 2>"$dir/pump.err"; then
	pass writer_keeps_up
else
	fail writer_keeps_up "$(cat "$dir/pump.json" "$dir/pump.err")"
fi
cat "$dir/pump.json"
check all_written python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
sys.exit(0 if p["lost"] == 0 and p["records"] == p["produced"] >= 2900000
         and p["bytes_per_lookup"] < 8 else 1)' "$dir/pump.json"
check file_has_every_record bash -c \
	"[[ \$('$LRUTRACE' stat '$dir/a.trace' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"records\"])') == \$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"records\"])' '$dir/pump.json') ]]"

# 2. Killed mid-recording: frames up to the last second read back.
# shellcheck disable=SC2016 # expanded by the inner shell
bash -c '"$0" 200000 30 "$1" >/dev/null 2>&1 & p=$!; sleep 3.5; kill -KILL $p; wait $p' \
	"$PUMP" "$dir/k.trace" 2>/dev/null || true
"$BHSCOPE" simulate "$dir/k.trace" -j >"$dir/k.json" 2>"$dir/k.err" || true
cat "$dir/k.err"
check killed_recording_replays python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if not j["complete"] and j["records"] >= 400000 else 1)' "$dir/k.json"
check killed_recording_says_so grep -q "did not end cleanly" "$dir/k.err"
# cut inside a frame: the note says so, the exit status is still 0
size=$(stat -c %s "$dir/k.trace")
truncate -s $((size - 100)) "$dir/k.trace"
check cut_frame_replays bash -c "'$BHSCOPE' simulate '$dir/k.trace' >/dev/null 2>'$dir/cut.err'"
check cut_frame_is_noted grep -q "ends inside frame .* (the recording was cut short)" "$dir/cut.err"

# 3. What is not a trace file: refused at once, one line, non-zero.
mkfifo "$dir/fifo"
refused() {
	local out rc=0
	out=$(timeout 5 "$BHSCOPE" simulate "$1" 2>&1) || rc=$?
	[[ $rc == 1 && $out == "bhscope: "* && $(wc -l <<<"$out") == 1 && $out == *"$2"* ]]
}
check fifo_refused refused "$dir/fifo" "not a regular file"
check device_refused refused /dev/null "not a regular file"
check directory_refused refused "$dir" "not a regular file"
head -c 224 /dev/zero >"$dir/zero"
check garbage_refused refused "$dir/zero" "not a bhscope lru --trace file"
check stdin_read bash -c "'$BHSCOPE' simulate - -j <'$dir/a.trace' | grep -q '\"records\":'"
finish
