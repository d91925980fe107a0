#!/usr/bin/env bash
# The workload of `bhscope record` runs in a process group of its own and
# does not outlive it (issue 33 item 3): after a kill -9 of bhscope, the
# workload and a grandchild it started in the background (one that ignores
# SIGHUP, SIGINT and SIGTERM, as under nohup) are gone within a second; a
# grandchild left behind by a workload that ended is gone when bhscope is.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools timeout
scratch_setup

# gone_within TENTHS PID: PID has exited (or is a zombie) within TENTHS/10 s.
gone_within() {
	local i
	for ((i = 0; i <= $1; i++)); do
		[[ -e /proc/$2 && $(awk '{ print $3 }' "/proc/$2/stat" 2> /dev/null) != Z ]] || return 0
		sleep 0.1
	done
	return 1
}

# pids_from FILE: waits up to 10 s for FILE to hold "PID PID", prints it.
pids_from() {
	local i
	for ((i = 0; i < 100; i++)); do
		if [[ -s $1 ]] && [[ $(wc -w < "$1") -eq 2 ]]; then
			cat "$1"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# The workload: a shell that starts a grandchild deaf to the stop signals,
# writes "ITS-PID GRANDCHILD-PID", and waits.
pids=$SCRATCH/pids
"$BHSCOPE" record -q -o "$SCRATCH/k.json" -- sh -c \
	'trap "" HUP INT TERM; sleep 300 > /dev/null 2>&1 & echo $$ $! > '"$pids"'; exec sleep 301' \
	> /dev/null 2>&1 &
rec=$!
read -r work grandchild <<< "$(pids_from "$pids")" || fail "the workload never started"
kill -KILL "$rec"
wait "$rec" 2> /dev/null || true
if gone_within 10 "$work"; then check_pass killed_bhscope_takes_its_workload
else check_fail killed_bhscope_takes_its_workload "workload $work still runs 1 s after kill -9"; fi
if gone_within 10 "$grandchild"; then check_pass killed_bhscope_takes_the_workloads_grandchild
else check_fail killed_bhscope_takes_the_workloads_grandchild "grandchild $grandchild still runs 1 s after kill -9"; fi
kill -KILL "$work" "$grandchild" 2> /dev/null || true

# A workload that ends, leaving a grandchild (its output closed) behind.
rm -f "$pids"
rc=0
timeout 30 "$BHSCOPE" record -q -o "$SCRATCH/left.json" -- sh -c \
	'trap "" HUP INT TERM; sleep 300 > /dev/null 2>&1 & echo $$ $! > '"$pids" \
	> /dev/null 2>&1 || rc=$?
read -r work grandchild <<< "$(pids_from "$pids")" || fail "the second workload never started"
if [[ $rc -eq 0 ]] && gone_within 10 "$grandchild"; then check_pass grandchild_left_behind_is_gone_with_bhscope
else check_fail grandchild_left_behind_is_gone_with_bhscope "exit $rc; grandchild $grandchild still runs"; fi
kill -KILL "$grandchild" 2> /dev/null || true
finish
