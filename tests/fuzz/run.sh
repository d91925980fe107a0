#!/usr/bin/env bash
# Runs the libFuzzer targets built by `make fuzz-build` (build/fuzz/fuzz_*).
#
#   tests/fuzz/run.sh SECONDS [TARGET...]          make fuzz: FUZZ_S seconds each
#   tests/fuzz/run.sh --check SECONDS [TARGET...]  make check: briefly, from the seeds
#
# Each target starts from its seed corpus, tests/fuzz/TARGET/ (read only),
# and the inputs it found before, build/fuzz/corpus/TARGET/ (where new ones
# go); tests/fuzz/TARGET.dict, when there, is its dictionary. A crash (or
# leak, timeout, out-of-memory) stops that target: make fuzz copies the
# input into tests/fuzz/TARGET/ so that every later run, make check's
# included, replays it as a regression input; --check only names it.
# One line per target: its time, runs, coverage (edges) and findings.
set -euo pipefail
cd "$(dirname "$0")/../.."

check=false
if [[ ${1:-} == --check ]]; then
	check=true
	shift
fi
seconds=${1:?usage: run.sh [--check] SECONDS [TARGET...]}
shift
out=build/fuzz
if [[ $# -gt 0 ]]; then
	targets=("$@")
else
	targets=()
	for bin in "$out"/fuzz_*; do
		[[ -x $bin && $bin != *.d ]] && targets+=("${bin##*/fuzz_}")
	done
fi
[[ ${#targets[@]} -gt 0 ]] || { echo "bhscope: no fuzz targets in $out; run make fuzz-build" >&2; exit 1; }

failed=0
for t in "${targets[@]}"; do
	bin=$out/fuzz_$t
	seeds=tests/fuzz/$t
	corpus=$out/corpus/$t
	crashes=$out/crashes/$t
	log=$out/$t.log
	[[ -x $bin ]] || { echo "bhscope: $bin is not built; run make fuzz-build" >&2; exit 1; }
	mkdir -p "$corpus" "$crashes"
	$check && corpus=$(mktemp -d "$out/corpus-check.XXXXXX")
	# Inputs are a few KiB: an allocation of 256 MiB from one is a bug
	# (memory from tiny inputs), and so are 10 s spent on one.
	opts=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024
	      -malloc_limit_mb=256 -artifact_prefix="$crashes/" -print_final_stats=1)
	[[ -f tests/fuzz/$t.dict ]] && opts+=(-dict="tests/fuzz/$t.dict")
	rc=0
	# The first corpus directory is where libFuzzer writes what it finds.
	"$bin" "${opts[@]}" "$corpus" "$seeds" > "$log" 2>&1 || rc=$?
	$check && rm -rf "$corpus"
	runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
	cov=$(awk '{ for (i = 1; i < NF; i++) if ($i == "cov:") c = $(i + 1) } END { print c }' "$log")
	artifact=$(awk '/Test unit written to/ { a = $NF } END { print a }' "$log")
	if [[ $rc -eq 0 ]]; then
		echo "fuzz: $t: ${seconds} s, ${runs:-?} runs, cov ${cov:-?} edges, nothing found"
		continue
	fi
	failed=1
	echo "fuzz: $t: FOUND (exit $rc) after ${runs:-?} runs, cov ${cov:-?} edges; log $log"
	{ grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz_|.*runtime error)' "$log" || true; } |
		head -n 3 | sed 's/^/    /'
	if [[ -n $artifact && -f $artifact ]]; then
		if $check; then
			echo "    input: $artifact (make fuzz keeps such inputs in $seeds/)"
		else
			cp "$artifact" "$seeds/"
			echo "    input kept as a regression input: $seeds/${artifact##*/}"
		fi
	fi
done
exit "$failed"
