#!/usr/bin/env bash
# make bench: every overhead benchmark this machine can run, one table each,
# results as JSON under build/bench/. BENCH_SMOKE=1 for a quick pass.
set -euo pipefail
cd "$(dirname "$0")/../.."
smoke=()
[[ ${BENCH_SMOKE:-0} == 1 ]] && smoke=(--smoke)
python3 tools/bench/bench_jbd2.py "${smoke[@]}"
