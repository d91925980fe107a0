#!/usr/bin/env bash
# A file bhscope writes (a record, a chart, the textfile) is whole or not
# there, even when a stop signal lands while it is written: the signal
# waits until the file is renamed into place (lib/atomic_file.c). compare
# installs no handler, so a SIGTERM used to kill it between creating the
# temporary file and renaming it, and left ".c.svg.PID.0" behind. strace
# holds each fsync of the write 3 s, so the signal lands in the middle.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools jq strace pgrep
scratch_setup

good=$SCRATCH/good.json
"$BHSCOPE" record -q -o "$good" -- true 2> /dev/null || fail "record -- true failed"
out=$SCRATCH/out
mkdir "$out"

strace -qq -f -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=3000000 \
	"$BHSCOPE" compare -q --chart "$out/c.svg" "$good" "$good" > /dev/null 2>&1 &
tracer=$!
pid=
for _ in $(seq 50); do
	pid=$(pgrep -P "$tracer" || true)
	[[ -n $pid ]] && [[ -e $out/c.svg || -n $(find "$out" -name '.c.svg.*') ]] && break
	sleep 0.1
done
[[ -n $pid ]] || fail "compare did not start under strace"
sleep 0.5
kill -TERM "$pid"
rc=0
wait "$tracer" || rc=$?

left=$(find "$out" -name '.*' -printf '%f ')
if [[ -z $left ]]; then check_pass no_temporary_file_left
else check_fail no_temporary_file_left "left: $left"; fi
if [[ -s $out/c.svg ]] && [[ $(tail -c 7 "$out/c.svg") == *'</svg>'* ]]
then check_pass chart_whole
else check_fail chart_whole "$(ls -la "$out")"; fi
# the stop still ends it, once the file is in place (strace passes the
# status of its child on: 128 + SIGTERM)
if ((rc == 143)); then check_pass stop_still_ends_it
else check_fail stop_still_ends_it "exit $rc"; fi
finish
