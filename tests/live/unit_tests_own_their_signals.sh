#!/usr/bin/env bash
# The unit tests set the signal dispositions they assume (issue 33 item
# 11): run under nohup (SIGHUP ignored), from a shell that ignores SIGINT
# and SIGTERM (a background job of a script), or with the stop signals
# blocked by the parent, each unit test binary passes as it does alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh

shopt -s nullglob
bins=()
for t in build/tests/test_*; do
	[[ -x $t && $t != *.d ]] && bins+=("$t")
done
[[ ${#bins[@]} -gt 0 ]] || skip_all "the unit tests are not built (make unit)"
command -v nohup > /dev/null || skip_all "nohup is not installed"

log=$(mktemp)
on_exit "rm -f '$log'"
# blocked CMD...: runs CMD with SIGINT, SIGTERM and SIGHUP blocked.
blocked() {
	python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}

for how in nohup ignored blocked; do
	bad=
	for t in "${bins[@]}"; do
		case $how in
		nohup) nohup "$t" > "$log" 2>&1 < /dev/null || bad+=" ${t##*/}" ;;
		ignored) (trap '' INT TERM HUP; "$t") > "$log" 2>&1 || bad+=" ${t##*/}" ;;
		blocked) blocked "$t" > "$log" 2>&1 || bad+=" ${t##*/}" ;;
		esac
	done
	if [[ -z $bad ]]; then pass "unit_tests_pass_with_stop_signals_$how"
	else fail "unit_tests_pass_with_stop_signals_$how" "failed:$bad"; fi
done
finish
