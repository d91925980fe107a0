#!/bin/bash
# Guest side of tests/live/serve_dashboard_queries.sh (run as a VM_SUITE):
# bhscope serve --per-cpu --lru-whatif on a kernel where fentry sees every buffer-head
# lookup, scraped each second during a metadata workload on a brd ext4.
# The scrapes go back to the host ($VM_EXPORT), which replays them to a
# private Prometheus: the host itself can only count LRU hits.
set -euo pipefail
# shellcheck source=tests/lib/guest.sh
. "$REPO/tests/lib/guest.sh"
ramdisk_ext4 /mnt/ram0 64
# The guest has no NIC, and its loopback starts down.
ip link set lo up || fail "ip link set lo up"
# --lru-whatif: the ghost list's sizes, timed throughout (below 60)
"$REPO/build/bhscope" serve --per-cpu --bpf-stats --lru-whatif 64 --lru-timing 8 \
	--listen 127.0.0.1:0 2>serve.log &
pid=$!
trap 'touch stop; kill $pid 2>/dev/null; wait; ramdisk_cleanup /mnt/ram0' EXIT
url=
for ((i = 0; i < 300; i++)); do
	url=$(grep -o 'http://[0-9.:]*' serve.log | head -n 1 || true)
	[[ -n $url ]] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[[ -n $url ]] || { cat serve.log; fail "bhscope serve did not start"; }
# (no process substitution: the guest has no /dev/fd)
curl -sSf "$url/metrics" >first.prom || fail "first scrape"
grep -q 'mode="fentry"' first.prom || { cat serve.log; skip "no fentry LRU hook here"; }
(
	while [[ ! -e stop ]]; do
		"$REPO/build/bhbench" meta -D /mnt/ram0 -t 2 -n 200 -q || exit 1
	done
) &
for ((i = 0; i < 10; i++)); do
	sleep 1
	curl -sf "$url/metrics" >"$VM_EXPORT/scrape-$i.prom" || fail "scrape $i"
done
grep -c '^bhscope_lru_lookups_total' "$VM_EXPORT/scrape-9.prom"
