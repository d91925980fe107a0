#!/usr/bin/env bash
# Standard output that cannot be written is an error (issue 15): every
# command, its --help and its real output to /dev/full exit non-zero with
# one line, "bhscope: writing standard output: No space left on device".
# A live report stops at the first interval it cannot write.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
[[ -x $BHSCOPE ]] || skip_all "$BHSCOPE is not built (run make)"
[[ -c /dev/full ]] || skip_all "no /dev/full"

want="bhscope: writing standard output: No space left on device"
tmp=$(mktemp -d /tmp/bhscope-stdout.XXXXXX)
on_exit "rm -rf '$tmp'"

# full NAME CMD...: CMD > /dev/full exits non-zero within 10 s, and its
# stderr ends with the one line (progress lines may come before it).
full() {
	local name=$1 err rc=0
	shift
	err=$(timeout 10 "$@" 2>&1 > /dev/full) || rc=$?
	if [[ $rc -ne 0 && $rc -ne 124 && $(tail -n 1 <<< "$err") == "$want" &&
		$(grep -c '^bhscope: writing standard output' <<< "$err") -eq 1 ]]
	then pass "$name"
	else fail "$name" "exit $rc (124 = still running): $(tail -n 2 <<< "$err")"; fi
}

full top_help "$BHSCOPE" --help
full version "$BHSCOPE" --version
for cmd in lru simulate jbd2 tune record serve compare sweep; do
	full "${cmd}_help" "$BHSCOPE" "$cmd" --help
	full "${cmd}_usage" "$BHSCOPE" "$cmd" --usage
done

"$BHSCOPE" record -q -o "$tmp/a.json" -- true
"$BHSCOPE" record -q -o "$tmp/b.json" -- true
full compare_text "$BHSCOPE" compare -q "$tmp/a.json" "$tmp/b.json"
full compare_json "$BHSCOPE" compare -q -j "$tmp/a.json" "$tmp/b.json"
full compare_csv "$BHSCOPE" compare -q --csv "$tmp/a.json" "$tmp/b.json"
full compare_markdown "$BHSCOPE" compare -q --markdown "$tmp/a.json" "$tmp/b.json"
# The chart is still written whole: it goes to its own file.
full compare_with_chart "$BHSCOPE" compare -q --chart "$tmp/c.svg" "$tmp/a.json" "$tmp/b.json"
check chart_written_whole grep -q '</svg>' "$tmp/c.svg"

full tune "$BHSCOPE" tune
full tune_json "$BHSCOPE" tune -j
# Live reports: the loop stops at the first interval it cannot write (it
# ran until interrupted before).
full jbd2_live "$BHSCOPE" jbd2 0.1
full jbd2_live_json "$BHSCOPE" jbd2 -j 0.1
full lru_probes "$BHSCOPE" lru --probes
full lru_probes_json "$BHSCOPE" lru --probes -j

mkdir "$tmp/sw"
jq '.sweep = {"config": "base", "config_index": 0, "cell": 0, "params": {}} |
    .runs[0].result = {"results": {"files_per_sec": 5}}' "$tmp/a.json" > "$tmp/sw/a.json"
full sweep_report "$BHSCOPE" sweep --report "$tmp/sw"

# A reader that stops reading (a paused pager) and then a stop signal: the
# blocked write is interrupted and the last report lost; bhscope says that,
# not "Interrupted system call", and exits 1.
mkfifo "$tmp/fifo"
exec 3<> "$tmp/fifo"	# a reader that never reads
"$BHSCOPE" jbd2 -C -j 0.01 > "$tmp/fifo" 2> "$tmp/blocked.err" &
pid=$!
sleep 3
kill -TERM "$pid"
rc=0
timeout 10 tail --pid="$pid" -f /dev/null || rc=124
wait "$pid" || rc=$?
exec 3<&-
if [[ $rc -eq 1 && $(tail -n 1 "$tmp/blocked.err") == "bhscope: stopped while standard output was blocked: the last report is incomplete" ]]
then pass stop_while_output_blocked_says_so
else fail stop_while_output_blocked_says_so "exit $rc: $(tail -n 1 "$tmp/blocked.err")"; fi

finish
