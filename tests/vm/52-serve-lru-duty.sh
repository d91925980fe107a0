#!/bin/bash
# bhscope serve --lru-duty: the lookup probes attach for a window in every
# period, the hits-only tracepoint counts throughout, and each window's
# figures come out as bhscope_lru_window_* gauges, never as the
# continuous counters.
#
# The load is the known answer of 31 (per pass, on one CPU: 8 lookups that
# hit in slot 7 and 20 installed misses, in a fixed cyclic order), run in
# batches for the whole test, so any window is a stretch of that cycle:
# its hits all in slot 7 (the what-if at size 4 has none of them, at size
# 8 all), no miss but installed ones, and hits within one pass of 8 in 28
# of its lookups. Then: the windows keep coming, never sooner than the
# period (later where a window's load takes longer), none fails, each
# lasts about the window; the continuous families are the tracepoint's
# and its hits grow between windows. Where bhtune.ko is built, it is
# loaded with the same LRU size while serve runs: the windows that follow
# trace bhtune's LRU (each window chooses its hooks anew) and hold the
# known answer there too, and the kernel's hooks come back once it is
# unloaded. Once serve exits, none of its programs is left loaded.
# vm-timeout: 360
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

WINDOW=1 PERIOD=3
pass() { echo "ok: $*"; }
lru_need_tools
lru_ext4 "$PWD/mnt"
bhtune=
if [[ -f $VM_OUT/bhtune/bhtune.ko && -d /sys/kernel/livepatch ]]; then
	. "$REPO/tests/lib/guest_bhtune.sh"
	bhtune=1
	trap 'lru_cleanup || true; bht_cleanup || true' EXIT
fi
lru_known_dirs
lru_known_passes 2

# the passes done so far in passes.done, so that a window with no lookups
# can be told from a load that stopped
lru_known_load passes.done load.end
# load_state: the passes done, and whether the load still runs
load_state() {
	echo "$(cat passes.done 2>/dev/null || echo 0) passes done, $(cat load.end 2>/dev/null || echo running)"
}
"$LRU_BHSCOPE" serve --lru --lru-duty=$WINDOW/$PERIOD --lru-whatif 16 \
	-d $LRU_DEV -l none --textfile "$PWD" -i 1 2>serve.log &
serve=$!
LRU_PIDS+=" $serve"
wait_until 30 $serve test -s bhscope.prom || fail "serve wrote no textfile: $(cat serve.log)"
# the textfile, rewritten every second by a rename: whole
scrape() { cp bhscope.prom "$1"; }
# value METRIC-WITH-LABELS FILE: the sample's value, or "none"
value() {
	awk -v m="$1" '$1 == m { print $2; f = 1 } END { if (!f) print "none" }' "$2"
}

wait_until 60 $serve grep -q '^bhscope_lru_windows_total{result="complete"} [1-9]' bhscope.prom ||
	fail "no window completed in 60 s: $(grep window_info bhscope.prom)"
scrape first.prom
t0=$SECONDS
# A window starts a period after the last one started, or at once where
# opening and closing its session took longer than the period (its load
# is verified under TCG: several seconds on a loaded host, about 30 with
# the deferred hook, whose session attaches more programs). So the test
# waits for WINDOWS of them, as long as a loaded host needs, and checks
# they never came sooner than the period, by serve's own clock.
first=$(value 'bhscope_lru_windows_total{result="complete"}' first.prom)
end0=$(value bhscope_lru_window_end_timestamp_seconds first.prom)
WINDOWS=3
seen=$first
while ((SECONDS - t0 < 150)); do
	scrape last.prom
	complete=$(value 'bhscope_lru_windows_total{result="complete"}' last.prom)
	if ((complete != seen)); then
		seen=$complete
		echo "window $complete at $((SECONDS - t0)) s: $(value "bhscope_lru_window_lookups{device=\"$LRU_DEV\"}" last.prom) lookups; load: $(load_state)"
	fi
	((complete - first < WINDOWS)) || break
	sleep 0.1
done
span=$((SECONDS - t0))
echo "load: $(load_state)"
grep -E '^bhscope_lru_(window|mode|hits)' last.prom

d='{device="'$LRU_DEV'"}'
complete=$(value 'bhscope_lru_windows_total{result="complete"}' last.prom)
failed=$(value 'bhscope_lru_windows_total{result="failed"}' last.prom)
end1=$(value bhscope_lru_window_end_timestamp_seconds last.prom)
n=$((complete - first))
spacing=$(awk -v a="$end0" -v b="$end1" -v n=$n 'BEGIN { printf "%.2f", n ? (b - a) / n : 0 }')
echo "windows: $complete complete, $failed failed; $n after the first scrape, $spacing s apart on average (period $PERIOD s)"
((failed == 0)) || fail "$failed windows failed: $(grep window_info last.prom)"
((n >= WINDOWS)) || fail "$n windows in $span s after the first, not $WINDOWS"
# (a window's end also moves with its load's time: up to 1.5 s of it
# over WINDOWS windows)
awk -v s="$spacing" -v p=$PERIOD -v n=$WINDOWS 'BEGIN { exit !(s >= p - 1.5 / n) }' ||
	fail "windows $spacing s apart, sooner than the period of $PERIOD s"
secs=$(value bhscope_lru_window_seconds last.prom)
awk -v s="$secs" -v w=$WINDOW 'BEGIN { exit !(s >= w && s <= w + 1) }' ||
	fail "the last window lasted $secs s, not about $WINDOW"
pass "windows no sooner than every ${PERIOD} s, none failed, each about ${WINDOW} s"

# known FILE WHAT: FILE's last window holds the known answer
known() {
	local lookups hits unsynced inst notinst absent w4 w8 dev
	lookups=$(value "bhscope_lru_window_lookups$d" "$1")
	hits=$(value "bhscope_lru_window_hits$d" "$1")
	unsynced=$(value "bhscope_lru_window_unsynced_lookups$d" "$1")
	inst=$(value 'bhscope_lru_window_misses{device="'$LRU_DEV'",outcome="installed"}' "$1")
	notinst=$(value 'bhscope_lru_window_misses{device="'$LRU_DEV'",outcome="not_installed"}' "$1")
	absent=$(value 'bhscope_lru_window_misses{device="'$LRU_DEV'",outcome="absent"}' "$1")
	w4=$(value 'bhscope_lru_window_whatif_hits{device="'$LRU_DEV'",size="4"}' "$1")
	w8=$(value 'bhscope_lru_window_whatif_hits{device="'$LRU_DEV'",size="8"}' "$1")
	echo "$2: lookups $lookups, hits $hits, installed $inst, not installed $notinst, absent $absent, unsynced $unsynced; what-if hits at 4: $w4, at 8: $w8"
	[[ $lookups != none ]] ||
		fail "$2 has no lookup gauges for $LRU_DEV (load: $(load_state)): $(grep -E '^bhscope_lru_(window|lost)' "$1")"
	((lookups >= 28)) || fail "$2 saw $lookups lookups"
	((notinst == 0 && absent == 0)) || fail "$2: misses other than installed ones"
	((unsynced <= 2)) || fail "$2: $unsynced lookups unsynced"
	((hits + inst + unsynced == lookups)) || fail "$2: hits + installed + unsynced != lookups"
	((w4 == 0 && w8 == hits)) || fail "$2: hits not all in slot 7: what-if at 4 $w4, at 8 $w8, hits $hits"
	dev=$((28 * hits - 8 * lookups))
	((dev < 0)) && dev=$((-dev))
	((dev <= 8 * 28 + 28 * unsynced)) ||
		fail "$2: hits $hits of $lookups lookups, not within a pass of 8 in 28"
	pass "$2 holds the known answer: every hit in slot 7, within a pass of 8 in 28"
}
known last.prom "the last window"
hits=$(value "bhscope_lru_window_hits$d" last.prom)

mode=$(grep -o 'bhscope_lru_mode_info{mode="[a-z]*"' last.prom | cut -d'"' -f2)
[[ $mode == tracepoint ]] || fail "the continuous families come from $mode, not the hits-only tracepoint"
if grep -q '^bhscope_lru_lookups_total' last.prom; then
	fail "a continuous lookups counter in duty mode: windows mixed with it"
fi
h0=$(value "bhscope_lru_hits_total$d" first.prom)
h1=$(value "bhscope_lru_hits_total$d" last.prom)
# most of the span is outside the windows: the tracepoint counts there too
((h1 - h0 > 2 * hits)) ||
	fail "continuous hits grew by $((h1 - h0)) in $span s, a window alone has $hits"
pass "continuous hits from the tracepoint throughout (+$((h1 - h0))), no continuous lookup counters"

# window_mode MODE: the textfile's last complete window was traced by MODE
window_mode() { grep -q "^bhscope_lru_window_info{.*,mode=\"$1\",.*why=\"\"} 1" bhscope.prom; }
if [[ -n $bhtune ]]; then
	bht_load lru_size=16
	wait_until 60 $serve window_mode bhtune ||
		fail "no window traced bhtune's LRU: $(grep window_info bhscope.prom)"
	scrape bhtune.prom
	known bhtune.prom "a window on bhtune's LRU"
	grep -q '^bhscope_lru_mode_info{mode="tracepoint"' bhtune.prom ||
		fail "the continuous families left the tracepoint under bhtune"
	bht_unload
	wait_until 60 $serve window_mode "\(fentry\|kprobe\)" ||
		fail "the kernel's hooks did not come back after bhtune left: $(grep window_info bhscope.prom)"
	pass "windows follow the LRU's owner: bhtune's hooks while it is loaded, the kernel's after"
fi

kill -TERM $serve
wait $serve || fail "serve exited $?: $(cat serve.log)"
if command -v bpftool >/dev/null; then
	left=$(bpftool prog show | grep -cE "name [a-z_]*(lookup|touch)" || true)
	((left == 0)) || fail "$left LRU programs left loaded after serve exited"
	pass "nothing left loaded after serve exited"
fi
