#!/bin/bash
# --timing: lookups timed by outcome, and the what-if in time.
#
# 1. The known answer (31's: per pass 8 hits in slot 7 and 20 installed
#    misses, one FIFO task on one CPU), every lookup timed (--timing 1):
#    the timed classes are the outcomes, one for one (hits all in slot 7,
#    installs all installed), none dropped; an installed miss (the page
#    cache's lookup, then the install) takes longer than a hit in slot 7.
# (37 checks the sampling of one in 64 on a metadata load, and 51 the
# what-if in time against bhtune's sizes.)
# vm-timeout: 240
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

PASSES=20
lru_need_tools
[[ -x $REPO/build/bhbench ]] || skip "bhbench is not built on the host (make)"
LRU_RAM_MB=128
lru_ext4 "$PWD/mnt"

# --- 1. the known answer, every lookup timed ---
lru_known_dirs
lru_known_passes 2
lru_start known.json -C -d $LRU_DEV --timing 1 --hook fentry 3600 1
lru_known_passes $PASSES
lru_stop known.json
if [[ ${BHSCOPE_LRU_DEFERRED:-} == 1 ]]; then
	lru_timing_check known.json	# it times nothing, and says so
	exit 0
fi
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

# --whatif alone times one lookup in 64: continuously where the lookup's
# entry probe runs, else in windows of 1 s every 60 s
probes=$("$LRU_BHSCOPE" lru --probes -j --whatif 64)
lru_check "--whatif 64 times lookups, one in 64 or in windows" \
	'.figures.lookup_time.available and
	 (.figures.lookup_time.source | test("1 lookup in 64 per CPU|for 1000 ms every 60000 ms"))' "$probes"
