#!/bin/bash
# bhscope tune, without and then with bhtune.ko. Without it, batch times
# are set by remounting ext4, and what jbd2 would silently ignore is
# refused with one line and a non-zero exit: a min above the max given, a
# min above the filesystem's own max, a value above 1000000 (2147483648
# included); nothing changes then. With bhtune it shows the module's
# values, sets lru_size and the batch times through the module's
# parameters (both batch times raised together above the filesystem's own
# max), reports a refused value in one line without changing anything, and
# resets.
# vm-also: cloud
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
bht_traps
bhscope=$REPO/build/bhscope
options=/proc/fs/ext4/ram0/options

bht_fs 64

# refused CODE MESSAGE ARGS...: bhscope tune ARGS exits CODE with MESSAGE,
# one line, and the journal's batch times stay what they were.
refused() {
	local code=$1 msg=$2 rc=0 err before
	shift 2
	before=$(grep batch_time "$options")
	err=$($bhscope tune "$@" 2>&1) || rc=$?
	echo "$*: exit $rc: $err"
	[[ $rc == "$code" ]] || fail "tune $*: exit $rc, want $code"
	[[ $err == "$msg" ]] || fail "tune $*: message '$err', want '$msg'"
	[[ $(grep batch_time "$options") == "$before" ]] || fail "tune $* changed the batch times"
}

# Without bhtune: the remount path.
refused 1 "bhscope: tune set: refused: min batch time 5000 us is above the max, 10 us: jbd2 would ignore it" \
	set -d ram0 batch_min_us=5000 batch_max_us=10
refused 1 "bhscope: refused for $BHT_MNT (ram0): min batch time 20000 us is above the max, 15000 us: jbd2 would ignore it" \
	set -d ram0 batch_min_us=20000
refused 64 "bhscope: tune set: batch_min_us=2147483648 is out of range (-1..1000000)" \
	set -d ram0 batch_min_us=2147483648
refused 64 "bhscope: tune set: batch_max_us=1000001 is out of range (-1..1000000)" \
	set -d ram0 batch_max_us=1000001
$bhscope tune set -d ram0 batch_min_us=20000 batch_max_us=30000 || fail "tune set by remount"
grep -q 'min_batch_time=20000' "$options" && grep -q 'max_batch_time=30000' "$options" ||
	fail "remount did not set 20000/30000: $(grep batch_time "$options")"
$bhscope tune reset -d ram0 || fail "tune reset by remount"
grep -q 'min_batch_time=0' "$options" && grep -q 'max_batch_time=15000' "$options" ||
	fail "reset by remount did not put 0/15000 back: $(grep batch_time "$options")"

bht_load
json=$($bhscope tune -j)
echo "$json"
python3 - "$json" <<'PY' || fail "tune -j before set: $json"
import json, sys
t = json.loads(sys.argv[1])
assert t["bhtune"]["loaded"] is True
assert t["lru_size"] == {"value": 16, "from": "bhtune"}, t["lru_size"]
PY

$bhscope tune set lru_size=32 batch_min_us=1000 || fail "tune set"
[[ $(bht_p lru_size) == 32 ]] || fail "lru_size is $(bht_p lru_size), want 32"
[[ $(bht_p batch_min_us) == 1000 ]] || fail "batch_min_us is $(bht_p batch_min_us)"

json=$($bhscope tune -j -d ram0)
python3 - "$json" <<'PY' || fail "tune -j after set: $json"
import json, sys
t = json.loads(sys.argv[1])
j = t["journals"]
assert len(j) == 1 and j[0]["device"] == "ram0", j
assert (j[0]["min_batch_us"], j[0]["from"]) == (1000, "bhtune"), j
PY

# Both above the filesystem's own max (15000): max must go first.
$bhscope tune set batch_min_us=20000 batch_max_us=30000 || fail "tune set both above the own max"
[[ $(bht_p batch_min_us) == 20000 && $(bht_p batch_max_us) == 30000 ]] ||
	fail "batch times $(bht_p batch_min_us)/$(bht_p batch_max_us), want 20000/30000"
# And both down again below the old min: min must go first.
$bhscope tune set batch_min_us=100 batch_max_us=200 || fail "tune set both down"
[[ $(bht_p batch_min_us) == 100 && $(bht_p batch_max_us) == 200 ]] ||
	fail "batch times $(bht_p batch_min_us)/$(bht_p batch_max_us), want 100/200"

refusedb() { # CODE MESSAGE ARGS...: as refused, for bhtune's parameters
	local code=$1 msg=$2 rc=0 err before
	shift 2
	before=$(cat "$BHT_P"/{lru_size,batch_min_us,batch_max_us,batch_dev})
	err=$($bhscope tune "$@" 2>&1) || rc=$?
	echo "$*: exit $rc: $err"
	[[ $rc == "$code" ]] || fail "tune $*: exit $rc, want $code"
	[[ $err == "$msg" ]] || fail "tune $*: message '$err', want '$msg'"
	[[ $(cat "$BHT_P"/{lru_size,batch_min_us,batch_max_us,batch_dev}) == "$before" ]] ||
		fail "tune $* changed bhtune's parameters"
}
refusedb 1 "bhscope: bhtune refused lru_size=65: out of range" set lru_size=65
refusedb 1 "bhscope: bhtune refused batch_min_us=300: out of range, or a min above a journal's max batch time (the kernel log names it)" \
	set batch_min_us=300
refusedb 1 "bhscope: tune set: refused: min batch time 5000 us is above the max, 10 us: jbd2 would ignore it" \
	set batch_min_us=5000 batch_max_us=10
refusedb 1 "bhscope: bhtune refused batch_dev=1:7: no ext4 journal on that device" set batch_dev=1:7
refusedb 64 "bhscope: tune set: batch_max_us=2147483648 is out of range (-1..1000000)" set batch_max_us=2147483648
[[ $(bht_p lru_size) == 32 ]] || fail "a refused lru_size changed it to $(bht_p lru_size)"

$bhscope tune reset || fail "tune reset"
[[ $(bht_p batch_min_us) == -1 && $(bht_p batch_max_us) == -1 ]] ||
	fail "reset left batch_min_us=$(bht_p batch_min_us) batch_max_us=$(bht_p batch_max_us)"
bht_unload
bht_verify
bht_no_leak
bht_log_clean
