# shellcheck shell=bash
# Sourced by tests/live/serve_*.sh.
#
# Starts bhscope serve (and a real Prometheus) on free loopback ports and
# always stops them, with everything tests/lib/common.sh cleans up.

. tests/lib/common.sh

SERVE_PID=
SERVE_URL=
SERVE_LOG=

# stop_pid PID: SIGTERM, then SIGKILL after 5 s; true either way.
stop_pid() {
	local pid=$1 i
	kill -TERM "$pid" 2> /dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2> /dev/null || true
	wait "$pid" 2> /dev/null || true
}

# await_start NAME PID LOG TRIES CMD...: until CMD succeeds (tried every
# 0.1 s, TRIES times) while PID lives; else NAME did not start, LOG says why.
await_start() {
	local name=$1 pid=$2 log=$3 tries=$4 i
	shift 4
	for ((i = 0; i < tries; i++)); do
		"$@" && return 0
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	echo "$name did not start:" >&2
	cat "$log" >&2
	return 1
}

# start_serve ARG...: bhscope serve on 127.0.0.1, a free port. Sets
# SERVE_PID, SERVE_URL (http://127.0.0.1:PORT) and SERVE_LOG (its stderr).
start_serve() {
	SERVE_LOG=$(mktemp /tmp/bhscope-serve-log.XXXXXX)
	on_exit "rm -f '$SERVE_LOG'"
	"$BHSCOPE" serve --listen 127.0.0.1:0 "$@" 2> "$SERVE_LOG" &
	SERVE_PID=$!
	on_exit "stop_pid $SERVE_PID"
	await_start "bhscope serve" "$SERVE_PID" "$SERVE_LOG" 150 serve_url_known
}

# Sets SERVE_URL once serve has said where it listens.
serve_url_known() {
	SERVE_URL=$(grep -o 'http://[0-9.:]*' "$SERVE_LOG" | head -n 1 || true)
	[[ -n $SERVE_URL ]]
}

# scrape: the exposition of the serve start_serve started, on stdout.
scrape() { curl -sf --max-time 5 "$SERVE_URL/metrics"; }

# series_value EXPOSITION_FILE SERIES: the value of one exact series line,
# e.g. series_value m.txt 'bhscope_jbd2_transactions_total{device="loop3"}'.
series_value() {
	awk -v s="$2" 'index($0, s " ") == 1 { print $2; found = 1; exit }
		END { exit !found }' "$1"
}

# http_code [CURL_ARG...] URL: the HTTP status curl got (000 on no answer).
http_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" || true; }

# The BPF program ids a process holds, from /proc/PID/fdinfo.
# kdev_of NAME: the kernel dev_t of a block device, as the BPF maps key it.
kdev_of() {
	local mm
	mm=$(cat "/sys/class/block/$1/dev")
	echo $(((${mm%:*} << 20) | ${mm#*:}))
}

# map_dump PID MAP: bpftool's JSON dump of each BPF map named MAP that a
# process holds, one document a line.
map_dump() {
	local id
	grep -h '^map_id:' /proc/"$1"/fdinfo/* 2> /dev/null | awk '{ print $2 }' |
		sort -un | while read -r id; do
		[[ $(bpftool map show id "$id" -j | jq -r .name) == "$2" ]] || continue
		bpftool map dump id "$id" -j | jq -c .
	done
}

# map_keys PID MAP: the keys of a BPF map a process holds, one a line.
map_keys() {
	map_dump "$1" "$2" | jq -r '.[] | .formatted.key // .key'
}

# jbd2_devices PID: the kernel dev_t of each journal the jbd2 tracer holds
# counters of: in a bucket of some CPU's cpu_buckets, or in its dev_stats
# map (whose values, unlike the LRU's map of that name, have no dist).
jbd2_devices() {
	{
		map_dump "$1" cpu_buckets | jq -r '.[].formatted.values[].value.b[].owner |
			select(. != 0) | . - 1'
		map_dump "$1" dev_stats | jq -r '.[] |
			select(.formatted.values[0].value.dist == null) | .formatted.key'
	} | sort -un
}

# lru_devices PID: the kernel dev_t of each device the LRU tracer holds
# counters of: in a bucket of some CPU's state, or in its dev_stats map
# (whose values, unlike jbd2's map of that name, have a dist array).
lru_devices() {
	{
		map_dump "$1" cpu_state | jq -r '.[].formatted.values[].value.buckets[].owner |
			select(. != 0) | . - 1'
		map_dump "$1" dev_stats | jq -r '.[] |
			select(.formatted.values[0].value.dist != null) | .formatted.key'
	} | sort -un
}

# require_prometheus: skips the test without Debian's prometheus package.
require_prometheus() {
	command -v prometheus > /dev/null ||
		skip_all "prometheus is not installed (make deps)"
	command -v promtool > /dev/null ||
		skip_all "promtool is not installed (make deps)"
}

# listen_addr_of PID: the address:port a process listens on (TCP, IPv4).
listen_addr_of() {
	ss -Hltnp 2> /dev/null | awk -v p="pid=$1," 'index($0, p) { print $4; exit }'
}

PROM_URL=
PROM_PID=

# start_prometheus TARGET (host:port) [RULES_FILE]: a private Prometheus on
# 127.0.0.1, a free port, a temporary data dir, scraping TARGET every
# second as job PROM_JOB (default bhscope), evaluating RULES_FILE's rules
# every second. It may take PROM_START_S seconds to answer (default 20;
# more under QEMU TCG).
start_prometheus() {
	local dir
	dir=$(mktemp -d /tmp/bhscope-prom.XXXXXX)
	on_exit "rm -rf '$dir'"
	cat > "$dir/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		  evaluation_interval: 1s
		scrape_configs:
		  - job_name: ${PROM_JOB:-bhscope}
		    static_configs:
		      - targets: ['$1']
	EOF
	[[ -z ${2:-} ]] || printf 'rule_files:\n  - %s\n' "$(realpath "$2")" >> "$dir/prometheus.yml"
	promtool check config "$dir/prometheus.yml" > /dev/null
	prometheus --config.file="$dir/prometheus.yml" \
		--storage.tsdb.path="$dir/data" \
		--web.listen-address=127.0.0.1:0 \
		--log.level=warn > "$dir/log" 2>&1 &
	PROM_PID=$!
	on_exit "stop_pid $PROM_PID"
	await_start prometheus "$PROM_PID" "$dir/log" $((${PROM_START_S:-20} * 10)) prometheus_ready
}

# Sets PROM_URL once the Prometheus started says it is ready.
prometheus_ready() {
	local addr
	addr=$(listen_addr_of "$PROM_PID")
	[[ -n $addr ]] && curl -sf "http://$addr/-/ready" > /dev/null &&
		PROM_URL=http://$addr
}

# promql EXPR: the JSON answer of an instant query.
promql() {
	curl -sf --max-time 5 "$PROM_URL/api/v1/query" --data-urlencode "query=$1"
}

# promql_value EXPR: the value of the first series an instant query returns
# (empty when there is none).
promql_value() {
	{ promql "$1" || true; } | jq -r '.data.result[0].value[1] // empty'
}

# wait_promql EXPR SECONDS: until the query returns a series.
wait_promql() {
	local i
	for ((i = 0; i < $2 * 4; i++)); do
		[[ -n $(promql_value "$1") ]] && return 0
		sleep 0.25
	done
	return 1
}

# jbd2_transactions: the kernel's own count for the loop device's journal.
jbd2_transactions() { awk 'NR == 1 { print $1 }' "$(jbd2_info)"; }

# sync_writers SECONDS: fs_mark creating files on the dirsync mount, one
# commit per file, for about SECONDS. One directory per writer: fs_mark's
# threads in one directory can draw the same file name and unlink each
# other's files, which fails the run.
sync_writers() {
	local end=$((SECONDS + $1)) n=0 d=$MNT/fsmark
	mkdir -p "$d"
	while ((SECONDS < end)); do
		(cd "$MNT" && fs_mark -d "$d/a" -d "$d/b" -d "$d/c" -d "$d/d" -t 1 -n 100 -s 0 -S 0) > /dev/null
		n=$((n + 1))
	done
	rm -rf "${MNT:?}/fsmark"
}
