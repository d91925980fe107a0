#!/usr/bin/env bash
# The Grafana dashboard and the Prometheus rules (contrib/) work on real
# data: promtool checks the rules and runs their unit tests (each alert
# fires on the input that should fire it, after its `for`); then a private
# Prometheus scrapes bhscope serve --per-cpu during sync writers on a
# RAM-backed ext4 with the rules loaded, as a job not called bhscope, and
# every expression of the dashboard, every recording rule and the measure
# of every alert (its expression without the final threshold) returns
# finite values; every variable of the dashboard has values, and $device
# holds a device with LRU figures only (ext4 without a journal). The
# fentry probes this kernel refuses by design leave BhscopeProbeDown
# quiet; BhscopeDown goes pending once serve stops. The LRU
# ratios need a hook that sees lookups, which this host (block_touch_buffer:
# hits only) has not: a 6.1 guest (fentry) runs serve --per-cpu under a
# metadata workload and hands its scrapes back, and a second private
# Prometheus, scraping a replay of them, answers those expressions.
# BHSCOPE_SKIP_VM=1 skips the guest part.
# live-after-vm: boots a 6.1 guest through the VM bench
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root
require_prometheus
command -v fs_mark > /dev/null || skip_all "fs_mark is not installed (make deps)"
python3 -c 'import yaml' 2> /dev/null || skip_all "python3-yaml is not installed (make deps)"
dashboard=contrib/grafana/bhscope.json
rules=contrib/prometheus/bhscope.rules.yml

check rules_pass_promtool_check promtool check rules "$rules"
check rules_unit_tests_pass bash -c "cd '$(dirname "$rules")' && promtool test rules bhscope.rules.test.yml"
check dashboard_is_json jq -e '.panels | length > 0' "$dashboard" > /dev/null
check dashboard_importable jq -e '.uid and .title and (.__inputs | length > 0)
	and all(.panels[]; .gridPos and .type)' "$dashboard" > /dev/null

# queries LOOKUPS LABEL [DEVICE]: every expression against $PROM_URL; those
# that need LRU lookups are skipped unless LOOKUPS is "yes" (else the
# reason). DEVICE: one the $device variable must offer.
queries() {
python3 - "$PROM_URL" "$dashboard" "$rules" "$1" "$TEST_NAME/$2" "${3:-}" <<'PY'
import json, math, re, sys, urllib.parse, urllib.request
import yaml

url, dashboard, rules, lookups, test, device = sys.argv[1:7]

def query(expr):
    q = urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10) as r:
        return json.load(r)["data"]["result"]

def series(match):
    q = urllib.parse.urlencode({"match[]": match})
    with urllib.request.urlopen(f"{url}/api/v1/series?{q}", timeout=10) as r:
        return json.load(r)["data"]

def needs_lookups(expr):
    return re.search(r"lru_lookups_total|lru_lost_lookups|lru_resyncs|lru_hit_slot|"
                     r"bhscope_lru_hit:|lru_whatif", expr)

# A probe this kernel refuses (fentry on the host) is down; where every
# probe runs, the expressions about a down probe have nothing to say; and
# those about a failed probe, where none failed.
down = query('bhscope_probe_error_info')
failed_probes = query('bhscope_probe_error_info{cause="failed"}')

failed = 0
def report(name, expr):
    global failed
    if needs_lookups(expr) and lookups != "yes":
        print(f"SKIP: {test}/{name}: the LRU hook {lookups[4:]}")
        return
    if "bhscope_probe_error_info" in expr and not down:
        print(f"SKIP: {test}/{name}: every probe runs on this kernel, none has an error")
        return
    if 'cause="failed"' in expr and not failed_probes:
        print(f"SKIP: {test}/{name}: no probe failed here (those down are so by design)")
        return
    res = query(expr)
    finite = [s for s in res if math.isfinite(float(s["value"][1]))]
    if finite:
        print(f"PASS: {test}/{name} ({len(finite)} series)")
    else:
        failed += 1
        print(f"FAIL: {test}/{name}: {len(res)} series, none finite: {expr}")

# Grafana's variables as "All" and the rate interval of a 1 s scrape.
def grafana(expr):
    return (expr.replace("$__rate_interval", "1m").replace("$instance", ".*")
                .replace("$device", ".*"))

dash = json.load(open(dashboard))
# The variables, as Grafana asks: label_values(SELECTOR, LABEL).
for v in dash["templating"]["list"]:
    if v["type"] != "query":
        continue
    m = re.fullmatch(r"label_values\((.*), *(\w+)\)", v["query"]["query"])
    if not m:
        failed += 1
        print(f"FAIL: {test}/variable/{v['name']}: not label_values(SELECTOR, LABEL): {v['query']['query']}")
        continue
    values = sorted({s.get(m[2]) for s in series(grafana(m[1])) if s.get(m[2])})
    ok = bool(values) and (v["name"] != "device" or not device or device in values)
    failed += not ok
    print(("PASS" if ok else "FAIL") + f": {test}/variable/{v['name']} ({', '.join(values)})"
          + ("" if ok else f": want {device or 'values'}"))
n = 0
for p in dash["panels"]:
    for t in p.get("targets", []):
        n += 1
        name = re.sub(r"[^a-z0-9]+", "_", p["title"].lower()).strip("_")
        report(f"dashboard/{name}/{t['refId']}", grafana(t["expr"]))
print(f"dashboard expressions: {n}")

groups = yaml.safe_load(open(rules))["groups"]
threshold = re.compile(r"\s*(==|!=|>=|<=|>|<)\s*[-+0-9.e]+\s*$")
for g in groups:
    for r in g["rules"]:
        expr = r["expr"].strip()
        if "record" in r:
            report(f"record/{r['record']}", r["record"])
        else:
            measure = threshold.sub("", expr)
            if measure == expr:
                failed += 1
                print(f"FAIL: {test}/alert/{r['alert']}: no threshold at the end of its expression")
                continue
            report(f"alert/{r['alert']}", measure)

# Prometheus evaluated every rule without an error.
with urllib.request.urlopen(f"{url}/api/v1/rules", timeout=10) as r:
    loaded = [x for g in json.load(r)["data"]["groups"] for x in g["rules"]]
bad = [x["name"] for x in loaded if x["health"] != "ok"]
total = sum(len(g["rules"]) for g in groups)
if len(loaded) == total and not bad:
    print(f"PASS: {test}/prometheus_evaluates_every_rule ({total})")
else:
    failed += 1
    print(f"FAIL: {test}/prometheus_evaluates_every_rule: {len(loaded)} of {total} loaded, unhealthy: {bad}")
# A failed probe makes BhscopeProbeDown pending; one down by design
# (refused, absent, not chosen) does not.
state = {x["name"]: x.get("state") for x in loaded}
alerting = state.get("BhscopeProbeDown") in ("pending", "firing")
if failed_probes:
    name = "probe_down_alert_pending_for_" + failed_probes[0]["metric"]["probe"].replace("/", "_")
    ok = alerting
elif down:
    by_design = sorted({s["metric"]["probe"] + ": " + s["metric"].get("cause", "?") for s in down})
    name = "probe_down_alert_quiet_for_probes_down_by_design (" + ", ".join(by_design) + ")"
    ok = not alerting
else:
    name = None
    print(f"SKIP: {test}/probe_down_alert: every probe runs on this kernel")
if name:
    print(("PASS" if ok else "FAIL") + f": {test}/{name}"
          + ("" if ok else f": state {state.get('BhscopeProbeDown')}"))
    failed += not ok
sys.exit(1 if failed else 0)
PY

}

# A second ext4, without a journal: LRU figures and no jbd2 ones.
nj_mnt=$(mktemp -d /tmp/bhscope-nojournal.XXXXXX)
on_exit "rmdir '$nj_mnt'"
ram_ext4_unmounted 256 -b 4096
loopfs_mount 64 "$nj_mnt" -O ^has_journal
nj_dev=${LOOPFS_DEV#/dev/}
start_serve --per-cpu --bpf-stats
mount_ram_ext4 dirsync
# Any job name: nothing may depend on it being "bhscope".
PROM_JOB=metadata start_prometheus "${SERVE_URL#http://}" "$rules"
check prometheus_scrapes_bhscope wait_promql 'up{job="metadata"} == 1' 10
mkdir -p "$nj_mnt/d"
for ((i = 0; i < 200; i++)); do : > "$nj_mnt/d/f$i"; done
for ((i = 0; i < 20; i++)); do ls -l "$nj_mnt/d" > /dev/null; done
sync_writers 4
# A few more scrapes and rule evaluations after the run, all within the
# dashboard's 1m rate window.
sleep 3

lookups=yes
[[ -n $(promql_value 'bhscope_lru_lookups_total') ]] ||
	lookups="no: $(promql_value 'bhscope_lru_mode_info' > /dev/null;
		curl -sf "$PROM_URL/api/v1/query" --data-urlencode 'query=bhscope_lru_mode_info' |
			jq -r '.data.result[0].metric.hook // "no LRU source"') gives no lookups here"

rc=0
queries "$lookups" host "$nj_dev" || rc=$?
check every_expression_returns_data test "$rc" -eq 0
lru_only() {
	[[ -n $(promql_value "bhscope_lru_hits_total{device=\"$1\"}") &&
		-z $(promql_value "bhscope_jbd2_transactions_total{device=\"$1\"}") ]]
}
check journal_less_device_has_lru_figures_only lru_only "$nj_dev"

# serve stops: BhscopeDown, whatever the job is called, goes pending.
stop_pid "$SERVE_PID"
check bhscope_down_alert_pending_once_serve_stops \
	wait_promql 'ALERTS{alertname="BhscopeDown",job="metadata"}' 15

# The LRU expressions on a guest's real scrapes, replayed in order to a
# second Prometheus (one scrape per request, then the last one again).
if [[ ${BHSCOPE_SKIP_VM:-0} == 1 ]]; then
	echo "SKIP: $TEST_NAME/guest: BHSCOPE_SKIP_VM=1"
	finish
	exit
fi
if ! command -v qemu-system-x86_64 > /dev/null; then
	echo "SKIP: $TEST_NAME/guest: qemu-system-x86_64 is not installed (make deps)"
	finish
	exit
fi
tmp=$(mktemp -d /tmp/bhscope-dash.XXXXXX)
on_exit "rm -rf '$tmp'"
rc=0
make -s --no-print-directory vmcheck VM_SUITE=tests/live/dashboard-guest VM_GUESTS=6.1 \
	> "$tmp/vm.log" 2>&1 || rc=$?
scrapes=${VM_BUILD:-build/vm}/6.1/export/lru-scrapes
check guest_ran test "$rc" -eq 0
check guest_scraped_serve test -s "$scrapes/scrape-9.prom"
if [[ ! -s $scrapes/scrape-9.prom ]]; then
	sed 's/^/    /' "$tmp/vm.log"
	finish
	exit
fi
python3 - "$scrapes" > "$tmp/replay.addr" 2> "$tmp/replay.log" <<'PY' &
import http.server, os, sys
files = sorted((f for f in os.listdir(sys.argv[1]) if f.startswith("scrape-")),
               key=lambda f: int(f[7:-5]))
bodies = [open(os.path.join(sys.argv[1], f), "rb").read() for f in files]
served = 0
class Replay(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global served
        body = bodies[min(served, len(bodies) - 1)]
        served += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), Replay)
print(f"127.0.0.1:{srv.server_port}", flush=True)
srv.serve_forever()
PY
replay=$!
on_exit "kill $replay 2> /dev/null"
for ((i = 0; i < 50; i++)); do
	[[ -s $tmp/replay.addr ]] && break
	sleep 0.1
done
start_prometheus "$(cat "$tmp/replay.addr")" "$rules"
# Ten scrapes a second apart, then a few evaluations of the rules.
sleep 13
rc=0
queries yes guest_6.1 || rc=$?
check guest_every_expression_returns_data test "$rc" -eq 0
finish
