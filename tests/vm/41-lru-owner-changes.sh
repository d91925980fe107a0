#!/bin/bash
# The tune step: bhtune.ko arrives or leaves while a tracer runs. Whoever
# runs the lookup (the kernel's own code, or bhtune's livepatch with its
# own LRU) is read from /sys/kernel/livepatch at start and after every
# read; a tracer whose hooks no longer see the LRU in use marks every
# figure from that interval on unavailable (bhscope lru), or attaches
# again to the new owner (bhscope serve). Never a silent 0 % hit ratio.
#
# The known answer: a directory of 12 blocks listed on one CPU is a cyclic
# scan that fits the kernel's 16 slots and bhtune's 24, so every lookup
# but the first pass's hits, whoever owns the LRU.
# vm-also: rt cloud
set -euo pipefail
# shellcheck source=tests/lib/guest_bhtune.sh
. "$REPO/tests/lib/guest_bhtune.sh"
# shellcheck source=tests/lib/guest_lru.sh
. "$REPO/tests/lib/guest_lru.sh"

K=12 PASSES=20
bht_need || true
lru_need_tools
lru_ext4 "$PWD/mnt"
trap 'lru_cleanup || true; bht_cleanup || true' EXIT
lru_dir "$PWD/mnt/a" $K

# jq over every interval line of OUT: the LRU_CPU figures or null.
cpu_lines() {
	jq -c "{unavailable: .figures_unavailable, mode,
		cpu: ([.cpus[]? | select(.cpu == $LRU_CPU)] | first)}" "$1"
}

# The intervals with figures, summed: on a busy host the scan may straddle
# an interval's end, but its K first-pass misses stay K. Passes (exit 0)
# if they saw the whole scan and every lookup but those K hit or is
# unsynced; prints the sums.
figures_saw_scan() {
	jq -s -c -e "[.[] | select(.unavailable == null and .cpu != null) | .cpu]
		| {intervals: length, lookups: (map(.lookups) | add // 0),
		   hits: (map(.hits) | add // 0),
		   unsynced: (map(.unsynced // 0) | add // 0)}
		| ., (.lookups >= $K * $PASSES and .hits <= .lookups
		      and .hits >= .lookups - $K - .unsynced)" "$1" |
		{ read -r sums && read -r ok && echo "$sums" && [[ $ok == true ]]; }
}

# 1. bhtune.ko without its tracepoints' module: refused by the loader.
if insmod "$BHT_KO/bhtune.ko" 2>err.txt; then
	bht_unload
	fail "bhtune.ko loaded without bhtune_events.ko"
fi
if bht_loaded || [[ -e $BHT_LP ]]; then
	fail "a refused bhtune.ko left /sys/module/bhtune or its livepatch"
fi
echo "PASS: bhtune.ko refuses to load without bhtune_events.ko: $(head -n 1 err.txt)"

# 2. Loaded during: a kernel-mode tracer sees bhtune take the LRU.
lru_start during.json -C -d $LRU_DEV 1
lru_list "$PWD/mnt/a" $PASSES
sleep 1.5
bht_load lru_size=24
echo "bhtune loaded at ${SECONDS} s"
lru_list "$PWD/mnt/a" $PASSES
sleep 2.5
lru_stop during.json
cpu_lines during.json >during.cpu
mode=$(head -n 1 during.cpu | jq -r .mode)
[[ $mode != bhtune ]] || fail "the tracer started before bhtune is in mode bhtune"
sums=$(figures_saw_scan during.cpu) ||
	{ cat during.cpu; fail "the kernel-mode intervals before the load did not see the scan hit: $sums"; }
echo "PASS: before the load the $mode hooks saw the scan hit: $sums"
jq -s -e '.[-1].unavailable != null and (.[-1].unavailable | test("bhtune"))' during.cpu >/dev/null ||
	{ cat during.cpu; fail "the final report after bhtune's load is not marked unavailable"; }
# once marked, every later interval is: no line after the first mark has figures
jq -s -e '(map(.unavailable != null) | index(true)) as $i
	| $i != null and (.[$i:] | all(.unavailable != null and .cpu == null))' during.cpu >/dev/null ||
	{ cat during.cpu; fail "an interval after bhtune's load still reports figures"; }
# no interval with figures counted the scan's second half (0 hits, all misses)
jq -s -e "all(.[] | select(.unavailable == null and .cpu.lookups > 2 * $K);
	      .cpu.hits > 0)" during.cpu >/dev/null ||
	{ cat during.cpu; fail "an interval with figures shows lookups and no hit"; }
grep -qE "^bhscope: since .* the lookup is (bhtune.ko's livepatch|livepatch bhtune's transition)" during.json.err ||
	fail "stderr does not say that bhtune took the lookup: $(cat during.json.err)"
echo "PASS: bhtune loaded during: $(grep -c . during.cpu) intervals, marked from $(jq -s '(map(.unavailable != null) | index(true))' during.cpu) on: $(grep -m1 '^bhscope: since' during.json.err)"

# 3. Loaded before, unloaded during: bhtune mode, then the kernel's again.
lru_start before.json -C -d $LRU_DEV 1
lru_list "$PWD/mnt/a" $PASSES
sleep 1.5
bht_unload
echo "bhtune unloaded at ${SECONDS} s"
lru_list "$PWD/mnt/a" $PASSES
sleep 2.5
lru_stop before.json
cpu_lines before.json >before.cpu
jq -s -e 'all(.mode == "bhtune")' before.cpu >/dev/null ||
	fail "the tracer started with bhtune loaded is not in mode bhtune: $(head -n 1 before.cpu)"
sums=$(figures_saw_scan before.cpu) ||
	{ cat before.cpu; fail "the bhtune-mode intervals did not see the scan hit: $sums"; }
echo "PASS: the bhtune-mode hooks saw the scan hit: $sums"
jq -s -e '(map(.unavailable != null) | index(true)) as $i
	| $i != null and (.[$i:] | all(.unavailable != null and .cpu == null))
	  and (.[-1].unavailable | test("the kernel.s own lookup|bhtune.s transition"))' before.cpu >/dev/null ||
	{ cat before.cpu; fail "after bhtune's unload the bhtune-mode figures are not marked"; }
echo "PASS: bhtune unloaded during: marked: $(grep -m1 '^bhscope: since' before.json.err)"

# 4. bhscope serve follows the owner: attaches again, counters from 0.
prom() { grep -E "^$1(\{| )" bhscope.prom | head -n 1; }
prom_has() { grep -qE "$1" bhscope.prom; }
rm -f bhscope.prom
"$LRU_BHSCOPE" serve --lru -l none --textfile "$PWD" -i 1 2>serve.err &
serve=$!
LRU_PIDS="${LRU_PIDS:-} $serve"
wait_until 30 $serve test -s bhscope.prom || fail "bhscope serve wrote no textfile: $(cat serve.err)"
prom_has '^bhscope_lru_mode_info\{mode="(fentry|kprobe)"' ||
	fail "serve without bhtune is not in a kernel mode: $(prom bhscope_lru_mode_info)"
bht_load lru_size=24
wait_until 20 $serve prom_has '^bhscope_lru_mode_info\{mode="bhtune"' ||
	fail "serve did not follow bhtune within 20 s: $(prom bhscope_lru_mode_info); $(cat serve.err)"
prom_has '^bhscope_source_restarts_total\{source="lru"\} 1$' ||
	fail "serve's restart is not counted: $(prom bhscope_source_restarts_total)"
lru_list "$PWD/mnt/a" $PASSES
sleep 2.5
hits=$(awk -v d="$LRU_DEV" '$1 ~ "^bhscope_lru_hits_total\\{device=\"" d "\"" {print $2}' bhscope.prom)
lookups=$(awk -v d="$LRU_DEV" '$1 ~ "^bhscope_lru_lookups_total\\{device=\"" d "\"" {print $2}' bhscope.prom)
[[ -n $hits && -n $lookups ]] || fail "serve exports no $LRU_DEV hits in bhtune mode: $(grep lru_hits bhscope.prom)"
((lookups >= K * PASSES && hits >= K * PASSES - K && hits <= lookups)) ||
	fail "serve in bhtune mode: $hits hits of $lookups lookups for $((K * PASSES)) scanned"
echo "PASS: serve followed bhtune: $hits hits of $lookups lookups"
bht_unload
wait_until 20 $serve prom_has '^bhscope_lru_mode_info\{mode="(fentry|kprobe)"' ||
	fail "serve did not return to a kernel mode within 20 s: $(prom bhscope_lru_mode_info); $(cat serve.err)"
prom_has '^bhscope_source_restarts_total\{source="lru"\} 2$' ||
	fail "serve's second restart is not counted: $(prom bhscope_source_restarts_total)"
kill -0 $serve || fail "bhscope serve died: $(cat serve.err)"
echo "PASS: serve returned to the kernel's lookup: $(grep 'went stale' serve.err | tr '\n' ' ')"
bht_log_clean "bhtune: module verification failed"
