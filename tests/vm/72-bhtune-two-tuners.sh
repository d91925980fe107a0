#!/bin/bash
# One tuner at a time on bhtune.ko's parameters (issue 33 item 2): while a
# sweep holds them, a second sweep and a `tune set` are refused in one
# line and change nothing. A sweep killed with SIGKILL leaves the values
# it found in /run/bhscope-tune/bhtune.state: `tune reset` then puts those back
# (not bhtune's own reset), and so does the next sweep, before its cells.
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
# shellcheck disable=SC2119 # no extra cleanup
bht_traps
bhscope=$REPO/build/bhscope
state=/run/bhscope-tune/bhtune.state
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"

bht_fs 128 dirsync
bht_load
bht_set lru_size 32
bht_set batch_max_us 20000

# The sweep's first cell is in force (read anew at each try).
first_cell_set() { [[ $(bht_p batch_min_us) == 5000 ]]; }

# long_sweep NAME: a sweep over batch_min_us whose first cell runs for a
# while, in the background ($pid), once bhtune has its first value.
long_sweep() {
	"$bhscope" sweep -q --batch-min-us 5000,6000 -o "$PWD/$1" \
		-- bench sync -D "$BHT_MNT" -t 2 -n 10000 -s 0 >/dev/null 2>"$1.err" &
	pid=$!
	wait_until 120 "$pid" first_cell_set ||
		fail "$1: the sweep never set its first cell: $(cat "$1.err")"
}

# refused ARGS...: bhscope ARGS exits 1 with one line naming the holder.
refused() {
	local rc=0 err
	err=$("$bhscope" "$@" 2>&1 >/dev/null) || rc=$?
	echo "$*: exit $rc: $err"
	[[ $rc == 1 && $(grep -c '' <<<"$err") == 1 ]] || fail "$*: exit $rc: $err"
	[[ $err == "bhscope: bhtune.ko's parameters are being changed by another bhscope (pid $pid, sweep)"* ]] ||
		fail "$*: message '$err'"
}

long_sweep first
refused sweep -q --lru-size 8 -o "$PWD/second" -- bench sync -D "$BHT_MNT" -n 10
refused tune set lru_size=8
[[ $(bht_p lru_size) == 32 && $(bht_p batch_min_us) == 5000 ]] ||
	fail "a refused tuner changed bhtune: lru_size $(bht_p lru_size), batch_min_us $(bht_p batch_min_us)"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc == 130 && $(bht_p batch_min_us) == -1 && $(bht_p batch_max_us) == 20000 && ! -e $state ]] ||
	fail "the first sweep: exit $rc, batch $(bht_p batch_min_us)/$(bht_p batch_max_us), state $(cat $state 2>&1)"

long_sweep killed
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
if ! grep -qx 'min_batch_us -1' "$state" || ! grep -qx 'max_batch_us 20000' "$state"; then
	fail "a killed sweep left no originals: $(cat $state 2>&1)"
fi
wait_until 10 - bash -c '! pgrep -x bhbench >/dev/null' || fail "the killed sweep's workload still runs"
"$bhscope" tune reset || fail "tune reset after a killed sweep"
[[ $(bht_p batch_min_us) == -1 && $(bht_p batch_max_us) == 20000 && ! -e $state ]] ||
	fail "tune reset put back batch $(bht_p batch_min_us)/$(bht_p batch_max_us), want -1/20000"

long_sweep killed-again
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
wait_until 10 - bash -c '! pgrep -x bhbench >/dev/null' || fail "the killed sweep's workload still runs"
"$bhscope" sweep -q --lru-size 8 -o "$PWD/next" -- bench sync -D "$BHT_MNT" -n 10 \
	>/dev/null 2>next.err || fail "the next sweep: $(cat next.err)"
cat next.err
grep -q "^bhscope: bhtune.ko's parameters: put back batch times -1/20000 us" next.err ||
	fail "the next sweep did not say it put the originals back: $(cat next.err)"
[[ $(bht_p lru_size) == 32 && $(bht_p batch_min_us) == -1 && $(bht_p batch_max_us) == 20000 && ! -e $state ]] ||
	fail "after the next sweep: lru_size $(bht_p lru_size), batch $(bht_p batch_min_us)/$(bht_p batch_max_us)"

"$bhscope" tune reset >/dev/null
bht_unload
bht_verify
bht_no_leak
bht_log_clean
