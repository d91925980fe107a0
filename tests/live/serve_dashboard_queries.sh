#!/usr/bin/env bash
# The Grafana dashboard and the Prometheus rules (contrib/) work on real
# data: promtool checks the rules and runs their unit tests (each alert
# fires on the input that should fire it, after its `for`); then a private
# Prometheus scrapes bhscope serve --per-cpu during sync writers on a
# RAM-backed ext4 with the rules loaded, and every expression of the
# dashboard, every recording rule and the measure of every alert (its
# expression without the final threshold) returns finite values. The LRU
# ratios need a hook that sees lookups: where the kernel allows only
# block:block_touch_buffer (hits), those are skipped, with that reason.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/live/serve_lib.sh
require_root
require_prometheus
command -v fs_mark > /dev/null || skip_all "fs_mark is not installed (make deps)"
python3 -c 'import yaml' 2> /dev/null || skip_all "python3-yaml is not installed (make deps)"
dashboard=contrib/grafana/bhscope.json
rules=contrib/prometheus/bhscope.rules.yml

# DASH_SKIP_PROMTOOL=1 (the VM guest): the host's run does these.
if [[ ${DASH_SKIP_PROMTOOL:-0} != 1 ]]; then
	check rules_pass_promtool_check promtool check rules "$rules"
	check rules_unit_tests_pass bash -c "cd '$(dirname "$rules")' && promtool test rules bhscope.rules.test.yml"
fi
check dashboard_is_json jq -e '.panels | length > 0' "$dashboard" > /dev/null
check dashboard_importable jq -e '.uid and .title and (.__inputs | length > 0)
	and all(.panels[]; .gridPos and .type)' "$dashboard" > /dev/null

ram_ext4_unmounted 256 -b 4096
start_serve --per-cpu
mount_ram_ext4 dirsync
start_prometheus "${SERVE_URL#http://}" "$rules"
check prometheus_scrapes_bhscope wait_promql 'up{job="bhscope"} == 1' 10
sync_writers 4
# A few more scrapes and rule evaluations after the run, all within the
# dashboard's 1m rate window.
sleep 3

lookups=yes
[[ -n $(promql_value 'bhscope_lru_lookups_total') ]] ||
	lookups="no: $(promql_value 'bhscope_lru_mode_info' > /dev/null;
		curl -sf "$PROM_URL/api/v1/query" --data-urlencode 'query=bhscope_lru_mode_info' |
			jq -r '.data.result[0].metric.hook // "no LRU source"') gives no lookups here"

python3 - "$PROM_URL" "$dashboard" "$rules" "$lookups" "$TEST_NAME" <<'PY'
import json, math, re, sys, urllib.parse, urllib.request
import yaml

url, dashboard, rules, lookups, test = sys.argv[1:6]

def query(expr):
    q = urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10) as r:
        return json.load(r)["data"]["result"]

def needs_lookups(expr):
    return re.search(r"lru_lookups_total|lru_hit_slot|bhscope_lru_hit:|lru_whatif", expr)

failed = 0
def report(name, expr):
    global failed
    if needs_lookups(expr) and lookups != "yes":
        print(f"SKIP: {test}/{name}: the LRU hook {lookups[4:]}")
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
# A probe this kernel refuses (fentry here) makes BhscopeProbeDown pending.
down = query('bhscope_probe_up{probe!~"mode/.*"} == 0')
state = {x["name"]: x.get("state") for x in loaded}
if down:
    ok = state.get("BhscopeProbeDown") in ("pending", "firing")
    print(("PASS" if ok else "FAIL") + f": {test}/probe_down_alert_pending_for_{down[0]['metric']['probe'].replace('/', '_')}"
          + ("" if ok else f": state {state.get('BhscopeProbeDown')}"))
    failed += not ok
else:
    print(f"SKIP: {test}/probe_down_alert_pending: every probe runs on this kernel")
sys.exit(1 if failed else 0)
PY
rc=$?
check every_expression_returns_data test "$rc" -eq 0
finish
