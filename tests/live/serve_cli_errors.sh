#!/usr/bin/env bash
# bhscope serve on bad input and environment: a one-line error starting
# with "bhscope", the right exit status (64 usage, 1 environment), and no
# process or program left behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/serve.sh
require_root

tmp=$(mktemp -d /tmp/bhscope-serve-cli.XXXXXX)
on_exit "rm -rf '$tmp'"

expect_error listen_without_port 64 "invalid listen address '127.0.0.1'" \
	"$BHSCOPE" serve --listen 127.0.0.1
expect_error listen_port_too_big 64 "invalid listen address" \
	"$BHSCOPE" serve --listen 127.0.0.1:65536
expect_error listen_bare_ipv6 64 "want ADDR:PORT, \[ADDR\]:PORT" \
	"$BHSCOPE" serve --listen ::1:9747
expect_error nothing_to_serve 64 "--listen none needs --textfile" \
	"$BHSCOPE" serve --listen none
expect_error zero_interval 64 "interval: want seconds > 0" \
	"$BHSCOPE" serve --interval 0
expect_error lru_whatif_zero 64 "invalid --lru-whatif '0': want 1 to 256" \
	"$BHSCOPE" serve --lru-whatif 0
expect_error lru_whatif_too_big 64 "invalid --lru-whatif '257': want 1 to 256" \
	"$BHSCOPE" serve --lru-whatif 257
expect_error lru_timing_not_a_number 64 "invalid --lru-timing '8x'" \
	"$BHSCOPE" serve --lru-timing 8x
expect_error lru_duty_window_not_shorter 64 "invalid --lru-duty '60/60': want WINDOW/PERIOD" \
	"$BHSCOPE" serve --lru-duty=60/60
expect_error lru_duty_no_period 64 "invalid --lru-duty '2'" \
	"$BHSCOPE" serve --lru-duty=2
expect_error lru_duty_value_apart 64 "an optional value is joined: --lru-duty=2/60" \
	"$BHSCOPE" serve --lru-duty 2/60
expect_error lru_duty_without_lru 64 "--lru-duty needs the LRU source" \
	"$BHSCOPE" serve --jbd2 --lru-duty
expect_error extra_argument 64 "unexpected argument 'x'" "$BHSCOPE" serve x
expect_error unknown_option 64 "" "$BHSCOPE" serve --no-such-option
expect_error missing_config 1 "cannot read $tmp/none.conf" \
	"$BHSCOPE" serve --config "$tmp/none.conf"
printf 'interval = 5\nlisten = :1\n' > "$tmp/bad.conf"
expect_error bad_config_names_file_and_line 1 "$tmp/bad.conf:2: unknown setting 'listen'" \
	"$BHSCOPE" serve --config "$tmp/bad.conf"
expect_error missing_textfile_dir 1 "cannot open textfile directory $tmp/nodir" \
	"$BHSCOPE" serve --listen none --textfile "$tmp/nodir"
expect_error not_root 1 "need root, or CAP_BPF and CAP_PERFMON" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$BHSCOPE" serve --listen 127.0.0.1:0

# The port is taken by a first serve: the second says so and exits 1.
start_serve --jbd2
expect_error port_in_use 1 "cannot listen on ${SERVE_URL#http://}: Address already in use" \
	"$BHSCOPE" serve --listen "${SERVE_URL#http://}"
check first_serve_unharmed test "$(http_code "$SERVE_URL/metrics")" = 200

help_has() { "$BHSCOPE" serve --help | grep -q "$1"; }
check help_exits_zero help_has .
check help_has_examples help_has "^  bhscope serve "
check help_names_the_default_port help_has "127.0.0.1:9747"
check top_help_lists_serve bash -c "'$BHSCOPE' --help | grep -q '^  serve '"
finish
