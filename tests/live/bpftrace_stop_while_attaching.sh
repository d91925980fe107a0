#!/usr/bin/env bash
# The tests' bpftrace_stop (tests/lib/bpftrace.sh) ends a bpftrace that
# is signalled while it still attaches its probes, the moment it prints
# "Attaching N probes..." (a hundred syscall tracepoints take seconds):
# Debian 12's bpftrace 0.17 notes such a signal and never acts on it, so
# one SIGINT leaves it running for good; bpftrace_stop's repeated SIGTERM
# ends it, and it prints its maps.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
. tests/lib/bpftrace.sh
require_root
command -v bpftrace >/dev/null || skip_all "bpftrace is not installed (make deps)"
work=$(mktemp -d)
on_exit "rm -rf '$work'"

# (bpftrace 0.17 has no [a-f] in its globs: the probes are listed)
events=/sys/kernel/tracing/events/syscalls
[[ -d $events ]] || events=/sys/kernel/debug/tracing/events/syscalls
probes=$(find "$events" -maxdepth 1 -name 'sys_enter_[a-f]*' -printf 'tracepoint:syscalls:%f\n' |
	sort | paste -sd,)
[[ -n $probes ]] || skip_all "no syscall tracepoints in $events"
bpftrace -e "$probes { @[probe] = count(); }" >"$work/bt.out" 2>"$work/bt.err" &
bt=$!
on_exit "kill -KILL $bt 2>/dev/null || true"
for ((i = 0; i < 3000; i++)); do
	grep -q '^Attaching' "$work/bt.out" && break
	kill -0 "$bt" 2>/dev/null || break
	sleep 0.01
done
grep -q '^Attaching' "$work/bt.out" ||
	skip_all "bpftrace cannot attach syscall tracepoints here: $(head -c 300 "$work/bt.err")"
rc=0
bpftrace_stop "$bt" 2>"$work/stop.err" || rc=$?
check exits_by_itself test ! -s "$work/stop.err"
check exits_zero test "$rc" -eq 0
check prints_its_maps grep -q '^@\[tracepoint:syscalls:sys_enter_' "$work/bt.out"
finish
