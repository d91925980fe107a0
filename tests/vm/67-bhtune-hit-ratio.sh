#!/bin/bash
# The hit ratio counted from bhtune's own tracepoint with bpftrace is 0 at
# lru_size=0 and does not fall as lru_size grows (4, 8, 16, 32, 64) on the
# same metadata workload; prints the table with the workload's files/s.
# The LRU is a stack: a lookup that hits slot i of a size-n LRU would hit in
# any LRU larger than i, so the hit slots of the lru_size=16 run predict the
# hit ratio at 4 and 8 (and the 64 run's, at 32): the table shows those
# predictions too, and they must agree with the runs at those sizes. And
# `bhscope lru --whatif 64`, run during the lru_size=16 run only, predicts
# every size from its ghost list: its curve must agree with the runs at
# 4, 8, 32 and 64 as well. The hits are also checked against the kernel
# itself, not only against what bhtune's tracepoint says: a kprobe on
# __filemap_get_folio counts the lookups that went to the page cache, which
# must be every lookup at lru_size=0 and exactly the misses at 16.
set -euo pipefail
. "$REPO/tests/lib/guest_bhtune.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"
# shellcheck source=tests/lib/bpftrace.sh
. "$REPO/tests/lib/bpftrace.sh"
bht_need
lru_need_tools
command -v bpftrace >/dev/null || skip "bpftrace is not installed"
# shellcheck disable=SC2016 # expanded when the trap runs
bht_traps '[[ -n ${bt:-} ]] && kill -INT "$bt" 2>/dev/null
	[[ -n ${LRU_PID:-} ]] && kill "$LRU_PID" 2>/dev/null'

bht_fs 48
bht_load
dev=$((0x$(stat -c %t "$BHT_DEV") << 20 | 0x$(stat -c %T "$BHT_DEV"))) # kernel dev_t

# One bpftrace for all sizes: each lookup carries the lru_size it ran with.
# A lookup that misses the LRU reads the block device's page cache with
# __filemap_get_folio(mapping, index, FGP_ACCESSED (1), 0) before its
# tracepoint fires: @slow counts the lookups that did. bpftrace attaches
# its probes one after the other (the kprobe can take seconds under TCG),
# so nothing is counted before both have fired once: then it says ready.
# A page-cache read counts for a lookup only if it came after ready:
# @pc holds when it came. (Debian 12's bpftrace 0.17 cannot clear() a map
# that a probe deletes from meanwhile: its user-space walk meets a key
# already gone and aborts, which 6.12's 67 once did in CI.)
bht_set lru_size 0 # every lookup reads the page cache, until ready
bpftrace -e "kprobe:__filemap_get_folio /arg2 == 1 && ((struct address_space *)arg0)->host->i_rdev == $dev/ {
	@pc[tid] = nsecs;
	@kprobe_seen = 1;
}
tracepoint:bhtune:bhtune_lookup /args->dev == $dev/ {
	@tracepoint_seen = 1;
	if (@ready) {
		@lookups[args->lru_size] = count();
		if (args->slot >= 0) { @hits[args->lru_size] = count(); }
		if (@pc[tid] > @ready) { @slow[args->lru_size] = count(); }
		if (args->slot >= 0 && (args->lru_size == 16 || args->lru_size == 64)) {
			@slots[args->lru_size, args->slot] = count();
		}
	}
	if (@pc[tid]) { delete(@pc[tid]); }
}
interval:ms:100 /!@ready && @kprobe_seen && @tracepoint_seen/ {
	@ready = nsecs;
	printf(\"ready\\n\");
}" >bt.out 2>bt.out.err &
bt=$!
bpftrace_wait_ready "$bt" bt.out "$BHT_MNT"

sizes="0 4 8 16 32 64"
declare -A files
for s in $sizes; do
	bht_set lru_size "$s"
	((s != 16)) || lru_start whatif.json -d "${BHT_DEV##*/}" --whatif 64 3600 1
	# Same work each time, on one CPU: the LRU is per CPU.
	files[$s]=$(taskset -c 0 fs_mark -d "$BHT_MNT/h$s" -t 1 -n 300 -s 0 -S 0 -L 1 |
		awk '/^ *[0-9]/ {print int($4)}')
	taskset -c 0 rm -rf "$BHT_MNT/h$s"
	sync
	((s != 16)) || { lru_stop whatif.json; LRU_PID=; }
done
bpftrace_stop "$bt" || true
bt=

# pct N D: N/D in basis points
bp() { echo $(($1 * 10000 / $2)); }
fmt() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }
count() { awk -v k="$1" '$1 == k {print $2}' bt.out; }
# predicted FROM K: hit ratio (bp) at size K from the lru_size=FROM run
predicted() {
	awk -v from="$1" -v k="$2" '
		$1 ~ "^@slots\\[" from "," { s = $2; sub(/]:$/, "", s); if (s + 0 < k) h += $3 }
		END { print h + 0 }' bt.out
}
# whatif K: bhscope's hit ratio (bp) at size K, from the lru_size=16 run
whatif() { tail -n 1 whatif.json | jq -r ".total.whatif.hit_ratio[$1 - 1] * 10000 | round"; }
declare -A ratio
printf '%8s %9s %9s %8s %9s %15s %16s\n' lru_size lookups hits "hit %" files/s \
	"from slots %" "bhscope what-if %"
prev=-1 ps=
for s in $sizes; do
	l=$(count "@lookups[$s]:") h=$(count "@hits[$s]:")
	l=${l:-0} h=${h:-0}
	((l > 1000)) || fail "only $l lookups traced at lru_size=$s"
	r=$(bp "$h" "$l")
	ratio[$s]=$r
	pred="-" wi="-"
	((s == 0)) || wi=$(fmt "$(whatif "$s")")
	case $s in
	4 | 8) pred="$(fmt "$(bp "$(predicted 16 "$s")" "$(count '@lookups[16]:')")") (from 16)" ;;
	32) pred="$(fmt "$(bp "$(predicted 64 "$s")" "$(count '@lookups[64]:')")") (from 64)" ;;
	esac
	printf '%8s %9s %9s %8s %9s %15s %16s\n' "$s" "$l" "$h" "$(fmt "$r")" "${files[$s]}" \
		"$pred" "$wi"
	slow=$(count "@slow[$s]:")
	slow=${slow:-0}
	if ((s == 0)); then
		# the kernel's page cache saw every lookup: none was served by an LRU
		((h == 0 && slow * 100 >= l * 99)) ||
			fail "lru_size=0: $h hits reported, $slow of $l lookups went to the page cache"
	else
		# 1 point of slack: the runs are the same work, not the same stream
		((r + 100 >= prev)) || fail "hit ratio fell from lru_size $ps to $s"
	fi
	prev=$r ps=$s
done
# At 16 the misses bhtune reports are the lookups that went to the page
# cache (within 1%: a page-cache read outside a lookup can be counted).
l=$(count '@lookups[16]:') h=$(count '@hits[16]:') slow=$(count '@slow[16]:')
d=$((slow - (l - h)))
((d * 100 <= l && -d * 100 <= l)) ||
	fail "lru_size=16: $((l - h)) misses reported, $slow lookups went to the page cache (of $l)"
echo "page-cache reads per lookup confirm the tracepoint: all $(count '@lookups[0]:') at lru_size=0 ($(count '@slow[0]:') counted), the $((l - h)) misses at 16 ($slow counted)"
# The slots of the 16 run predict the runs at 4 and 8 (same work, so
# within a few points; a wrong slot in the tracepoint would be far off).
for s in 4 8; do
	p=$(bp "$(predicted 16 "$s")" "$(count '@lookups[16]:')")
	d=$((p - ratio[$s]))
	((d <= 500 && d >= -500)) ||
		fail "lru_size=$s: measured $(fmt "${ratio[$s]}")%, the 16 run's slots predict $(fmt "$p")%"
done
# bhscope's curve from the 16 run: the runs at other sizes are the same
# work, not the same stream, so within a few points.
for s in 4 8 32 64; do
	p=$(whatif "$s")
	d=$((p - ratio[$s]))
	((d <= 500 && d >= -500)) ||
		fail "lru_size=$s: measured $(fmt "${ratio[$s]}")%, bhscope's what-if from the 16 run says $(fmt "$p")%"
done
w16=$(whatif 16)
((w16 - ratio[16] <= 100 && ratio[16] - w16 <= 100)) ||
	fail "bhscope's what-if at 16, $(fmt "$w16")%, is not the hit ratio bpftrace counted, $(fmt "${ratio[16]}")%"
bht_set lru_size 16
bht_unload
bht_verify
bht_no_leak
bht_log_clean
