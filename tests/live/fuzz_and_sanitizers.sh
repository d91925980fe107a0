#!/usr/bin/env bash
# The fuzzing harness in make check (issue 15): each libFuzzer target
# replays its seed corpus and every crash kept there (tests/fuzz/TARGET/),
# then fuzzes briefly (FUZZ_CHECK_S seconds, default 8); and the unit tests
# run again built with AddressSanitizer and UBSan (a qsort(NULL, 0) or an
# overflow is an abort there). `make fuzz FUZZ_S=N` fuzzes for longer.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh

shopt -s nullglob
bins=(build/fuzz/fuzz_*)
units=(build/fuzz/tests/test_*)
[[ ${#bins[@]} -gt 0 && ${#units[@]} -gt 0 ]] ||
	skip_all "the sanitizer builds are missing: make fuzz-build (needs clang-19 and libclang-rt-19-dev)"

for t in "${units[@]}"; do
	[[ -x $t && $t != *.d ]] || continue
	name=${t##*/}
	log=build/fuzz/$name.log
	if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$t" > "$log" 2>&1
	then pass "sanitized/$name"
	else fail "sanitized/$name" "$(grep -m 3 -E 'runtime error|ERROR: |FAILED' "$log" | tr '\n' ' ') (log $log)"; fi
done

while read -r line; do
	target=${line#fuzz: }
	target=${target%%:*}
	echo "$line"
	if [[ $line == *"nothing found"* ]]; then pass "fuzz/$target"
	elif [[ $line == "fuzz: "* ]]; then fail "fuzz/$target" "${line#fuzz: }"; fi
done < <(tests/fuzz/run.sh --check "${FUZZ_CHECK_S:-8}" || true)
finish
