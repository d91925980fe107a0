#!/usr/bin/env bash
# Installs the Debian packages listed in a file, only those missing.
# Idempotent: when everything is present it touches nothing.
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
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet: refresh them once, then install.
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
