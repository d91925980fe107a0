#!/usr/bin/env bash
# The habits of bpftool and libbpf-tools (issue 33 item 10): every command
# takes -h (as -? and --help) and prints its usage on stdout, exit 0;
# -V and --version work at the top and after any command, and say the
# libbpf in use and the build's features, as bpftool -V.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
[[ -x $BHSCOPE ]] || skip_all "$BHSCOPE is not built (make)"

mapfile -t commands < <("$BHSCOPE" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[[ ${#commands[@]} -ge 8 ]] || fail command_list "bhscope --help lists ${#commands[@]} commands"

# version_ok OUT: bhscope's version line, then libbpf's and the features.
version_ok() {
	[[ $(sed -n 1p <<< "$1") =~ ^bhscope\ [0-9] ]] &&
		[[ $(sed -n 2p <<< "$1") =~ ^using\ libbpf\ v[0-9]+\.[0-9]+ ]] &&
		[[ $(sed -n 3p <<< "$1") == features:\ skeletons* ]]
}

for c in "${commands[@]}"; do
	rc=0
	out=$("$BHSCOPE" "$c" -h 2>&1) || rc=$?
	if [[ $rc -eq 0 && $out == "Usage: bhscope $c "* ]]; then pass "${c}_takes_h"
	else fail "${c}_takes_h" "exit $rc: $(head -n 2 <<< "$out")"; fi
	for v in -V --version; do
		rc=0
		out=$("$BHSCOPE" "$c" "$v" 2>&1) || rc=$?
		if [[ $rc -eq 0 ]] && version_ok "$out"; then pass "${c}_takes_${v#--}"
		else fail "${c}_takes_${v#--}" "exit $rc: $(head -n 3 <<< "$out")"; fi
	done
done
for v in -V --version; do
	rc=0
	out=$("$BHSCOPE" "$v" 2>&1) || rc=$?
	if [[ $rc -eq 0 ]] && version_ok "$out"; then pass "top_level_takes_${v#--}"
	else fail "top_level_takes_${v#--}" "exit $rc: $out"; fi
done
finish
