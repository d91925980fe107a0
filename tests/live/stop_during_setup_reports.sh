#!/usr/bin/env bash
# A stop (SIGINT, SIGTERM) that lands while bhscope jbd2 or lru is still
# loading and attaching (10-80 ms in here) ends the run with its final
# report and exit 0, as one a second later does (issue 33 item 5): the
# handlers are in before the setup, and the loop reports at once when a
# stop came during it. Nothing stays attached.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root

out=$(mktemp -d)
on_exit "rm -rf '$out'"

# caught PID: waits (up to 10 s) until PID is bhscope (not yet the shell
# that forked it, whose traps catch them too) and catches SIGINT and
# SIGTERM.
caught() {
	local k v i comm
	for ((i = 0; i < 10000; i++)); do
		read -r comm < "/proc/$1/comm" || return 0
		if [[ $comm == bhscope ]]; then
			while read -r k v; do
				[[ $k == SigCgt: ]] && (((0x$v & 0x4002) == 0x4002)) && return 0
			done < "/proc/$1/status"
		fi
		sleep 0.001
	done
}

# stopped_early NAME SIGNAL DELAY CMD...: CMD (JSON lines) signalled DELAY
# s after it has taken the stop signals, in its setup: exit 0, one final
# report on stdout.
stopped_early() {
	local name=$1 sig=$2 delay=$3 pid rc=0 n
	shift 3
	# a script's background job ignores SIGINT: give it its default back
	env --default-signal=INT,TERM "$@" > "$out/$name" 2> "$out/$name.err" &
	pid=$!
	# From when its handlers are in (a stop before that is the kernel's
	# to deliver: on a busy host, starting the binary takes that long),
	# or (DELAY "load") from when it loads its first BPF object.
	if [[ $delay == load ]]; then
		bpf_loading "$pid"
	else
		caught "$pid"
		sleep "$delay"
	fi
	kill -"$sig" "$pid"
	for _ in $(seq 50); do
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2> /dev/null || true
	wait "$pid" || rc=$?
	n=$(grep -c '"final":true' "$out/$name" || true)
	if [[ $rc -eq 0 && $n -eq 1 ]]; then pass "$name"
	else fail "$name" "exit $rc, $n final reports: $(head -c 300 "$out/$name.err")"; fi
}

for d in load 0 0.01 0.03 0.05; do
	at=$([[ $d == load ]] && echo while_loading || echo "after_${d}_s")
	stopped_early "jbd2_int_$at" INT "$d" "$BHSCOPE" jbd2 -j 10
	stopped_early "jbd2_term_$at" TERM "$d" "$BHSCOPE" jbd2 -j 10
	stopped_early "lru_int_$at" INT "$d" "$BHSCOPE" lru -j 10
done
finish
