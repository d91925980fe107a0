#!/usr/bin/env bash
# SIGTERM (or SIGINT) sent to `bhscope record` alone is passed on to its
# workload as SIGINT, whatever bhscope is doing when it lands: copying a
# chatty workload's output (the stop once waited for the next read to be
# interrupted, and `yes` never lets a read wait), or waiting for a workload
# that closed its output and runs on. Each run must end within 10 s and
# record the workload as stopped by SIGINT.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools jq timeout
scratch_setup

# stopped NAME SIGNAL WORKLOAD...: 5 runs, each signalled after 1 s.
stopped() {
	local name=$1 sig=$2 rec=$SCRATCH/$1.json i j pid rc late=0 bad=''
	shift 2
	for i in 1 2 3 4 5; do
		"$BHSCOPE" record -o "$rec" -- "$@" > /dev/null 2>&1 &
		pid=$!
		sleep 1
		kill -"$sig" "$pid"
		for ((j = 0; j < 100; j++)); do
			kill -0 "$pid" 2> /dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2> /dev/null; then
			late=$((late + 1))
			pkill -KILL -P "$pid" || true
		fi
		rc=0
		wait "$pid" || rc=$?
		jq -e '.runs[0].signal == "SIGINT"' "$rec" > /dev/null 2>&1 ||
			bad+=" run $i: exit $rc, $(jq -c '.runs[0] | {signal, exit_status}' "$rec" 2>&1)"
	done
	if ((late == 0)) && [[ -z $bad ]]; then check_pass "$name"
	else check_fail "$name" "$late of 5 still running 10 s after SIG$sig;$bad"; fi
}

stopped chatty_workload_stopped_by_sigterm TERM yes
stopped chatty_workload_stopped_by_sigint INT yes
stopped silent_workload_stopped_after_closing_its_output TERM \
	sh -c 'exec > /dev/null; exec sleep 60'
finish
