#!/usr/bin/env bash
# A workload that fails is recorded as failed ("ok": false, its exit status
# or signal) and bhscope exits non-zero; one that cannot start says why;
# an output that cannot be written is refused before anything runs.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools jq
scratch_setup

rec=$SCRATCH/fail.json
rc=0
"$BHSCOPE" record -q -r 3 -o "$rec" -- sh -c 'exit 3' 2> "$SCRATCH/err" || rc=$?
if [[ $rc -eq 1 ]] && jq -e '.ok == false and (.runs | length) == 1 and
	.runs[0].ok == false and .runs[0].exit_status == 3 and
	.runs[0].error == "exit status 3"' "$rec" > /dev/null
then check_pass failed_workload_recorded_and_exit_1
else check_fail failed_workload_recorded_and_exit_1 "exit $rc: $(cat "$SCRATCH/err")"; fi

rc=0
"$BHSCOPE" record -q -o "$rec" -- sh -c 'kill -KILL $$' 2> /dev/null || rc=$?
if [[ $rc -eq 1 ]] && jq -e '.ok == false and .runs[0].signal == "SIGKILL" and
	.runs[0].exit_status == 137' "$rec" > /dev/null
then check_pass killed_workload_names_the_signal
else check_fail killed_workload_names_the_signal "exit $rc: $(jq -c .runs "$rec")"; fi

rc=0
"$BHSCOPE" record -q -o "$rec" -- /nonexistent/workload 2> /dev/null || rc=$?
if [[ $rc -eq 1 ]] && jq -e '.runs[0].exit_status == 127 and
	(.runs[0].error | test("cannot run .*/nonexistent/workload.: No such file"))' \
	"$rec" > /dev/null
then check_pass missing_command_recorded_with_the_reason
else check_fail missing_command_recorded_with_the_reason "exit $rc: $(jq -c .runs "$rec")"; fi

# A workload's error text is shown, its escape sequences are not sent.
printf '#!/bin/sh\nprintf %s\nexit 1\n' \
	"'{\"ok\":false,\"error\":\"disk \\033[2J\\033]0;owned\\007 full\"}\\n'" > "$SCRATCH/evil-bench"
chmod +x "$SCRATCH/evil-bench"
rc=0
out=$(BHBENCH=$SCRATCH/evil-bench "$BHSCOPE" record -o "$rec" --bench "sync -D $SCRATCH" 2>&1) || rc=$?
if [[ $rc -eq 1 && $out == *'run 1/1 failed: disk \x1b[2J\x1b]0;owned\x07 full'* &&
	$out != *$'\e'* ]]
then check_pass workload_error_text_made_safe
else check_fail workload_error_text_made_safe "exit $rc: $(cat -v <<< "$out")"; fi

# An output that cannot be written is found before the workload runs
# (it would leave a mark: ran), in one line: no directory, an empty name,
# a name ending in '/' (a directory there or not), a file for a directory.
# refused NAME OUT MESSAGE: record -o OUT exits 1 with MESSAGE, nothing run.
refused() {
	local name=$1 out rc=0
	rm -f "$SCRATCH/ran"
	out=$("$BHSCOPE" record -o "$2" -- touch "$SCRATCH/ran" 2>&1) || rc=$?
	if [[ $rc -eq 1 && $out == "bhscope: $3; nothing was run" && ! -e $SCRATCH/ran ]]
	then check_pass "$name"
	else check_fail "$name" "exit $rc: $out$([[ -e $SCRATCH/ran ]] && echo '; the workload ran')"; fi
}
mkdir "$SCRATCH/adir"
touch "$SCRATCH/afile"
refused unwritable_output_refused_before_running "$SCRATCH/nodir/x.json" \
	"$SCRATCH/nodir/x.json: no directory $SCRATCH/nodir to write it in (No such file or directory)"
refused empty_output_name_refused_before_running "" "an empty file name: give one"
refused directory_output_name_refused_before_running "$SCRATCH/adir/" \
	"$SCRATCH/adir/ ends in '/', a directory's name: give a file name"
refused new_directory_name_refused_before_running "$SCRATCH/newdir/" \
	"$SCRATCH/newdir/ ends in '/', a directory's name: give a file name"
refused file_as_directory_refused_before_running "$SCRATCH/afile/x.json" \
	"$SCRATCH/afile/x.json: Not a directory"

rc=0
out=$("$BHSCOPE" record -- true 2>&1) || rc=$?
if [[ $rc -eq 64 && $out == *"-o FILE is required"* ]]
then check_pass missing_output_is_a_usage_error
else check_fail missing_output_is_a_usage_error "exit $rc: $out"; fi
finish
