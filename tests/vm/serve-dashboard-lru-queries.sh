#!/bin/bash
# vm-timeout: 600
# The dashboard's and the rules' LRU expressions (hit ratio per CPU and per
# device, what-if at a few sizes, the hit ratio that fell) return data where
# bhscope sees each lookup (fentry here; the project's host allows only
# block:block_touch_buffer, where the live test skips them): the live test
# tests/live/serve_dashboard_queries.sh, run in this guest.
set -euo pipefail
# shellcheck source=tests/vm/lib/guest.sh
. "$REPO/tests/vm/lib/guest.sh"
command -v prometheus >/dev/null || skip "prometheus is not installed (make deps)"
# Prometheus under TCG takes a minute to start: one guest is enough (the
# metrics are the same on 6.12, whose lookup API lru_hooks_agree covers).
[[ $SERIES == 6.1 ]] || skip "run on the 6.1 guest only (Prometheus is slow under TCG)"
# The live test's ext4 is on a loop device (file on /dev/shm).
modprobe loop || fail "modprobe loop"
rc=0
PROM_START_S=240 DASH_SKIP_PROMTOOL=1 "$REPO/tests/live/serve_dashboard_queries.sh" >dash.log 2>&1 || rc=$?
cat dash.log
((rc != 77)) || skip "$(tail -n 1 dash.log)"
((rc == 0)) || fail "tests/live/serve_dashboard_queries.sh failed in the guest"
! grep -q '^SKIP: .*LRU hook' dash.log || fail "LRU expressions skipped although this kernel allows fentry"
grep -q '^PASS: .*/record/device:bhscope_lru_hit:ratio_rate5m' dash.log ||
	fail "the LRU hit ratio was not evaluated"
