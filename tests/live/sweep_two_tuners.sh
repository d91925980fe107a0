#!/usr/bin/env bash
# One tuner at a time, and originals a kill -9 cannot lose (issue 33 item
# 2), on the remount path (no bhtune here): while a sweep holds a journal,
# a second sweep and a `tune set` on it are refused in one line and change
# nothing; the first puts the original batch times back. A sweep killed
# with SIGKILL leaves its originals in /run/bhscope-tune: the next `tune reset`
# puts those back (not ext4's defaults), and so does the next sweep.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools jq
[[ -x $BHBENCH ]] || skip "$BHBENCH is not built (run make)"
[[ ! -d /sys/module/bhtune ]] || skip "bhtune.ko is loaded: this test covers the remount path"
fs_setup dirsync,min_batch_time=300 -b 4096
dev=$(basename "$LOOP")
numbers=$(cat "/sys/class/block/$dev/dev")
state=/run/bhscope-tune/journal-$numbers.state
opts() { grep -oE '(min|max)_batch_time=[0-9]+' "/proc/fs/ext4/$dev/options" | tr '\n' ' '; }
orig=$(opts)

# long_sweep NAME: a sweep whose first cell runs for a while, in the
# background ($pid), once it has set its first cell (min_batch_time=5000).
long_sweep() {
	"$BHSCOPE" sweep -q --batch-min-us 5000,6000 -o "$SCRATCH/$1" \
		-- bench sync -D "$MNT" -t 2 -n 20000 > /dev/null 2> "$SCRATCH/$1.err" &
	pid=$!
	for _ in $(seq 100); do
		[[ $(opts) == *min_batch_time=5000* ]] && return 0
		sleep 0.1
	done
	fail "$1: the sweep never set its first cell: $(cat "$SCRATCH/$1.err")"
}

# refused NAME CMD...: exit 1, one line "bhscope: ... another bhscope".
refused() {
	local name=$1 rc=0
	shift
	"$@" > /dev/null 2> "$SCRATCH/$name.err" || rc=$?
	if [[ $rc -eq 1 && $(wc -l < "$SCRATCH/$name.err") -eq 1 ]] &&
		grep -qE "^bhscope: the journal of $dev \($numbers\) is being changed by another bhscope \(pid $pid, sweep\)" "$SCRATCH/$name.err"
	then check_pass "$name"
	else check_fail "$name" "exit $rc: $(cat "$SCRATCH/$name.err")"; fi
}

long_sweep first
refused second_sweep_on_the_journal_is_refused \
	"$BHSCOPE" sweep -q --batch-min-us 1000 -o "$SCRATCH/second" -- bench sync -D "$MNT" -n 10
refused tune_set_on_the_journal_is_refused \
	"$BHSCOPE" tune set -d "$dev" batch_min_us=7000
if [[ $(opts) == *min_batch_time=5000* && ! -e $SCRATCH/second ]]
then check_pass refused_tuners_change_nothing
else check_fail refused_tuners_change_nothing "options $(opts), $(ls "$SCRATCH")"; fi
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
if [[ $rc -eq 130 && $(opts) == "$orig" && ! -e $state ]]; then check_pass first_sweep_restores_the_originals
else check_fail first_sweep_restores_the_originals "exit $rc, options $(opts), was $orig; state: $(cat "$state" 2>&1)"; fi

# kill_9 NAME: a long sweep killed with SIGKILL, its workload gone.
kill_9() {
	local kids
	long_sweep "$1"
	kids=$(pgrep -P "$pid" | tr "\n" " " || true)
	kill -KILL "$pid"
	wait "$pid" 2> /dev/null || true
	for _ in $(seq 50); do
		# shellcheck disable=SC2086 # a list of pids
		[[ -z $kids ]] || ! kill -0 $kids 2> /dev/null && break
		sleep 0.1
	done
}

kill_9 killed
if [[ $(opts) == *min_batch_time=5000* ]] && grep -q '^min_batch_us 300$' "$state"
then check_pass killed_sweep_leaves_its_originals_saved
else check_fail killed_sweep_leaves_its_originals_saved "options $(opts); state: $(cat "$state" 2>&1)"; fi
"$BHSCOPE" tune reset -d "$dev" > "$SCRATCH/reset.out" 2>&1 || true
if [[ $(opts) == "$orig" && ! -e $state ]]; then check_pass tune_reset_puts_back_what_a_killed_sweep_left
else check_fail tune_reset_puts_back_what_a_killed_sweep_left "options $(opts), was $orig: $(cat "$SCRATCH/reset.out")"; fi

kill_9 killed-again
rc=0
"$BHSCOPE" sweep -q --batch-min-us 1000 -o "$SCRATCH/next" -- bench sync -D "$MNT" -n 10 \
	> /dev/null 2> "$SCRATCH/next.err" || rc=$?
if [[ $rc -eq 0 && $(opts) == "$orig" && ! -e $state ]] &&
	jq -e '.tunables.min_batch_time_us == 1000' "$SCRATCH/next/batch_min_us-1000.json" > /dev/null &&
	grep -q "^bhscope: the journal of $dev ($numbers): put back batch times 300/15000 us" "$SCRATCH/next.err"
then check_pass next_sweep_puts_back_what_a_killed_sweep_left
else check_fail next_sweep_puts_back_what_a_killed_sweep_left "exit $rc, options $(opts), was $orig: $(cat "$SCRATCH/next.err")"; fi
finish
