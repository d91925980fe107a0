#!/usr/bin/env bash
# Soak of bhscope serve (not in make check): sync writers on a RAM-backed
# ext4 for DURATION seconds while /metrics is scraped RATE times a second
# (with a bad request now and then, and the textfile rewritten every
# second). Prints RSS and scrape latency percentiles each minute, then a
# summary; exits 1 when RSS grew after the first minute or a scrape failed.
# Results as JSON in build/bench/serve-soak.json.
#
#   bench/serve-soak.sh [DURATION_S [RATE_HZ]]    (defaults 600 10)
#   BENCH_SMOKE=1 bench/serve-soak.sh              (60 s)
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-600}
[[ ${BENCH_SMOKE:-0} == 1 ]] && duration=60
rate=${2:-10}
BHSCOPE=${BHSCOPE:-$PWD/build/bhscope}
out_dir=build/bench
mkdir -p "$out_dir"

[[ $(id -u) -eq 0 ]] || { echo "serve-soak: needs root" >&2; exit 77; }
for tool in curl fs_mark jq; do
	command -v "$tool" > /dev/null || { echo "serve-soak: $tool is not installed (make deps)" >&2; exit 77; }
done

# shellcheck source=tests/lib/loopfs.sh
. tests/lib/loopfs.sh
tmp=$(mktemp -d /tmp/bhscope-soak.XXXXXX)
mnt=$tmp/mnt serve_pid='' writer_pid=''
# Every step runs, whatever failed before it.
cleanup() {
	set +e
	[[ -n $writer_pid ]] && kill "$writer_pid" 2> /dev/null
	[[ -n $serve_pid ]] && kill "$serve_pid" 2> /dev/null
	wait 2> /dev/null
	loopfs_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$mnt" "$tmp/textfile"
loopfs_mount -o dirsync 256 "$mnt" -b 4096

"$BHSCOPE" serve --listen 127.0.0.1:0 --per-cpu --textfile "$tmp/textfile" \
	--interval 1 > /dev/null 2> "$tmp/serve.log" &
serve_pid=$!
for _ in $(seq 100); do
	url=$(grep -o 'http://[0-9.:]*' "$tmp/serve.log" | head -n 1 || true)
	[[ -n $url ]] && break
	sleep 0.1
done
[[ -n ${url:-} ]] || { cat "$tmp/serve.log" >&2; exit 1; }

# Sync writers, steady: one commit per file, pauses so the CPUs stay free.
(
	mkdir -p "$mnt/fsmark"
	cd "$mnt"
	while :; do
		fs_mark -d "$mnt/fsmark" -t 2 -n 200 -s 0 -S 0 > /dev/null 2>&1 || true
		sleep 0.2
	done
) &
writer_pid=$!

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$serve_pid/status"; }

# pct FILE P: the P-th percentile of the seconds in FILE (nearest rank), in ms.
pct() {
	sort -g "$1" | awk -v p="$2" '{ v[NR] = $1 }
		END { if (!NR) { print "nan"; exit } i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; printf "%.3f\n", v[i] * 1000 }'
}

lat=$tmp/latency_ms
minute_lat=$tmp/minute_ms
: > "$lat"
: > "$minute_lat"
failures=0 scrapes=0 bad=0
rss0=$(rss_kib) rss_min1=
pause=$(awk -v r="$rate" 'BEGIN { printf "%.3f", 1 / r }')
start=$SECONDS next_report=60
printf '%6s %10s %8s %8s %8s %8s %8s\n' t_s rss_kib scrapes p50_ms p90_ms p99_ms max_ms
printf '%6s %10s %8s\n' 0 "$rss0" 0
while ((SECONDS - start < duration)); do
	t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 5 "$url/metrics" || echo "000 0")
	if [[ ${t%% *} != 200 ]]; then
		failures=$((failures + 1))
	else
		echo "${t#* }" >> "$lat"
		echo "${t#* }" >> "$minute_lat"
	fi
	scrapes=$((scrapes + 1))
	if ((scrapes % 50 == 0)); then	# error paths must not leak either
		curl -s -o /dev/null "$url/nope" || true
		curl -s -o /dev/null -X POST "$url/metrics" || true
		curl -s -o /dev/null -H "X-Big: $(head -c 40000 /dev/zero | tr '\0' a)" "$url/metrics" || true
		bad=$((bad + 3))
	fi
	if ((SECONDS - start >= next_report)); then
		rss=$(rss_kib)
		[[ -z $rss_min1 ]] && rss_min1=$rss
		printf '%6s %10s %8s %8s %8s %8s %8s\n' $((SECONDS - start)) "$rss" "$scrapes" \
			"$(pct "$minute_lat" 50)" "$(pct "$minute_lat" 90)" \
			"$(pct "$minute_lat" 99)" "$(pct "$minute_lat" 100)"
		: > "$minute_lat"
		next_report=$((next_report + 60))
	fi
	sleep "$pause"
done
rss_end=$(rss_kib)
rss_min1=${rss_min1:-$rss0}
size=$(curl -s "$url/metrics" | wc -c)
series=$(curl -s "$url/metrics" | grep -vc '^#')

p50=$(pct "$lat" 50) p90=$(pct "$lat" 90) p99=$(pct "$lat" 99) pmax=$(pct "$lat" 100)
growth=$((rss_end - rss_min1))
echo
echo "duration ${duration} s, ${scrapes} scrapes (${failures} failed, $((scrapes / duration))/s) + ${bad} bad requests"
echo "exposition: ${size} bytes, ${series} series (--per-cpu)"
echo "RSS: start ${rss0} KiB, after 1 min ${rss_min1} KiB, end ${rss_end} KiB (growth after warm-up: ${growth} KiB)"
echo "scrape latency ms: p50 ${p50}  p90 ${p90}  p99 ${p99}  max ${pmax}"
jq -n --argjson duration "$duration" --argjson scrapes "$scrapes" \
	--argjson failures "$failures" --argjson bad "$bad" \
	--argjson rss0 "$rss0" --argjson rss1 "$rss_min1" --argjson rss_end "$rss_end" \
	--arg p50 "$p50" --arg p90 "$p90" --arg p99 "$p99" --arg max "$pmax" \
	--argjson size "$size" --argjson series "$series" \
	'{schema: "bhscope.serve-soak/1", duration_s: $duration, scrapes: $scrapes,
	  failed: $failures, bad_requests: $bad, exposition_bytes: $size,
	  series: $series, rss_kib: {start: $rss0, after_1min: $rss1, end: $rss_end},
	  scrape_ms: {p50: ($p50 | tonumber), p90: ($p90 | tonumber),
		      p99: ($p99 | tonumber), max: ($max | tonumber)}}' \
	> "$out_dir/serve-soak.json"
# Flat: at most 256 KiB over the warm-up figure (allocator slack).
if ((failures > 0 || growth > 256)); then
	echo "serve-soak: FAIL (failed scrapes or memory growth)"
	exit 1
fi
echo "serve-soak: memory flat, every scrape answered"
