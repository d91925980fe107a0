#!/usr/bin/env bash
# An unprivileged user (issue 15): record and sweep check privileges before
# anything else and say so in one 'bhscope:' line, exit 1, write no record,
# run no workload, run no mount (whose own errors sweep printed three
# times) and claim nothing about restoring settings they never changed.
# record used to exit 0 with no tracing at all.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root
command -v setpriv > /dev/null || skip_all "setpriv is not installed (util-linux)"

tmp=$(mktemp -d /tmp/bhscope-unpriv.XXXXXX)
on_exit "rm -rf '$tmp'"
chmod 0777 "$tmp"
bin=$(realpath "$BHSCOPE")

# as_nobody NAME PATTERN CMD...: as nobody, exit 1 within 20 s, stderr is
# exactly one line, "bhscope: ..." matching PATTERN.
as_nobody() {
	local name=$1 pattern=$2 err rc=0
	shift 2
	err=$(cd "$tmp" && timeout 20 setpriv --reuid=nobody --regid=nogroup \
		--clear-groups --inh-caps=-all "$@" 2>&1 > /dev/null) || rc=$?
	if [[ $rc -eq 1 && $(wc -l <<< "$err") -eq 1 && $err == "bhscope: "*"$pattern"* ]]
	then pass "$name"
	else fail "$name" "exit $rc: $(head -c 400 <<< "$err")"; fi
}

as_nobody record_needs_tracing_privileges "need root, or CAP_BPF and CAP_PERFMON" \
	"$bin" record -o "$tmp/r.json" -- touch "$tmp/ran"
check record_wrote_nothing test ! -e "$tmp/r.json"
check record_ran_nothing test ! -e "$tmp/ran"
as_nobody record_lru_needs_tracing_privileges "need root, or CAP_BPF and CAP_PERFMON" \
	"$bin" record --lru -o "$tmp/r.json" -- true

as_nobody sweep_batch_needs_root "needs root (missing: CAP_SYS_ADMIN CAP_DAC_OVERRIDE); nothing was run or changed" \
	"$bin" sweep --batch-min-us 0,1000 -o "$tmp/sw" -- bench sync -D "$tmp" -n 5
as_nobody sweep_lru_size_needs_root "needs root" \
	"$bin" sweep --lru-size 8,16 -o "$tmp/sw" -- bench meta -D "$tmp" -n 5
as_nobody sweep_tasks_needs_tracing_privileges "need root, or CAP_BPF and CAP_PERFMON" \
	"$bin" sweep --tasks 1,2 -o "$tmp/sw" -- bench sync -D "$tmp" -n 5
check sweep_made_no_directory test ! -e "$tmp/sw"

# The report of a sweep is only reading: anyone may print it.
"$BHSCOPE" record -q -o "$tmp/a.json" -- true
mkdir "$tmp/rep"
jq '.sweep = {"config": "base", "config_index": 0, "cell": 0, "params": {}} |
    .runs[0].result = {"results": {"files_per_sec": 5}}' "$tmp/a.json" > "$tmp/rep/a.json"
chmod -R a+rX "$tmp"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@" > /dev/null; }
check sweep_report_needs_no_privileges nobody "$bin" sweep --report "$tmp/rep"
check compare_needs_no_privileges nobody "$bin" compare -q "$tmp/a.json" "$tmp/a.json"
finish
