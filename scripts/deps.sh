#!/usr/bin/env bash
# Installs the Debian packages listed in a file, only those missing.
# Idempotent: when everything is present it touches nothing. Quiet: one
# line per package it installs; apt's own output only when apt fails.
set -euo pipefail
list=${1:?usage: deps.sh PACKAGE-LIST}

mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" | tr -d ' \t')
missing=()
for pkg in "${wanted[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[[ $status == installed ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
	echo "bhscope: missing Debian packages: ${missing[*]}; run 'make deps' as root or: apt-get install ${missing[*]}" >&2
	exit 1
fi
printf 'deps: installing %s\n' "${missing[@]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/bhscope-deps.XXXXXX)
trap 'rm -f "$log"' EXIT
# apt_quiet ARG...: apt-get with its output kept back, shown on failure.
apt_quiet() {
	if ! apt-get -q -o Dpkg::Use-Pty=0 "$@" > "$log" 2>&1; then
		echo "bhscope: apt-get $1 failed:" >&2
		grep -E '^(E|W): ' "$log" >&2 || tail -n 20 "$log" >&2
		exit 1
	fi
}
# A fresh machine has no package lists yet: refresh them once, then install.
apt_quiet update
apt_quiet install -y --no-install-recommends "${missing[@]}"
