#!/usr/bin/env bash
# A stop signal (SIGTERM, SIGINT, SIGHUP) sent to `bhscope record` alone
# is passed on to its workload as SIGINT, whatever bhscope is doing when
# it lands: copying a chatty workload's output (the stop once waited for
# the next read to be interrupted, and `yes` never lets a read wait),
# waiting for a workload that closed its output and runs on, or still
# setting up (the workload, forked but not yet exec'd, once took it with
# bhscope's own handler, and exec dropped it). Each run must end within
# 10 s and record the workload as stopped by SIGINT.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools jq timeout
scratch_setup

# stopped NAME SIGNAL AFTER WORKLOAD...: 5 runs, each signalled AFTER s in.
stopped() {
	local name=$1 sig=$2 after=$3 rec=$SCRATCH/$1.json i j pid rc late=0 bad=''
	shift 3
	for i in 1 2 3 4 5; do
		rm -f "$rec"
		"$BHSCOPE" record -o "$rec" -- "$@" > /dev/null 2>&1 &
		pid=$!
		sleep "$after"
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
		# a stop before bhscope takes the signals ends it, nothing run
		[[ ${EARLY_DEATH_OK:-} && $rc -eq $((128 + $(kill -l "$sig"))) && ! -e $rec ]] ||
			jq -e '.runs[0].signal == "SIGINT"' "$rec" > /dev/null 2>&1 ||
			bad+=" run $i: exit $rc, $(jq -c '.runs[0] | {signal, exit_status}' "$rec" 2>&1)"
	done
	if ((late == 0)) && [[ -z $bad ]]; then check_pass "$name"
	else check_fail "$name" "$late of 5 still running 10 s after SIG$sig;$bad"; fi
}

# 0.4 s: past bhscope's setup (some 80 ms here), the workload running
stopped chatty_workload_stopped_by_sigterm TERM 0.4 yes
stopped chatty_workload_stopped_by_sigint INT 0.4 yes
stopped chatty_workload_stopped_by_sighup HUP 0.4 yes
stopped silent_workload_stopped_after_closing_its_output TERM 0.4 \
	sh -c 'exec > /dev/null; exec sleep 60'
# bhscope's setup (the jbd2 tracer's load) takes some 80 ms here: a stop
# at 50 ms lands in it, before the workload runs (on a faster machine
# perhaps before bhscope takes the signals: then it dies of it at once).
EARLY_DEATH_OK=1 stopped stop_during_setup_reaches_the_workload TERM 0.05 sleep 60
finish
