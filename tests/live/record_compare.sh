#!/usr/bin/env bash
# Records sync writers on a RAM-backed ext4 (-o dirsync, so writers use sync
# handles and batch) with min_batch_time 0 and 4000 us, then checks that the
# records describe the runs and that compare's numbers (median over repeats,
# % change against the first record) are those recomputed from the records.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/record.sh
source "$(dirname "$0")/../lib/record.sh"
need_tools python3
[[ -x $BHBENCH ]] || skip "$BHBENCH is not built (run make)"
fs_setup dirsync -b 4096

A=$SCRATCH/base.json
B=$SCRATCH/batch4000.json
bench=(bench sync -D "$MNT" -t 4 -n 300)

"$BHSCOPE" record -q -r 3 -o "$A" -- "${bench[@]}" ||
	fail "record of the baseline failed (exit $?)"
mount -o remount,min_batch_time=4000 "$MNT"
"$BHSCOPE" record -q -r 3 -o "$B" --label batch4000 -- "${bench[@]}" ||
	fail "record with min_batch_time=4000 failed (exit $?)"
mount -o remount,min_batch_time=0 "$MNT"

# 1. The records say what ran where, with which settings.
if out=$(python3 - "$A" "$B" "$(uname -r)" "$(basename "$LOOP")" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
kernel, dev = sys.argv[3], sys.argv[4]
for r, want in ((a, 0), (b, 4000)):
    assert r["schema"] == "bhscope.record/1", r["schema"]
    assert r["ok"] is True and len(r["runs"]) == 3, "3 successful runs"
    assert all(run["ok"] and run["exit_status"] == 0 for run in r["runs"])
    assert r["host"]["kernel"] == kernel, r["host"]["kernel"]
    t = r["target"]
    assert t["fstype"] == "ext4" and t["device"] == dev, t
    assert "dirsync" in t["super_options"], t["super_options"]
    tun = r["tunables"]
    assert tun["min_batch_time_us"] == want, tun
    assert tun["max_batch_time_us"] == 15000, tun
    assert tun["lru_size"] >= 0 and tun["lru_size_from"], tun
    assert r["workload"]["name"] == "sync" and r["workload"]["params"]["tasks"] == 4
    for run in r["runs"]:
        assert run["result"]["results"]["files"] == 1200, run["result"]
        devs = [d for d in run["jbd2"]["devices"] if d["name"] == dev]
        assert len(devs) == 1, "jbd2 figures of the target device"
        d = devs[0]
        assert d["transactions"] > 0 and d["handles"] > 0, d
        assert len(d["cpus"]) == r["host"]["possible_cpus"], "per-CPU entries"
        assert sum(c["handles_stopped"] for c in d["cpus"]) == d["handles_stopped"]
        assert all("commit_us_hist" in c for c in d["cpus"]), "per-CPU histograms"
PY
); then check_pass records_describe_runs_and_settings
else check_fail records_describe_runs_and_settings "$out"; fi

# 2. compare -j: medians and % change recomputed from the records.
json=$SCRATCH/compare.json
"$BHSCOPE" compare -j "$A" "$B" > "$json" 2> "$SCRATCH/compare.err" ||
	fail "compare -j failed: $(cat "$SCRATCH/compare.err")"
if out=$(python3 - "$A" "$B" "$json" 2>&1 <<'PY'
import json, statistics, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:4])
def runs(rec, f):
    return [f(r) for r in rec["runs"] if r["ok"]]
def dev(rec, run):
    return next(d for d in run["jbd2"]["devices"] if d["dev"] == rec["target"]["dev"])
oracles = {
    "sync.files_per_sec": lambda rec: runs(rec, lambda r: r["result"]["results"]["files_per_sec"]),
    "jbd2.handles_per_transaction": lambda rec: runs(rec, lambda r: dev(rec, r)["handles_per_transaction"]),
    "jbd2.commit_avg_us": lambda rec: runs(rec, lambda r: dev(rec, r)["commit_avg_us"]),
    "wall_s": lambda rec: runs(rec, lambda r: r["wall_s"]),
}
metrics = {m["key"]: m for m in c["metrics"]}
# JSON doubles carry 6 significant digits: equal to half a unit of the 6th
def close(x, y):
    return abs(x - y) <= 5e-6 * abs(y)
for key, f in oracles.items():
    va, vb = f(a), f(b)
    ma, mb = statistics.median(va), statistics.median(vb)
    got = metrics[key]["values"]
    for v, vals, med in ((got[0], va, ma), (got[1], vb, mb)):
        assert v["runs"] == 3, (key, v)
        assert close(v["median"], med), (key, v["median"], med)
        assert close(v["min"], min(vals)) and close(v["max"], max(vals)), (key, v)
    pct = 100 * (mb - ma) / abs(ma)
    assert close(got[1]["pct_change"], pct), (key, got[1]["pct_change"], pct)
    overlap = min(vb) <= max(va) and min(va) <= max(vb)
    if overlap:
        assert got[1]["noise"] is True, (key, "overlapping ranges must be noise")
print("ok")
PY
); then check_pass compare_json_numbers_match_the_records
else check_fail compare_json_numbers_match_the_records "$out"; fi

# 3. The text table prints the same % change, rounded, on the metric's line.
text=$("$BHSCOPE" compare "$A" "$B" 2> /dev/null) || fail "compare (text) failed"
want=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
m = next(m for m in c["metrics"] if m["key"] == "sync.files_per_sec")
print("%+.1f%%" % m["values"][1]["pct_change"])' "$json")
line=$(grep '^sync writers, files/s' <<< "$text" || true)
if [[ $line == *"$want"* ]]; then check_pass text_table_shows_the_change
else check_fail text_table_shows_the_change "want $want in: ${line:-no sync line}"; fi

# 4. Waiting 4 ms to batch costs dirsync writers throughput.
slower=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
m = next(m for m in c["metrics"] if m["key"] == "sync.files_per_sec")
print("yes" if m["values"][1]["median"] < m["values"][0]["median"] else "no")' "$json")
if [[ $slower == yes ]]; then check_pass longer_batch_time_slows_dirsync_writers
else check_fail longer_batch_time_slows_dirsync_writers "files/s did not drop"; fi

# 5. CSV: a header and one line per metric and record; Markdown: a table.
csv=$("$BHSCOPE" compare --csv "$A" "$B" 2> /dev/null)
nmetrics=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["metrics"]))' "$json")
if [[ $(wc -l <<< "$csv") -eq $((1 + 2 * nmetrics)) && $csv == metric,name,unit,* ]]
then check_pass csv_has_one_line_per_metric_and_record
else check_fail csv_has_one_line_per_metric_and_record "$(head -3 <<< "$csv")"; fi
md=$("$BHSCOPE" compare --markdown "$A" "$B" 2> /dev/null)
if grep -q '^| sync writers, files/s |' <<< "$md" && grep -q '^|---|' <<< "$md"
then check_pass markdown_table
else check_fail markdown_table "$(head -5 <<< "$md")"; fi

# 6. The chart is well-formed SVG with a bar per record.
"$BHSCOPE" compare -q --chart "$SCRATCH/c.svg" "$A" "$B" > /dev/null
if out=$(python3 - "$SCRATCH/c.svg" 2>&1 <<'PY'
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
assert d.documentElement.tagName == "svg"
assert len(d.getElementsByTagName("rect")) >= 3
PY
); then check_pass chart_is_well_formed_svg
else check_fail chart_is_well_formed_svg "$out"; fi

finish
