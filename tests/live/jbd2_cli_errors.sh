#!/usr/bin/env bash
# bhscope jbd2 on bad input and environment: one-line errors, the right exit
# status, a last report on SIGINT/SIGTERM, and nothing left attached.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
require_root

expect_error zero_interval 64 "invalid interval '0'" "$BHSCOPE" jbd2 0
expect_error garbage_interval 64 "invalid interval 'abc'" "$BHSCOPE" jbd2 abc
expect_error zero_count 64 "invalid count '0'" "$BHSCOPE" jbd2 1 0
expect_error negative_count 64 "invalid count '-2'" "$BHSCOPE" jbd2 -- 1 -2
expect_error extra_argument 64 "unexpected argument" "$BHSCOPE" jbd2 1 1 1
expect_error unknown_device 1 "unknown device 'nosuchdisk0'" "$BHSCOPE" jbd2 -d nosuchdisk0
expect_error bad_device_numbers 1 "invalid device '7:x'" "$BHSCOPE" jbd2 -d 7:x
# numbers that name no block device here; two -d (the tracers follow one)
absent=7:1048575
[[ ! -e /sys/dev/block/$absent ]] || skip_all "$absent exists here"
expect_error absent_device_numbers 1 "unknown device '$absent': no block device" "$BHSCOPE" jbd2 -d "$absent"
expect_error absent_device_numbers_lru 1 "unknown device '$absent': no block device" "$BHSCOPE" lru -d "$absent"
expect_error absent_device_numbers_tune 1 "unknown device '$absent': no block device" "$BHSCOPE" tune -d "$absent"
expect_error two_devices 64 "-d given twice \\('loop0', then '7:0'\\)" "$BHSCOPE" jbd2 -d loop0 -d 7:0
expect_error two_devices_lru 64 "-d given twice" "$BHSCOPE" lru -d loop0 -d 7:0
expect_error two_devices_tune 64 "-d given twice" "$BHSCOPE" tune -d loop0 -d 7:0
expect_error unknown_option 64 "" "$BHSCOPE" jbd2 --no-such-option
expect_error unknown_command 64 "unknown command 'nosuch'" "$BHSCOPE" nosuch
expect_error not_root 1 "need root, or CAP_BPF and CAP_PERFMON" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$BHSCOPE" jbd2 1 1

check help_exits_zero bash -c '"$0" jbd2 --help > /dev/null' "$BHSCOPE"
check top_help_lists_jbd2 bash -c '"$0" --help | grep -q "^  jbd2 "' "$BHSCOPE"

# Count-limited run: exactly COUNT JSON lines, the last one final.
out=$(mktemp)
on_exit "rm -f '$out'"
"$BHSCOPE" jbd2 -j 0.2 3 > "$out"
check count_gives_that_many_reports test "$(wc -l < "$out")" -eq 3
check last_report_is_final bash -c 'tail -n 1 "$0" | grep -q "\"final\":true"' "$out"

# SIGTERM mid-interval still prints the interval and exits 0, and leaves
# none of its programs loaded.
ids=
for sig in INT TERM; do
	"$BHSCOPE" jbd2 -j 30 > "$out" &
	pid=$!
	sleep 1.5
	ids+=" $(prog_ids_of "$pid")"
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	check "sig${sig,,}_exits_zero" test "$rc" -eq 0
	check "sig${sig,,}_prints_final_report" grep -q '"final":true' "$out"
done

check programs_attached_while_tracing test -n "${ids// /}"
if command -v bpftool > /dev/null; then
	# shellcheck disable=SC2086 # one ID a word
	check no_programs_left_attached test -z "$(progs_left 15 $ids)"
fi
finish
