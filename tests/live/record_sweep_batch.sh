#!/usr/bin/env bash
# bhscope sweep over batch times (by remounting the ext4: no bhtune here)
# and thread counts: one record per cell with its settings, the files/s
# table with a speedup column, and the original mount options put back at
# the end and after Ctrl-C.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools jq
[[ -x $BHBENCH ]] || skip "$BHBENCH is not built (run make)"
[[ ! -d /sys/module/bhtune ]] || skip "bhtune.ko is loaded: this test covers the remount path"
fs_setup dirsync,min_batch_time=300 -b 4096
dev=$(basename "$LOOP")
opts() { grep -oE '(min|max)_batch_time=[0-9]+' "/proc/fs/ext4/$dev/options" | tr '\n' ' '; }
orig=$(opts)

out=$SCRATCH/sw
rc=0
"$BHSCOPE" sweep -q --batch-min-us 0,2000 --threads 1,2 -o "$out" \
	-- bench sync -D "$MNT" -n 100 > "$SCRATCH/table" 2> "$SCRATCH/err" || rc=$?
[[ $rc -eq 0 ]] || fail "sweep exit $rc: $(cat "$SCRATCH/err")"

bad=
for b in 0 2000; do
	for t in 1 2; do
		f=$out/batch_min_us-${b}_tasks-$t.json
		jq -e --argjson b "$b" --argjson t "$t" '.ok and
			.tunables.min_batch_time_us == $b and
			.tunables.batch_from == "ext4-options" and
			.workload.params.tasks == $t and
			.sweep.tunables.batch_min_us == $b and
			.sweep.params.tasks == $t' "$f" > /dev/null 2>&1 || bad+=" $f"
	done
done
if [[ -z $bad ]]; then check_pass one_record_per_cell_with_its_settings
else check_fail one_record_per_cell_with_its_settings "wrong:$bad"; fi

table=$(cat "$SCRATCH/table")
if grep -q '^sync writers, files/s, batch_min_us=0 vs each setting' <<< "$table" &&
	grep -qE '^ +threads +batch_min_us=0 +batch_min_us=2000 +speedup' <<< "$table" &&
	[[ $(grep -cE '^ +[12] +[0-9.]+ +[0-9.]+ +[0-9.]+x' <<< "$table") -eq 2 ]]
then check_pass table_has_threads_rows_and_speedup
else check_fail table_has_threads_rows_and_speedup "$table"; fi

# The speedup is the ratio of the two cells' medians.
want=$(jq -s '(map(select(.sweep.params.tasks == 2)) |
	map({key: (.sweep.tunables.batch_min_us | tostring),
	     value: ([.runs[].result.results.files_per_sec] | sort |
		     .[(length / 2 | floor)])}) | from_entries) as $m |
	$m["2000"] / $m["0"] * 100 | round / 100' "$out"/*.json)
got=$(awk '$1 == 2 { sub(/x.*/, "", $4); print $4 }' <<< "$table")
if awk -v a="$want" -v b="$got" 'BEGIN { exit !(a - b < 0.011 && b - a < 0.011) }'
then check_pass speedup_is_the_ratio_of_medians
else check_fail speedup_is_the_ratio_of_medians "want $want, got $got"; fi

if [[ $(opts) == "$orig" ]]; then check_pass mount_options_restored
else check_fail mount_options_restored "now $(opts), was $orig"; fi

if "$BHSCOPE" sweep --report "$out" | diff -q - "$SCRATCH/table" > /dev/null
then check_pass report_reprints_the_table
else check_fail report_reprints_the_table "--report differs"; fi

# A stop in the middle of a cell (Ctrl-C; a hangup, the terminal gone):
# exit 130 and the options put back.
for sig in INT HUP; do
	"$BHSCOPE" sweep -q --batch-min-us 5000,6000 -o "$SCRATCH/int-$sig" \
		-- bench sync -D "$MNT" -t 2 -n 5000 > /dev/null 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		[[ $(opts) == *min_batch_time=5000* ]] && break
		sleep 0.1
	done
	sleep 0.5
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	name=$([[ $sig == INT ]] && echo ctrl_c || echo hangup)_restores_mount_options
	if [[ $rc -eq 130 && $(opts) == "$orig" ]]; then check_pass "$name"
	else check_fail "$name" "exit $rc, options $(opts), was $orig"; fi
done
finish
