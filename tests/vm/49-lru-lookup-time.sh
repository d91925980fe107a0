#!/bin/bash
# --timing: lookups timed by outcome, and the what-if in time.
#
# 1. The known answer (31's: per pass 8 hits in slot 7 and 20 installed
#    misses, one FIFO task on one CPU), every lookup timed (--timing 1):
#    the timed classes are the outcomes, one for one (hits all in slot 7,
#    installs all installed), none dropped; an installed miss (the page
#    cache's lookup, then the install) takes longer than a hit in slot 7.
# 2. A metadata load on every CPU, one lookup in 64 timed (--whatif's
#    default): the lookups timed or dropped are one in 64 of the lookups
#    the oracle (fentry call counts, no code shared) saw, to within one
#    a CPU plus the lost; the what-if in time has a cost at every size
#    and the kernel's size costs what the timed lookups cost on average.
# vm-timeout: 300
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

PASSES=20
lru_need_tools
lru_need_oracle
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"
ncpu=$(nproc)
LRU_RAM_MB=128
lru_ext4 "$PWD/mnt"
kdev=$(lru_kdev)

# --- 1. the known answer, every lookup timed ---
lru_dir "$PWD/mnt/a" 8
lru_dir "$PWD/mnt/b" 12
passes() {
	local rt=/proc/sys/kernel/sched_rt_runtime_us old rc=0
	old=$(cat $rt)
	echo -1 >$rt
	(chrt -f -p 1 $BASHPID >/dev/null &&
		taskset -c "$LRU_CPU" bash -c 'for ((i = 0; i < $1; i++)); do
			: "$2"/*; : "$2"/*; : "$3"/*; done' _ "$1" "$PWD/mnt/a" "$PWD/mnt/b") ||
		rc=$?
	echo "$old" >$rt
	return $rc
}
passes 2
lru_start known.json -C -d $LRU_DEV --timing 1 --hook fentry 3600 1
passes $PASSES
lru_stop known.json
last=$(tail -n 1 known.json)
c=$(lru_cpu known.json)
all=$(jq -c '.total' <<<"$last")
t=$(jq -c '.lookup_time.costs' <<<"$last")
echo "known: $(jq -c '{lookups, hits, installed, unsynced}' <<<"$c")"
echo "known, times: $(jq -c '{timed, dropped, slot7: .hit_slots[7], installed, line: .hit_line_ns}' <<<"$t")"
pair=$(jq -c -n --argjson c "$all" --argjson t "$t" '{c: $c, t: $t}')
lru_check "known: the known answer" \
	".lookups == $((28 * PASSES)) and .slots[7] == .hits and .hits >= 8 * ($PASSES - 1) and .unsynced == 0" "$c"
lru_check "known: every lookup timed, in its outcome's class, none dropped" \
	'.t.dropped == 0 and .t.timed == .c.lookups and
	 .t.hit_slots[7].timed == .c.hits and
	 ([.t.hit_slots[] | .timed] | add) == .c.hits and
	 .t.installed.timed == .c.installed and .t.absent.timed == 0 and
	 .t.not_installed.timed == 0' "$pair"
# By the median's log2 bucket: a mean takes in the odd interrupt, or a
# TCG hiccup of 300 us, inside a lookup.
lru_check "known: an installed miss takes no less than a hit in slot 7 (median buckets)" \
	'def median: . as $h | (add / 2) as $half |
		[foreach range(0; $h | length) as $i (0; . + $h[$i]; [$i, .])] |
		map(select(.[1] >= $half)) | .[0][0];
	 (.log2_ns_hist.installed | median) >= (.log2_ns_hist.hit | median)' "$t"
lru_check "known: the hit histogram holds every timed hit" \
	'(.log2_ns_hist.hit | add) == .hit_slots[7].timed and
	 (.log2_ns_hist.installed | add) == .installed.timed' "$t"

# --- 2. a metadata load, one lookup in 64 timed ---
lru_oracle_start meta.oracle "$kdev"
lru_start meta.json -C -d $LRU_DEV --whatif 64 3600 1
"$LRU_BHSCOPE" lru -d $LRU_DEV --whatif 16 3600 1 >meta.txt 2>&1 &
text=$!
LRU_PIDS="$LRU_PIDS $text"
wait_until 60 $text grep -q '^Tracing' meta.txt || fail "bhscope lru (text) did not start"
mkdir "$PWD/mnt/m"
"$REPO/build/bhbench" meta -D "$PWD/mnt/m" -t "$ncpu" -n 600 --dir-size 1500 -q
lru_oracle_stop meta.oracle
lru_stop meta.json
kill -INT $text
wait $text || fail "bhscope lru (text) exited with $?"
cat meta.txt
last=$(tail -n 1 meta.json)
all=$(jq -c -n --argjson l "$last" --argjson o "$(cat meta.oracle)" --argjson n "$ncpu" '
	($o.calls | add) as $calls | $l.lookup_time as $t |
	{calls: $calls, lost: $l.lost_lookups, every: $t.costs.every,
	 timed: $t.costs.timed, dropped: $t.costs.dropped, ncpu: $n,
	 lookups: $l.total.lookups, sizes: ($t.sizes | length),
	 costs_known: ([$t.ns_per_lookup[] | select(. == null)] | length == 0),
	 at_size: $t.ns_per_lookup[$l.lru_size - 1],
	 share: $t.change_busy_share[63],
	 mean: ((($t.costs.hit_slots | map(select(.timed > 0) | .mean_ns * .timed) | add) +
		 ([$t.costs.installed, $t.costs.not_installed, $t.costs.absent] |
		  map(select(.timed > 0) | .mean_ns * .timed) | add // 0)) / $t.costs.timed)}')
echo "meta: $all"
lru_check "meta: one lookup in 64 timed or dropped, within one a CPU and the lost" \
	'.every == 64 and
	 (.timed + .dropped - .calls / 64 | fabs) <= .ncpu + .lost + 1' "$all"
lru_check "meta: a cost at every size 1-64, and a share of busy time" \
	'.sizes == 64 and .costs_known and .share != null' "$all"
# The model at the kernel's size weighs each class's timed mean by all its
# lookups; the rare classes below 8 samples take the fitted line instead.
lru_check "meta: at the kernel's size the model costs what the timed lookups cost (within 10 %: the sample's mix of outcomes is not the whole's)" \
	'(.at_size - .mean | fabs) <= 0.1 * .mean' "$all"
grep -q '^what-if in time' meta.txt || fail "the text report has no what-if in time"
grep -Eq '^(an LRU of [0-9]+ would save|no LRU size of)' meta.txt ||
	fail "the text report says nothing of what a size would save"
