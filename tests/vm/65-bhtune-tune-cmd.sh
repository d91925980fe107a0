#!/bin/bash
# bhscope tune with bhtune.ko loaded: it shows the module's values, sets
# lru_size and the batch times through the module's parameters, reports a
# refused value in one line without changing anything, and resets.
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
bht_need
trap bht_cleanup EXIT
bhscope=$REPO/build/bhscope

bht_fs 64
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

rc=0
err=$($bhscope tune set lru_size=65 2>&1) || rc=$?
echo "$err"
[[ $rc == 1 ]] || fail "lru_size=65: exit $rc"
[[ $err == "bhscope: bhtune refused lru_size=65: out of range" ]] || fail "message: $err"
[[ $(bht_p lru_size) == 32 ]] || fail "a refused lru_size changed it to $(bht_p lru_size)"

$bhscope tune reset || fail "tune reset"
[[ $(bht_p batch_min_us) == -1 ]] || fail "reset left batch_min_us=$(bht_p batch_min_us)"
bht_verify
